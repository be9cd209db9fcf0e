"""The cost of seating a round: the objectives of the draw as integer weights.

The levels are in strict priority (see the package's docstring): each level's unit exceeds the
largest total the levels below it can reach in one round, so one integer sum compares two
seatings level by level.
"""
from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from .history import MeetingHistory
from .players import Player, pair_key


def repeat_cost(meetings: int, last_round: bool = False) -> int:
    """Objective 1 for seating a pair that has met ``meetings`` times (0 for a first meeting)."""
    cost = meetings * (meetings + 3)
    return 3 * cost if last_round else cost


def rank_positions(standings) -> dict:
    """Standings as dense rank positions: a sequence is read best first; a mapping gives each
    player a sortable value (equal values share a position)."""
    if standings is None:
        return {}
    if isinstance(standings, Mapping):
        values = sorted(set(standings.values()))
        position = {v: i for i, v in enumerate(values)}
        return {p: position[v] for p, v in standings.items()}
    return {p: i for i, p in enumerate(standings)}


@dataclass(frozen=True)
class RoundCosts:
    """The costs of one round over players 0..n-1 at tables of ``sizes``.

    ``pair[i][j]`` is the cost of seating players i and j at one table (levels 1 and 3),
    ``off_size[i]`` player i's cost at an off-size table (level 2), ``off_table[t]`` whether
    table t has an off-size."""

    sizes: list[int]
    pair: list[list[int]]
    off_size: list[int]
    off_table: list[bool]

    def of(self, groups) -> int:
        """The cost of seating ``groups`` (player indices per table, in the order of ``sizes``)."""
        cost = 0
        pair, off_size = self.pair, self.off_size
        for t, group in enumerate(groups):
            for x, y in itertools.combinations(group, 2):
                cost += pair[x][y]
            if self.off_table[t]:
                cost += sum(off_size[x] for x in group)
        return cost

    def lower_bound(self) -> int:
        """The least off-size cost of any seating: the players cheapest off-size fill the
        off-size seats."""
        off_seats = sum(k for k, off in zip(self.sizes, self.off_table) if off)
        return sum(sorted(self.off_size)[:off_seats])


def off_size_tables(sizes: Sequence[int], best: Sequence[int]) -> list[bool]:
    """For each table size, whether it is off-size (never when ``best`` is empty)."""
    return [bool(best) and k not in best for k in sizes]


def round_costs(
    players: Sequence[Player],
    sizes: Sequence[int],
    history: MeetingHistory,
    clubs: Mapping[Player, Hashable] | None = None,
    separate_clubs: bool = False,
    standings=None,
) -> RoundCosts:
    """The costs of seating ``players`` at tables of ``sizes`` after ``history``, with the
    objectives' strict priority built into the weights."""
    n = len(players)
    seated_pairs = sum(k * (k - 1) // 2 for k in sizes)
    rank = rank_positions(standings)
    rank_span = (max(rank.values()) + 1) if rank else 0
    use_clubs = bool(separate_clubs and clubs)
    club_unit = seated_pairs * rank_span + 1
    level3_max = seated_pairs * (club_unit if use_clubs else 0) + seated_pairs * rank_span
    off_unit = level3_max + 1
    off_counts = [history.off_size.get(p, 0) for p in players]
    off_seats = sum(k for k in sizes if history.best and k not in history.best)
    repeat_unit = off_unit * max(off_counts, default=0) * off_seats + level3_max + 1
    pair = [[0] * n for _ in range(n)]
    meetings, last = history.meetings, history.last_round
    for i in range(n):
        a = players[i]
        pair_i = pair[i]
        club_a = clubs.get(a) if use_clubs else None
        rank_a = rank.get(a)
        for j in range(i + 1, n):
            b = players[j]
            cost = 0
            if meetings:
                key = pair_key(a, b)
                m = meetings.get(key, 0)
                if m:
                    cost = repeat_unit * repeat_cost(m, key in last)
            if club_a is not None and clubs.get(b) == club_a:
                cost += club_unit
            if rank_a is not None and rank.get(b) is not None:
                cost += abs(rank_a - rank[b])
            pair_i[j] = cost
            pair[j][i] = cost
    return RoundCosts(
        sizes=list(sizes),
        pair=pair,
        off_size=[off_unit * c for c in off_counts],
        off_table=off_size_tables(sizes, history.best),
    )
