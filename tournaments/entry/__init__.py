"""What comes into an event besides results: registrations through the public link
(``registration``), players from a CSV file (``players_csv``) and the round's clock (``clock``).
Writers like ``services``: each write one transaction with its audit row."""
