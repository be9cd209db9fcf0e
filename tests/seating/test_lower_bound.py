"""The fewest repeated pairs a round can have (``seating.repeat_lower_bound``), checked against
exhaustive search on small cases and against the draws the seating module makes."""
from __future__ import annotations

import itertools
import random

import pytest

from tournaments.draws import seating
from tournaments.draws.seating.lower_bound import _least_group_pairs, repeat_lower_bound


def history_of(*rounds):
    return seating.MeetingHistory.from_rounds([list(r) for r in rounds], game="mu")


def fewest_by_search(groups: list[int], sizes: list[int]) -> int:
    """Every placement of the groups' players (and fillers) into the tables, tried."""
    players = [g for g, count in enumerate(groups) for _ in range(count)] + [None] * (sum(sizes) - sum(groups))
    best = None
    for order in set(itertools.permutations(players)):
        cost, start = 0, 0
        for size in sizes:
            table = order[start:start + size]
            start += size
            cost += sum(table.count(g) * (table.count(g) - 1) // 2 for g in set(table) if g is not None)
        best = cost if best is None else min(best, cost)
    return best


def test_twelve_players_in_threes_of_four_meet_three_pairs_again_in_round_two():
    history = history_of([range(0, 4), range(4, 8), range(8, 12)])
    assert repeat_lower_bound(history, [4, 4, 4], list(range(12))) == 3
    # One player fewer, at tables of 4, 4 and 3: the table of three can take one of each table.
    assert repeat_lower_bound(history, [4, 4, 3], list(range(11))) == 2
    # Two tables of five from three tables of four: 2+2+1 and 2+1+2 players, four pairs.
    assert repeat_lower_bound(history, [5, 5], list(range(10))) == 4


def test_no_history_no_repeats():
    assert repeat_lower_bound(seating.MeetingHistory(), [4, 4], list(range(8))) == 0


def test_newcomers_fill_tables_without_repeats():
    history = history_of([range(0, 4)])
    assert repeat_lower_bound(history, [3, 3, 3, 3], [0, 1, 2, 3, *range(10, 18)]) == 0
    assert repeat_lower_bound(history, [4, 4], [0, 1, 2, 3, 10, 11, 12, 13]) == 2


@pytest.mark.parametrize("seed", range(25))
def test_the_group_placement_is_exact(seed):
    rng = random.Random(seed)
    sizes = [rng.choice([3, 4, 5]) for _ in range(rng.choice([2, 3]))]
    while sum(sizes) > 10:
        sizes.pop()
    groups, left = [], sum(sizes)
    while left >= 2 and rng.random() < 0.8:
        groups.append(rng.randint(2, min(5, left)))
        left -= groups[-1]
    assert _least_group_pairs(groups, sizes) == fewest_by_search(groups, sizes)


def test_the_bound_never_exceeds_what_the_draw_achieves():
    rng = random.Random(4)
    players = list(range(16))
    history = seating.MeetingHistory(best=(4,))
    for _ in range(4):
        sizes = [4, 4, 4, 4]
        bound = repeat_lower_bound(history, sizes, players)
        draw = seating.draw_round(players, sizes, history, rng)
        assert seating.quality([draw.tables], history)["repeated_pairs"] >= bound
        history.add_round(draw.tables)
