"""Rating a whole league at once: the numbers of ``model.rate_many``, in compiled code.

``rate_many`` walks the sessions in Python, building lists and tuples for each one. Here the
sessions become flat arrays first (player ids to indices, totals, session boundaries: a few passes
that run in C), and one loop compiled by Numba rates them in order over arrays of mu, sigma and
last finish time. The loop is ``model._rate_in_rank_order`` (with ``rate_many``'s stable sort and
``model.decayed_sigma``) statement for statement, so the numbers agree with ``rate_many`` to
rounding (about 1e-14) and with openskill's ``PlackettLuce`` to about 1e-13;
``tests/ratings/test_league.py`` checks both, and checks the compiled loop against its own Python
source (``_rate_rows.py_func``).

The first call in a process compiles the loop, or loads it from Numba's cache (``cache=True``:
``__pycache__`` beside this file, or the user's cache directory where that is read-only); the
benchmark (``python -m ratings.bench``) reports that time on its own line.

Used by the pools (``services.pool_sync``: the worker's updates and ``recompute_ratings``, with
``rate_league_history`` for the rating history) and by ``python -m ratings.bench``;
``model.rate_many`` stays the readable reference.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from itertools import chain
from typing import NamedTuple

import numpy as np
from numba import njit

from games.catalog import GAMES

from .model import BETA_SQUARED, KAPPA, MU, SECONDS_PER_DAY, SIGMA, TAU_SQUARED, DecayConfig, Rating, Session

WIDTH = max(game.max_players for game in GAMES.values())  # the most players a session of any game has


class History(NamedTuple):
    mu_before: np.ndarray
    sigma_before: np.ndarray
    mu_after: np.ndarray
    sigma_after: np.ndarray


def rate_league(
    sessions: Sequence[Session],
    state: dict[Hashable, Rating] | None = None,
    *,
    decay: DecayConfig | None = None,
    last_played: dict[Hashable, float] | None = None,
) -> dict[Hashable, Rating]:
    """Rate ``sessions`` in the order given and return the ratings of everyone (``state`` updated
    in place when given): the same as ``model.rate_many(state, sessions, decay=...)``. A bad
    session (fewer than 2 or more than 6 players, totals not matching, a player twice) raises
    ``ValueError`` and changes nothing."""
    state = {} if state is None else state
    _rate(sessions, state, decay, last_played, history=False)
    return state


def rate_league_history(
    sessions: Sequence[Session],
    state: dict[Hashable, Rating],
    *,
    decay: DecayConfig | None = None,
    last_played: dict[Hashable, float] | None = None,
) -> History:
    """``rate_league``, and each seat's rating just before its session (after the decay) and just
    after: four arrays over the seats, session after session, players in the order given."""
    return _rate(sessions, state, decay, last_played, history=True)


def warm_up() -> None:
    """Compile the loop, or load it from Numba's cache: what the first call of a process pays
    (the benchmark times it; the Docker image calls it once to fill the cache)."""
    rate_league([Session([1, 2, 3], [2, 1, 1]), Session([2, 3], [0, 5])])


_NO_HISTORY = History(*[np.empty(0)] * 4)


def _rate(sessions, state, decay, last_played, *, history: bool) -> History:
    if not sessions:
        return _NO_HISTORY
    # Flat arrays, built by passes that run in C: the seats of session i are
    # ids[offsets[i]:offsets[i + 1]], their totals the same slice of totals.
    # (Three comprehensions, not zip(*sessions): unpacking 100,000 arguments is ten times slower.)
    players_by_session = [session[0] for session in sessions]
    totals_by_session = [session[1] for session in sessions]
    times_by_session = [session[2] for session in sessions]
    sizes = list(map(len, players_by_session))
    if sizes != list(map(len, totals_by_session)) or min(sizes) < 2 or max(sizes) > WIDTH:
        number = next(
            number for number, (size, totals) in enumerate(zip(sizes, totals_by_session))
            if len(totals) != size or not 2 <= size <= WIDTH
        )
        raise ValueError(
            f"session {number}: {sizes[number]} players and {len(totals_by_session[number])} totals "
            f"(2 to {WIDTH} players)"
        )
    seated = list(chain.from_iterable(players_by_session))
    index = dict(zip(dict.fromkeys(seated), range(len(seated))))  # player -> slot, first seen first
    ids = np.fromiter(map(index.__getitem__, seated), dtype=np.int64, count=len(seated))
    totals = np.fromiter(chain.from_iterable(totals_by_session), dtype=np.float64, count=len(seated))
    offsets = np.zeros(len(sessions) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])

    people = len(index)
    mus = np.full(people, MU)
    sigmas = np.full(people, SIGMA)
    last_times = np.full(people, np.nan)  # NaN: no session yet (so no decay before the first)
    players_by_slot = list(index)
    for slot, player in enumerate(players_by_slot):
        rating = state.get(player)
        if rating is not None:
            mus[slot], sigmas[slot] = rating
        if decay is not None and last_played:
            last = last_played.get(player)
            if last is not None:
                last_times[slot] = last
    times = np.array(times_by_session, dtype=np.float64)
    result = History(*(np.empty(len(seated)) for _ in range(4))) if history else _NO_HISTORY

    repeated = _rate_rows(
        ids, totals, offsets, times, mus, sigmas, last_times,
        decay is not None, decay.variance_per_day if decay else 0.0, decay.sigma_cap if decay else SIGMA,
        history, *result,
    )
    if repeated >= 0:
        raise ValueError(f"a player appears twice in session {players_by_session[repeated]!r}")

    state.update(zip(players_by_slot, zip(mus.tolist(), sigmas.tolist())))
    if decay is not None and last_played is not None:
        for player, last in zip(players_by_slot, last_times.tolist()):
            if not math.isnan(last):
                last_played[player] = last
    return result


@njit(cache=True, nogil=True)
def _rate_rows(
    ids, totals, offsets, times, mus, sigmas, last_times, decay, variance_per_day, sigma_cap,
    history, mu_before, sigma_before, mu_after, sigma_after,
):
    """Rate every session in order, updating ``mus``, ``sigmas`` and ``last_times`` in place
    (and, with ``history``, filling the four arrays over the seats).

    Returns -1, or the number of the first session with a player twice (the arrays then hold
    the ratings up to the session before it). The arithmetic is ``model._rate_in_rank_order``'s,
    in the same order.
    """
    order = np.empty(WIDTH, dtype=np.int64)
    seat = np.empty(WIDTH, dtype=np.int64)
    mu = np.empty(WIDTH)
    variance = np.empty(WIDTH)
    strength = np.empty(WIDTH)
    inverse_sums = np.empty(WIDTH)
    group_end = np.empty(WIDTH, dtype=np.int64)
    for row in range(offsets.shape[0] - 1):
        first = offsets[row]
        count = offsets[row + 1] - first
        # Best first; an insertion sort is stable, as rate_many's sorted(..., reverse=True) is.
        for position in range(count):
            order[position] = position
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
        # Tie groups: the end (exclusive) of each position's group of equal totals.
        group_end[count - 1] = count
        for position in range(count - 2, -1, -1):
            if totals[first + order[position]] == totals[first + order[position + 1]]:
                group_end[position] = group_end[position + 1]
            else:
                group_end[position] = position + 1
        # Inactivity decay (model.decayed_sigma), then tau: the variances openskill starts from.
        variance_sum = 0.0
        for position in range(count):
            player = seat[position]
            sigma = sigmas[player]
            if decay:
                last = last_times[player]
                if not math.isnan(last):
                    days = (times[row] - last) / SECONDS_PER_DAY
                    if days > 0.0 and sigma < sigma_cap:
                        sigma = min(sigma_cap, math.sqrt(sigma * sigma + variance_per_day * days))
                last_times[player] = times[row]
            mu[position] = mus[player]
            if history:
                mu_before[first + order[position]] = mus[player]
                sigma_before[first + order[position]] = sigma
            variance[position] = sigma * sigma + TAU_SQUARED
            variance_sum += variance[position]
        inverse_c = 1.0 / math.sqrt(variance_sum + count * BETA_SQUARED)
        inverse_c_cubed = inverse_c * inverse_c * inverse_c
        for position in range(count):
            strength[position] = math.exp(mu[position] * inverse_c)
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
            player = seat[position]
            mus[player] = mu[position] + (own_group_weight - share) * variance[position] * inverse_c
            sigmas[player] = math.sqrt(variance[position] * (remaining if remaining > KAPPA else KAPPA))
            if history:
                mu_after[first + order[position]] = mus[player]
                sigma_after[first + order[position]] = sigmas[player]
    return -1
