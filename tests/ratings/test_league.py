"""The batched league rater gives openskill's numbers and those of ``rate_session`` session by
session (the one kernel, called from the compiled loop and from Python)."""
from __future__ import annotations

import random

import pytest

from ratings.league import rate_league
from ratings.model import DecayConfig, Session
from tests.ratings.test_model import largest_difference, random_league, rate_one_by_one, rate_with_openskill

DAY = 86400.0


@pytest.mark.parametrize("seed", [1, 2])
def test_league_equals_openskill_with_ties_and_short_sessions(seed):
    league = random_league(seed, sessions=1200)  # 2-6 players, many ties, some all tied
    assert largest_difference(rate_league(league), rate_with_openskill(league)) < 1e-12


def test_league_equals_the_sequence_with_decay_and_a_starting_state():
    league = random_league(5, sessions=800, tie_prone=False)
    rng = random.Random(5)
    spread = [Session(s.players, s.totals, s.finished_at * rng.uniform(0.5, 30.0) + i) for i, s in enumerate(league)]
    spread.sort(key=lambda s: s.finished_at)
    start = {player: (20.0 + player % 7, 3.0 + player % 3) for player in range(0, 40, 3)}
    decay = DecayConfig(0.2)
    expected_last, got_last = {}, {}
    expected = rate_one_by_one(dict(start), spread, decay=decay, last_played=expected_last)
    got = rate_league(spread, dict(start), decay=decay, last_played=got_last)
    assert got == expected
    assert got_last == expected_last
    # And decay did something.
    assert largest_difference(rate_league(spread, dict(start)), expected) > 1e-3


def test_players_may_be_any_hashable_and_bad_sessions_are_refused():
    league = [Session(["ann", "bob", "cyd"], [3, 1, 3]), Session(["bob", "dan"], [2, 0])]
    assert rate_league(league) == rate_one_by_one({}, league)
    with pytest.raises(ValueError):
        rate_league([Session(["ann"], [1])])
    with pytest.raises(ValueError):
        rate_league([Session(["ann", "ann"], [1, 2])])
    with pytest.raises(ValueError):
        rate_league([Session(["ann", "bob"], [1])])


def test_a_refused_league_changes_nothing():
    state = {"ann": (30.0, 5.0)}
    last = {"ann": 0.0}
    league = [Session(["ann", "bob"], [2, 1], DAY), Session(["bob", "cyd", "bob"], [1, 2, 3], 2 * DAY)]
    with pytest.raises(ValueError, match="appears twice"):
        rate_league(league, state, decay=DecayConfig(0.5), last_played=last)
    assert state == {"ann": (30.0, 5.0)} and last == {"ann": 0.0}
    assert rate_league([], state) == {"ann": (30.0, 5.0)}


def test_the_compiled_loop_is_its_python_source():
    """Numba compiles ``rate_rows``; run as plain Python it must give the very same numbers."""
    import numpy as np

    from ratings.kernel import rate_rows as _rate_rows

    league = random_league(8, sessions=300)
    players = sorted({p for s in league for p in s.players})
    ids = np.array([players.index(p) for s in league for p in s.players], dtype=np.int64)
    totals = np.array([t for s in league for t in s.totals], dtype=float)
    offsets = np.cumsum([0] + [len(s.players) for s in league]).astype(np.int64)
    times = np.array([s.finished_at * (1 + i % 5) for i, s in enumerate(league)])
    results = []
    for run in (_rate_rows, _rate_rows.py_func):
        arrays = [np.linspace(18.0, 30.0, len(players)), np.linspace(2.0, 8.0, len(players)), np.full(len(players), np.nan)]
        assert run(ids, totals, offsets, times, *arrays, True, 0.3, 25.0 / 3.0, False, *[np.empty(0)] * 4) == -1
        results.append(arrays)
    compiled, python = results
    for got, expected in zip(compiled, python):
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert not np.allclose(compiled[0], np.linspace(18.0, 30.0, len(players)))  # it rated something


def test_the_kernel_is_its_python_source():
    """The one Plackett–Luce kernel, compiled and as plain Python, on sessions with and without ties."""
    import numpy as np

    from ratings.kernel import rate_in_rank_order

    rng = random.Random(11)
    for count in range(2, 9):
        mu = np.array([rng.uniform(15.0, 35.0) for _ in range(count)])
        sigma = np.array([rng.uniform(1.0, 25.0 / 3.0) for _ in range(count)])
        keys = np.array(sorted((float(rng.randint(0, 3)) for _ in range(count)), reverse=True))
        outputs = []
        for run in (rate_in_rank_order, rate_in_rank_order.py_func):
            new_mu, new_sigma = np.full(count, np.nan), np.full(count, np.nan)
            run(mu, sigma, keys, count, new_mu, new_sigma)
            outputs.append((new_mu, new_sigma))
        (compiled_mu, compiled_sigma), (python_mu, python_sigma) = outputs
        np.testing.assert_allclose(compiled_mu, python_mu, rtol=0, atol=1e-12)
        np.testing.assert_allclose(compiled_sigma, python_sigma, rtol=0, atol=1e-12)
        assert not np.isnan(compiled_mu).any() and (compiled_sigma < sigma + 0.1).all()


def test_history_is_each_seat_before_and_after_its_session():
    from ratings.league import rate_league_history
    from ratings.model import NEW_PLAYER, decayed_sigma

    rng = random.Random(9)
    league = [Session(s.players, s.totals, i * DAY * rng.uniform(0.2, 3.0)) for i, s in enumerate(random_league(9, sessions=400))]
    league.sort(key=lambda s: s.finished_at)
    decay = DecayConfig(0.4)
    start = {player: (22.0 + player % 5, 2.5 + player % 4) for player in range(0, 40, 2)}
    got = rate_league_history(league, dict(start), decay=decay, last_played={})
    state, last, before, after = dict(start), {}, [], []
    for session in league:
        for player in session.players:
            mu, sigma = state.get(player, NEW_PLAYER)
            if player in last:
                sigma = decayed_sigma(sigma, (session.finished_at - last[player]) / DAY, decay)
            before.append((mu, sigma))
        rate_one_by_one(state, [session], decay=decay, last_played=last)
        after.extend(state[player] for player in session.players)
    assert len(got.mu_before) == len(before) == sum(len(s.players) for s in league)
    for (mu_got, sigma_got), (mu, sigma) in zip(zip(got.mu_before, got.sigma_before), before):
        assert abs(mu_got - mu) < 1e-12 and abs(sigma_got - sigma) < 1e-12
    for (mu_got, sigma_got), (mu, sigma) in zip(zip(got.mu_after, got.sigma_after), after):
        assert abs(mu_got - mu) < 1e-12 and abs(sigma_got - sigma) < 1e-12
    assert any(b[1] != a[1] for b, a in zip(before, after))
