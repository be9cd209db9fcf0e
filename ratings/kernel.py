"""The Weng–Lin Plackett–Luce update: the one place its arithmetic is written, compiled by Numba.

``rate_in_rank_order`` rates one session whose players are sorted best first; ``decayed_sigma``
widens a sigma for the days without a session; ``rate_rows`` rates a whole league of sessions in
order over flat arrays, calling the two for each session in compiled code. Every rating of the
service goes through them: the pools' updates and recomputes (``league.rate_league_history``), a
league at once (``league.rate_league``), a session or a few from Python (``model.rate_session``,
``model.rate_many``).

The numbers are those of ``openskill.models.PlackettLuce()`` with its defaults (mu 25, sigma 25/3,
beta 25/6, tau 25/300, kappa 1e-4, gamma = sqrt(sigma²)/c, no weights, no balance, no
limit_sigma), to about 1e-14 over a league (``tests/ratings`` checks 1e-12, ties included).

The three functions live in one module on purpose: Numba's cache (``cache=True``: ``__pycache__``
beside this file, or the user's cache directory where that is read-only) is keyed on the file of
the compiled function, so a change here recompiles ``rate_rows`` with the kernel it inlines.
Pure arithmetic: no Django, no I/O.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

# openskill's PlackettLuce defaults; changing one breaks the agreement with openskill.
MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
TAU = 25.0 / 300.0
KAPPA = 0.0001

BETA_SQUARED = BETA**2
TAU_SQUARED = TAU * TAU
SECONDS_PER_DAY = 86400.0


@njit(cache=True, nogil=True)
def decayed_sigma(sigma: float, days: float, variance_per_day: float, sigma_cap: float) -> float:
    """Sigma after ``days`` without a session: sigma² grows by ``variance_per_day`` a day, never
    beyond ``sigma_cap``; never lowers a sigma."""
    if days <= 0.0 or sigma >= sigma_cap:
        return sigma
    return min(sigma_cap, math.sqrt(sigma * sigma + variance_per_day * days))


@njit(cache=True, nogil=True)
def rate_in_rank_order(mu, sigma, keys, count, new_mu, new_sigma) -> None:
    """Algorithm 4 of Weng & Lin (2011) with openskill's choices, for one session.

    ``mu[:count]`` and ``sigma[:count]`` are the players' ratings sorted best first (by rank, or
    by total descending); equal neighbours in ``keys[:count]`` (those ranks or totals) are tied.
    Writes the new ratings, same order, to ``new_mu`` and ``new_sigma``.

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
    term-by-term sums: the results agree to about 1e-14. openskill's averaging of the mu changes
    of tied players is left out: it compares each updated rating with itself and adds 0.0.
    """
    variance = np.empty(count)
    strength = np.empty(count)
    inverse_sums = np.empty(count)
    group_end = np.empty(count, dtype=np.int64)
    # Tie groups: the end (exclusive) of each position's group of equal keys.
    group_end[count - 1] = count
    for position in range(count - 2, -1, -1):
        if keys[position] == keys[position + 1]:
            group_end[position] = group_end[position + 1]
        else:
            group_end[position] = position + 1
    # tau first: the variances openskill starts from.
    variance_sum = 0.0
    for position in range(count):
        variance[position] = sigma[position] * sigma[position] + TAU_SQUARED
        variance_sum += variance[position]
    inverse_c = 1.0 / math.sqrt(variance_sum + count * BETA_SQUARED)
    inverse_c_cubed = inverse_c * inverse_c * inverse_c
    for position in range(count):
        strength[position] = math.exp(mu[position] * inverse_c)
    # 1 / S for each position; in a tie group only the first one's counts (it sums the whole group).
    running = 0.0
    for position in range(count - 1, -1, -1):
        running += strength[position]
        inverse_sums[position] = 1.0 / running
    sum_inverse = 0.0
    sum_inverse_squared = 0.0
    group_start = 0
    own_group_weight = 1.0
    for position in range(count):
        if position == group_start:
            inverse_sum = inverse_sums[position]
            sum_inverse += inverse_sum
            sum_inverse_squared += inverse_sum * inverse_sum
            own_group_weight = 1.0 / (group_end[position] - position)
        if group_end[position] == position + 1:
            group_start = position + 1
        share = strength[position] * sum_inverse
        delta = (
            (share - strength[position] * strength[position] * sum_inverse_squared)
            * variance[position] * math.sqrt(variance[position]) * inverse_c_cubed
        )
        remaining = 1.0 - delta
        new_mu[position] = mu[position] + (own_group_weight - share) * variance[position] * inverse_c
        new_sigma[position] = math.sqrt(variance[position] * (remaining if remaining > KAPPA else KAPPA))


@njit(cache=True, nogil=True)
def rate_rows(
    ids, totals, offsets, times, mus, sigmas, last_times, decay, variance_per_day, sigma_cap,
    history, mu_before, sigma_before, mu_after, sigma_after,
):
    """Rate every session in order, updating ``mus``, ``sigmas`` and ``last_times`` (per player
    slot) in place, and with ``history`` filling the four arrays over the seats.

    The seats of session ``row`` are ``ids[offsets[row]:offsets[row + 1]]`` (player slots), their
    totals the same slice of ``totals``, its finish time ``times[row]``; ``last_times`` is NaN for
    a player without a session yet. Returns -1, or the number of the first session with a player
    twice (the arrays then hold the ratings up to the session before it).
    """
    width = 0
    for row in range(offsets.shape[0] - 1):
        width = max(width, offsets[row + 1] - offsets[row])
    order = np.empty(width, dtype=np.int64)
    seat = np.empty(width, dtype=np.int64)
    mu = np.empty(width)
    sigma = np.empty(width)
    keys = np.empty(width)
    new_mu = np.empty(width)
    new_sigma = np.empty(width)
    for row in range(offsets.shape[0] - 1):
        first = offsets[row]
        count = offsets[row + 1] - first
        # Best first; an insertion sort is stable, as sorted(..., reverse=True) is.
        for position in range(count):
            moving = totals[first + position]
            back = position
            while back > 0 and totals[first + order[back - 1]] < moving:
                order[back] = order[back - 1]
                back -= 1
            order[back] = position
        for position in range(count):
            seat[position] = ids[first + order[position]]
            for earlier in range(position):
                if seat[earlier] == seat[position]:
                    return row
        for position in range(count):
            player = seat[position]
            rated_sigma = sigmas[player]
            if decay:
                last = last_times[player]
                if not math.isnan(last):
                    rated_sigma = decayed_sigma(
                        rated_sigma, (times[row] - last) / SECONDS_PER_DAY, variance_per_day, sigma_cap
                    )
                last_times[player] = times[row]
            mu[position] = mus[player]
            sigma[position] = rated_sigma
            keys[position] = totals[first + order[position]]
            if history:
                mu_before[first + order[position]] = mus[player]
                sigma_before[first + order[position]] = rated_sigma
        rate_in_rank_order(mu, sigma, keys, count, new_mu, new_sigma)
        for position in range(count):
            player = seat[position]
            mus[player] = new_mu[position]
            sigmas[player] = new_sigma[position]
            if history:
                mu_after[first + order[position]] = new_mu[position]
                sigma_after[first + order[position]] = new_sigma[position]
    return -1
