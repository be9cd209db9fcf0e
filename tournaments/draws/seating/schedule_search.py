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
    if fixed_rounds >= len(schedule) or len(sizes) < 2:
        return schedule, 0, 0
    search = ScheduleSearch(schedule, fixed_rounds, sizes, prior)
    best, best_cost = search.run(rng, limits)
    return search.groups(best), best_cost, search.bound


class ScheduleSearch:
    """The tabu search of ``improve_schedule`` over one ``ScheduleState``: its cost
    (``total_cost``, ``swap_delta``), the moves aimed at the defects (``candidate_moves``), the
    choice of a move (``best_moves``) and the shake after a stall (``shake``); ``run`` is the loop."""

    def __init__(self, schedule, fixed_rounds: int, sizes, prior: PriorRounds) -> None:
        n = len(prior.off_size)
        self.n = n
        self.rounds = rounds = len(schedule)
        self.table_count = len(sizes)
        self.fixed_rounds = fixed_rounds
        self.free = list(range(fixed_rounds, rounds))
        self.previous = prior.previous_table
        self.state = state = ScheduleState.start(schedule, fixed_rounds, sizes, prior)
        meetings, off_rounds = state.meetings, state.off_rounds
        pair_slots = n * (n - 1) // 2
        pair_total = sum(meetings[x][y] for x in range(n) for y in range(x + 1, n))
        self.low = pair_total // pair_slots  # every pair meets low or low + 1 times at best
        off_total = sum(off_rounds)
        self.off_high = -(-off_total // n)
        # one unit of the first level outweighs the largest possible off-size sum
        self.unit = n * (max(prior.off_size, default=0) + rounds) ** 2 + 1
        self.bound = self.unit * balanced_lower_bound(pair_total, pair_slots) + balanced_lower_bound(off_total, n)
        self.neighbours = self._neighbours()

    def _neighbours(self) -> list[list[list[int]]]:
        """For each round, the tables of the rounds just before and after it (the round before the
        schedule for its first round, when the history has one)."""
        table_of = self.state.table_of
        neighbours = []
        for r in range(self.rounds):
            near = []
            if r > 0:
                near.append(table_of[r - 1])
            elif self.previous is not None:
                near.append(self.previous)
            if r + 1 < self.rounds:
                near.append(table_of[r + 1])
            neighbours.append(near)
        return neighbours

    def total_cost(self) -> int:
        """The cost of the schedule as it stands, counted from scratch."""
        n, state = self.n, self.state
        meetings, table_of, members = state.meetings, state.table_of, state.members
        pairs = sum(choose2(meetings[x][y]) for x in range(n) for y in range(x + 1, n))
        consecutive = 0
        for r in range(self.rounds):
            before = table_of[r - 1] if r > 0 else self.previous
            if before is None or r < self.fixed_rounds:
                continue
            for group in members[r]:
                consecutive += sum(1 for x, y in itertools.combinations(group, 2) if before[x] == before[y])
        return self.unit * (pairs + 2 * consecutive) + sum(choose2(c) for c in state.off_rounds)

    def swap_delta(self, r: int, i: int, j: int) -> int:
        """What swapping players i and j in round r changes in the cost."""
        state = self.state
        table = state.table_of[r]
        a, b = table[i], table[j]
        meetings_i, meetings_j = state.meetings[i], state.meetings[j]
        pairs = consecutive = 0
        near = self.neighbours[r]
        for x in state.members[r][a]:
            if x != i:
                pairs += meetings_j[x] - meetings_i[x] + 1
                for t in near:
                    consecutive += (t[x] == t[j]) - (t[x] == t[i])
        for y in state.members[r][b]:
            if y != j:
                pairs += meetings_i[y] - meetings_j[y] + 1
                for t in near:
                    consecutive += (t[y] == t[i]) - (t[y] == t[j])
        delta = self.unit * (pairs + 2 * consecutive)
        off_table, off_rounds = state.off_table, state.off_rounds
        if off_table[a] != off_table[b]:
            step = 1 if off_table[b] else -1
            delta += choose2(off_rounds[i] + step) - choose2(off_rounds[i])
            delta += choose2(off_rounds[j] - step) - choose2(off_rounds[j])
        return delta

    def candidate_moves(self) -> set[tuple[int, int, int]]:
        """The swaps ``(round, i, j)``, i < j, aimed at the defects (see the module's docstring)."""
        moves: set[tuple[int, int, int]] = set()
        self._split_up(moves)
        if self.low:
            self._bring_together(moves)
        return moves

    def _split_up(self, moves: set) -> None:
        """A pair meeting too often or in consecutive rounds: one of the two swaps with anybody at
        another table; a player off-size too often: he swaps with anybody at a best-size table."""
        n, state, low, off_high = self.n, self.state, self.low, self.off_high
        meetings, off_table, off_rounds = state.meetings, state.off_table, state.off_rounds
        for r in self.free:
            table = state.table_of[r]
            near = self.neighbours[r]
            for a, group in enumerate(state.members[r]):
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

    def _bring_together(self, moves: set) -> None:
        """A pair meeting too rarely: one of the two swaps with a tablemate of the other."""
        n, state, low = self.n, self.state, self.low
        for x in range(n):
            meetings_x = state.meetings[x]
            for y in range(x + 1, n):
                if meetings_x[y] < low:
                    for r in self.free:
                        table = state.table_of[r]
                        for p, q in ((x, y), (y, x)):
                            for z in state.members[r][table[p]]:
                                if z != p and table[q] != table[p]:
                                    moves.add((r, q, z) if q < z else (r, z, q))

    def best_moves(self, cost: int, best_cost: int, iteration: int, tabu_until: dict) -> tuple[int | None, list]:
        """The least delta among the candidate moves and the moves that reach it, leaving out tabu
        moves unless they would give a new best schedule."""
        table_of = self.state.table_of
        best_delta, chosen = None, []
        for r, i, j in sorted(self.candidate_moves()):
            delta = self.swap_delta(r, i, j)
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
        return best_delta, chosen

    def shake(self, best: list[list[int]], rng: random.Random) -> int:
        """Back to the best schedule, then a few random swaps; returns the cost then."""
        state = self.state
        state.restore(best, self.fixed_rounds)
        for _ in range(2 + rng.randrange(3)):
            r = self.free[rng.randrange(len(self.free))]
            i, j = rng.randrange(self.n), rng.randrange(self.n)
            if state.table_of[r][i] != state.table_of[r][j]:
                state.swap(r, i, j)
        return self.total_cost()

    def run(self, rng: random.Random, limits: SearchLimits) -> tuple[list[list[int]], int]:
        """The search: the best non-tabu move each time, even when it costs; a shake after a long
        stall. Returns the best schedule found (each player's table per round) and its cost."""
        state = self.state
        table_of = state.table_of
        cost = self.total_cost()
        best_cost, best = cost, [table[:] for table in table_of]
        tabu_until: dict = {}
        stall, stall_limit = 0, 100 + 5 * self.n
        iteration = 0
        while iteration < limits.max_swaps and best_cost > self.bound and time.perf_counter() < limits.deadline:
            iteration += 1
            best_delta, chosen = self.best_moves(cost, best_cost, iteration, tabu_until)
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
                cost = self.shake(best, rng)
                stall = 0
        return best, best_cost

    def groups(self, table_of: list[list[int]]) -> list[list[list[int]]]:
        """Each round's groups (sorted players) from each player's table per round."""
        n = self.n
        return [[[i for i in range(n) if row[i] == t] for t in range(self.table_count)] for row in table_of]
