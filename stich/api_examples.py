"""Request examples of the API's write operations, by operation id (added to the description by
``stich.schema``; the hand-record operations bring the engine's own examples, ``games.api``).

Ids in the examples (club 1, players 1 to 8, event 1, round 1, table 1, series 1, user 2) stand for
objects of the reader's own; ``tests/api/test_examples.py`` sends every example to the service with
the ids of a test club and checks the documented answer.
"""
from __future__ import annotations

CLUB = {"name": "Stichclub Köln", "city": "Köln", "organisers": [2]}
PLAYER = {"name": "Katrin Zimmermann", "distinction": "Ehrenfeld", "initials_only": False, "clubs": [1]}
EVENT = {"club": 1, "name": "Maumau im März", "game": "maumau", "format": "rounds", "starts_on": "2026-03-12",
         "published": True, "organisers": [2], "maumau_games_per_series": 8, "maumau_stake_cents": 10,
         "standings_metrics": "placement,total,wins", "confirm_hands": True}
SERIES = {"club": 1, "name": "Saison 2026", "game": "maumau", "season_from": "2026-01-01", "season_to": "2026-12-31",
          "scoring": "placement", "best_of": 8, "min_events": 3}
TABLE = {"round": 1, "players": [1, 2, 3, 4], "number": 1, "first_dealer": 0}

# operation id -> [(summary, body)]
EXAMPLES: dict[str, list[tuple[str, dict]]] = {
    "clubs_create": [("A club and its organiser", CLUB)],
    "clubs_update": [("Rename a club", CLUB)],
    "clubs_partial_update": [("Move a club", {"city": "Bonn"})],
    "players_create": [("A player of the club", PLAYER)],
    "players_update": [("Change a player", PLAYER)],
    "players_partial_update": [("Show only the initials", {"initials_only": True})],
    "me_player_partial_update": [("Show me by my initials only", {"initials_only": True})],
    "events_create": [("A Maumau evening with a stake", EVENT)],
    "events_update": [("Change an event", EVENT)],
    "events_partial_update": [("Publish an event", {"published": True})],
    "series_create": [("A season of Maumau evenings", SERIES)],
    "series_update": [("Change a series", SERIES)],
    "series_partial_update": [("Count the best six evenings", {"best_of": 6})],
    "rounds_create": [("The next round of an event", {"event": 1})],
    "rounds_update": [("Hold back a round's results", {"event": 1, "number": 1, "results_held": True})],
    "rounds_partial_update": [("Release a round's results", {"results_held": False})],
    "rounds_draw_create": [
        ("Draw for the present players", {"players": [1, 2, 3, 4, 5, 6, 7, 8], "seed": 42}),
        ("A late arrival and a dropout", {"add": [9], "remove": [8]}),
        ("Seat by standings, the leaders together", {"players": [1, 2, 3, 4, 5, 6, 7, 8], "method": "standings"}),
        ("Spread the standings over the tables", {"players": [1, 2, 3, 4, 5, 6, 7, 8], "method": "interval"}),
    ],
    "rounds_draw_swap_create": [("Swap two players of the draw", {"a": 1, "b": 5})],
    "tables_create": [("A table seated by hand", TABLE)],
    "tables_update": [("Seat a table anew", TABLE)],
    "tables_partial_update": [("Another first dealer", {"first_dealer": 2})],
    "sessions_abandon_create": [("Abandon a session", {"reason": "Two players had to leave."})],
    "transfers_unpaid_create": [("Take back a paid mark", {"reason": "Ticked the wrong line."})],
    "hands_void_create": [("Void a hand", {"reason": "Dealt twice by mistake."})],
    "hands_confirm_create": [("Confirm as an organiser", {}), ("Confirm on the table's device", {"seat": 1})],
    "hands_dispute_create": [("Dispute on the table's device", {"seat": 1, "reason": "The bids were 3 and 1."})],
    "events_open_table_create": [("Open a table for four", {"players": [1, 2, 3, 4]})],
    "events_seating_script_update": [("Two rounds of eight players by start number", {
        "script": "round;table;players\n1;1;1;2;3;4\n1;2;5;6;7;8\n2;1;1;5;2;6\n2;2;3;7;4;8\n"})],
}
