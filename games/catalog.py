"""What the service knows of each game, as data: names and the players a table may seat.

Pure Python (no Django), shared by the models, the seating draw and the engine's callers.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameInfo:
    code: str
    name: str
    min_players: int
    max_players: int


GAMES: dict[str, GameInfo] = {
    # rules/mu.md: 3–6 players
    "mu": GameInfo("mu", "Mü", 3, 6),
    # rules/maumau.md: 2–6 players
    "maumau": GameInfo("maumau", "Dynamisches Maumau", 2, 6),
    # rules/list-und-tuecke.md: 4–6 players
    "lut": GameInfo("lut", "Mit List und Tücke", 4, 6),
}

GAME_CHOICES = [(info.code, info.name) for info in GAMES.values()]
