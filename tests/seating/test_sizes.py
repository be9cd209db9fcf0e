"""Table size mixes and byes (tournaments/draws/seating/), for every count from 2 to 200 players.

Pure tests: no database, no Django (they also run with ``pytest -p no:django``)."""
from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from tournaments.draws.seating import GAME_SIZES, MeetingHistory, plan_byes, table_sizes

GAMES = ["mu", "maumau", "lut"]
COUNTS = range(2, 201)


def all_mixes(allowed, players):
    """Every multiset of allowed sizes adding up to ``players``, largest size first."""
    sizes = sorted(allowed, reverse=True)

    def extend(rest, start):
        if rest == 0:
            yield ()
            return
        for index in range(start, len(sizes)):
            if sizes[index] <= rest:
                for tail in extend(rest - sizes[index], index):
                    yield (sizes[index],) + tail

    return list(extend(players, 0))


def mix_exists(allowed, players):
    reachable = [True] + [False] * players
    for count in range(1, players + 1):
        reachable[count] = any(size <= count and reachable[count - size] for size in allowed)
    return reachable[players]


def criterion(game, mix):
    """The documented criterion, restated: (spread for Mit List und Tücke, the largest distance
    of a table from the best sizes, players at off-size tables, the players' total distance,
    tables, then more of the larger tables)."""
    rule = GAME_SIZES[game]

    def distance(size):
        return min(abs(size - b) for b in rule.best)

    counts = Counter(mix)
    return (
        max(mix) - min(mix) if game == "lut" else 0,
        max(distance(s) for s in mix),
        sum(s for s in mix if distance(s) > 0),
        sum(s * distance(s) for s in mix),
        len(mix),
        tuple(-counts[s] for s in sorted(rule.allowed, reverse=True)),
    )


def expected_mix(game, players):
    """The optimum written out per game, for every count (derived from the criterion by hand)."""
    if game == "mu":
        if players < 12:
            return None  # covered by the brute force below
        # 4s and 5s seat every count from 12 on; the fewest tables are ceil(n / 5), and then
        # the number of 4s is fixed: 5 * tables - n.
        tables = math.ceil(players / 5)
        fours = 5 * tables - players
        return [5] * (tables - fours) + [4] * fours
    if game == "maumau":
        rest = players % 4
        if players < 6:
            return [players]
        if rest == 0:
            return [4] * (players // 4)
        if rest == 1:  # one 5 seats 5 players off-size; three 3s would seat 9
            return [5] + [4] * ((players - 5) // 4)
        if rest == 2:  # two 3s (distance 1) rather than a 2 or a 6 (distance 2)
            return [4] * ((players - 6) // 4) + [3, 3]
        return [4] * ((players - 3) // 4) + [3]
    if game == "lut":
        if players in (2, 3, 7):
            return None
        for size in (4, 5, 6):  # one size for all tables, closest to 4 first
            if players % size == 0:
                return [size] * (players // size)
        if players == 11:
            return [6, 5]
        # not uniform: spread 1 with 4s and 5s, as few 5s as possible (players mod 4 of them)
        fives = players % 4
        return [5] * fives + [4] * ((players - 5 * fives) // 4)
    raise AssertionError(game)


@pytest.mark.parametrize("game", GAMES)
def test_every_count_seats_everybody_at_allowed_sizes_when_a_mix_exists(game):
    allowed = set(GAME_SIZES[game].allowed)
    for players in COUNTS:
        if not mix_exists(allowed, players):
            with pytest.raises(ValueError):
                table_sizes(game, players)
            continue
        sizes = table_sizes(game, players)
        assert sum(sizes) == players, (game, players, sizes)
        assert set(sizes) <= allowed, (game, players, sizes)
        assert sizes == sorted(sizes, reverse=True)


@pytest.mark.parametrize("game", GAMES)
def test_mix_is_the_best_of_all_mixes_by_brute_force(game):
    allowed = GAME_SIZES[game].allowed
    for players in range(2, 41):
        mixes = all_mixes(allowed, players)
        if not mixes:
            continue
        best = min(mixes, key=lambda mix: criterion(game, mix))
        assert table_sizes(game, players) == list(best), (game, players)


@pytest.mark.parametrize("game", GAMES)
def test_mix_follows_the_per_game_rule_for_every_count_up_to_200(game):
    for players in COUNTS:
        expected = expected_mix(game, players)
        if expected is None:
            continue
        assert table_sizes(game, players) == sorted(expected, reverse=True), (game, players)


@pytest.mark.parametrize(
    ("game", "players", "sizes"),
    [
        ("lut", 10, [5, 5]),  # one size for all, not 6 + 4
        ("lut", 14, [5, 5, 4]),  # no single size: spread 1 rather than 6 + 4 + 4
        ("lut", 18, [6, 6, 6]),  # one size for all beats 5, 5, 4, 4
        ("mu", 23, [5, 5, 5, 4, 4]),
        ("mu", 6, [6]),  # one table of 6 rather than two of 3 (fewer tables)
        ("mu", 11, [4, 4, 3]),  # three players off-size rather than six (6 + 5)
        ("maumau", 6, [3, 3]),  # 3s before a table of 2
        ("maumau", 9, [5, 4]),
        ("maumau", 2, [2]),
    ],
)
def test_examples(game, players, sizes):
    assert table_sizes(game, players) == sizes


def test_event_may_fix_the_size():
    assert table_sizes("mu", 16, fixed=4) == [4, 4, 4, 4]
    assert table_sizes("mu", 20, fixed=(4,)) == [4] * 5
    with pytest.raises(ValueError):
        table_sizes("mu", 10, fixed=4)
    with pytest.raises(ValueError):
        table_sizes("lut", 12, fixed=3)  # Mit List und Tücke needs 4 to 6 players
    byes, sizes = plan_byes("mu", list(range(10)), fixed=4)
    assert len(byes) == 2 and sizes == [4, 4]


@pytest.mark.parametrize("game", GAMES)
def test_byes_only_when_no_mix_exists_and_then_as_few_as_possible(game):
    allowed = GAME_SIZES[game].allowed
    for players in range(0, 41):
        byes, sizes = plan_byes(game, list(range(players)))
        fewest = next(b for b in range(players + 1) if all_mixes(allowed, players - b))
        assert len(byes) == fewest, (game, players)
        assert sum(sizes) + len(byes) == players
        assert len(set(byes)) == len(byes)


def test_seven_players_of_lut_one_bye_and_a_table_of_six():
    byes, sizes = plan_byes("lut", list("ABCDEFG"))
    assert sizes == [6]
    # nobody has had a bye: the tie goes to the player latest in the list
    assert byes == ["G"]


def test_bye_goes_to_the_player_with_the_fewest_byes_so_far():
    counts = {"A": 1, "B": 0, "C": 1, "D": 1, "E": 2, "F": 1, "G": 1}
    assert plan_byes("lut", list("ABCDEFG"), counts) == (["B"], [6])


def test_byes_rotate_through_everybody_before_anyone_gets_a_second():
    players = list("ABCDEFG")
    history = MeetingHistory(best=GAME_SIZES["lut"].best)
    rng = random.Random(4)
    for _ in range(7):
        byes, sizes = plan_byes("lut", players, history.byes, rng=rng)
        seated = [p for p in players if p not in byes]
        history.add_round([seated], byes=byes)
        assert max(history.byes.values()) - min(history.byes.get(p, 0) for p in players) <= 1
    assert all(history.byes[p] == 1 for p in players)


def test_seeded_tie_break_is_deterministic():
    players = list(range(7))
    first = plan_byes("lut", players, rng=11)
    assert first == plan_byes("lut", players, rng=11)
    picks = {plan_byes("lut", players, rng=seed)[0][0] for seed in range(40)}
    assert len(picks) > 1  # a seeded random choice, not always the same player


def test_too_few_players_for_any_table():
    assert plan_byes("lut", ["A", "B", "C"]) == (["C", "B", "A"], [])
    assert plan_byes("mu", ["A", "B"]) == (["B", "A"], [])
    assert plan_byes("maumau", ["A", "B"]) == ([], [2])
