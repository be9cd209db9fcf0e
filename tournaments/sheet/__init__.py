"""The table's side of a club evening: the score sheet on a phone and the printed table cards.

- ``/t/<scorer_token>/``: the table's private link (the QR code on its card). Any phone opens the
  sheet without an account; the page sends the token as ``X-Scorer-Token`` to the results API.
- ``/my-table/``: a logged-in player's tables (open sessions where he is seated), each with the
  same sheet, sent with his own login instead of the token.
- ``/rounds/<id>/cards/``: the round's table cards for the organisers, laid out for A4.

The pages only read (through ``tournaments.policy``); every write goes through the API, so the
sheet and any other client obey the same services. The sheet's JavaScript (``static/stich/
sheet*.js``) keeps entered hands on the phone until the server has them (``Idempotency-Key``).
"""
