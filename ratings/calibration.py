"""How honest the win chances are: replay a league's sessions in time order, predict each
session's winner from the ratings before it, then rate it.

Pure Python with NumPy (no Django). ``manage.py calibration_report`` feeds it a pool's sessions
(or a generated league with known skills) and prints ``Report.lines()``; the public calibration
page draws ``Report.bins``.

Predictions compared, each scored on the same sessions:

- ``chances``: ``chances.room_chances`` (Plackett–Luce, the skill uncertainty integrated);
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

from .chances import point_estimate, room_chances
from .kernel import SECONDS_PER_DAY
from .model import NEW_PLAYER, DecayConfig, Rating, Session, decayed_sigma, rate_many

BINS = 10
CHUNK = 256  # tables per vectorised pass of room_chances
METHODS = ("chances", "point", "openskill", "uniform")


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
        labels = {"chances": "chances", "point": "point (no σ)", "openskill": "openskill c", "uniform": "uniform"}
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


def predict(tables: Sequence[Sequence[Rating]], method: str) -> list[list[float]]:
    if method == "chances":
        result = []
        for start in range(0, len(tables), CHUNK):
            result.extend([chance.win for chance in table] for table in room_chances(tables[start:start + CHUNK]))
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


def calibrate(
    sessions: Sequence[Session], *, decay: DecayConfig | None = None, skip: int = 0,
    scored: Sequence[bool] | None = None,
) -> Report:
    """Replay ``sessions`` (finish order) and score the predictions of those ``scored`` marks
    (all by default) but the first ``skip`` of them (a league's start, when everybody is new,
    predicts little)."""
    before, outcomes = replay(sessions, decay=decay)
    if scored is not None:
        kept = [index for index, keep in enumerate(scored) if keep]
        before, outcomes = [before[i] for i in kept], [outcomes[i] for i in kept]
    before, outcomes = before[skip:], outcomes[skip:]
    scores = {}
    chances = None
    for method in METHODS:
        predictions = predict(before, method)
        if method == "chances":
            chances = predictions
        scores[method] = score(predictions, outcomes)
    return Report(len(outcomes), sum(map(len, outcomes)), scores, reliability(chances or [], outcomes))
