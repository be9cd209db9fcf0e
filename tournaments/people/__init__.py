"""A player's own side: his personal code and the phones bound by it (``codes``, ``services``,
``identity``), his statistics and head-to-head (``stats``) and the export of his data
(``export``)."""
