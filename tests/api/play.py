"""Helpers for API tests that play whole sessions from generated legal records."""
from __future__ import annotations

import random
from importlib import import_module

from games.rules import validate


def next_record(game: str, rng: random.Random, players: int, session: dict, first_dealer: int | None = None) -> dict:
    """A legal record that continues the session as the API describes it (``session["next"]``);
    before the first hand, dealt by the table's drawn ``first_dealer`` when it has one."""
    simulate = import_module(f"games.simulate.{game}")
    following = session["next"] if session else {"dealer": first_dealer, "direction": 1}
    dealer = following["dealer"] if following["dealer"] is not None else rng.randrange(players)
    if game == "maumau":
        return simulate.random_record(rng, players, dealer=dealer, direction=following["direction"] or 1)
    return simulate.random_record(rng, players, dealer=dealer)


def play_session(client, table, game: str, rng: random.Random, *, limit: int = 50):
    """Submit hands until the session finishes; returns the records and the engine's answers."""
    url = f"/api/v1/tables/{table.pk}/hands/"
    session = client.get(url).json()["session"]
    records, answers = [], []
    players = table.seats.count()
    while (session is None or session["status"] == "open") and len(records) < limit:
        record = next_record(game, rng, players, session, table.first_dealer)
        response = client.post(url, record, format="json")
        assert response.status_code == 201, response.content
        records.append(record)
        answers.append(validate(record))
        session = response.json()["session"]
    return records, answers, session
