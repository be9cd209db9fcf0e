"""Rating a whole league at once: the numbers of ``model.rate_many``, computed in batches.

A session's new ratings depend only on its players' ratings just before it. So every session can
be given a *level*, one more than the highest level among the last sessions of its players; the
sessions of one level share no player and depend only on lower levels. Rating level after level,
each level as one NumPy computation over a ``sessions × 6`` array, gives exactly the sequence's
result (the same formulas as ``model._rate_in_rank_order``, summed in the same order, so the
numbers agree with ``rate_many`` to rounding, about 1e-14) while the per-session Python work
shrinks to one pass that assigns levels.

Used by ``python -m ratings.bench`` and by ``recompute_ratings``-sized work; ``rate_many`` stays the
readable reference and the incremental path.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

from .model import BETA_SQUARED, KAPPA, MU, SECONDS_PER_DAY, SIGMA, TAU_SQUARED, DecayConfig, Rating, Session

WIDTH = 6  # the most players a session of any game has


def rate_league(
    sessions: Sequence[Session],
    state: dict[Hashable, Rating] | None = None,
    *,
    decay: DecayConfig | None = None,
    last_played: dict[Hashable, float] | None = None,
) -> dict[Hashable, Rating]:
    """Rate ``sessions`` in the order given and return the ratings of everyone (``state`` updated
    in place when given): the same as ``model.rate_many(state, sessions, decay=...)``."""
    state = {} if state is None else state
    index: dict[Hashable, int] = {}
    count = len(sessions)
    flat_seats: list[int] = []
    flat_scores: list[float] = []
    level_list: list[int] = []
    last_level: list[int] = []
    padding = {size: ([-1] * (WIDTH - size), [-math.inf] * (WIDTH - size)) for size in range(WIDTH + 1)}
    get = index.get
    # The one pass in Python: player ids to indices, and each session's level.
    for number, (players, totals, _) in enumerate(sessions):
        size = len(players)
        if not 2 <= size <= WIDTH or len(totals) != size:
            raise ValueError(f"session {number}: {size} players and {len(totals)} totals (2 to {WIDTH} players)")
        ids = []
        level = 0
        for player in players:
            slot = get(player)
            if slot is None:
                slot = index[player] = len(last_level)
                last_level.append(-1)
            elif last_level[slot] >= level:
                level = last_level[slot] + 1
            ids.append(slot)
        for slot in ids:
            last_level[slot] = level
        level_list.append(level)
        pad_ids, pad_scores = padding[size]
        flat_seats += ids
        flat_seats += pad_ids
        flat_scores += totals
        flat_scores += pad_scores
    seats = np.array(flat_seats, dtype=np.int64).reshape(count, WIDTH)
    scores = np.array(flat_scores, dtype=float).reshape(count, WIDTH)
    levels = np.array(level_list, dtype=np.int64)
    # A player twice in one session: after sorting each row, equal neighbours (padding aside).
    ordered = np.sort(seats, axis=1)
    if np.any((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)):
        row = int(np.flatnonzero(np.any((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0), axis=1))[0])
        raise ValueError(f"a player appears twice in session {sessions[row][0]!r}")

    people = len(last_level)
    sink = people  # the padding of short sessions reads and writes this slot; it is reset each time
    mus = np.full(people + 1, MU)
    sigmas = np.full(people + 1, SIGMA)
    players_by_slot = list(index)
    for player, slot in index.items():
        if player in state:
            mus[slot], sigmas[slot] = state[player]
    times = np.array([session[2] for session in sessions], dtype=float) if decay is not None else None
    last_times = np.full(people + 1, np.nan)
    if decay is not None and last_played:
        for player, slot in index.items():
            if player in last_played:
                last_times[slot] = last_played[player]

    # Best first, stable (openskill's order for tied players); padding (-inf) goes last.
    order = np.argsort(-scores, axis=1, kind="stable")
    seats = np.take_along_axis(seats, order, axis=1)
    scores = np.take_along_axis(scores, order, axis=1)
    valid = seats >= 0
    seats[~valid] = sink
    positions = np.arange(WIDTH)
    starts = np.ones((count, WIDTH), dtype=bool)
    starts[:, 1:] = scores[:, 1:] != scores[:, :-1]
    starts &= valid
    group_start = np.maximum.accumulate(np.where(starts, positions, 0), axis=1)
    ends = np.zeros((count, WIDTH), dtype=bool)
    ends[:, :-1] = starts[:, 1:] | ~valid[:, 1:]
    ends[:, -1] = True
    group_end = np.minimum.accumulate(np.where(ends, positions + 1, WIDTH)[:, ::-1], axis=1)[:, ::-1]
    # The padding's slot has mu -inf (strength 0) and sigma 0 (variance tau², taken out of c²).
    own_weight = np.where(valid, 1.0 / (group_end - group_start), 0.0)
    starts_f = starts.astype(float)
    padding_one = (~valid).astype(float)  # keeps 0/0 out of the padding's 1/S
    sizes = valid.sum(axis=1)
    c_squared_rest = (sizes * BETA_SQUARED - (WIDTH - sizes) * TAU_SQUARED)[:, None]
    mus[sink] = -np.inf
    sigmas[sink] = 0.0

    # Sessions in level order, so that each level is a slice (a view, no copying).
    batches = np.argsort(levels, kind="stable")
    seats = seats[batches]
    own_weight = own_weight[batches]
    starts_f = starts_f[batches]
    padding_one = padding_one[batches]
    c_squared_rest = c_squared_rest[batches]
    if times is not None:
        times = times[batches][:, None]
    bounds = np.flatnonzero(np.diff(levels[batches])) + 1
    exp, sqrt, cumsum, maximum = np.exp, np.sqrt, np.cumsum, np.maximum
    for batch in zip([0, *bounds.tolist()], [*bounds.tolist(), count]):
        batch = slice(*batch)
        ids = seats[batch]
        mu = mus[ids]
        sigma = sigmas[ids]
        if decay is not None:
            last = last_times[ids]
            days = (times[batch] - last) / SECONDS_PER_DAY
            grows = (sigma < decay.sigma_cap) & (days > 0.0)  # never played before: days is NaN
            widened = sqrt(sigma * sigma + decay.variance_per_day * np.where(grows, days, 0.0))
            sigma = np.where(grows, np.minimum(decay.sigma_cap, widened), sigma)
            last_times[ids] = times[batch]
            last_times[sink] = np.nan
        variance = sigma * sigma + TAU_SQUARED
        inverse_c = 1.0 / sqrt(variance.sum(axis=1, keepdims=True) + c_squared_rest[batch])
        strength = exp(mu * inverse_c)
        suffix = cumsum(strength[:, ::-1], axis=1)[:, ::-1] + padding_one[batch]
        inverse_sum = starts_f[batch] / suffix
        sum_inverse = cumsum(inverse_sum, axis=1)
        sum_inverse_squared = cumsum(inverse_sum * inverse_sum, axis=1)
        share = strength * sum_inverse
        scaled = variance * inverse_c
        delta = (share - strength * strength * sum_inverse_squared) * scaled * sqrt(variance) * (inverse_c * inverse_c)
        mus[ids] = mu + (own_weight[batch] - share) * scaled
        sigmas[ids] = sqrt(variance * maximum(1.0 - delta, KAPPA))
        mus[sink] = -np.inf
        sigmas[sink] = 0.0

    mu_list = mus.tolist()
    sigma_list = sigmas.tolist()
    for slot, player in enumerate(players_by_slot):
        state[player] = (mu_list[slot], sigma_list[slot])
    if decay is not None and last_played is not None:
        time_list = last_times.tolist()
        for slot, player in enumerate(players_by_slot):
            if not math.isnan(time_list[slot]):
                last_played[player] = time_list[slot]
    return state
