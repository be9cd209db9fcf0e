"""The session book (``tournaments/results/book.py``) over plain hands, no database: what a write
does to a session (totals, its end, the next hand, its players' standings sums, a Maumau series'
money), checked against values worked out here, and applying hands one by one equals the book
computed from all of them."""
from __future__ import annotations

import os
import random
import subprocess
import sys
from fractions import Fraction

import pytest

from tournaments.results.book import (
    ABANDONED,
    FIELDS,
    FINISHED,
    OPEN,
    PLACEMENT_SCALE,
    ZERO,
    Kept,
    PlayedHand,
    SessionBook,
    SessionRules,
)

PLAYERS = (11, 12, 13, 14)


def mu(dealer, scores=None, *, voided=False, counts=True):
    return PlayedHand(dealer=dealer, voided=voided, result=None if voided else {"scores": list(scores)}, full=True,
                      counts=counts)


def maumau(dealer, minus):
    """A Maumau game as a summary record leaves it (its minus points only: the next dealer is free)."""
    result = {"scores": [-value for value in minus], "minus": list(minus)}
    return PlayedHand(dealer=dealer, voided=False, result=result, full=False)


def empty(rules):
    """The book of a session without hands, which holds every hand it gets (corrections need them)."""
    return SessionBook.over(rules, [], players=PLAYERS)


def field(change, name):
    return change[FIELDS.index(name)]


def run(book, hands):
    """Apply ``hands`` one by one; the outcomes."""
    outcomes = []
    for hand in hands:
        outcome = book.apply(hand)
        outcomes.append(outcome)
        book = outcome.book
    return outcomes


def test_totals_and_the_next_dealer_after_each_hand():
    rules = SessionRules("mu", 4, mu_target_score=1000)
    outcomes = run(SessionBook(rules, players=PLAYERS), [mu(2, [10, -5, 0, 3]), mu(3, [1, 2, 3, 4])])
    first, second = outcomes
    assert first.kept == Kept(OPEN, (10, -5, 0, 3), 1, 2)  # the first hand's dealer dealt first
    assert second.kept == Kept(OPEN, (11, -3, 3, 7), 2, 2)
    assert (second.next.number, second.next.dealer) == (3, 0)  # clockwise after seat 3
    # The standings: the first hand seats everyone and adds its points; the second adds its own.
    assert first.standings == [(11, (1, 0, 0, 10, 0, 0)), (12, (1, 0, 0, -5, 0, 0)), (13, (1, 0, 0, 0, 0, 0)),
                               (14, (1, 0, 0, 3, 0, 0))]
    assert second.standings == [(p, (0, 0, 0, s, 0, 0)) for p, s in zip(PLAYERS, [1, 2, 3, 4])]
    assert not second.rating_dirty and not second.result_changed and second.transfers is None


def test_the_drawn_first_dealer_deals_the_first_hand():
    book = SessionBook(SessionRules("mu", 4), Kept(first_dealer=1))
    assert (book.next.number, book.next.dealer) == (1, 1)
    assert book.apply(mu(1, [0, 0, 0, 0])).kept.first_dealer == 1


def test_a_fixed_deal_session_ends_after_its_deals_and_a_void_keeps_its_slot():
    rules = SessionRules("mu", 4, mu_fixed_deals=3)
    hands = [mu(0, [5, 0, 0, 0]), mu(1, voided=True), mu(2, [0, 7, 0, 2]), mu(3, [0, 0, 0, 0])]
    outcomes = run(empty(rules), hands)
    void = outcomes[1]
    assert void.kept == Kept(OPEN, (5, 0, 0, 0), 2, 0)  # it scores nothing
    assert void.standings == [] and void.next.dealer == 2  # its dealer still moved on
    # Three slots but two played deals: a voided slot is not one of the fixed deals (book.played_deals).
    assert outcomes[2].kept == Kept(OPEN, (5, 7, 0, 2), 3, 0)
    assert (outcomes[2].next.number, outcomes[2].next.dealer) == (4, 3)
    end = outcomes[3]
    assert end.kept == Kept(FINISHED, (5, 7, 0, 2), 4, 0)
    assert end.finished is True and end.next is None
    assert end.rating_dirty and end.result_changed and end.transfers is None  # Mü owes no money
    # Finished: one session played, placement points 1, 2/3, 1/3, 0 (totals 7 > 5 > 2 > 0), a win
    # for the best total, and the last hand's points (0).
    expected = {12: (0, 1, PLACEMENT_SCALE, 0, 1, 0), 11: (0, 1, PLACEMENT_SCALE * 2 // 3, 0, 0, 0),
                14: (0, 1, PLACEMENT_SCALE // 3, 0, 0, 0), 13: (0, 1, 0, 0, 0, 0)}
    assert dict(end.standings) == expected
    # Voiding a played deal of the finished session: two played deals of three, so it reopens for
    # one more (issue 38: the session is not finished while a counted deal is missing).
    voided = end.book.apply(mu(2, voided=True), number=3)
    assert voided.kept == Kept(OPEN, (5, 0, 0, 0), 4, 0) and voided.finished is False
    assert voided.rating_dirty and voided.result_changed
    assert (voided.next.number, voided.next.dealer) == (5, 0)
    # It had been finished with seat 1 first; now nobody has played a whole session.
    assert dict(voided.standings) == {player: tuple(-value for value in change) for player, change in expected.items()
                                      } | {12: (0, -1, -PLACEMENT_SCALE, -7, -1, 0), 14: (0, -1, -(PLACEMENT_SCALE // 3), -2, 0, 0)}


def test_voiding_the_only_deal_of_a_one_deal_session_reopens_it_for_that_deal():
    """Issue 38: not a finished session with no deal played and every player a winner with 0."""
    rules = SessionRules("mu", 4, mu_fixed_deals=1)
    book = SessionBook(rules, Kept(first_dealer=2), players=PLAYERS, hands=())
    played = book.apply(mu(2, [0, 30, 0, 10]))
    assert played.kept == Kept(FINISHED, (0, 30, 0, 10), 1, 2) and played.finished is True
    assert field(dict(played.standings)[12], "wins") == 1
    voided = played.book.apply(mu(2, voided=True), number=1)
    assert voided.kept == Kept(OPEN, (0, 0, 0, 0), 1, 2) and voided.finished is False
    assert voided.result_changed and voided.rating_dirty
    # No win, no session played, no placement points for anyone: only the seat at the table stays.
    after = voided.book.contribution()
    assert all(field(sums, "wins") == 0 and field(sums, "played") == 0 and field(sums, "placement") == 0
               for sums in after.values())
    assert (voided.next.number, voided.next.dealer) == (2, 3)  # the deal again, by the next dealer
    again = voided.book.apply(mu(3, [10, 0, 0, 0]))
    assert again.kept == Kept(FINISHED, (10, 0, 0, 0), 2, 2) and again.finished is True
    # A submission's book that holds the latest hand only knows the voided slots by their count.
    latest = SessionBook(rules, voided.book.kept, PLAYERS, count=1, last=mu(2, voided=True), voided=1)
    assert latest.apply(mu(3, [10, 0, 0, 0])).kept == again.kept
    assert SessionBook.over(rules, [mu(2, voided=True)], players=PLAYERS).kept.status == OPEN
    # A Maumau series and a LuT game count their slots, voided ones included (book.played_deals),
    # but one whose every hand is voided has played none: not finished, nobody won with 0.
    for other in (SessionRules("maumau", 4, maumau_games_per_series=1), SessionRules("lut", 4)):
        count = other.players if other.game == "lut" else 1
        hands = [mu(seat, voided=True) for seat in range(count)]
        assert SessionBook.over(other, hands, players=PLAYERS).kept.status == OPEN
        played = [mu(0, [1, 0, 0, 0])] + hands[1:]
        if count > 1:
            assert SessionBook.over(other, played, players=PLAYERS).kept.status == FINISHED


def test_a_correction_below_the_target_reopens_the_session():
    rules = SessionRules("mu", 4, mu_target_score=20)
    end = empty(rules).apply(mu(0, [25, 0, 0, 0]))
    assert end.kept.status == FINISHED and end.next is None
    reopened = end.book.apply(mu(0, [10, 0, 0, 0]), number=1)
    assert reopened.kept == Kept(OPEN, (10, 0, 0, 0), 1, 0) and reopened.finished is False
    assert reopened.rating_dirty and reopened.result_changed
    assert (reopened.next.number, reopened.next.dealer) == (2, 1)
    # It had been finished with seat 0 alone first (1) and the other three sharing 1/3 each.
    third = PLACEMENT_SCALE // 3
    assert dict(reopened.standings) == {11: (0, -1, -PLACEMENT_SCALE, -15, -1, 0), 12: (0, -1, -third, 0, 0, 0),
                                        13: (0, -1, -third, 0, 0, 0), 14: (0, -1, -third, 0, 0, 0)}


def test_a_hand_waiting_for_confirmation_counts_once_confirmed():
    rules = SessionRules("lut", 4)
    book = run(empty(rules), [mu(0, [3, 0, 0, 0]), mu(1, [0, 4, 0, 0], counts=False)])[-1].book
    assert book.kept.totals == (3, 0, 0, 0)
    confirmed = book.apply(mu(1, [0, 4, 0, 0]), number=2)
    assert confirmed.kept.totals == (3, 4, 0, 0)
    assert confirmed.standings == [(12, (0, 0, 0, 4, 0, 0))]


def test_a_finished_maumau_series_settles_its_money():
    """rules/maumau.md's worked example: totals A 3, B 10, C 12, D 25 at 0.10 EUR: A receives 2.20
    from D, B 0.20 from C."""
    rules = SessionRules("maumau", 4, maumau_games_per_series=2, maumau_stake_cents=10)
    first, second = run(empty(rules), [maumau(0, [1, 4, 0, 10]), maumau(1, [2, 6, 12, 15])])
    assert first.transfers is None and first.kept.status == OPEN
    assert second.kept == Kept(FINISHED, (-3, -10, -12, -25), 2, 0)
    assert set(second.transfers) == {(14, 11, 220), (13, 12, 20)}
    cents = {player: field(change, "cents") for player, change in second.standings}
    assert cents == {11: 220, 12: 20, 13: -20, 14: -220}
    # A correction after the end settles again; abandoning takes everything back and leaves the
    # payments as they are.
    corrected = second.book.apply(maumau(1, [2, 6, 0, 15]), number=2)
    assert corrected.kept.totals == (-3, -10, 0, -25)  # C 0 now: C first (best), A second
    assert set(corrected.transfers) == {(14, 13, 250), (12, 11, 70)}
    abandoned = corrected.book.abandon()
    assert abandoned.kept.status == ABANDONED and abandoned.rating_dirty and abandoned.transfers is None
    assert {player: change for player, change in abandoned.standings} == {
        player: tuple(-value for value in contribution)
        for player, contribution in corrected.book.contribution().items()
    }


def test_an_abandoned_session_stays_abandoned_when_corrected():
    rules = SessionRules("mu", 4, mu_fixed_deals=1)
    book = SessionBook.over(rules, [mu(0, [1, 2, 3, 4])], players=PLAYERS)
    abandoned = book.abandon().book
    outcome = abandoned.apply(mu(0, [4, 3, 2, 1]), number=1)
    assert outcome.kept.status == ABANDONED and outcome.kept.totals == (4, 3, 2, 1)
    assert outcome.standings == [] and not outcome.result_changed and outcome.transfers is None


def random_hand(game, rng, players, dealer):
    if rng.random() < 0.15:
        return PlayedHand(dealer=dealer, voided=True, result=None, full=True)
    counts = rng.random() > 0.1
    if game == "maumau":
        minus = [rng.randint(0, 20) for _ in range(players)]
        minus[rng.randrange(players)] = 0
        result = {"scores": [-value for value in minus], "minus": minus,
                  "next_dealer": rng.randrange(players), "direction": rng.choice([1, -1])}
        return PlayedHand(dealer=dealer, voided=False, result=result, full=rng.random() < 0.7, counts=counts)
    return PlayedHand(dealer=dealer, voided=False, result={"scores": [rng.randint(-30, 60) for _ in range(players)]},
                      full=True, counts=counts)


@pytest.mark.parametrize("rules", [
    SessionRules("mu", 4, mu_target_score=150), SessionRules("mu", 5, mu_fixed_deals=6),
    SessionRules("maumau", 3, maumau_games_per_series=5, maumau_stake_cents=7), SessionRules("lut", 6),
])
def test_applying_hands_one_by_one_equals_the_book_over_all_of_them(rules):
    rng = random.Random(f"{rules.game}-{rules.players}")
    players = tuple(range(101, 101 + rules.players))
    for _ in range(60):
        book, hands, sums = SessionBook.over(rules, [], players=players), [], {}
        while book.kept.status == OPEN and len(hands) < 12:
            expected = book.next
            dealer = expected.dealer if expected.dealer is not None else rng.randrange(rules.players)
            hand = random_hand(rules.game, rng, rules.players, dealer)
            outcome = book.apply(hand)
            hands.append(hand)
            for player, change in outcome.standings:
                sums[player] = tuple(a + b for a, b in zip(sums.get(player, ZERO), change))
            # A correction in an earlier slot, now and then: the book over the corrected hands.
            if len(hands) > 1 and rng.random() < 0.3:
                slot = rng.randrange(len(hands))
                hands[slot] = random_hand(rules.game, rng, rules.players, hands[slot].dealer)
                outcome = outcome.book.apply(hands[slot], number=slot + 1)
                for player, change in outcome.standings:
                    sums[player] = tuple(a + b for a, b in zip(sums.get(player, ZERO), change))
            book = outcome.book
            whole = SessionBook.over(rules, hands, players=players)
            assert book.kept == whole.kept
            assert book.next == whole.next and book.count == whole.count == len(hands)
            assert {p: s for p, s in sums.items() if any(s)} == whole.contribution()
            assert book.transfers() == whole.transfers()
        # The totals the book keeps are the counted hands' scores, summed here independently.
        counted = [hand.result["scores"] for hand in hands if hand.counts and not hand.voided]
        assert list(book.kept.totals) == [sum(scores[seat] for scores in counted) for seat in range(rules.players)]


def test_placement_points_in_the_standings_are_exact():
    rules = SessionRules("lut", 4)
    outcome = run(empty(rules), [mu(seat, [5, 5, 1, 0]) for seat in range(4)])[-1]
    placement = {p: Fraction(field(c, "placement"), PLACEMENT_SCALE) for p, c in outcome.standings}
    # 20, 20, 4, 0: the two first share (1 + 2/3) / 2.
    assert placement == {11: Fraction(5, 6), 12: Fraction(5, 6), 13: Fraction(1, 3), 14: 0}


def test_the_book_needs_no_django():
    """The book is plain Python: importing it loads neither Django nor the models."""
    code = ("import sys; import tournaments.results.book; "
            "sys.exit(any(m.split('.')[0] in ('django', 'rest_framework') or m == 'tournaments.models' "
            "for m in sys.modules))")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0
