"""The seating draw's objectives (tournaments/draws/seating/): repeats, off-size rotation, clubs,
standings, seats and first dealers, determinism, and the quality report.

Pure tests: no database, no Django (they also run with ``pytest -p no:django``)."""
from __future__ import annotations

import itertools
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.draws.seating import (
    Draw,
    DrawTable,
    MeetingHistory,
    draw_round,
    plan_schedule,
    quality,
    repeat_cost,
    table_sizes,
)


def meetings_of(rounds):
    """Pair meeting counts, counted directly from the tables."""
    counts = Counter()
    for round_ in rounds:
        for table in round_:
            counts.update(frozenset(p) for p in itertools.combinations(table, 2))
    return counts


def players_of(round_):
    return sorted(p for table in round_ for p in table)


def partitions(players, sizes):
    """Every way to seat ``players`` at tables of ``sizes`` (tables of one size unordered)."""
    if not sizes:
        yield []
        return
    size, rest_sizes = sizes[0], sizes[1:]
    first, others = players[0], players[1:]
    for mates in itertools.combinations(others, size - 1):
        table = (first,) + mates
        rest = [p for p in others if p not in mates]
        # the first player sits at a table of the first size; other sizes are tried by
        # rotating the list of sizes, so every assignment of sizes is reached
        for tail in partitions(rest, rest_sizes):
            yield [table] + tail


def all_partitions(players, sizes):
    seen = set()
    for rotation in set(itertools.permutations(sizes)):
        for partition in partitions(players, list(rotation)):
            key = frozenset(frozenset(t) for t in partition)
            if key not in seen:
                seen.add(key)
                yield partition


def objectives(partition, history, best, clubs):
    """The documented objectives, restated: (repeats, off-size seats, club mates together)."""
    repeats = off = club = 0
    for table in partition:
        for a, b in itertools.combinations(table, 2):
            met = history.met(a, b)
            if met:
                weight = met * (met + 3)
                repeats += 3 * weight if frozenset((a, b)) in history.last_round else weight
            if clubs and clubs[a] == clubs[b]:
                club += 1
        if len(table) not in best:
            off += sum(history.off_size[p] for p in table)
    return repeats, off, club


# --------------------------------------------------------------------------------------------
# Repeats
# --------------------------------------------------------------------------------------------


def test_planned_16_players_in_fours_meet_everybody_exactly_once_in_5_rounds():
    draws = plan_schedule(list(range(16)), [4, 4, 4, 4], 5, rng=1)
    rounds = [[t.players for t in d.tables] for d in draws]
    assert all(players_of(r) == list(range(16)) for r in rounds)
    counts = meetings_of(rounds)
    assert len(counts) == 16 * 15 // 2 and set(counts.values()) == {1}
    assert quality(draws)["repeated_pairs"] == 0


def test_planned_25_players_in_fives_meet_everybody_exactly_once_in_6_rounds():
    draws = plan_schedule([f"p{i}" for i in range(25)], [5] * 5, 6, rng=2)
    rounds = [[t.players for t in d.tables] for d in draws]
    counts = meetings_of(rounds)
    assert len(counts) == 25 * 24 // 2 and set(counts.values()) == {1}


def test_planned_32_players_in_fours_play_10_rounds_without_a_repeat():
    draws = plan_schedule(list(range(32)), [4] * 8, 10, rng=3, time_limit=5)
    rounds = [[t.players for t in d.tables] for d in draws]
    assert all(players_of(r) == list(range(32)) for r in rounds)
    counts = meetings_of(rounds)
    assert max(counts.values()) == 1 and len(counts) == 10 * 8 * 6


def test_rounds_drawn_one_by_one_keep_a_fixed_roster_free_of_repeats():
    for players, sizes, rounds in ((16, [4] * 4, 5), (32, [4] * 8, 10), (9, [3] * 3, 4)):
        history = MeetingHistory()
        rng = random.Random(players)
        for _ in range(rounds):
            draw = draw_round(list(range(players)), sizes, history, rng)
            assert draw.quality["repeated_pairs"] == 0
            history.add_round(draw.tables)
        assert max(history.meetings.values()) == 1


def test_planned_rounds_beyond_a_perfect_schedule_spread_the_repeats_evenly():
    draws = plan_schedule(list(range(16)), [4] * 4, 7, rng=5, time_limit=10)
    report = quality(draws)
    # after 5 rounds everybody has met everybody: each later round repeats its 24 pairs, and
    # no pair needs to meet a third time or in two rounds running
    assert report["repeated_pairs"] == 48
    assert report["max_meetings"] == 2
    assert report["repeats_from_previous_round"] == 0


def test_the_schedule_search_alone_spreads_the_repeats_as_evenly_as_the_designs_do():
    """Without the finite geometry (``use_designs=False``) the whole-schedule search still
    finds 7 rounds of 16 players with every repeat a second meeting and none in rounds
    running."""
    for seed in range(3):
        draws = plan_schedule(list(range(16)), [4] * 4, 7, rng=seed, time_limit=10, use_designs=False)
        rounds = [[t.players for t in d.tables] for d in draws]
        assert all(players_of(r) == list(range(16)) for r in rounds)
        report = quality(draws)
        assert (report["repeated_pairs"], report["max_meetings"], report["repeats_from_previous_round"]) == (48, 2, 0)


def test_23_mu_players_over_8_rounds_reach_the_lower_bound_of_repeats():
    sizes = table_sizes("mu", 23)
    assert sizes == [5, 5, 5, 4, 4]
    draws = plan_schedule(list(range(23)), sizes, 8, rng=0, time_limit=30)
    report = quality(draws, best=(4, 5))
    # 8 rounds seat 8 * 42 = 336 pairs and only 253 distinct pairs exist
    assert report["repeated_pairs"] == 336 - 253
    assert report["max_meetings"] == 2
    assert report["repeats_from_previous_round"] == 0


def test_a_repeat_from_the_previous_round_is_avoided_when_possible():
    # four rounds of 9 players in 3s in which everybody met everybody once (the affine plane of
    # order 3): every fifth round repeats 9 pairs, but none needs to come from the fourth
    rounds = [
        [[0, 1, 2], [3, 4, 5], [6, 7, 8]],
        [[0, 3, 6], [1, 4, 7], [2, 5, 8]],
        [[0, 4, 8], [1, 5, 6], [2, 3, 7]],
        [[0, 5, 7], [1, 3, 8], [2, 4, 6]],
    ]
    history = MeetingHistory.from_rounds(rounds)
    assert len(history.meetings) == 36 and set(history.meetings.values()) == {1}
    for seed in range(5):
        draw = draw_round(list(range(9)), [3, 3, 3], history, seed)
        assert draw.quality["repeated_pairs"] == 9
        assert draw.quality["repeats_from_previous_round"] == 0


def test_plan_continues_rounds_already_drawn():
    history = MeetingHistory()
    for seed in range(2):
        history.add_round(draw_round(list(range(16)), [4] * 4, history, seed).tables)
    draws = plan_schedule(list(range(16)), [4] * 4, 3, rng=4, history=history)
    assert quality(draws, history)["repeated_pairs"] == 0
    counts = meetings_of(history.played + [[t.players for t in d.tables] for d in draws])
    assert len(counts) == 120 and set(counts.values()) == {1}


def test_repeat_weights_put_the_previous_round_first():
    # a second meeting from the previous round weighs more than a third meeting, and a third
    # meeting more than two second meetings
    assert repeat_cost(1, last_round=True) > repeat_cost(2) > 2 * repeat_cost(1)
    assert repeat_cost(0) == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_draw_is_the_best_seating_by_brute_force(seed):
    """Small rounds against every possible seating: repeats first (previous round heaviest),
    then off-size rotation, then clubs apart."""
    rng = random.Random(seed)
    players = list(range(10))
    sizes = table_sizes("maumau", 10)  # 4, 3, 3: six players off-size each round
    best = (4,)
    history = MeetingHistory(best=best)
    for _ in range(rng.randrange(0, 4)):
        order = players[:]
        rng.shuffle(order)
        history.add_round([order[:4], order[4:7], order[7:]])
    clubs = {p: rng.randrange(3) for p in players}
    draw = draw_round(players, sizes, history, rng, clubs=clubs, separate_clubs=True)
    drawn = [t.players for t in draw.tables]
    assert players_of(drawn) == players and sorted(map(len, drawn)) == sorted(sizes)
    optimum = min(objectives(p, history, best, clubs) for p in all_partitions(players, sizes))
    assert objectives(drawn, history, best, clubs) == optimum


# --------------------------------------------------------------------------------------------
# Off-size tables, clubs, standings
# --------------------------------------------------------------------------------------------


def test_off_size_seats_rotate_so_nobody_sits_off_size_twice_when_avoidable():
    for players, rounds in ((50, 5), (30, 4)):
        sizes = table_sizes("maumau", players)
        off_seats = sum(k for k in sizes if k != 4)
        assert off_seats * rounds <= players
        history = MeetingHistory.from_rounds([], game="maumau")
        rng = random.Random(players)
        for _ in range(rounds):
            draw = draw_round(list(range(players)), sizes, history, rng)
            history.add_round(draw.tables)
        assert max(history.off_size.values()) == 1
        assert quality(history.played, best=(4,))["players_off_size_more_than_once"] == 0


def test_clubs_apart_when_asked():
    clubs = {p: p // 4 for p in range(16)}  # four clubs of four
    draw = draw_round(list(range(16)), [4] * 4, MeetingHistory(), 7, clubs=clubs, separate_clubs=True)
    assert draw.quality["same_club_pairs"] == 0
    for table in draw.tables:
        assert len({clubs[p] for p in table}) == 4
    together = draw_round(list(range(16)), [4] * 4, MeetingHistory(), 7, clubs=clubs)
    assert "same_club_pairs" in together.quality  # reported, though not asked to avoid


def test_standings_put_similar_players_together():
    ranking = [f"p{i}" for i in range(16)]
    draw = draw_round(ranking, [4] * 4, MeetingHistory(), 3, standings=ranking)
    groups = sorted(sorted(ranking.index(p) for p in t) for t in draw.tables)
    assert groups == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]
    # standings never outweigh repeats: the next round by standings repeats nobody
    history = MeetingHistory.from_rounds([draw])
    second = draw_round(ranking, [4] * 4, history, 3, standings=ranking)
    assert second.quality["repeated_pairs"] == 0


# --------------------------------------------------------------------------------------------
# Seats and first dealers
# --------------------------------------------------------------------------------------------


def test_first_dealer_is_the_player_with_the_fewest_first_deals():
    history = MeetingHistory.from_rounds([[DrawTable(("A", "B", "C", "D"), d)] for d in (0, 1, 3, 0, 1, 3)])
    assert history.dealers == Counter({"A": 2, "B": 2, "D": 2})
    draw = draw_round(list("ABCD"), [4], history, 1)
    assert draw.tables[0].first_dealer == "C"


def test_seat_order_moves_players_off_the_seats_they_had_most():
    # each player sat on one seat three times: the new order puts nobody there again
    rounds = [[("A", "B", "C", "D")]] * 3
    history = MeetingHistory.from_rounds(rounds)
    draw = draw_round(list("ABCD"), [4], history, 2)
    seats = draw.tables[0].players
    assert all(seats[i] != "ABCD"[i] for i in range(4))


def test_seats_and_first_deals_stay_balanced_over_many_rounds():
    history = MeetingHistory()
    rng = random.Random(9)
    for _ in range(12):
        history.add_round(draw_round(list(range(12)), [4, 4, 4], history, rng).tables)
    deals = [history.dealers[p] for p in range(12)]
    assert sum(deals) == 36 and max(deals) - min(deals) <= 2
    for p in range(12):
        seats = [history.seats[p][s] for s in range(4)]
        assert max(seats) - min(seats) <= 2
    # a random seat order would do much worse on the same groups: the spread is the promise
    assert quality(history.played)["first_deals_spread"] <= 2


# --------------------------------------------------------------------------------------------
# Determinism
# --------------------------------------------------------------------------------------------


def tables_of(draws):
    return [[(t.players, t.dealer) for t in d.tables] for d in draws]


def test_same_seed_same_draw():
    def rounds(seed):
        history, draws = MeetingHistory(best=(4, 5)), []
        rng = random.Random(seed)
        for _ in range(4):
            draw = draw_round(list(range(23)), [5, 5, 5, 4, 4], history, rng)
            history.add_round(draw.tables)
            draws.append(draw)
        return tables_of(draws)

    assert rounds(42) == rounds(42)
    assert rounds(42) != rounds(43)
    planned = [tables_of(plan_schedule(list(range(23)), [5, 5, 5, 4, 4], 8, rng=7)) for _ in range(2)]
    assert planned[0] == planned[1]
    assert tables_of(plan_schedule(list(range(16)), [4] * 4, 5, rng=1)) == tables_of(
        plan_schedule(list(range(16)), [4] * 4, 5, rng=1)
    )


# --------------------------------------------------------------------------------------------
# Quality report and history
# --------------------------------------------------------------------------------------------


def test_quality_report_on_hand_made_rounds():
    first = [[1, 2, 3, 4], [5, 6, 7, 8]]
    second = [[1, 2, 5, 6], [3, 4, 7, 8]]  # 1-2, 5-6, 3-4, 7-8 meet again, right after
    third = [[1, 2, 3], [4, 5, 6], [7, 8]]  # 1-2, 5-6, 7-8 a third time; 1-3, 2-3 a second
    report = quality([first, second, third], best=(4,))
    assert report["rounds"] == 3
    assert report["repeat_histogram"] == {2: 6, 3: 3}
    assert report["repeated_pairs"] == 9
    assert report["pairs_meeting_twice"] == 6
    assert report["pairs_meeting_three_plus"] == 3
    assert report["max_meetings"] == 3
    # second round: the 4 pairs of the first; third round: 1-2, 5-6, 7-8 of the second
    assert report["repeats_from_previous_round"] == 7
    assert report["zero_repeat_rounds"] == 1
    # off-size (not 4) only in the third round: nobody twice yet
    assert report["players_off_size_more_than_once"] == 0
    fourth = [[1, 7, 8], [2, 3, 4, 5, 6]]  # both tables off-size
    later = quality([fourth], MeetingHistory.from_rounds([first, second, third], best=(4,)))
    assert later["rounds"] == 1
    assert later["players_off_size_more_than_once"] == 8
    # second: 2-4, 2-5, 2-6, 4-5, 4-6; third: 2-3, 3-4; fourth: 7-8, 5-6
    assert later["repeat_histogram"] == {2: 5, 3: 2, 4: 2}
    assert later["max_meetings"] == 4
    # 7-8, 2-3, 4-5, 4-6 and 5-6 sat together in the third round
    assert later["repeats_from_previous_round"] == 5


def test_quality_of_a_single_draw_is_measured_against_its_history():
    history = MeetingHistory.from_rounds([[[1, 2, 3, 4], [5, 6, 7, 8]]])
    draw = Draw([DrawTable((1, 5, 2, 6)), DrawTable((3, 7, 4, 8))])
    report = quality(draw, history)
    assert report["repeated_pairs"] == 4
    assert report["repeats_from_previous_round"] == 4
    assert report["zero_repeat_rounds"] == 0
    pairs_across = quality([[1, 5], [2, 6], [3, 7], [4, 8]], history)
    assert pairs_across["repeated_pairs"] == 0 and pairs_across["zero_repeat_rounds"] == 1


def test_history_counts_meetings_seats_dealers_off_size_and_byes():
    rounds = [
        [DrawTable(("A", "B", "C"), dealer=2), DrawTable(("D", "E", "F", "G"), dealer=0)],
        [("A", "D", "E", "F"), ("B", "C", "G")],
    ]
    history = MeetingHistory.from_rounds(rounds, game="maumau", byes=[["H"], []])
    assert history.met("B", "C") == 2 and history.met("A", "B") == 1 and history.met("A", "G") == 0
    assert history.last_round == {frozenset(p) for t in rounds[1] for p in itertools.combinations(t, 2)}
    assert history.off_size == Counter({"A": 1, "B": 2, "C": 2, "G": 1})
    assert history.dealers == Counter({"C": 1, "D": 1, "A": 1, "B": 1})
    assert history.seats["A"] == Counter({0: 2}) and history.seats["G"] == Counter({3: 1, 2: 1})
    assert history.byes == Counter({"H": 1})
    assert history.rounds == 2
