"""The rule engine: pure Python, no Django, no I/O.

``validate(record)`` judges one hand record of ``../shared/records.md`` and returns the engine's
answer, or raises ``RecordError`` with a code, a message and the JSON Pointer of the first
offending element. ``validate_series`` settles a Maumau series.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

from .errors import Code, IllegalMove, MalformedRecord, RecordError

__all__ = ["GAMES", "Code", "IllegalMove", "MalformedRecord", "RecordError", "validate", "validate_series"]

# game code → module of this package that exports ``validate(record) -> dict``
GAMES = {"mu": "mu", "maumau": "maumau", "lut": "lut"}
_engines: dict[str, Any] = {}


def _engine(game: str):
    engine = _engines.get(game)
    if engine is None:
        engine = _engines[game] = import_module(f"{__name__}.{GAMES[game]}")
    return engine


def validate(record: Any) -> dict:
    """Validate one hand record and return the engine's answer (records.md)."""
    if not isinstance(record, dict):
        raise RecordError(Code.NOT_AN_OBJECT, "a hand record must be a JSON object", "")
    game = record.get("game")
    if game is None:
        raise RecordError(Code.MISSING_MEMBER, "game is required (mu, maumau or lut)", "/game")
    if not isinstance(game, str) or game not in GAMES:
        raise RecordError(Code.UNKNOWN_GAME, f"game must be one of mu, maumau, lut; got {game!r}", "/game",
                          {"value": game})
    return _engine(game).validate(record)


def validate_series(series: Any) -> dict:
    """Validate a Maumau series (records.md) and settle its money in cents."""
    return _engine("maumau").validate_series(series)
