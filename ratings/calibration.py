"""How honest the win chances are: replay a league's sessions in time order, predict each
session's winner from the ratings before it, then rate it.

Pure Python with NumPy (no Django). ``manage.py calibration_report`` feeds it a pool's sessions
(or a generated league with known skills) and prints ``Report.lines()``; the public calibration
page draws ``Report.bins``.

Predictions compared, each scored on the same sessions:

- ``chances``: what the service shows: ``chances.room_chances`` (Plackett–Luce, the skill
  uncertainty integrated) with the pool's scale (``chances.Scale``) fitted by ``fit_scale`` on
  the sessions before, never on the one predicted: refitted every ``REFIT`` sessions on the
  latest ``WINDOW``, by maximum a posteriori with a prior that shrinks the scale towards
  ``PRIOR_SCALE`` (a cautious one) while the sessions are few; ``PRIOR_SCALE`` itself until
  ``MIN_FIT`` sessions are known (as ``ratings.outlook.pool_scale`` does for the pages);
- ``model``: the same chances with the default scale (the model as it stands);
- ``point``: the bare Plackett–Luce formula with mu plugged in and no sigma (``c² = n·beta²``);
- ``openskill``: the same with openskill's ``c`` (``Σ sigma² + beta²``), for comparison;
- ``uniform``: ``1/n`` for everybody.

The observed outcome of a player is 1 for a sole first place, ``1/k`` for a first place shared
by ``k`` (competition ranks, as the standings rank), 0 otherwise: it adds up to one per session
as the chances do. Log-loss is ``-Σ_i y_i · ln p_i`` per session (the cross-entropy of the
winner), Brier ``Σ_i (p_i - y_i)²`` per session, both averaged over the sessions; lower is
better. The reliability table puts every (player, session) in one of 10 bins by his predicted
chance and compares the bin's mean prediction with its observed win rate.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import NamedTuple

import numpy as np

from .chances import (
    DEFAULT_SCALE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Scale,
    point_estimate,
    room_chances,
)
from .kernel import SECONDS_PER_DAY
from .model import (
    BETA,
    NEW_PLAYER,
    DecayConfig,
    Rating,
    Session,
    decayed_sigma,
    rate_many,
)

BINS = 10
CHUNK = 256  # tables per vectorised pass of room_chances
METHODS = ("chances", "model", "point", "openskill", "uniform")
MIN_FIT = 100  # sessions a pool has rated before its scale is fitted (before: ``PRIOR_SCALE``)
MIN_SIZE = 200  # sessions at tables of one size for a temperature of their own (else the pooled one)
WINDOW = 2000  # the latest sessions a scale is fitted on
REFIT = 250  # sessions between two fits
# The prior of the fit (``fit_scale``): log-normal on the temperature and on the sigma factor,
# centred on a cautious scale (wider than the model's: chances nearer 1/n) and worth a few
# hundred sessions, so that a pool's first fits stay near it and its later ones follow its data.
PRIOR_TEMPERATURE = 1.3
PRIOR_SIGMA_FACTOR = 1.3
PRIOR_LOG_SD = 0.3  # of the temperature's logarithm
PRIOR_SIGMA_LOG_SD = 0.5  # of the sigma factor's logarithm
SIGMA_SAMPLE = 600  # the latest sessions the sigma factor is fitted on (each try computes their chances)


class Bin(NamedTuple):
    low: float
    high: float
    count: int
    predicted: float  # mean predicted chance in the bin
    observed: float  # mean observed win share in the bin
    error: float  # standard error of ``observed`` (binomial, from ``predicted``)


class Score(NamedTuple):
    log_loss: float
    brier: float


class Report(NamedTuple):
    sessions: int
    seats: int
    scores: dict[str, Score]
    bins: list[Bin]  # of ``chances``

    def lines(self) -> list[str]:
        out = [f"{self.sessions} sessions, {self.seats} seats, winner predicted from the ratings before each session"]
        out.append(f"{'prediction':<14}{'log-loss':>10}{'Brier':>10}")
        labels = {"chances": "chances", "model": "unscaled", "point": "point (no σ)", "openskill": "openskill c",
                  "uniform": "uniform"}
        for method in METHODS:
            score = self.scores[method]
            out.append(f"{labels[method]:<14}{score.log_loss:>10.4f}{score.brier:>10.4f}")
        out.append("")
        out.append("reliability of the chances (10 bins by predicted chance)")
        out.append(f"{'bin':<12}{'seats':>8}{'predicted':>11}{'observed':>10}{'± s.e.':>8}{'gap':>7}")
        for bin_ in self.bins:
            if bin_.count == 0:
                out.append(f"{bin_.low:.1f}–{bin_.high:.1f}{'':<5}{0:>8}")
                continue
            out.append(
                f"{bin_.low:.1f}–{bin_.high:.1f}{'':<5}{bin_.count:>8}{100 * bin_.predicted:>10.1f}%"
                f"{100 * bin_.observed:>9.1f}%{100 * bin_.error:>7.1f}{100 * (bin_.observed - bin_.predicted):>+7.1f}"
            )
        return out


def observed_wins(totals: Sequence[float]) -> list[float]:
    """1 for the sole best total, ``1/k`` each for ``k`` sharing it, 0 for the others."""
    best = max(totals)
    winners = sum(1 for total in totals if total == best)
    return [1.0 / winners if total == best else 0.0 for total in totals]


def replay(
    sessions: Iterable[Session], *, state: dict[Hashable, Rating] | None = None, decay: DecayConfig | None = None
) -> tuple[list[list[Rating]], list[list[float]]]:
    """The ratings of each session's players just before it (after the decay, as the pool rates
    them) and the observed win shares, session by session in the order given."""
    state = {} if state is None else state
    last_played: dict[Hashable, float] = {}
    before: list[list[Rating]] = []
    outcomes: list[list[float]] = []
    for session in sessions:
        ratings = [state.get(player, NEW_PLAYER) for player in session.players]
        if decay is not None:
            ratings = [
                (mu, decayed_sigma(sigma, (session.finished_at - last_played[player]) / SECONDS_PER_DAY, decay))
                if player in last_played else (mu, sigma)
                for player, (mu, sigma) in zip(session.players, ratings)
            ]
        before.append(ratings)
        outcomes.append(observed_wins(session.totals))
        rate_many(state, [session], decay=decay, last_played=last_played)
    return before, outcomes


def predict(
    tables: Sequence[Sequence[Rating]], method: str, scale: Scale = DEFAULT_SCALE, *, precision=np.float64,
) -> list[list[float]]:
    if method in ("chances", "model"):
        scale = scale if method == "chances" else DEFAULT_SCALE
        result = []
        for start in range(0, len(tables), CHUNK):
            result.extend([chance.win for chance in table]
                          for table in room_chances(tables[start:start + CHUNK], scale, precision=precision))
        return result
    if method == "point":
        return [point_estimate(table) for table in tables]
    if method == "openskill":
        return [point_estimate(table, with_sigma=True) for table in tables]
    if method == "uniform":
        return [[1.0 / len(table)] * len(table) for table in tables]
    raise ValueError(f"unknown prediction {method!r}")


def score(predictions: Sequence[Sequence[float]], outcomes: Sequence[Sequence[float]]) -> Score:
    log_loss = 0.0
    brier = 0.0
    for predicted, observed in zip(predictions, outcomes):
        log_loss -= sum(y * math.log(max(p, 1e-15)) for p, y in zip(predicted, observed) if y)
        brier += sum((p - y) ** 2 for p, y in zip(predicted, observed))
    count = max(len(outcomes), 1)
    return Score(log_loss / count, brier / count)


def reliability(predictions: Sequence[Sequence[float]], outcomes: Sequence[Sequence[float]], bins: int = BINS) -> list[Bin]:
    predicted = np.fromiter((p for table in predictions for p in table), dtype=float)
    observed = np.fromiter((y for table in outcomes for y in table), dtype=float)
    which = np.minimum((predicted * bins).astype(int), bins - 1)
    result = []
    for number in range(bins):
        inside = which == number
        count = int(inside.sum())
        if count == 0:
            result.append(Bin(number / bins, (number + 1) / bins, 0, 0.0, 0.0, 0.0))
            continue
        mean_predicted = float(predicted[inside].mean())
        error = math.sqrt(mean_predicted * (1.0 - mean_predicted) / count)
        result.append(Bin(number / bins, (number + 1) / bins, count, mean_predicted, float(observed[inside].mean()), error))
    return result


def _golden(loss, low: float, high: float, steps: int) -> float:
    """The minimum of a unimodal ``loss`` on [low, high] by golden-section search."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    loss_a, loss_b = loss(a), loss(b)
    for _ in range(steps):
        if loss_a < loss_b:
            high, b, loss_b = b, a, loss_a
            a = high - ratio * (high - low)
            loss_a = loss(a)
        else:
            low, a, loss_a = a, b, loss_b
            b = low + ratio * (high - low)
            loss_b = loss(b)
    return (low + high) / 2.0


def fit_scale(tables: Sequence[Sequence[Rating]], outcomes: Sequence[Sequence[float]]) -> Scale:
    """The scale (``chances.Scale``) under which the chances of ``tables`` (players' ratings
    before each session, in order) best predict the ``outcomes``: the maximum a posteriori of the
    winners' likelihood under a log-normal prior centred on ``PRIOR_SCALE``. A temperature per
    table size, fitted on the bare Plackett–Luce formula (closed form, all the tables of that size;
    the pooled one for sizes with fewer than ``MIN_SIZE``), then the sigma factor on the integrated
    chances of the latest ``SIGMA_SAMPLE``. Fewer than ``MIN_FIT`` tables: ``PRIOR_SCALE``.

    Why a prior: the scale a pool needs depends on how far apart its players are (the ratings'
    spread is wider than the skills', the more so the closer the skills), so no fixed scale serves
    every club, and a fit on a few hundred sessions is noisy. The prior keeps the first fits near
    a cautious scale and lets the data take over as they accumulate (its weight is that of a few
    hundred sessions), so a pool is fitted from its first ``MIN_FIT`` sessions on, without a
    stretch of the model's own scale, which is too sure of the favourite where the players are
    close together."""
    if len(tables) < MIN_FIT:
        return PRIOR_SCALE
    sizes = np.array([len(table) for table in tables])
    mus = np.zeros((len(tables), WIDTH_OF_TABLES))
    wins = np.zeros_like(mus)
    present = np.zeros_like(mus, dtype=bool)
    for row, (table, outcome) in enumerate(zip(tables, outcomes)):
        mus[row, :len(table)] = [mu for mu, _ in table]
        wins[row, :len(table)] = outcome
        present[row, :len(table)] = True
    mus -= np.where(present, mus, -np.inf).max(axis=1, keepdims=True)  # exp stays ≤ 1

    def point_loss(rows: np.ndarray, log_temperature: float) -> float:
        """Minus the log-posterior: the winners' log-loss summed over ``rows`` and the prior's."""
        c = math.exp(log_temperature) * BETA * np.sqrt(sizes[rows])[:, None]
        strength = np.where(present[rows], np.exp(mus[rows] / c), 0.0)
        log_share = np.log(np.maximum(strength / strength.sum(axis=1, keepdims=True), 1e-300))
        return (float(-(wins[rows] * np.where(present[rows], log_share, 0.0)).sum())
                + _prior(log_temperature, PRIOR_TEMPERATURE, PRIOR_LOG_SD))

    every = np.arange(len(tables))
    pooled = math.exp(_golden(lambda t: point_loss(every, t), math.log(0.2), math.log(5.0), 30))
    temperature = {}
    for size in sorted(set(sizes.tolist())):
        rows = every[sizes == size]
        temperature[size] = (
            math.exp(_golden(lambda t: point_loss(rows, t), math.log(0.2), math.log(5.0), 30))
            if len(rows) >= MIN_SIZE else pooled
        )
    for size in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        temperature.setdefault(size, pooled)  # a size the window has not seen: the pooled one
    recent_tables, recent_outcomes = tables[-SIGMA_SAMPLE:], outcomes[-SIGMA_SAMPLE:]

    def chances_loss(log_factor: float) -> float:
        # Single precision (``room_chances``): the losses the search compares differ by far more
        # than its error, and the fit's tries cost a third.
        predicted = predict(recent_tables, "chances", Scale(temperature, math.exp(log_factor)), precision=np.float32)
        return (score(predicted, recent_outcomes).log_loss * len(recent_tables)
                + _prior(log_factor, PRIOR_SIGMA_FACTOR, PRIOR_SIGMA_LOG_SD))

    return Scale(temperature, math.exp(_golden(chances_loss, math.log(0.5), math.log(3.0), 10)))


def _prior(log_value: float, centre: float, log_sd: float) -> float:
    """Minus the log-density (up to a constant) of a log-normal prior at ``exp(log_value)``."""
    return (log_value - math.log(centre)) ** 2 / (2.0 * log_sd * log_sd)


WIDTH_OF_TABLES = 6
PRIOR_SCALE = Scale({size: PRIOR_TEMPERATURE for size in range(MIN_PLAYERS, MAX_PLAYERS + 1)}, PRIOR_SIGMA_FACTOR)


def fitted_chances(tables: Sequence[Sequence[Rating]], outcomes: Sequence[Sequence[float]]) -> list[list[float]]:
    """The win chances of every table as the service shows them, each from the sessions before it
    only: blocks of ``REFIT`` tables, each predicted with the scale fitted on the ``WINDOW`` tables
    before it (``fit_scale``; ``PRIOR_SCALE`` for the first ones)."""
    result: list[list[float]] = []
    for block in range(0, len(tables), REFIT):
        window = slice(max(0, block - WINDOW), block)
        result.extend(predict(tables[block:block + REFIT], "chances", fit_scale(tables[window], outcomes[window])))
    return result


def evaluate(
    tables: Sequence[Sequence[Rating]], outcomes: Sequence[Sequence[float]], kept: Sequence[int] | None = None,
) -> Report:
    """Score every method on the tables whose indexes are ``kept`` (all by default); the others
    still teach the fitted scale."""
    fitted = fitted_chances(tables, outcomes)
    kept = range(len(tables)) if kept is None else kept
    tables, outcomes, fitted = [tables[i] for i in kept], [outcomes[i] for i in kept], [fitted[i] for i in kept]
    scores = {method: score(fitted if method == "chances" else predict(tables, method), outcomes) for method in METHODS}
    return Report(len(outcomes), sum(map(len, outcomes)), scores, reliability(fitted, outcomes))


def calibrate(
    sessions: Sequence[Session], *, decay: DecayConfig | None = None, skip: int = 0,
    scored: Sequence[bool] | None = None,
) -> Report:
    """Replay ``sessions`` (finish order) and score the predictions of those ``scored`` marks
    (all by default) but the first ``skip`` of them (a league's start, when everybody is new,
    predicts little). The fitted scale learns from every session before the one predicted,
    scored or not, as the pool's does."""
    before, outcomes = replay(sessions, decay=decay)
    kept = [index for index, keep in enumerate(scored) if keep] if scored is not None else list(range(len(before)))
    return evaluate(before, outcomes, kept[skip:])
