"""The seating methods by standings (``standings``, ``interval``) and the seating script, as plain
Python: rosters of 8 to 60 players over 5 rounds."""
from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from tournaments.draws.seating import (
    MeetingHistory,
    interval_groups,
    quality,
    read_script,
    repeat_total,
    standings_groups,
    table_sizes,
)
from tournaments.draws.seating import script as codes

ROSTERS = [8, 9, 13, 16, 20, 27, 33, 40, 47, 53, 60]


def ranked(scores: dict) -> tuple[list, dict]:
    """Players best first and their shared ranks (equal score, equal rank: 1, 2, 2, 4 …)."""
    order = sorted(scores, key=lambda p: (-scores[p], p))
    ranks = {}
    for index, player in enumerate(order):
        same = index and scores[order[index - 1]] == scores[player]
        ranks[player] = ranks[order[index - 1]] if same else index + 1
    return order, ranks


def meetings(rounds) -> Counter:
    pairs = Counter()
    for tables in rounds:
        for table in tables:
            pairs.update(frozenset(p) for p in itertools.combinations(table, 2))
    return pairs


def play(groups, rng, scores):
    """Give each table's players 0–3 points (ties are frequent: ranks are shared)."""
    for group in groups:
        for player in group:
            scores[player] += rng.randrange(4)


@pytest.mark.parametrize("players", ROSTERS)
@pytest.mark.parametrize("game", ["mu", "maumau"])
def test_standings_fills_the_tables_in_standings_order_over_five_rounds(players, game):
    rng = random.Random(players)
    roster = list(range(1, players + 1))
    scores = {p: 0 for p in roster}
    history = MeetingHistory(best=(4, 5) if game == "mu" else (4,))
    played = []
    for _ in range(5):
        order, ranks = ranked(scores)
        sizes = table_sizes(game, players)
        groups = standings_groups(order, sizes, ranks, history)
        assert [len(g) for g in groups] == sizes
        assert sorted(p for g in groups for p in g) == roster
        # Table t holds no player ranked below anybody of table t+1: the leaders sit together.
        for upper, lower in zip(groups, groups[1:]):
            assert max(ranks[p] for p in upper) <= min(ranks[p] for p in lower)
        # Exactly the players of the plain fill, only ties moved: as many of each rank per table.
        plain, position = [], 0
        for size in sizes:
            plain.append(order[position:position + size])
            position += size
        for fill, group in zip(plain, groups):
            assert Counter(ranks[p] for p in fill) == Counter(ranks[p] for p in group)
        # Breaking the ties never seats more repeats than the plain fill.
        assert repeat_total(groups, history) <= repeat_total(plain, history)
        # The repeats counted by hand from the rounds played: the quality report says the same.
        before = meetings(played)
        repeats = sum(1 for g in groups for pair in itertools.combinations(g, 2) if before[frozenset(pair)])
        assert quality([groups], history)["repeated_pairs"] == repeats
        history.add_round(groups)
        played.append(groups)
        play(groups, rng, scores)


def test_ties_in_the_standings_are_broken_by_fewest_repeats():
    # Ranks: 1 and 2 alone, then four players level at 3, then 7 and 8. The plain fill seats
    # 3 and 4 at table 1, but they met in the round before: one of them changes tables with a
    # level player instead (5 or 6), and nobody meets again.
    history = MeetingHistory()
    history.add_round([[3, 4, 20, 21], [1, 7, 22, 23]])
    ranks = {1: 1, 2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 7: 7, 8: 8}
    groups = standings_groups([1, 2, 3, 4, 5, 6, 7, 8], [4, 4], ranks, history)
    assert set(groups[0]) >= {1, 2} and set(groups[1]) >= {7, 8}
    assert not {3, 4} <= set(groups[0]) and not {3, 4} <= set(groups[1])
    assert repeat_total(groups, history) == 0
    # 1 and 7 met too, but their ranks are their own: the standings keep them apart anyway, and
    # a tie never moves a player past one ranked between.
    groups = standings_groups([1, 2, 3, 4, 5, 6, 7, 8], [4, 4], {**ranks, 7: 3}, history)
    assert repeat_total(groups, history) == 0 and 1 in groups[0] and 7 in groups[1]


def test_interval_deals_the_standings_round_the_tables():
    ranks = {p: p for p in range(1, 17)}
    groups = interval_groups(list(range(1, 17)), [4, 4, 4, 4], ranks)
    assert groups == [[1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15], [4, 8, 12, 16]]


@pytest.mark.parametrize("players", ROSTERS)
def test_interval_spreads_every_table_over_the_standings_over_five_rounds(players):
    rng = random.Random(players * 7)
    roster = list(range(1, players + 1))
    scores = {p: 0 for p in roster}
    history = MeetingHistory(best=(4, 5))
    for _ in range(5):
        order, ranks = ranked(scores)
        sizes = table_sizes("mu", players)
        tables = len(sizes)
        groups = interval_groups(order, sizes, ranks, history)
        assert [len(g) for g in groups] == sizes
        assert sorted(p for g in groups for p in g) == roster
        place = {p: t for t, g in enumerate(groups) for p in g}
        # Each band of as many consecutive places as there are tables (while every table has
        # room) sends one player to every table: the k-th place of the band to table k. Players
        # level with another may trade tables (ties broken by fewest repeats): checked for the
        # players whose rank is their own.
        alone = {p for p in roster if Counter(ranks.values())[ranks[p]] == 1}
        for band in range(min(sizes)):
            for k, player in enumerate(order[band * tables:(band + 1) * tables]):
                if player in alone:
                    assert place[player] == k, (band, k)
        # A table's players are spread: its best and worst are at least (size - 1) bands apart.
        for group in groups:
            positions = sorted(order.index(p) for p in group if p in alone)
            assert all(b - a >= tables - 1 for a, b in zip(positions, positions[1:])) or len(sizes) == 1
        history.add_round(groups)
        play(groups, rng, scores)


def test_interval_with_tables_of_two_sizes_skips_a_full_table():
    ranks = {p: p for p in range(1, 15)}
    groups = interval_groups(list(range(1, 15)), [5, 5, 4], ranks)
    assert groups == [[1, 4, 7, 10, 13], [2, 5, 8, 11, 14], [3, 6, 9, 12]]


# --- the seating script ---------------------------------------------------------------------------

NUMBERS = range(1, 17)
MU = (3, 4, 5, 6)


def test_a_script_in_any_separator_is_read_per_round_and_table():
    text = ("round;table;players\n"
            "1;1;1;2;3;4\n1;2;5;6;7;8\n"
            "# round two\n\n"
            "2, 2, 5 6 7 8\n2,1,1,2,3,4\n"
            "3\t1\t1\t5\t9\n")
    rounds, errors = read_script(text, NUMBERS, MU)
    assert errors == []
    assert [(t.table, t.numbers) for t in rounds[1]] == [(1, (1, 2, 3, 4)), (2, (5, 6, 7, 8))]
    assert [(t.table, t.numbers, t.line) for t in rounds[2]] == [(1, (1, 2, 3, 4), 7), (2, (5, 6, 7, 8), 6)]
    assert rounds[3][0].numbers == (1, 5, 9)


def test_every_error_of_a_script_is_reported_once_per_line():
    text = "\n".join([
        "1, 1, 1, 2, 3, 4",        # 1: fine
        "1, 2, 5, x, 7, 8",        # 2: not a number
        "1, 3",                    # 3: no players
        "1, 4, 9, 10",             # 4: a table of two: Mü is played by 3 to 6
        "1, 5, 9, 10, 11, 41",     # 5: no player 41
        "1, 6, 12, 13, 14, 2",     # 6: 2 sits at table 1 already (line 1)
        "1, 1, 12, 13, 14, 15",    # 7: table 1 of round 1 is on line 1
        "2, 1, 16, 16, 1, 2",      # 8: 16 twice at one table
        "2, 2, 0, 3, 4, 5",        # 9: 0 is not a number of anybody (not a positive number)
    ])
    rounds, errors = read_script(text, NUMBERS, MU)
    assert [(e.line, e.code) for e in errors] == [
        (2, codes.NOT_A_NUMBER), (3, codes.TOO_SHORT), (4, codes.BAD_SIZE), (5, codes.UNKNOWN_NUMBER),
        (6, codes.SEATED_TWICE), (7, codes.TABLE_TWICE), (8, codes.SEATED_TWICE), (9, codes.NOT_A_NUMBER),
    ]
    assert errors[0].params == {"value": "x"}
    assert errors[2].params == {"size": 2, "allowed": [3, 4, 5, 6]}
    assert errors[3].params == {"number": 41}
    assert errors[4].params == {"number": 2, "round": 1, "other_line": 1}
    assert errors[5].params == {"table": 1, "round": 1, "other_line": 1}
    assert errors[6].params == {"number": 16, "round": 2, "other_line": 8}


def test_an_empty_script_is_an_error():
    _, errors = read_script("# nothing\n\n", NUMBERS, MU)
    assert [(e.line, e.code) for e in errors] == [(0, codes.EMPTY)]
