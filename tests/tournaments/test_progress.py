"""Session progress and standings metrics, on plain data (no database)."""
from __future__ import annotations

from fractions import Fraction

from tournaments.results.book import (
    PlayedHand,
    SessionRules,
    expected_next,
    is_finished,
    placements,
    totals,
)
from tournaments.standings.metrics import SessionLine, standings


def mu_hand(dealer, scores, voided=False):
    return PlayedHand(dealer=dealer, voided=voided, result=None if voided else {"scores": scores}, full=True)


def test_mu_dealer_moves_clockwise_after_every_deal_void_ones_included():
    rules = SessionRules("mu", 4)
    hands = [mu_hand(2, [0, 0, 0, 0]), mu_hand(3, [0, 0, 0, 0], voided=True)]
    assert expected_next(rules, []).dealer is None  # the table draws the first dealer
    assert expected_next(rules, hands[:1]).dealer == 3
    assert expected_next(rules, hands).dealer == 0
    assert expected_next(rules, hands).number == 3


def test_mu_ends_after_the_deal_in_which_a_total_reaches_the_target():
    rules = SessionRules("mu", 3, mu_target_score=50)
    hands = [mu_hand(0, [30, -10, 5]), mu_hand(1, [19, 0, 0])]
    assert not is_finished(rules, hands)
    assert is_finished(rules, hands + [mu_hand(2, [1, 0, 0])])
    assert totals(rules, hands) == [49, -10, 5]


def test_mu_fixed_number_of_deals_counts_every_played_deal():
    rules = SessionRules("mu", 4, mu_target_score=10, mu_fixed_deals=3)
    # The rules' void deal (everybody passed: all 0) is a played deal; a hand an organiser voided
    # keeps its slot but is not one of the fixed deals (issue 38; book.played_deals).
    hands = [mu_hand(0, [100, 0, 0, 0]), mu_hand(1, [0, 0, 0, 0]), mu_hand(2, [0, 0, 0, 0], voided=True)]
    assert not is_finished(rules, hands)  # the target does not end a game of fixed length
    assert is_finished(rules, hands + [mu_hand(3, [0, 0, 0, 0])])
    assert is_finished(rules, hands[:2] + [mu_hand(2, [0, 0, 0, 0])])


def test_maumau_full_record_continues_next_dealer_and_direction_but_not_after_a_summary():
    rules = SessionRules("maumau", 4, maumau_games_per_series=3)
    full = PlayedHand(1, False, {"scores": [0, -2, -3, -1], "next_dealer": 3, "direction": -1}, True)
    summary = PlayedHand(3, False, {"scores": [0, -2, -3, -1], "next_dealer": None, "direction": None}, False)
    assert expected_next(rules, []).direction == 1  # the first game of a series starts clockwise
    assert (expected_next(rules, [full]).dealer, expected_next(rules, [full]).direction) == (3, -1)
    assert expected_next(rules, [full, summary]).dealer is None
    assert is_finished(rules, [full, summary, full]) and not is_finished(rules, [full, summary])


def test_lut_game_has_one_round_per_player():
    rules = SessionRules("lut", 5)
    hands = [mu_hand(seat, [1, 2, 3, 4, 5]) for seat in range(4)]
    assert not is_finished(rules, hands)
    assert is_finished(rules, hands + [mu_hand(4, [0] * 5)])


def test_placement_points_are_linear_and_ties_share():
    assert placements([10, 30, 20]) == [0, 1, Fraction(1, 2)]
    assert placements([5, 5, 1, 9]) == [Fraction(1, 2), Fraction(1, 2), 0, 1]
    assert placements([7, 7]) == [Fraction(1, 2), Fraction(1, 2)]


def test_default_standings_rank_by_placement_then_total_then_wins():
    lines = [
        SessionLine(["a", "b", "c"], [36, 0, 0]),  # a small table: few points in play
        SessionLine(["d", "e", "f", "g"], [150, 140, 10, 0]),
    ]
    rows = standings(lines, ["placement", "total", "wins"])
    assert [row.player for row in rows][:3] == ["d", "a", "e"]  # d and a both 1 point; d has more total
    assert rows[0].rank == 1 and rows[1].rank == 2
    # b and c tie on everything: one shared rank
    tied = [row for row in rows if row.player in ("b", "c")]
    assert tied[0].rank == tied[1].rank


def test_metrics_are_configurable():
    lines = [SessionLine(["a", "b"], [1, 100]), SessionLine(["a", "b"], [50, 0])]
    by_total = standings(lines, ["total"])
    by_wins = standings(lines, ["wins", "total"])
    assert by_total[0].player == "b"
    assert by_wins[0].player == "b" and by_wins[0].metrics["wins"] == 1 and by_wins[1].metrics["wins"] == 1


def test_a_session_under_way_counts_its_points_but_is_not_played_won_or_placed():
    lines = [
        SessionLine(["a", "b"], [10, 5]),  # finished: a won
        SessionLine(["a", "b"], [0, 30], finished=False),  # under way: b leads
        SessionLine(["c", "d"], [7, 3], finished=False),  # c and d have finished nothing yet
    ]
    rows = {row.player: row for row in standings(lines, ["placement", "total", "wins", "average_placement"])}
    assert {p: row.played for p, row in rows.items()} == {"a": 1, "b": 1, "c": 0, "d": 0}
    assert {p: row.metrics["wins"] for p, row in rows.items()} == {"a": 1, "b": 0, "c": 0, "d": 0}
    assert {p: row.metrics["placement"] for p, row in rows.items()} == {"a": 1, "b": 0, "c": 0, "d": 0}
    assert {p: row.metrics["total"] for p, row in rows.items()} == {"a": 10, "b": 35, "c": 7, "d": 3}
    assert rows["c"].metrics["average_placement"] == 0 and rows["a"].metrics["average_placement"] == 1
