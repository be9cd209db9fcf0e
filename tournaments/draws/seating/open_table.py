"""The next table of an open club night: who of the waiting players should sit together.

No draw at an open night: players arrive, a table opens as soon as enough are free. The organiser
asks for a suggestion; it seats the player who has waited longest (fewest tables tonight, then
first in the queue) with the free players he has met least, tonight first (objective 1's
``repeat_cost`` on tonight's meetings), then over the season, then those who played fewest
tables tonight; ``seat_tables`` orders the seats and the first dealer as a drawn table's.
"""
from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from math import comb

from .costs import repeat_cost
from .history import DrawTable, MeetingHistory
from .players import Player, as_rng
from .seat_order import seat_tables
from .sizes import GAME_SIZES

# All groups are compared exactly up to this many; beyond it the table is filled greedily.
EXACT_LIMIT = 5_000


def open_table_size(game: str, free: int) -> int | None:
    """The size of the next table for ``free`` waiting players: the largest of the game's best
    sizes that they fill, else all of them when they are enough for a table at all."""
    rule = GAME_SIZES[game]
    best = [size for size in rule.best if size <= free]
    if best:
        return max(best)
    return free if free >= min(rule.allowed) else None


def suggest_open_table(
    queue: Sequence[Player], size: int, *, tonight: MeetingHistory, season: MeetingHistory,
    tables_tonight: Mapping[Player, int] | None = None, rng: random.Random | int | None = 0,
) -> DrawTable | None:
    """``size`` players of ``queue`` (the free players, who waited longest first) in seat order
    with the first dealer; None when fewer are waiting."""
    if size < 1 or len(queue) < size:
        return None
    rng = as_rng(rng)
    tables_tonight = tables_tonight or {}
    position = {player: index for index, player in enumerate(queue)}
    first = min(queue, key=lambda p: (tables_tonight.get(p, 0), position[p]))
    others = [p for p in queue if p != first]

    def cost(group: Sequence[Player]) -> tuple:
        pairs = list(itertools.combinations(group, 2))
        return (
            sum(repeat_cost(tonight.met(a, b)) for a, b in pairs),
            sum(season.met(a, b) for a, b in pairs),
            sum(tables_tonight.get(p, 0) for p in group),
            sum(position[p] for p in group),
        )

    if comb(len(others), size - 1) <= EXACT_LIMIT:
        best = min(itertools.combinations(others, size - 1), key=lambda rest: cost((first, *rest)))
        group = [first, *best]
    else:
        group = [first]
        while len(group) < size:
            group.append(min((p for p in others if p not in group), key=lambda p: cost((*group, p))))
    return seat_tables([group], tonight, rng)[0]

