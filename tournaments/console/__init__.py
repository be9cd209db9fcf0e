"""The organisers' console under ``/console/``: one place to run a club evening from a phone or a
laptop (events, players and who is present, draws, the board of tables during play, corrections,
held rounds, Maumau money).

Server-rendered pages with a little plain JavaScript. The console is another front door to the
same domain as the API: every read goes through ``policy.Visibility``, every permission through
``policy.may`` and every write through the services (``via="page"`` in the audit trail).
"""
