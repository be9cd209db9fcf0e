"""The rating model: Weng–Lin Plackett–Luce, a session at a time.

No Django, no I/O. Every player keeps a rating ``(mu, sigma)`` per game. A finished session is
one rating event: every player is a team of one, ranked by his session total (higher is better),
equal totals tied.

The update itself is ``kernel.rate_in_rank_order``, the one compiled Plackett–Luce kernel of the
service: ``rate_session`` rates one session with it, ``rate_many`` sessions one after the other,
and ``league.rate_league`` a whole league in one compiled loop that calls the same kernel, so the
three give the same numbers. With decay off they are those of ``openskill.models.PlackettLuce()``
with its defaults to about 1e-14, ties included (``tests/ratings`` checks 1e-12); openskill builds
and deep-copies rating objects and sums O(n²) terms per session, the kernel a few O(n) loops over
floats (``python -m bench.ratings`` measures the difference).

Displayed rating: ``displayed_rating(mu, sigma) = round(1000 + 48 * (mu - 3 * sigma))``, see there.

Inactivity decay (optional, ``DecayConfig``): before a session, the sigma of a player who has not
played for ``days`` widens to ``min(25/3, sqrt(sigma² + variance_per_day * days))``. The days come
from the sessions' finish times, never from the clock, so a recompute gives the same numbers.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from . import kernel, league
from .kernel import BETA, KAPPA, MU, SIGMA, TAU
from .values import NEW_PLAYER, DecayConfig, Rating, Session

__all__ = [
    "MU",
    "SIGMA",
    "BETA",
    "TAU",
    "KAPPA",
    "NEW_PLAYER",
    "Rating",
    "Session",
    "DecayConfig",
    "rate_session",
    "rate_many",
    "ranks_from_totals",
    "decayed_sigma",
    "displayed_rating",
    "pairwise_hits",
]

# Displayed rating: one beta of skill is a 76 % head-to-head win chance, as 200 Elo points are.
DISPLAY_BASE = 1000
DISPLAY_POINTS_PER_MU = 200 / BETA  # 48.0


def ranks_from_totals(totals: Sequence[float]) -> list[int]:
    """Competition ranks, 1 for the highest total; equal totals share a rank (``1, 2, 2, 4``)."""
    order = sorted(range(len(totals)), key=totals.__getitem__, reverse=True)
    ranks = [0] * len(totals)
    previous_total = None
    rank = 0
    for position, index in enumerate(order, start=1):
        total = totals[index]
        if total != previous_total:
            rank = position
            previous_total = total
        ranks[index] = rank
    return ranks


def decayed_sigma(sigma: float, days: float, decay: DecayConfig) -> float:
    """Sigma after ``days`` without a session (see ``DecayConfig``); never lowers a sigma."""
    return kernel.decayed_sigma(float(sigma), float(days), float(decay.variance_per_day), float(decay.sigma_cap))


def displayed_rating(mu: float, sigma: float) -> int:
    """The rating players see: the conservative skill ``mu - 3·sigma`` on a friendly scale.

    ``round(1000 + 48 * (mu - 3 * sigma))``: a new player (25 - 3·25/3 = 0) shows 1000, and 48
    points per unit of mu make one beta (25/6) of skill 200 points, which is the 76 % head-to-head
    win chance that 200 points mean in Elo.
    """
    return round(DISPLAY_BASE + DISPLAY_POINTS_PER_MU * (mu - 3.0 * sigma))


def rate_session(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """New ``(mu, sigma)`` of every player of one session, in the order given.

    ``ranks``: lower is better, equal ranks are tied (``ranks_from_totals`` makes them).
    """
    count = len(ratings)
    if count < 2:
        raise ValueError(f"a session needs at least 2 players, not {count}")
    if len(ranks) != count:
        raise ValueError(f"{len(ranks)} ranks for {count} players")
    # A stable sort, as openskill's: tied players keep their order.
    order = sorted(range(count), key=ranks.__getitem__)
    rated = _rate_in_rank_order([ratings[index] for index in order], [ranks[index] for index in order])
    result: list[Rating] = [NEW_PLAYER] * count
    for index, rating in zip(order, rated):
        result[index] = rating
    return result


def rate_many(
    state: dict[Hashable, Rating],
    sessions: Iterable[Session],
    *,
    decay: DecayConfig | None = None,
    last_played: dict[Hashable, float] | None = None,
) -> dict[Hashable, Rating]:
    """Rate ``sessions`` one after the other, in the order given (finish order), and return
    ``state``, updated in place. Players not in ``state`` start as ``NEW_PLAYER``.

    With ``decay``, ``last_played`` (player -> finish time of his last session, updated in place)
    carries the gaps across calls; without it, only gaps within this call decay.

    The same numbers as ``rate_session`` on each session in turn: the sessions go to the compiled
    loop of ``league.rate_league`` at once. A bad session (fewer than 2 or more than 6 players,
    totals not matching, a player twice) raises ``ValueError`` and changes nothing.
    """
    return league.rate_league(list(sessions), state, decay=decay, last_played=last_played)


def pairwise_hits(
    state: dict[Hashable, Rating], session: Session, *, by: str = "mu"
) -> tuple[float, int]:
    """How well ``state`` predicts the order of a session it has not seen.

    Returns ``(hits, pairs)``: ``pairs`` counts the pairs of players with different totals,
    ``hits`` those the ratings put in the same order, a tie in the ratings counting half (a coin
    flip). ``by`` is ``"mu"`` or ``"ordinal"`` (mu - 3·sigma).
    """
    if by == "mu":
        strengths = [state.get(player, NEW_PLAYER)[0] for player in session.players]
    elif by == "ordinal":
        strengths = [mu - 3.0 * sigma for mu, sigma in (state.get(p, NEW_PLAYER) for p in session.players)]
    else:
        raise ValueError(f"cannot predict by {by!r}: use 'mu' or 'ordinal'")
    totals = session.totals
    hits = 0.0
    pairs = 0
    for first in range(len(totals)):
        for second in range(first + 1, len(totals)):
            outcome = totals[first] - totals[second]
            if outcome == 0:
                continue
            pairs += 1
            predicted = strengths[first] - strengths[second]
            if predicted == 0:
                hits += 0.5
            elif (predicted > 0) == (outcome > 0):
                hits += 1.0
    return hits, pairs


def _rate_in_rank_order(ratings: Sequence[Rating], keys: Sequence[float]) -> list[Rating]:
    """The kernel on one session sorted best first (``keys``: its ranks or totals, equal ones tied)."""
    count = len(ratings)
    mu = np.array([rating[0] for rating in ratings], dtype=np.float64)
    sigma = np.array([rating[1] for rating in ratings], dtype=np.float64)
    new_mu, new_sigma = np.empty(count), np.empty(count)
    kernel.rate_in_rank_order(mu, sigma, np.array(keys, dtype=np.float64), count, new_mu, new_sigma)
    return list(zip(new_mu.tolist(), new_sigma.tolist()))
