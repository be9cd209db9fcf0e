"""Win chances at a table before it plays: each player's probability to finish first and his
expected place, from the players' ``(mu, sigma)``.

Pure Python with NumPy (no Django, no I/O).

**The model** is the one the ratings are fitted with (``ratings.model``, openskill's
``PlackettLuce``): given the true skills ``theta``, a table of ``n`` players finishes in the
Plackett–Luce order with strengths ``exp(theta_i / c)``. The skills are not known:
``theta_i ~ N(mu_i, sigma_i²)``, independent. The chances integrate that uncertainty out instead
of plugging in ``mu``:

    P(i first) = E_theta[ exp(theta_i / c) / Σ_j exp(theta_j / c) ],   c² = n · beta²

``c`` is the model's scale with the skills known (openskill's ``c² = Σ (sigma_j² + beta²)`` with
every sigma 0): each player's uncertainty enters once, through the integral. openskill's own
``c`` adds the sigmas to the scale, which is Weng and Lin's approximation of this very integral;
using it here as well would count the uncertainty twice and make every favourite too weak (the
calibration report measures both). The ratings' own scale drifts from the exact model's (the
Weng–Lin updates are an approximation), so what the pages show uses a pool's ``Scale`` fitted on
its own history (``ratings.calibration.fit_scale``, ``ratings.outlook.pool_scale``).

**How it is computed** (deterministic, no sampling): Plackett–Luce is the order of the
performances ``u_i = theta_i / c + G_i`` with independent standard Gumbel ``G_i`` (the Gumbel-max
property of the softmax), so with ``theta`` random as well the ``u_i`` stay independent and

    P(i first) = ∫ f_i(x) Π_{j≠i} F_j(x) dx

where ``F_j`` and ``f_j`` are the distribution and density of ``u_j``: a Gumbel averaged over a
normal, each average a Gauss–Hermite sum (``NODES`` nodes). The one-dimensional integral over
``x`` is a trapezoid sum on a uniform grid (``STEP``); the integrands are smooth and vanish
double-exponentially to the left and exponentially to the right, so the sum converges
geometrically: the probabilities agree with a 40-node tensor-product quadrature of the softmax
to about 1e-10 and sum to 1 within 1e-9 (``tests/ratings/test_chances.py``).

The expected place is ``1 + Σ_{j≠i} P(u_j > u_i)``: in a Plackett–Luce order any two players are
ordered as their pair alone would be (Luce's choice axiom), and ``P(u_j > u_i)`` is the same
integral with one factor.

**Ties.** The model gives no ties: a place is a place. The standings rank equal totals together
(competition ranks); the calibration report (``ratings.calibration``) counts a first place
shared by ``k`` players as ``1/k`` of a win for each, so that observed wins, like the predicted
chances, add up to one per table.

**Provisional.** A player whose sigma is still the prior's (``model.SIGMA``: no rated session,
or a long absence under the decay) is provisional (``is_provisional``): his chance is computed like
anybody's (his mu is the prior's, his uncertainty the widest), and the pages say so. The pages also
mark a player with fewer rated sessions than ``RATINGS_PROVISIONAL_SESSIONS``
(``ratings.outlook``): a few sessions move a sigma only a little below the prior's.

``monte_carlo`` draws the same model (seeded) and states its standard error; the tests check the
quadrature against it and against exact enumeration. ``python -m bench.chances`` times a
table and a room of 50 tables.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.polynomial.hermite_e import hermegauss

from .model import BETA, SIGMA

__all__ = [
    "NODES",
    "STEP",
    "Chance",
    "table_chances",
    "room_chances",
    "win_probabilities",
    "point_estimate",
    "monte_carlo",
    "is_provisional",
    "Scale",
    "DEFAULT_SCALE",
    "rescaled",
    "whole_percents",
]

Rating = tuple[float, float]

NODES = 32  # Gauss–Hermite nodes per player (probabilists' weight exp(-z²/2))
STEP = 0.3  # grid step of the performance axis, in units of c
_LEFT = 3.5  # the grid starts this far below the weakest mean: a Gumbel there has density < 1e-12
_RIGHT = 24.0  # and ends this far above the strongest: the Gumbel's right tail there is < 1e-10
_SPREAD = 6.0  # standard deviations of the skill on either side
_SEATS_PER_PASS = 16  # players integrated in one vectorised pass (see _grid_tables)

_Z, _W = hermegauss(NODES)
_W = _W / _W.sum()  # E[h(z)], z ~ N(0, 1)  ≈  Σ w_k h(z_k)

MIN_PLAYERS = 2
MAX_PLAYERS = 6


class Scale(NamedTuple):
    """How a pool's ratings translate into chances, fitted on its own history
    (``ratings.calibration.fit_scale``): the model's scale ``c`` is multiplied by
    ``temperature[n]`` at a table of ``n`` players, and every sigma by ``sigma_factor``.

    Why a fitted scale at all: the ratings are Weng–Lin's approximate updates, and the scale
    their mu settle on is not the one the exact model predicts with. On a generated league whose
    totals are skill plus normal noise, the mu spread 3.3 times as wide as the true skills and
    keep widening as sigmas shrink, and the sigmas understate how far a mu is from the skill; the
    chances computed with ``c = beta·sqrt(n)`` and the sigmas as they are were 4 points too sure of
    the favourite in the 70–90 % bins and 3 points too shy in the 30–50 % ones. Two numbers fitted
    on the sessions before (never on the one predicted), by maximum a posteriori under a cautious
    prior (``ratings.calibration.fit_scale``, ``PRIOR_SCALE``), put every bin of at least 100 seats
    within 3.4 points on generated leagues whose skills spread 0.5, 0.8, 1 and 2 times the noise
    (README, Win chances). The default scale changes
    nothing."""

    temperature: dict[int, float]
    sigma_factor: float

    def of(self, size: int) -> float:
        return self.temperature.get(size, 1.0)


DEFAULT_SCALE = Scale({}, 1.0)


def rescaled(ratings: Sequence[Rating], scale: Scale) -> list[Rating]:
    """The ratings as the model with ``scale`` sees them: dividing mu and sigma by the table's
    temperature is multiplying ``c`` by it (the chances depend on ``mu / c`` and ``sigma / c``)."""
    temperature = scale.of(len(ratings))
    return [(mu / temperature, sigma * scale.sigma_factor / temperature) for mu, sigma in ratings]


class Chance(NamedTuple):
    """One player's outlook at his table."""

    win: float  # probability to finish first
    expected_place: float  # 1 (first) to n (last)
    provisional: bool  # sigma still the prior's: no rated session yet


def is_provisional(sigma: float) -> bool:
    return sigma >= SIGMA - 1e-9


def scale(ratings: Sequence[Rating], *, with_sigma: bool = False) -> float:
    """The Plackett–Luce scale of a table: ``beta·sqrt(n)``, or with ``with_sigma`` openskill's
    ``sqrt(Σ (sigma² + beta²))``."""
    if with_sigma:
        return float(np.sqrt(sum(sigma * sigma + BETA * BETA for _, sigma in ratings)))
    return BETA * float(np.sqrt(len(ratings)))


def _check(ratings: Sequence[Rating]) -> None:
    if not MIN_PLAYERS <= len(ratings) <= MAX_PLAYERS:
        raise ValueError(f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(ratings)}")
    for mu, sigma in ratings:
        if not (np.isfinite(mu) and np.isfinite(sigma) and sigma >= 0.0):
            raise ValueError(f"not a rating: ({mu!r}, {sigma!r})")


def _grid_tables(tables: Sequence[Sequence[Rating]], precision=np.float64):
    """Densities and distributions of every player's performance on one grid per table, computed
    in ``precision`` (``room_chances``).

    Returns ``(density, distribution, present)`` of shape (tables, MAX_PLAYERS, points); absent
    seats (a table smaller than 6) have distribution 1 and density 0, so they change no product.
    """
    count = len(tables)
    means = np.zeros((count, MAX_PLAYERS))
    spreads = np.zeros((count, MAX_PLAYERS))
    present = np.zeros((count, MAX_PLAYERS), dtype=bool)
    for row, ratings in enumerate(tables):
        _check(ratings)
        c = scale(ratings)
        for seat, (mu, sigma) in enumerate(ratings):
            means[row, seat] = mu / c
            spreads[row, seat] = sigma / c
            present[row, seat] = True
    # One grid length for all tables (so they stack), each table's grid placed on its own players.
    masked_means = np.where(present, means, np.nan)
    width_sd = _SPREAD * spreads.max(axis=1)
    low = np.nanmin(masked_means, axis=1) - _LEFT - width_sd
    high = np.nanmax(masked_means, axis=1) + _RIGHT + width_sd
    points = int(np.ceil((high - low).max() / STEP)) + 1
    x = low[:, None] + STEP * np.arange(points)[None, :]  # (tables, points)
    distribution = np.ones((count, MAX_PLAYERS, points), dtype=precision)
    density = np.zeros((count, MAX_PLAYERS, points), dtype=precision)
    nodes, weights = _Z.astype(precision), _W.astype(precision)
    # Only the seats taken, ``_SEATS_PER_PASS`` at a time: the arrays over the nodes and the grid
    # then stay in the processor's cache (a whole room at once was four times slower).
    rows, seats = np.nonzero(present)
    for start in range(0, len(rows), _SEATS_PER_PASS):
        row, seat = rows[start:start + _SEATS_PER_PASS], seats[start:start + _SEATS_PER_PASS]
        # y = x - mean - spread·z over the Gauss–Hermite nodes: (seats, nodes, points)
        shifted = (x[row][:, None, :] - means[row, seat][:, None, None]).astype(precision) \
            - spreads[row, seat].astype(precision)[:, None, None] * nodes[None, :, None]
        tail = np.exp(-shifted, out=shifted)
        gumbel = np.exp(-tail)
        distribution[row, seat] = np.einsum("k,skp->sp", weights, gumbel)
        density[row, seat] = np.einsum("k,skp->sp", weights, np.multiply(gumbel, tail, out=gumbel))
    return density, distribution, present


def _trapezoid(values: np.ndarray) -> np.ndarray:
    """∫ over the last axis (the grid) by the trapezoid rule; the ends are ~0."""
    return STEP * (values.sum(axis=-1) - 0.5 * (values[..., 0] + values[..., -1]))


def room_chances(
    tables: Sequence[Sequence[Rating]], scale: Scale = DEFAULT_SCALE, *, precision=np.float64,
) -> list[list[Chance]]:
    """``table_chances`` of many tables at once (vectorised: a room screen's 50 tables in one
    pass), with a pool's fitted ``scale`` (``Scale``). ``provisional`` is read from the sigmas as
    they are. ``precision=np.float32`` integrates in single precision, about three times faster
    (its exponentials), the chances then right to about 1e-6: for the scale's fit
    (``calibration.fit_scale``), which compares losses of hundreds of tables, never for what is
    shown."""
    if not tables:
        return []
    if scale != DEFAULT_SCALE:
        for ratings in tables:
            _check(ratings)
        provisional = [[is_provisional(sigma) for _, sigma in ratings] for ratings in tables]
        return [
            [chance._replace(provisional=flag) for chance, flag in zip(table, flags)]
            for table, flags in zip(room_chances([rescaled(ratings, scale) for ratings in tables], precision=precision),
                                    provisional)
        ]
    density, distribution, present = _grid_tables(tables, precision)
    # Products of all the others' distributions: the product of all, divided by one's own, is
    # unstable where a distribution is ~0, so take prefix and suffix products instead.
    seats = MAX_PLAYERS
    prefix = np.ones_like(distribution)
    suffix = np.ones_like(distribution)
    for seat in range(1, seats):
        prefix[:, seat] = prefix[:, seat - 1] * distribution[:, seat - 1]
        suffix[:, seats - 1 - seat] = suffix[:, seats - seat] * distribution[:, seats - seat]
    others = prefix * suffix
    wins = _trapezoid(density * others)  # (tables, seats)
    # ahead[t, i, j] = P(u_j < u_i) = ∫ f_i F_j
    behind = _trapezoid(density[:, :, None, :] * distribution[:, None, :, :])
    result = []
    for row, ratings in enumerate(tables):
        n = len(ratings)
        beaten_by = n - 1 - (behind[row, :n, :n].sum(axis=1) - np.diag(behind[row, :n, :n]))
        result.append([
            Chance(float(wins[row, seat]), float(1.0 + beaten_by[seat]), is_provisional(sigma))
            for seat, (_, sigma) in enumerate(ratings)
        ])
    return result


def table_chances(ratings: Sequence[Rating], scale: Scale = DEFAULT_SCALE) -> list[Chance]:
    """Each player's chance to finish first and expected place (seats in the order given).

    ``ratings``: 2 to 6 ``(mu, sigma)``. The chances add up to one, the expected places to
    ``n (n + 1) / 2``."""
    return room_chances([ratings], scale)[0]


def win_probabilities(ratings: Sequence[Rating]) -> list[float]:
    return [chance.win for chance in table_chances(ratings)]


def point_estimate(ratings: Sequence[Rating], *, with_sigma: bool = False) -> list[float]:
    """The chances as the bare Plackett–Luce formula gives them with ``mu`` plugged in for the
    skill: ``exp(mu_i / c) / Σ exp(mu_j / c)``. Without sigma (the default) ``c² = n·beta²``, as if
    every skill were known; ``with_sigma`` uses openskill's ``c`` (sigma only widening the
    scale, openskill's plug-in). The calibration report's baselines."""
    _check(ratings)
    mus = np.array([mu for mu, _ in ratings])
    c = scale(ratings, with_sigma=with_sigma)
    strengths = np.exp((mus - mus.max()) / c)
    return (strengths / strengths.sum()).tolist()


def whole_percents(wins: Sequence[float]) -> list[int]:
    """The chances of one table in whole percent that add up to 100, as a reader adds them up:
    the largest remainder method (Hamilton's). Every chance gets the whole part of its percentage,
    and the points still missing go one each to the largest remainders (a tie to the larger
    chance, then to the earlier seat). Plain rounding gives 33 + 33 + 33 = 99 or
    17 + 17 + 17 + 17 + 17 + 17 = 102 (``tests/ratings/test_chances.py``). The pages show
    a table's chances so (``ratings.templatetags.chances``)."""
    total = sum(wins)
    shares = [100.0 * win / total for win in wins] if total > 0 else [100.0 / len(wins)] * len(wins)
    whole = [int(share) for share in shares]
    missing = 100 - sum(whole)
    order = sorted(range(len(shares)), key=lambda seat: (-(shares[seat] - whole[seat]), -shares[seat], seat))
    for seat in order[:missing]:
        whole[seat] += 1
    return whole


class MonteCarlo(NamedTuple):
    win: list[float]
    expected_place: list[float]
    standard_error: list[float]  # of each win chance: sqrt(p (1 - p) / samples)
    samples: int


def monte_carlo(ratings: Sequence[Rating], *, samples: int = 200_000, seed: int = 0) -> MonteCarlo:
    """The same chances by sampling the model: skills ``N(mu, sigma²)``, then Gumbel
    performances (the Plackett–Luce order). Seeded, so reruns agree; the error of each win
    chance is its binomial standard error."""
    _check(ratings)
    rng = np.random.default_rng(seed)
    mus = np.array([mu for mu, _ in ratings])
    sigmas = np.array([sigma for _, sigma in ratings])
    c = scale(ratings)
    skills = mus + sigmas * rng.standard_normal((samples, len(ratings)))
    performance = skills / c + rng.gumbel(size=(samples, len(ratings)))
    places = np.argsort(np.argsort(-performance, axis=1), axis=1) + 1
    win = (places == 1).mean(axis=0)
    return MonteCarlo(
        win.tolist(), places.mean(axis=0).tolist(), np.sqrt(win * (1.0 - win) / samples).tolist(), samples
    )

