"""Rating a whole league at once: sessions as flat arrays, rated by the compiled kernel.

The sessions become flat arrays first (player ids to slots, totals, session boundaries: a few
passes that run in C), and ``kernel.rate_rows`` rates them in order over arrays of mu, sigma and
last finish time, calling the one Plackett–Luce kernel (``kernel.rate_in_rank_order``) per
session; ``tests/ratings/test_league.py`` checks the numbers against openskill and
``model.rate_session`` session by session, and the compiled loop against its own Python source.

The first call in a process compiles the loop, or loads it from Numba's cache (see ``kernel``);
the benchmark (``python -m bench.ratings``) reports that time on its own line.

Used by the pools (``services.pool_sync``: the worker's updates and ``recompute_ratings``, with
``rate_league_history`` for the rating history), by ``model.rate_many`` and by the benchmark.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from itertools import chain
from typing import NamedTuple

import numpy as np

from games.catalog import GAMES

from .kernel import MU, SIGMA, rate_rows
from .values import DecayConfig, Rating, Session

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
    in place when given): the same as ``model.rate_session`` on each session in turn. A bad
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
    rate_league([([1, 2, 3], [2, 1, 1], 0.0), ([2, 3], [0, 5], 1.0)])


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

    repeated = rate_rows(
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
