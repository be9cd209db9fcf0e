"""Seating by standings: the ``standings`` and ``interval`` methods of a round's draw.

Both read the players best first with their rank (players level on every metric share a rank)
and keep the game's table sizes (``sizes``, as ``plan_byes`` gives them; largest first):

- ``standings_groups``: the tables are filled in standings order, table 1 with the top players
  (a Swiss round: the leaders play each other);
- ``interval_groups``: the players are dealt round the tables in standings order, as
  MahjongPantheon's interval seating: with four tables, 1-5-9-13 at table 1, 2-6-10-14 at
  table 2 (a table that is full is skipped when the sizes differ), so every table has a spread
  of the field.

The standings decide; the only freedom left is among players who share a rank: they are
exchanged between tables (``break_ties``) while that lowers the cost of repeated meetings
(``costs.repeat_cost``, a repeat from the previous round weighing three times), so ties are
broken by fewest repeats.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from .costs import repeat_cost
from .history import MeetingHistory
from .players import Player, pair_key


def _pair_cost(history: MeetingHistory, a: Player, b: Player) -> int:
    key = pair_key(a, b)
    meetings = history.meetings.get(key, 0)
    return repeat_cost(meetings, key in history.last_round) if meetings else 0


def repeat_total(groups: Sequence[Sequence[Player]], history: MeetingHistory) -> int:
    """The repeat cost of seating ``groups`` after ``history`` (0 when every pair is new)."""
    return sum(_pair_cost(history, a, b) for group in groups
               for i, a in enumerate(group) for b in group[i + 1:])


def break_ties(groups: list[list[Player]], ranks: Mapping[Player, int], history: MeetingHistory) -> list[list[Player]]:
    """Exchange players of equal rank between tables while the exchange lowers the repeat cost
    (the best exchange first, until none helps). The standings order of the tables is kept: only
    players who share a rank trade places."""
    groups = [list(group) for group in groups]
    while True:
        best = None
        for x, first in enumerate(groups):
            for y in range(x + 1, len(groups)):
                second = groups[y]
                for i, a in enumerate(first):
                    for j, b in enumerate(second):
                        if ranks[a] != ranks[b]:
                            continue
                        before = (sum(_pair_cost(history, a, c) for c in first if c != a)
                                  + sum(_pair_cost(history, b, c) for c in second if c != b))
                        after = (sum(_pair_cost(history, b, c) for c in first if c != a)
                                 + sum(_pair_cost(history, a, c) for c in second if c != b))
                        gain = before - after
                        if gain > 0 and (best is None or gain > best[0]):
                            best = (gain, x, i, y, j)
        if best is None:
            return groups
        _, x, i, y, j = best
        groups[x][i], groups[y][j] = groups[y][j], groups[x][i]


def _check(order: Sequence[Player], sizes: Sequence[int], ranks: Mapping[Player, int]) -> None:
    if sum(sizes) != len(order) or len(set(order)) != len(order):
        raise ValueError(f"table sizes {list(sizes)} do not seat the {len(order)} players once each")
    missing = [p for p in order if p not in ranks]
    if missing:
        raise ValueError(f"players without a rank: {missing}")


def standings_groups(order: Sequence[Player], sizes: Sequence[int], ranks: Mapping[Player, int],
                     history: MeetingHistory | None = None) -> list[list[Player]]:
    """Tables of ``sizes`` filled in standings order (``order``: best first; ``ranks``: each
    player's rank, shared by players level on every metric), ties broken by fewest repeats."""
    _check(order, sizes, ranks)
    groups, position = [], 0
    for size in sizes:
        groups.append(list(order[position:position + size]))
        position += size
    return break_ties(groups, ranks, history or MeetingHistory())


def interval_groups(order: Sequence[Player], sizes: Sequence[int], ranks: Mapping[Player, int],
                    history: MeetingHistory | None = None) -> list[list[Player]]:
    """The players dealt round the tables in standings order (1-5-9-13 / 2-6-10-14 … with four
    tables), a full table skipped; ties broken by fewest repeats."""
    _check(order, sizes, ranks)
    groups: list[list[Player]] = [[] for _ in sizes]
    table = 0
    for player in order:
        while len(groups[table]) >= sizes[table]:
            table = (table + 1) % len(sizes)
        groups[table].append(player)
        table = (table + 1) % len(sizes)
    return break_ties(groups, ranks, history or MeetingHistory())
