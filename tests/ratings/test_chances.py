"""Win chances at a table (no database): the quadrature against exact enumeration and a seeded
Monte Carlo, and the properties players rely on."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial.hermite_e import hermegauss

from ratings.calibration import calibrate, observed_wins, reliability, score
from ratings.chances import (
    monte_carlo,
    point_estimate,
    room_chances,
    scale,
    table_chances,
)
from ratings.model import BETA, NEW_PLAYER, SIGMA

mus = st.floats(min_value=-10.0, max_value=60.0, allow_nan=False)
sigmas = st.floats(min_value=0.0, max_value=SIGMA, allow_nan=False)
ratings = st.tuples(mus, sigmas)
tables = st.lists(ratings, min_size=2, max_size=6)


def enumerated(table, nodes: int = 30) -> list[float]:
    """E[softmax(theta / c)] by a tensor product of Gauss–Hermite nodes over every player's
    skill: the definition, summed out (feasible for small tables)."""
    z, w = hermegauss(nodes)
    w = w / w.sum()
    c = scale(table)
    result = np.zeros(len(table))
    for index in itertools.product(range(nodes), repeat=len(table)):
        theta = np.array([mu + sigma * z[k] for (mu, sigma), k in zip(table, index)]) / c
        strengths = np.exp(theta - theta.max())
        result += np.prod(w[list(index)]) * strengths / strengths.sum()
    return result.tolist()


@pytest.mark.parametrize("table", [
    [(25.0, SIGMA), (30.0, 2.0)],
    [(25.0, SIGMA), (30.0, 2.0), (20.0, 1.0)],
    [(40.0, 1.0), (10.0, 1.0), (25.0, 8.0)],
    [(33.0, 0.0), (31.0, 5.0), (18.0, 3.0)],
])
def test_quadrature_equals_enumeration_of_the_skills(table):
    assert [chance.win for chance in table_chances(table)] == pytest.approx(enumerated(table), abs=1e-9)


@pytest.mark.parametrize("table", [
    [(25.0, SIGMA), (30.0, 2.0)],
    [(28.0, 1.5), (25.0, SIGMA), (35.0, 4.0), (22.0, 0.9)],
    [(20.0 + 3 * k, 1.0 + k) for k in range(6)],
])
def test_monte_carlo_agrees_within_its_stated_error(table):
    sampled = monte_carlo(table, samples=200_000, seed=7)
    exact = table_chances(table)
    for chance, win, error in zip(exact, sampled.win, sampled.standard_error):
        assert abs(chance.win - win) < 4.5 * max(error, 1e-4)
    # the expected place: a mean of places 1..n, its error at most (n - 1) / 2 / sqrt(samples) per s.d.
    bound = 4.5 * (len(table) - 1) / 2 / math.sqrt(sampled.samples)
    for chance, place in zip(exact, sampled.expected_place):
        assert abs(chance.expected_place - place) < bound


@settings(max_examples=60, deadline=None)
@given(tables)
def test_chances_sum_to_one_and_places_to_the_triangle(table):
    chances = table_chances(table)
    n = len(table)
    assert sum(chance.win for chance in chances) == pytest.approx(1.0, abs=1e-9)
    assert sum(chance.expected_place for chance in chances) == pytest.approx(n * (n + 1) / 2, abs=1e-8)
    assert all(-1e-12 <= chance.win <= 1 + 1e-12 and 1 - 1e-9 <= chance.expected_place <= n + 1e-9 for chance in chances)


@settings(max_examples=40, deadline=None)
@given(ratings, st.integers(min_value=2, max_value=6))
def test_equal_players_get_equal_chances(rating, n):
    chances = table_chances([rating] * n)
    for chance in chances:
        assert chance.win == pytest.approx(1 / n, abs=1e-9)
        assert chance.expected_place == pytest.approx((n + 1) / 2, abs=1e-8)


@settings(max_examples=60, deadline=None)
@given(tables, st.floats(min_value=0.01, max_value=20.0))
def test_a_higher_mu_never_loses_chance(table, raise_by):
    before = table_chances(table)
    mu, sigma = table[0]
    after = table_chances([(mu + raise_by, sigma)] + table[1:])
    assert after[0].win >= before[0].win - 1e-9
    assert after[0].expected_place <= before[0].expected_place + 1e-9
    # and nobody else gains
    for old, new in zip(before[1:], after[1:]):
        assert new.win <= old.win + 1e-9


def test_the_favourite_is_the_one_with_the_higher_mu_and_seats_do_not_matter():
    table = [(22.0, 2.0), (31.0, 2.0), (26.0, 3.0), (25.0, SIGMA)]
    chances = table_chances(table)
    assert max(range(4), key=lambda seat: chances[seat].win) == 1
    reversed_chances = table_chances(table[::-1])
    assert [c.win for c in reversed_chances[::-1]] == pytest.approx([c.win for c in chances], abs=1e-12)


def test_uncertainty_pulls_towards_even_chances():
    """A favourite whose skill is uncertain is less of a favourite than the point estimate says."""
    sure = table_chances([(35.0, 0.5), (25.0, 0.5)])[0].win
    unsure = table_chances([(35.0, 6.0), (25.0, 0.5)])[0].win
    assert 0.5 < unsure < sure
    assert sure == pytest.approx(point_estimate([(35.0, 0.5), (25.0, 0.5)])[0], abs=0.01)


def test_new_players_are_provisional_and_still_get_a_chance():
    chances = table_chances([NEW_PLAYER, (30.0, 3.0), (24.0, SIGMA - 0.5)])
    assert [chance.provisional for chance in chances] == [True, False, False]
    assert chances[0].win > 0.05


def test_room_chances_equal_table_by_table():
    room = [[(25.0, SIGMA), (30.0, 2.0)], [(20.0 + k, 1.0 + k) for k in range(6)], [(28.0, 1.0)] * 3]
    for together, table in zip(room_chances(room), room):
        assert [c.win for c in together] == pytest.approx([c.win for c in table_chances(table)], abs=1e-9)


@pytest.mark.parametrize("table", [[(25.0, 1.0)], [(25.0, 1.0)] * 7, [(25.0, -1.0), (25.0, 1.0)], [(math.nan, 1.0)] * 2])
def test_not_a_table_is_refused(table):
    with pytest.raises(ValueError):
        table_chances(table)


def test_a_shared_first_place_is_a_share_of_a_win():
    assert observed_wins([10, 30, 30, 5]) == [0.0, 0.5, 0.5, 0.0]
    assert observed_wins([1, 2]) == [0.0, 1.0]


def test_scores_of_a_sure_and_of_a_uniform_prediction():
    outcomes = [[1.0, 0.0], [0.0, 1.0]]
    assert score([[1.0, 0.0], [0.0, 1.0]], outcomes).log_loss == pytest.approx(0.0)
    assert score([[0.5, 0.5], [0.5, 0.5]], outcomes) == pytest.approx((math.log(2), 0.5))
    bins = reliability([[0.05, 0.95], [0.05, 0.95]], outcomes)
    assert bins[0].count == 2 and bins[0].observed == 0.5 and bins[9].count == 2


def test_calibration_on_a_league_with_known_skills_beats_both_baselines():
    """Players' totals are skill plus noise (``ratings.bench``): after the league's start, the
    chances predict the winner better than the point estimate and far better than a coin."""
    from ratings.generated import generate_league

    _, league = generate_league(players=120, sessions=3000, seed=11)
    report = calibrate(league, skip=1000)
    chances, point, uniform = (report.scores[m] for m in ("chances", "point", "uniform"))
    assert chances.log_loss < point.log_loss < uniform.log_loss
    assert chances.brier < uniform.brier
    for bin_ in report.bins:
        if bin_.count >= 400:
            assert abs(bin_.observed - bin_.predicted) < 0.03 + 3 * bin_.error, bin_


def test_scale_is_openskills_only_when_asked():
    table = [(25.0, 3.0), (25.0, 4.0)]
    assert scale(table) == pytest.approx(BETA * math.sqrt(2))
    assert scale(table, with_sigma=True) == pytest.approx(math.sqrt(9 + 16 + 2 * BETA**2))



# The pool's fitted scale (chances.Scale, calibration.fit_scale)

def test_the_default_scale_changes_nothing_and_a_scale_is_a_rescaling_of_the_ratings():
    from ratings.chances import DEFAULT_SCALE, Scale, rescaled

    table = [(31.0, 2.5), (24.0, SIGMA), (20.0, 1.0), (27.0, 4.0)]
    assert table_chances(table, DEFAULT_SCALE) == table_chances(table)
    fitted = Scale({4: 1.7, 5: 0.8}, 1.4)
    assert [c.win for c in table_chances(table, fitted)] == pytest.approx(
        [c.win for c in table_chances(rescaled(table, fitted))], abs=1e-12)
    # A hotter temperature pulls every chance towards 1/n; a wider sigma as well; provisional
    # stays what the sigmas say.
    hotter = table_chances(table, Scale({4: 2.0}, 1.0))
    plain = table_chances(table)
    assert max(c.win for c in hotter) < max(c.win for c in plain)
    assert min(c.win for c in hotter) > min(c.win for c in plain)
    assert [c.provisional for c in table_chances(table, fitted)] == [False, True, False, False]
    assert table_chances(table, Scale({5: 3.0}, 1.0)) == plain  # another size's temperature


def _plackett_luce_league(temperature: float, tables: int, seed: int):
    """Tables whose winner is drawn from Plackett–Luce with ``c = temperature·beta·sqrt(n)`` over
    the players' mu (their sigma 0: known skills)."""
    rng = np.random.default_rng(seed)
    result, outcomes = [], []
    for _ in range(tables):
        n = int(rng.integers(3, 6))
        mu = rng.normal(25.0, SIGMA, n)
        performance = mu / (temperature * BETA * math.sqrt(n)) + rng.gumbel(size=n)
        result.append([(float(m), 0.0) for m in mu])
        outcomes.append([1.0 if i == int(performance.argmax()) else 0.0 for i in range(n)])
    return result, outcomes


@pytest.mark.parametrize("temperature", [0.6, 1.0, 1.8])
def test_the_fitted_temperature_is_the_one_the_winners_were_drawn_with(temperature):
    from ratings.calibration import fit_scale

    tables, outcomes = _plackett_luce_league(temperature, 6000, seed=round(10 * temperature))
    fitted = fit_scale(tables, outcomes)
    assert set(fitted.temperature) == {2, 3, 4, 5, 6}  # sizes not seen: the pooled temperature
    assert fitted.temperature[2] == fitted.temperature[6]
    for size in (3, 4, 5):
        assert fitted.temperature[size] == pytest.approx(temperature, rel=0.15), size


def test_too_little_history_gives_the_prior_and_a_prediction_never_learns_from_its_own_session():
    from ratings.calibration import (
        MIN_FIT,
        PRIOR_SCALE,
        REFIT,
        fit_scale,
        fitted_chances,
    )

    tables, outcomes = _plackett_luce_league(1.5, 3 * REFIT + 100, seed=5)
    assert fit_scale(tables[:MIN_FIT - 1], outcomes[:MIN_FIT - 1]) is PRIOR_SCALE
    before = fitted_chances(tables, outcomes)
    # The first block is predicted with the prior's scale (nothing seen yet).
    prior = [[c.win for c in table] for table in room_chances(tables[:REFIT], PRIOR_SCALE)]
    assert np.allclose(np.concatenate(before[:REFIT]), np.concatenate(prior), atol=1e-9)
    # Changing who won a session of the second block changes no prediction up to its block's end.
    changed = [list(outcome) for outcome in outcomes]
    winner = changed[REFIT + 10].index(1.0)
    changed[REFIT + 10] = [1.0 if seat == (winner + 1) % len(changed[REFIT + 10]) else 0.0
                           for seat in range(len(changed[REFIT + 10]))]
    after = fitted_chances(tables, changed)
    assert after[:2 * REFIT] == before[:2 * REFIT]
    # The second block is predicted with the fit on the first (not the prior any more), and the
    # third block's fit learnt from the change.
    second = [[c.win for c in table] for table in room_chances(tables[REFIT:2 * REFIT], PRIOR_SCALE)]
    assert not np.allclose(np.concatenate(before[REFIT:2 * REFIT]), np.concatenate(second), atol=1e-3)
    assert after[2 * REFIT:] != before[2 * REFIT:]


def test_the_prior_is_cautious_and_weighs_less_the_more_sessions_are_seen():
    """The prior's scale is less sure of a favourite than the model's own; a fit on few sessions
    stays between the prior and the data's temperature, one on many follows the data."""
    from ratings.calibration import PRIOR_SCALE, PRIOR_TEMPERATURE, fit_scale
    from ratings.chances import DEFAULT_SCALE

    table = [(31.0, 2.5), (24.0, 3.0), (20.0, 1.0), (27.0, 4.0)]
    assert max(c.win for c in table_chances(table, PRIOR_SCALE)) < max(c.win for c in table_chances(table, DEFAULT_SCALE))
    tables, outcomes = _plackett_luce_league(0.6, 6000, seed=3)
    few = fit_scale(tables[:150], outcomes[:150]).temperature
    many = fit_scale(tables, outcomes).temperature
    for size in (3, 4, 5):
        assert 0.6 < few[size] < PRIOR_TEMPERATURE
        assert abs(many[size] - 0.6) < abs(few[size] - 0.6)
        assert many[size] == pytest.approx(0.6, rel=0.15)


def test_the_chances_hold_on_a_league_whose_skills_spread_less_than_the_prior_assumes():
    """A generated league (totals = skill + noise of one beta) whose skills spread 0.8 times the
    noise, the prior's spread being 2: every reliability bin of at least 200 seats, after the
    league's start, predicts its observed win rate within 6 points. (With the model's own scale
    until a fit was trusted, the 0.6–0.7 bin was 9.8 points too sure.)"""
    from ratings.generated import generate_league

    _, league = generate_league(players=100, sessions=2000, seed=7, spread=0.8)
    report = calibrate(league, skip=300)
    checked = [bin_ for bin_ in report.bins if bin_.count >= 200]
    assert len(checked) >= 5
    for bin_ in checked:
        assert abs(bin_.observed - bin_.predicted) <= 0.06, bin_


# The percentages a table shows (ratings.templatetags.chances): whole percents that add up to 100

@pytest.mark.parametrize("wins, expected", [
    ([1 / 3, 1 / 3, 1 / 3], [34, 33, 33]),  # rounded: 33 + 33 + 33 = 99
    ([0.4444, 0.3333, 0.2223], [45, 33, 22]),  # rounded: 44 + 33 + 22 = 99
    ([1 / 6] * 6, [17, 17, 17, 17, 16, 16]),  # rounded: 6 · 17 = 102
    ([0.415, 0.405, 0.18], [42, 40, 18]),  # rounded: 42 + 41 + 18 = 101
    ([0.336, 0.336, 0.328], [34, 33, 33]),  # rounded: 34 + 34 + 33 = 101
    ([0.126, 0.126, 0.126, 0.622], [13, 13, 12, 62]),  # rounded: 101
    ([0.996, 0.002, 0.002], [100, 0, 0]),
    ([0.25, 0.25, 0.25, 0.25], [25, 25, 25, 25]),
])
def test_the_shown_percentages_of_a_table_add_up_to_100(wins, expected):
    from ratings.chances import whole_percents

    rounded = [math.floor(100 * win + 0.5) for win in wins]  # as a reader rounds
    points = whole_percents(wins)
    assert points == expected and sum(points) == 100
    assert all(abs(point - 100 * win) < 1 for point, win in zip(points, wins))
    assert (sum(rounded) == 100) == (points == rounded)


@settings(max_examples=60, deadline=None)
@given(tables)
def test_the_percentages_of_any_table_add_up_to_100_and_keep_the_order(table):
    from ratings.chances import whole_percents

    wins = [chance.win for chance in table_chances(table)]
    points = whole_percents(wins)
    assert sum(points) == 100
    for a, b in itertools.combinations(range(len(wins)), 2):
        if wins[a] > wins[b] + 1e-12:
            assert points[a] >= points[b]
        assert abs(points[a] - 100 * wins[a]) < 1


def test_a_table_view_shows_percentages_adding_to_100_and_equal_chances_share_the_favourite():
    from ratings.outlook import SeatChance, TableOutlook
    from ratings.templatetags.chances import outlook_view

    def view(wins):
        seats = [SeatChance(seat, seat + 1, win, 2.0, False, 25.0, 3.0) for seat, win in enumerate(wins)]
        return outlook_view(TableOutlook(1, "current", None, seats), [f"P{seat}" for seat in range(len(wins))])

    even = view([1 / 3] * 3)
    assert [seat["percent"] for seat in even["seats"]] == ["34 %", "33 %", "33 %"]
    assert even["favourite"] is None and even["favourites"] == []  # even chances: no favourite
    near = view([0.405, 0.415, 0.18])
    assert [seat["percent"] for seat in near["seats"]] == ["40 %", "42 %", "18 %"]
    assert near["favourite"]["name"] == "P1"
    sure = view([0.996, 0.002, 0.002])
    assert [seat["percent"] for seat in sure["seats"]] == [">99 %", "<1 %", "<1 %"]
