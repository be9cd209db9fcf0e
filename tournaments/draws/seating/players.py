"""Players, pairs of players and the random generator: what every algorithm of the draw takes.

Players are any hashable values (usually ids); nothing here knows about the database.
"""
from __future__ import annotations

import random
from collections.abc import Hashable

Player = Hashable


def pair_key(a: Player, b: Player) -> frozenset:
    """The key of an unordered pair of players in the meeting counts."""
    return frozenset((a, b))


def as_rng(rng: random.Random | int | None) -> random.Random:
    """The generator itself, or a new one seeded with ``rng`` (None: seeded by the system), so
    that the same seed always gives the same draw."""
    if isinstance(rng, random.Random):
        return rng
    return random.Random(rng)
