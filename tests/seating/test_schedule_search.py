"""The whole-schedule search (``seating.schedule_search.improve_schedule``): what it returns is a
schedule of the given shape whose cost is the one the module's docstring defines, never below the
bound; and for fixed seeds it returns what it returned before its code was split into parts."""
from __future__ import annotations

import hashlib
import itertools
import json
import random

import pytest

from tournaments.draws.seating.groups import random_groups
from tournaments.draws.seating.schedule_search import (
    PriorRounds,
    SearchLimits,
    improve_schedule,
)


def search(seed, n, sizes, rounds, fixed, best_sizes, history_rounds, swaps):
    """A random start of ``rounds`` rounds after ``history_rounds`` random earlier rounds, searched
    for ``swaps`` swaps at most (no deadline, so the result depends on the seed alone)."""
    rng = random.Random(seed)
    meetings = [[0] * n for _ in range(n)]
    off = [0] * n
    previous = None
    for _ in range(history_rounds):
        groups = random_groups(n, sizes, rng)
        for t, group in enumerate(groups):
            for a in group:
                for b in group:
                    if a != b:
                        meetings[a][b] += 1
                if sizes[t] not in best_sizes:
                    off[a] += 1
        previous = [0] * n
        for t, group in enumerate(groups):
            for a in group:
                previous[a] = t
    prior = PriorRounds(meetings, previous, off, tuple(best_sizes))
    start = [random_groups(n, sizes, rng) for _ in range(rounds)]
    found, cost, bound = improve_schedule(
        [[list(g) for g in round_] for round_ in start], fixed, sizes, prior, rng,
        SearchLimits(max_swaps=swaps, deadline=float("inf")),
    )
    return start, prior, found, cost, bound


def schedule_cost(schedule, fixed, sizes, prior):
    """The cost as the module's docstring states it, counted from scratch: Σ C(meetings, 2) over
    pairs plus twice the pairs together in consecutive rounds (rounds of the schedule after the
    fixed ones, the one before the schedule included), weighted above Σ C(off-size rounds, 2)."""
    n = len(prior.off_size)
    meetings = [row[:] for row in prior.meetings]
    off = prior.off_size[:]
    consecutive = 0
    before = prior.previous_table
    for r, round_ in enumerate(schedule):
        table_of = [0] * n
        for t, group in enumerate(round_):
            for x in group:
                table_of[x] = t
                if r >= fixed and prior.best_sizes and sizes[t] not in prior.best_sizes:
                    off[x] += 1
            for x, y in itertools.combinations(group, 2):
                meetings[x][y] += 1
                meetings[y][x] += 1
                if r >= fixed and before is not None and before[x] == before[y]:
                    consecutive += 1
        before = table_of
    pairs = sum(c * (c - 1) // 2 for x in range(n) for c in meetings[x][x + 1:])
    unit = n * (max(prior.off_size, default=0) + len(schedule)) ** 2 + 1
    return unit * (pairs + 2 * consecutive) + sum(c * (c - 1) // 2 for c in off)


# (seed, players, table sizes, rounds, fixed rounds, best sizes, earlier rounds, most swaps), then
# the cost, the bound and the first 16 hex digits of the SHA-256 of json.dumps(schedule) that the
# search returned before it was split into parts (computed with that code, by ``search`` above).
PINNED = [
    (1, 12, [4, 4, 4], 4, 0, (4,), 0, 300, 6948, 1158, '3b58d7314d48555e'),
    (2, 12, [4, 4, 4], 5, 1, (4,), 1, 400, 21070, 12642, 'fb883f1d93b01623'),
    (3, 13, [5, 4, 4], 4, 0, (4,), 1, 400, 23484, 10444, 'c2fab4ddba4291a2'),
    (4, 16, [4, 4, 4, 4], 6, 2, (4,), 2, 600, 47891, 41544, 'eb26679fd29a2a66'),
    (5, 10, [5, 5], 6, 0, (5,), 0, 400, 72200, 37905, '553baedfa1c13f97'),
    (6, 11, [4, 4, 3], 5, 1, (4,), 2, 500, 28593, 19857, '0bb04e979f34ebf1'),
    (7, 9, [3, 3, 3], 4, 0, (3,), 0, 3000, 0, 0, '7feb614f48a6af2d'),
    (8, 8, [4, 4], 3, 1, (4,), 0, 50, 2044, 584, '77587d6764ec5f52'),
]


@pytest.mark.parametrize("case", PINNED, ids=lambda case: f"seed{case[0]}-{case[1]}players")
def test_the_search_keeps_its_shape_and_its_cost_is_the_documented_one(case):
    *arguments, _, _, _ = case
    _, n, sizes, rounds, fixed, *_ = arguments
    start, prior, found, cost, bound = search(*arguments)
    assert len(found) == rounds
    # the fixed rounds stay as they are (the groups come back sorted)
    assert found[:fixed] == [[sorted(group) for group in round_] for round_ in start[:fixed]]
    for round_ in found:
        assert [len(group) for group in round_] == sizes  # ordered like sizes
        assert sorted(itertools.chain.from_iterable(round_)) == list(range(n))
    assert cost == schedule_cost(found, fixed, sizes, prior)
    assert cost >= bound >= 0
    assert cost <= schedule_cost(start, fixed, sizes, prior)  # the best found is no worse than the start


@pytest.mark.parametrize("case", PINNED, ids=lambda case: f"seed{case[0]}-{case[1]}players")
def test_the_same_seed_gives_the_same_schedule_as_before(case):
    *arguments, cost, bound, digest = case
    _, _, found, got_cost, got_bound = search(*arguments)
    assert (got_cost, got_bound) == (cost, bound)
    assert hashlib.sha256(json.dumps(found).encode()).hexdigest()[:16] == digest


def test_a_schedule_without_repeats_is_found_and_stops_at_the_bound():
    # 9 players at tables of 3 meet each other exactly once in 4 rounds (an affine plane).
    _, _, found, cost, bound = search(7, 9, [3, 3, 3], 4, 0, (3,), 0, 3000)
    assert cost == bound == 0
    pairs = [pair for round_ in found for group in round_ for pair in itertools.combinations(sorted(group), 2)]
    assert len(pairs) == len(set(pairs)) == 36
