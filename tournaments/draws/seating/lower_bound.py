"""The fewest repeated pairs any draw of a round can have: what a draw is measured against.

``repeat_lower_bound`` is the figure the draw's quality report gives beside the repeated pairs of
the draw itself (``tournaments.draws.services``): a min-cost flow per earlier round (groups of players who
sat together then, to the new tables), solved exactly by successive shortest paths.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence

from .history import MeetingHistory


def repeat_lower_bound(history: MeetingHistory, sizes: Sequence[int], players: Sequence[Hashable]) -> int:
    """The fewest repeated pairs (as ``seating.quality`` counts them) that any draw of ``players``
    at tables of ``sizes`` can have after ``history``: what an organiser compares the draw with.

    For one earlier round, the players fall into the groups that sat together then; a new table
    that takes ``x`` players of one group repeats C(x, 2) pairs. Which players of a group go where
    does not matter for that round, so the least number of its pairs seated together again is a
    transportation problem with convex costs (groups to tables), solved exactly by sending one
    player at a time along the cheapest path (a new meeting costs as many pairs as the table
    already holds of that group; moving a player back frees as many). Pairs may have met in
    several rounds, so the bound is the largest of these per-round minima: exact for the second
    round (12 Mü players at three tables of 4: 3 pairs), a lower bound later on.
    """
    present = set(players)
    if sum(sizes) != len(present):
        raise ValueError("the table sizes must seat exactly the players")
    best = 0
    for played in history.played:
        groups = [n for n in (sum(1 for p in table if p in present) for table in played) if n > 1]
        if groups:
            best = max(best, _least_group_pairs(groups, list(sizes)))
    return best


def _least_group_pairs(groups: list[int], sizes: list[int]) -> int:
    """min over placements of ``groups`` (counts of players) into tables of ``sizes`` (other
    players fill the rest) of the sum of C(x, 2) over tables and groups: successive shortest
    paths on the residual graph, one player per path."""
    placed = [[0] * len(sizes) for _ in groups]
    free = list(sizes)
    left = list(groups)
    for _ in range(sum(groups)):
        # Bellman–Ford from every group with players left; nodes: ("g", i) and ("t", j).
        inf = float("inf")
        dist = {("g", i): (0 if left[i] else inf) for i in range(len(groups))}
        dist.update({("t", j): inf for j in range(len(sizes))})
        parent: dict = {}
        for _ in range(len(groups) + len(sizes)):
            changed = False
            for i in range(len(groups)):
                for j in range(len(sizes)):
                    # group i -> table j: one more player of i at j costs placed[i][j] new pairs
                    if dist[("g", i)] + placed[i][j] < dist[("t", j)]:
                        dist[("t", j)], parent[("t", j)] = dist[("g", i)] + placed[i][j], ("g", i)
                        changed = True
                    # table j -> group i (take a player of i away from j): saves placed[i][j] - 1
                    if placed[i][j] and dist[("t", j)] - (placed[i][j] - 1) < dist[("g", i)]:
                        dist[("g", i)], parent[("g", i)] = dist[("t", j)] - (placed[i][j] - 1), ("t", j)
                        changed = True
            if not changed:
                break
        target = min((j for j in range(len(sizes)) if free[j]), key=lambda j: dist[("t", j)])
        node = ("t", target)
        free[target] -= 1
        while node in parent:
            previous = parent[node]
            if node[0] == "t":
                placed[previous[1]][node[1]] += 1
            else:
                placed[node[1]][previous[1]] -= 1
            if previous[0] == "g" and previous not in parent:
                left[previous[1]] -= 1
            node = previous
    return sum(x * (x - 1) // 2 for row in placed for x in row)
