"""The values the rating model and the league loop share: a rating, a finished session and the
inactivity decay (``model`` rates with them, ``league`` rates many at once; both import them from
here, so neither imports the other's types)."""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import NamedTuple

from .kernel import MU, SIGMA

Rating = tuple[float, float]
"""``(mu, sigma)``"""

NEW_PLAYER: Rating = (MU, SIGMA)


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
