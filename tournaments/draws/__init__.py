"""Who sits where: the seating algorithms (``seating``, pure Python), the draw of a round (``services``) and the tables of an open club night (``open_nights``)."""
