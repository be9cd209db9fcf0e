"""The rating model: Weng–Lin Plackett–Luce, as plain Python over floats.

Pure Python (no Django, no I/O). Every player keeps a rating ``(mu, sigma)`` per game. A finished
session is one rating event: every player is a team of one, ranked by his session total (higher
is better), equal totals tied.

The numbers are those of ``openskill.models.PlackettLuce()`` with its defaults (mu 25, sigma 25/3,
beta 25/6, tau 25/300, kappa 1e-4, gamma = sqrt(sigma²)/c, no weights, no balance, no
limit_sigma): with decay off, ``rate_session`` and ``rate_many`` agree with openskill to about
1e-13, ties included (tests/ratings/test_model.py checks 1e-9). openskill builds and deep-copies
rating objects and sums O(n²) terms per session; here a session is a few O(n) loops over floats
(``python -m ratings.bench`` measures the difference).

Displayed rating: ``displayed_rating(mu, sigma) = round(1000 + 48 * (mu - 3 * sigma))``, see there.

Inactivity decay (optional, ``DecayConfig``): before a session, the sigma of a player who has not
played for ``days`` widens to ``min(25/3, sqrt(sigma² + variance_per_day * days))``. The days come
from the sessions' finish times, never from the clock, so a recompute gives the same numbers.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import NamedTuple

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

# openskill's PlackettLuce defaults; changing one breaks the agreement with openskill.
MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
TAU = 25.0 / 300.0
KAPPA = 0.0001

BETA_SQUARED = BETA**2
TAU_SQUARED = TAU * TAU
SECONDS_PER_DAY = 86400.0

Rating = tuple[float, float]
"""``(mu, sigma)``"""

NEW_PLAYER: Rating = (MU, SIGMA)

# Displayed rating: one beta of skill is a 76 % head-to-head win chance, as 200 Elo points are.
DISPLAY_BASE = 1000
DISPLAY_POINTS_PER_MU = 200 / BETA  # 48.0


class Session(NamedTuple):
    """One finished session: its players, their session totals (same order), and when it ended.

    ``finished_at`` is a POSIX timestamp in seconds (``datetime.timestamp()``); only the decay
    reads it.
    """

    players: Sequence[Hashable]
    totals: Sequence[float]
    finished_at: float = 0.0


class DecayConfig(NamedTuple):
    """Inactivity decay: sigma² grows by ``variance_per_day`` for each day without a session,
    never beyond the initial sigma (a long absence makes a player as uncertain as a new one,
    not more)."""

    variance_per_day: float
    sigma_cap: float = SIGMA


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
    if days <= 0.0 or sigma >= decay.sigma_cap:
        return sigma
    return min(decay.sigma_cap, math.sqrt(sigma * sigma + decay.variance_per_day * days))


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
    rated = _rate_in_rank_order(
        [ratings[index] for index in order], _tie_group_ends([ranks[index] for index in order])
    )
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

    The same numbers as ``rate_session`` on each session in turn, only faster: ranks come from one
    sort of the totals and the state is read and written once per player.
    """
    if decay is not None and last_played is None:
        last_played = {}
    get_rating = state.get
    for players, totals, finished_at in sessions:
        count = len(players)
        if count < 2:
            raise ValueError(f"a session needs at least 2 players, not {count}")
        if len(totals) != count:
            raise ValueError(f"{len(totals)} totals for {count} players")
        # reverse=True keeps the sort stable, so this is the order openskill rates tied players in.
        order = sorted(range(count), key=totals.__getitem__, reverse=True)
        ordered_players = [players[index] for index in order]
        if len(set(ordered_players)) != count:
            raise ValueError(f"a player appears twice in session {players!r}")
        ratings = [get_rating(player, NEW_PLAYER) for player in ordered_players]
        if decay is not None:
            ratings = _decayed(ratings, ordered_players, finished_at, decay, last_played)
        # Only equality matters to the tie groups, so the sorted totals serve as ranks.
        rated = _rate_in_rank_order(ratings, _tie_group_ends([totals[index] for index in order]))
        state.update(zip(ordered_players, rated))
    return state


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


def _decayed(
    ratings: list[Rating],
    players: list[Hashable],
    finished_at: float,
    decay: DecayConfig,
    last_played: dict[Hashable, float],
) -> list[Rating]:
    """The ratings with each sigma widened for the days since the player's last session (which
    becomes this one)."""
    widened = []
    for player, (mu, sigma) in zip(players, ratings):
        last = last_played.get(player)
        if last is not None:
            sigma = decayed_sigma(sigma, (finished_at - last) / SECONDS_PER_DAY, decay)
        last_played[player] = finished_at
        widened.append((mu, sigma))
    return widened


def _tie_group_ends(sorted_keys: Sequence[float]) -> list[int] | None:
    """For each position of a rank-sorted session, the end (exclusive) of its tie group; ``None``
    when nobody is tied, the common case with its own faster loop. Only equality of neighbours is
    read, so sorted totals do as well as sorted ranks."""
    count = len(sorted_keys)
    if len(set(sorted_keys)) == count:
        return None
    ends = [count] * count
    for position in range(count - 2, -1, -1):
        if sorted_keys[position] == sorted_keys[position + 1]:
            ends[position] = ends[position + 1]
        else:
            ends[position] = position + 1
    return ends


def _rate_in_rank_order(ratings: Sequence[Rating], tie_group_ends: list[int] | None) -> list[Rating]:
    """Algorithm 4 of Weng & Lin (2011) with openskill's choices, for players sorted best first.

    openskill compares each player i with every player q ranked at or above him (tied included):
    with t = e_i / S_q, where e = exp(mu / c) and S_q sums e over q and everyone not ranked above
    q, it adds -t (q != i) or 1 - t (q == i) to omega and t·(1 - t) to delta, each divided by
    the size of q's tie group. The terms of one tie group are equal, so they add up to one term per
    group, and the sums factor into running sums of 1/S and 1/S²:

        omega_i = 1/size(i) - e_i·Σ 1/S_g          (groups g at or above i)
        delta_i = e_i·Σ 1/S_g - e_i²·Σ 1/S_g²

    which makes a session O(n) instead of O(n²). The rest is openskill's: tau widens sigma first,
    c² = Σ (sigma² + beta²), mu += omega·sigma²/c, sigma² *= max(1 - delta·gamma·sigma²/c²,
    kappa) with gamma = sigma/c. The factored sums round differently from openskill's
    term-by-term sums: the results agree to about 1e-13. openskill's averaging of the mu changes
    of tied players is left out: it compares each updated rating with itself and adds 0.0.
    """
    exp = math.exp
    sqrt = math.sqrt
    count = len(ratings)
    variances = [sigma * sigma + TAU_SQUARED for _, sigma in ratings]
    inverse_c = 1.0 / sqrt(sum(variances) + count * BETA_SQUARED)
    inverse_c_cubed = inverse_c * inverse_c * inverse_c
    strengths = [exp(mu * inverse_c) for mu, _ in ratings]
    # 1 / S for each position; in a tie group only the first one's counts (it sums the whole group).
    inverse_sums = [0.0] * count
    running = 0.0
    for position in range(count - 1, -1, -1):
        running += strengths[position]
        inverse_sums[position] = 1.0 / running

    result: list[Rating] = []
    sum_inverse = 0.0
    sum_inverse_squared = 0.0
    if tie_group_ends is None:
        for (mu, _), strength, variance, inverse_sum in zip(ratings, strengths, variances, inverse_sums):
            sum_inverse += inverse_sum
            sum_inverse_squared += inverse_sum * inverse_sum
            share = strength * sum_inverse
            delta = (share - strength * strength * sum_inverse_squared) * variance * sqrt(variance) * inverse_c_cubed
            remaining = 1.0 - delta
            result.append((mu + (1.0 - share) * variance * inverse_c, sqrt(variance * (remaining if remaining > KAPPA else KAPPA))))
        return result

    group_start = 0
    own_group_weight = 1.0
    for position in range(count):
        if position == group_start:
            inverse_sum = inverse_sums[position]
            sum_inverse += inverse_sum
            sum_inverse_squared += inverse_sum * inverse_sum
            own_group_weight = 1.0 / (tie_group_ends[position] - position)
        if tie_group_ends[position] == position + 1:
            group_start = position + 1
        mu = ratings[position][0]
        strength = strengths[position]
        variance = variances[position]
        share = strength * sum_inverse
        delta = (share - strength * strength * sum_inverse_squared) * variance * sqrt(variance) * inverse_c_cubed
        remaining = 1.0 - delta
        result.append((mu + (own_group_weight - share) * variance * inverse_c, sqrt(variance * (remaining if remaining > KAPPA else KAPPA))))
    return result
