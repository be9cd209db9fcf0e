"""A process's pause of the shared cache after it failed: a Redis that is down answers each
command only after its connect timeout, so the code that found it down leaves it alone for a few
seconds (and works without it meanwhile) rather than wait for it at every call.

One mechanism for the cache's three users that go on without it: the live pages' versions and
fragments (``tournaments/live.py``), the kept win chances (``ratings/outlook.py``) and the dry
run's throttle (``throttling.py``). ``end_all`` ends every pause of the process (each test starts
so: a pause left by an earlier test must not change the next one's answers).
"""
from __future__ import annotations

import time

_ALL: list[CachePause] = []


class CachePause:
    """A pause of ``seconds`` after each failure (``start``); ``active`` until it is over."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.until = 0.0
        _ALL.append(self)

    @property
    def active(self) -> bool:
        return time.monotonic() < self.until

    def start(self) -> None:
        self.until = time.monotonic() + self.seconds

    def end(self) -> None:
        self.until = 0.0


def end_all() -> None:
    """End every pause of this process: the cache is asked again at the next call."""
    for pause in _ALL:
        pause.end()
