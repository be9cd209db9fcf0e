"""Whole schedules: a tabu search over swaps of two players inside the rounds still free.

The cost, in strict priority: the sum over pairs of C(meetings, 2) (history included) plus
twice the number of pairs seated together in two consecutive rounds; then the sum over players
of C(off-size rounds, 2). With a fixed number of meetings in all, the first sum is least when
every pair meets q or q+1 times, so the moves are aimed at the defects: a pair meeting more than
q+1 times or together in consecutive rounds is split up (one of the two swaps with anybody at
another table), a pair meeting fewer than q times is brought together (one of the two swaps
with a tablemate of the other), a player off-size too often swaps with a player at a best-size
table. The best non-tabu move is taken even when it costs; a long stall shakes the best
schedule with a few random swaps.
"""
from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass

from .costs import off_size_tables
from .groups import table_index


@dataclass(frozen=True)
class PriorRounds:
    """What the rounds before the schedule left, for players 0..n-1: ``meetings[i][j]`` (how
    often i and j met), ``previous_table[i]`` (i's table in the round just before, distinct
    negative values for players without one; None without such a round), ``off_size[i]`` (i's
    rounds at an off-size table) and the game's ``best_sizes``."""

    meetings: list[list[int]]
    previous_table: list[int] | None
    off_size: list[int]
    best_sizes: tuple[int, ...]


@dataclass(frozen=True)
class SearchLimits:
    """When the search stops: after ``max_swaps`` swaps or at ``deadline``
    (a ``time.perf_counter()`` value), whichever comes first."""

    max_swaps: int
    deadline: float


@dataclass
class ScheduleState:
    """A schedule under search with its counts kept in step: for each round, each player's
    table (``table_of``) and each table's players (``members``); the pair meetings over the
    history and the schedule (``meetings``); each player's off-size rounds (``off_rounds``,
    history and free rounds); which tables are off-size (``off_table``)."""

    table_of: list[list[int]]
    members: list[list[list[int]]]
    meetings: list[list[int]]
    off_rounds: list[int]
    off_table: list[bool]

    @classmethod
    def start(cls, schedule, fixed_rounds: int, sizes, prior: PriorRounds) -> ScheduleState:
        n = len(prior.off_size)
        state = cls(
            table_of=[table_index(round_, n) for round_ in schedule],
            members=[[list(g) for g in round_] for round_ in schedule],
            meetings=[row[:] for row in prior.meetings],
            off_rounds=prior.off_size[:],
            off_table=off_size_tables(sizes, prior.best_sizes),
        )
        meetings, off_rounds, off_table = state.meetings, state.off_rounds, state.off_table
        for r, round_ in enumerate(schedule):
            for t, group in enumerate(round_):
                for x, y in itertools.combinations(group, 2):
                    meetings[x][y] += 1
                    meetings[y][x] += 1
                if r >= fixed_rounds and off_table[t]:
                    for x in group:
                        off_rounds[x] += 1
        return state

    def swap(self, r: int, i: int, j: int) -> None:
        """Swap players i and j (at different tables) in round r."""
        table = self.table_of[r]
        meetings = self.meetings
        a, b = table[i], table[j]
        # each of the two leaves the tablemates he had and takes over the other's
        for leaving, arriving, left in ((i, j, a), (j, i, b)):
            for x in self.members[r][left]:
                if x != leaving:
                    meetings[leaving][x] -= 1
                    meetings[x][leaving] -= 1
                    meetings[arriving][x] += 1
                    meetings[x][arriving] += 1
        self.members[r][a].remove(i)
        self.members[r][a].append(j)
        self.members[r][b].remove(j)
        self.members[r][b].append(i)
        table[i], table[j] = b, a
        if self.off_table[a] != self.off_table[b]:
            step = 1 if self.off_table[b] else -1
            self.off_rounds[i] += step
            self.off_rounds[j] -= step

    def restore(self, best: list[list[int]], fixed_rounds: int) -> None:
        """Bring the free rounds back to ``best`` (each player's table per round) by swaps."""
        for r in range(fixed_rounds, len(self.table_of)):
            table = self.table_of[r]
            for i in range(len(table)):
                if table[i] != best[r][i]:
                    j = next(j for j in self.members[r][best[r][i]] if best[r][j] != table[j])
                    self.swap(r, i, j)


def choose2(c: int) -> int:
    return c * (c - 1) // 2


def balanced_lower_bound(total: int, slots: int) -> int:
    """The least sum of C(c, 2) over ``slots`` counts adding up to ``total``."""
    if slots <= 0:
        return 0
    q, r = divmod(total, slots)
    return (slots - r) * choose2(q) + r * choose2(q + 1)


def improve_schedule(
    schedule,
    fixed_rounds: int,
    sizes,
    prior: PriorRounds,
    rng: random.Random,
    limits: SearchLimits,
) -> tuple[list[list[list[int]]], int, int]:
    """Improve the rounds ``schedule[fixed_rounds:]`` (groups of player indices, each round
    ordered like ``sizes``; earlier rounds stay as they are) after ``prior``.

    Returns the best schedule found, its cost and a lower bound of the cost (the search stops
    early when it reaches it)."""
    n = len(prior.off_size)
    rounds = len(schedule)
    table_count = len(sizes)
    free = list(range(fixed_rounds, rounds))
    if not free or table_count < 2:
        return schedule, 0, 0
    previous = prior.previous_table
    state = ScheduleState.start(schedule, fixed_rounds, sizes, prior)
    table_of, members, meetings = state.table_of, state.members, state.meetings
    off_rounds, off_table = state.off_rounds, state.off_table
    pair_slots = n * (n - 1) // 2
    pair_total = sum(meetings[x][y] for x in range(n) for y in range(x + 1, n))
    low = pair_total // pair_slots
    off_total = sum(off_rounds)
    off_high = -(-off_total // n)
    # one unit of the first level outweighs the largest possible off-size sum
    unit = n * (max(prior.off_size, default=0) + rounds) ** 2 + 1
    neighbours = []
    for r in range(rounds):
        near = []
        if r > 0:
            near.append(table_of[r - 1])
        elif previous is not None:
            near.append(previous)
        if r + 1 < rounds:
            near.append(table_of[r + 1])
        neighbours.append(near)

    def total_cost():
        pairs = sum(choose2(meetings[x][y]) for x in range(n) for y in range(x + 1, n))
        consecutive = 0
        for r in range(rounds):
            before = table_of[r - 1] if r > 0 else previous
            if before is None or r < fixed_rounds:
                continue
            for group in members[r]:
                consecutive += sum(1 for x, y in itertools.combinations(group, 2) if before[x] == before[y])
        return unit * (pairs + 2 * consecutive) + sum(choose2(c) for c in off_rounds)

    def swap_delta(r, i, j):
        table = table_of[r]
        a, b = table[i], table[j]
        meetings_i, meetings_j = meetings[i], meetings[j]
        pairs = consecutive = 0
        near = neighbours[r]
        for x in members[r][a]:
            if x != i:
                pairs += meetings_j[x] - meetings_i[x] + 1
                for t in near:
                    consecutive += (t[x] == t[j]) - (t[x] == t[i])
        for y in members[r][b]:
            if y != j:
                pairs += meetings_i[y] - meetings_j[y] + 1
                for t in near:
                    consecutive += (t[y] == t[i]) - (t[y] == t[j])
        delta = unit * (pairs + 2 * consecutive)
        if off_table[a] != off_table[b]:
            step = 1 if off_table[b] else -1
            delta += choose2(off_rounds[i] + step) - choose2(off_rounds[i])
            delta += choose2(off_rounds[j] - step) - choose2(off_rounds[j])
        return delta

    def candidate_moves():
        moves = set()
        for r in free:
            table = table_of[r]
            groups = members[r]
            near = neighbours[r]
            for a, group in enumerate(groups):
                for x, y in itertools.combinations(group, 2):
                    if meetings[x][y] > low + 1 or any(t[x] == t[y] for t in near):
                        for p in (x, y):
                            for j in range(n):
                                if table[j] != a:
                                    moves.add((r, p, j) if p < j else (r, j, p))
                if off_table[a]:
                    for x in group:
                        if off_rounds[x] > off_high:
                            for j in range(n):
                                if not off_table[table[j]]:
                                    moves.add((r, x, j) if x < j else (r, j, x))
        if low:
            for x in range(n):
                meetings_x = meetings[x]
                for y in range(x + 1, n):
                    if meetings_x[y] < low:
                        for r in free:
                            table = table_of[r]
                            for p, q in ((x, y), (y, x)):
                                for z in members[r][table[p]]:
                                    if z != p and table[q] != table[p]:
                                        moves.add((r, q, z) if q < z else (r, z, q))
        return moves

    cost = total_cost()
    bound = unit * balanced_lower_bound(pair_total, pair_slots) + balanced_lower_bound(off_total, n)
    best_cost, best = cost, [table[:] for table in table_of]
    tabu_until: dict = {}
    stall, stall_limit = 0, 100 + 5 * n
    iteration = 0
    while iteration < limits.max_swaps and best_cost > bound and time.perf_counter() < limits.deadline:
        iteration += 1
        best_delta, chosen = None, []
        for r, i, j in sorted(candidate_moves()):
            delta = swap_delta(r, i, j)
            if best_delta is not None and delta > best_delta:
                continue
            table = table_of[r]
            tabu = (
                tabu_until.get((r, i, table[j]), 0) > iteration or tabu_until.get((r, j, table[i]), 0) > iteration
            )
            if tabu and cost + delta >= best_cost:
                continue
            if best_delta is None or delta < best_delta:
                best_delta, chosen = delta, [(r, i, j)]
            else:
                chosen.append((r, i, j))
        if not chosen:
            stall = stall_limit + 1
        else:
            chosen.sort()
            r, i, j = chosen[rng.randrange(len(chosen))]
            table = table_of[r]
            tenure = 4 + rng.randrange(8)
            tabu_until[(r, i, table[i])] = iteration + tenure
            tabu_until[(r, j, table[j])] = iteration + tenure
            state.swap(r, i, j)
            cost += best_delta
            if cost < best_cost:
                best_cost, best = cost, [table[:] for table in table_of]
                stall = 0
                continue
            stall += 1
        if stall > stall_limit:
            state.restore(best, fixed_rounds)
            for _ in range(2 + rng.randrange(3)):
                r = free[rng.randrange(len(free))]
                i, j = rng.randrange(n), rng.randrange(n)
                if table_of[r][i] != table_of[r][j]:
                    state.swap(r, i, j)
            cost = total_cost()
            stall = 0
    groups = [[[i for i in range(n) if best[r][i] == t] for t in range(table_count)] for r in range(rounds)]
    return groups, best_cost, bound
