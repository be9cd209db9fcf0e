"""The rating model against openskill's PlackettLuce, the reference (no database).

One kernel (``ratings.kernel.rate_in_rank_order``) rates every session; ``rate_session`` calls it
for one session, ``rate_many`` (``league.rate_league``) for a league in one compiled loop. Both
agree with openskill to 1e-12, and with each other exactly."""
from __future__ import annotations

import random

import pytest
from openskill.models import PlackettLuce

from ratings.model import (
    NEW_PLAYER,
    SIGMA,
    DecayConfig,
    Session,
    decayed_sigma,
    displayed_rating,
    pairwise_hits,
    rate_many,
    rate_session,
    ranks_from_totals,
)

TOLERANCE = 1e-12
DAY = 86400.0


def random_league(seed: int, *, sessions: int, players: int = 40, tie_prone: bool = True) -> list[Session]:
    """Sessions of 2-6 players drawn from a small pool (so players recur), totals from a narrow
    range when ``tie_prone`` (so many sessions have ties, some everybody tied)."""
    rng = random.Random(seed)
    league = []
    for number in range(sessions):
        seated = rng.sample(range(players), rng.randint(2, 6))
        high = 3 if tie_prone else 1000
        league.append(Session(seated, [rng.randint(0, high) for _ in seated], number * DAY))
    return league


def rate_with_openskill(sessions: list[Session]) -> dict:
    model = PlackettLuce()
    ratings = {}
    for players, totals, _ in sessions:
        teams = [[ratings.get(player) or model.rating()] for player in players]
        for player, (rated,) in zip(players, model.rate(teams, ranks=ranks_from_totals(totals))):
            ratings[player] = rated
    return {player: (rated.mu, rated.sigma) for player, rated in ratings.items()}


def rate_one_by_one(state: dict, sessions: list[Session], *, decay: DecayConfig | None = None,
                    last_played: dict | None = None) -> dict:
    """The sessions through ``rate_session`` one at a time, the decay applied here: the batch's
    numbers computed without its loop."""
    last_played = {} if last_played is None else last_played
    for players, totals, finished_at in sessions:
        ratings = []
        for player in players:
            mu, sigma = state.get(player, NEW_PLAYER)
            if decay is not None:
                if player in last_played:
                    sigma = decayed_sigma(sigma, (finished_at - last_played[player]) / DAY, decay)
                last_played[player] = finished_at
            ratings.append((mu, sigma))
        state.update(zip(players, rate_session(ratings, ranks_from_totals(totals))))
    return state


def largest_difference(ours: dict, reference: dict) -> float:
    assert ours.keys() == reference.keys()
    return max(
        max(abs(ours[p][0] - reference[p][0]), abs(ours[p][1] - reference[p][1])) for p in reference
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_batch_agrees_with_openskill_for_every_player(seed):
    league = random_league(seed, sessions=1500)
    assert any(len(set(s.totals)) < len(s.totals) for s in league)
    assert any(len(set(s.totals)) == 1 for s in league)
    assert largest_difference(rate_many({}, league), rate_with_openskill(league)) < TOLERANCE


def test_agrees_with_openskill_without_ties():
    league = random_league(4, sessions=1000, tie_prone=False)
    assert largest_difference(rate_many({}, league), rate_with_openskill(league)) < TOLERANCE


def test_one_session_with_ties_agrees_with_openskill():
    ratings = [(30.0, 2.0), (22.0, 5.0), (25.0, 8.0), (27.5, 1.5), (18.0, 3.0)]
    totals = [10, 42, 10, 7, 42]
    model = PlackettLuce()
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    expected = [(rated.mu, rated.sigma) for (rated,) in model.rate(teams, ranks=ranks_from_totals(totals))]
    rated = rate_session(ratings, ranks_from_totals(totals))
    for ours, theirs in zip(rated, expected):
        assert ours == pytest.approx(theirs, abs=TOLERANCE, rel=0)


def test_ranks_from_totals_agree_with_openskill_scores():
    """openskill's own reading of totals (scores=) gives the same ratings as our ranks."""
    model = PlackettLuce()
    totals = [3, 9, 3, 1, 9, 5]
    teams = [[model.rating(mu=20.0 + i, sigma=4.0 + i / 10)] for i in range(len(totals))]
    by_scores = model.rate(teams, scores=totals)
    ours = rate_session([(t[0].mu, t[0].sigma) for t in teams], ranks_from_totals(totals))
    for (theirs,), (mu, sigma) in zip(by_scores, ours):
        assert (mu, sigma) == pytest.approx((theirs.mu, theirs.sigma), abs=TOLERANCE, rel=0)


def test_batch_equals_session_by_session():
    league = random_league(5, sessions=800)
    assert rate_many({}, league) == rate_one_by_one({}, league)
    decay = DecayConfig(0.3)
    spread = [Session(s.players, s.totals, s.finished_at * (1 + i % 7)) for i, s in enumerate(league)]
    spread.sort(key=lambda s: s.finished_at)
    assert rate_many({}, spread, decay=decay) == rate_one_by_one({}, spread, decay=decay)


def test_batch_in_two_calls_equals_one_call():
    league = random_league(6, sessions=400)
    state = rate_many({}, league[:150])
    assert rate_many(state, league[150:]) == rate_many({}, league)


def test_winner_gains_loser_drops_and_tied_equals_move_alike():
    first, second, third = rate_session([NEW_PLAYER] * 3, [1, 2, 2])
    assert first[0] > 25.0 > second[0]
    assert second == third
    assert all(sigma < SIGMA + 0.1 for _, sigma in (first, second, third))


def test_rank_order_not_seat_order_matters():
    ratings = [(25.0, 8.0), (28.0, 3.0), (20.0, 5.0), (31.0, 2.0)]
    ranks = [3, 1, 4, 2]
    rated = rate_session(ratings, ranks)
    reordered = rate_session([ratings[i] for i in (2, 0, 3, 1)], [ranks[i] for i in (2, 0, 3, 1)])
    flat = [number for i in (1, 3, 0, 2) for number in reordered[i]]
    assert flat == pytest.approx([number for rating in rated for number in rating], abs=1e-12)


def test_invalid_sessions_are_refused():
    with pytest.raises(ValueError):
        rate_session([NEW_PLAYER], [1])
    with pytest.raises(ValueError):
        rate_session([NEW_PLAYER, NEW_PLAYER], [1])
    with pytest.raises(ValueError):
        rate_many({}, [Session(["ann", "ann"], [3, 4])])


def test_ranks_from_totals_higher_total_is_better_and_ties_share_a_rank():
    assert ranks_from_totals([10, 42, 10, 7, 42]) == [3, 1, 3, 5, 1]
    assert ranks_from_totals([5, 5]) == [1, 1]
    assert ranks_from_totals([-1.5, 0.0, 2.25]) == [3, 2, 1]


def test_new_player_shows_1000():
    assert displayed_rating(*NEW_PLAYER) == 1000


def test_displayed_rating_rewards_skill_and_certainty():
    assert displayed_rating(30.0, 2.0) == 1000 + 48 * 24
    assert displayed_rating(30.0, 2.0) > displayed_rating(30.0, 3.0) > displayed_rating(29.0, 3.0)


# Inactivity decay


def test_decay_off_equals_openskill():
    league = random_league(7, sessions=600)
    assert largest_difference(rate_many({}, league, decay=None), rate_with_openskill(league)) < TOLERANCE
    assert rate_many({}, league, decay=DecayConfig(variance_per_day=0.0)) == rate_many({}, league)


def test_decay_grows_with_the_gap_and_stops_at_the_initial_sigma():
    decay = DecayConfig(variance_per_day=0.05)
    widened = [decayed_sigma(2.0, days, decay) for days in (0, 1, 30, 365, 100_000)]
    assert widened[0] == 2.0
    assert widened == sorted(widened) and widened[1] > widened[0]
    assert widened[-1] == SIGMA
    assert decayed_sigma(2.0, -3, decay) == 2.0


def test_decay_between_sessions_never_exceeds_the_initial_sigma():
    decay = DecayConfig(variance_per_day=10.0)
    rng = random.Random(8)
    league, finished_at = [], 0.0
    for _ in range(500):
        finished_at += rng.choice([60.0, DAY, 400 * DAY])
        seated = rng.sample(range(12), rng.randint(2, 6))
        league.append(Session(seated, [rng.randint(0, 3) for _ in seated], finished_at))
    last_played: dict = {}
    state: dict = {}
    for session in league:
        before = {p: decayed_sigma(state[p][1], (session.finished_at - last_played[p]) / DAY, decay)
                  for p in session.players if p in state}
        assert all(sigma <= SIGMA for sigma in before.values())
        rate_many(state, [session], decay=decay, last_played=last_played)
    assert all(sigma <= SIGMA for _, sigma in state.values())


def test_longer_absence_means_wider_sigma_before_the_next_session():
    decay = DecayConfig(variance_per_day=0.02)
    first = Session(["ann", "bob"], [10, 5], 0.0)

    def sigma_after_comeback(days):
        last_played: dict = {}
        state = rate_many({}, [first] * 20, decay=decay, last_played=last_played)
        comeback = Session(["ann", "cyd"], [10, 5], days * DAY)
        return rate_many(state, [comeback], decay=decay, last_played=last_played)["ann"][1]

    assert sigma_after_comeback(0) < sigma_after_comeback(10) < sigma_after_comeback(100)


def test_decay_reads_finish_times_not_the_clock():
    league = random_league(9, sessions=300)
    decay = DecayConfig(variance_per_day=0.1)
    once = rate_many({}, league, decay=decay)
    again = rate_many({}, league, decay=decay)
    assert once == again
    assert once != rate_many({}, league)


# Prediction


def test_pairwise_hits_counts_pairs_with_different_totals():
    state = {"ann": (30.0, 1.0), "bob": (20.0, 1.0), "cyd": (25.0, 1.0), "dan": (15.0, 1.0)}
    session = Session(["ann", "bob", "cyd", "dan"], [9, 1, 5, 5])
    # Pairs with different totals: ann>bob hit, ann>cyd hit, ann>dan hit, cyd>bob hit,
    # dan>bob miss (dan's mu 15 < bob's 20); cyd-dan have equal totals and do not count.
    assert pairwise_hits(state, session, by="mu") == (4.0, 5)
    # Equal strengths are a coin flip.
    assert pairwise_hits({"bob": (25.0, 1.0)}, Session(["bob", "new"], [1, 2]), by="mu") == (0.5, 1)
    # By mu - 3 sigma a new player (25, 25/3) is weaker than bob (25, 1): bob ahead is predicted.
    assert pairwise_hits({"bob": (25.0, 1.0)}, Session(["bob", "new"], [2, 1]), by="ordinal") == (1.0, 1)
    assert pairwise_hits({"bob": (25.0, 1.0)}, Session(["bob", "new"], [1, 2]), by="ordinal") == (0.0, 1)
    with pytest.raises(ValueError):
        pairwise_hits(state, session, by="elo")
