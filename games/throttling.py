"""The dry run's throttle: counted atomically in the shared cache, and never a 500 when the cache
is down.

DRF's throttles read a client's history from the cache and write it back: parallel requests read
the same history and all pass (a limit of 120 let 161 of 300 through), and a cache that cannot be
reached raises. This one counts per client in a sliding window: each request adds itself with the
cache's atomic ``incr`` to the current fixed window's counter (``add`` creates it), and is refused
(the increment taken back) when the counter, plus the previous window's weighted by how much of
it the sliding window still covers, exceeds the rate. Concurrent requests each get their own
number, so no more than the rate pass. On Redis ``incr`` is atomic across processes and hosts,
and the shared Redis cache counts in one round trip (``count_window``). Without ``REDIS_URL``
the shared cache is diskcache's, whose ``add`` and ``incr`` are atomic as well.

When the cache fails, the throttle counts in the process's memory instead (the same window) and
tries the cache again after ``RETRY_SECONDS``: the dry run stays available, and still limited per
process.
"""
from __future__ import annotations

import logging
import threading
import time

from django.core.cache import cache as default_cache
from rest_framework.throttling import ScopedRateThrottle

from .cache_pause import CachePause

logger = logging.getLogger(__name__)

RETRY_SECONDS = 5.0


class LocalCounter:
    """Counters in this process's memory, with the cache's ``add``/``incr``/``get``/``decr``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, tuple[int, float]] = {}

    def _live(self, key: str, now: float):
        value = self._values.get(key)
        if value is not None and value[1] <= now:
            del self._values[key]
            return None
        return value

    def add(self, key: str, value: int, timeout: float) -> bool:
        now = time.monotonic()
        with self._lock:
            if self._live(key, now) is not None:
                return False
            if len(self._values) > 10_000:  # forget what expired
                for stale in [k for k, (_, until) in self._values.items() if until <= now]:
                    del self._values[stale]
            self._values[key] = (value, now + timeout)
            return True

    def incr(self, key: str, delta: int = 1) -> int:
        with self._lock:
            value = self._live(key, time.monotonic())
            if value is None:
                raise ValueError(f"no counter {key}")
            self._values[key] = (value[0] + delta, value[1])
            return value[0] + delta

    def decr(self, key: str, delta: int = 1) -> int:
        return self.incr(key, -delta)

    def get(self, key: str, default=None):
        with self._lock:
            value = self._live(key, time.monotonic())
            return default if value is None else value[0]


LOCAL = LocalCounter()


def count_window(store, current: str, previous: str, timeout: int) -> tuple[int, int]:
    """This window's counter incremented (created if missing, to live ``timeout`` seconds: two
    windows, as the next window still weighs this one) and the previous window's count. A store
    with a ``count_window`` of its own (the shared Redis cache, ``stich/cache.py``: one round trip)
    counts itself; the others with ``add``, ``incr`` and ``get``."""
    own = getattr(store, "count_window", None)
    if own is not None:
        return own(current, previous, timeout)
    store.add(current, 0, timeout)
    try:
        number = store.incr(current)
    except ValueError:  # expired between add and incr
        store.add(current, 1, timeout)
        number = 1
    return number, store.get(previous) or 0


class SlidingRateThrottle(ScopedRateThrottle):
    """``ScopedRateThrottle``'s scopes, rates and client addresses (``NUM_PROXIES``), counted as
    the module says."""

    cache = default_cache
    _cache_pause = CachePause(RETRY_SECONDS)  # the process's, for every instance (one per request)

    def allow_request(self, request, view):
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        store = self._store()
        try:
            return self._count(store)
        except Exception:  # noqa: BLE001 - any failure of the cache: count locally
            if store is LOCAL:
                raise
            logger.warning("throttle: the cache failed; counting in this process for %ss", RETRY_SECONDS,
                           exc_info=True)
            self._cache_pause.start()
            return self._count(LOCAL)

    def _store(self):
        return LOCAL if self._cache_pause.active else self.cache

    def window_keys(self, key: str, now: float) -> tuple[str, str, float]:
        window = int(now // self.duration)
        return f"{key}:{window}", f"{key}:{window - 1}", (now % self.duration) / self.duration

    def _count(self, store) -> bool:
        current, previous, elapsed = self.window_keys(self.key, self.now)
        number, before = count_window(store, current, previous, 2 * self.duration + 1)
        if before * (1 - elapsed) + number <= self.num_requests:
            return True
        store.decr(current)  # a refused request does not count
        self._window = (before, number - 1, elapsed)
        return False

    def wait(self):
        """Seconds until one more request fits: the previous window's weight fades as the sliding
        window moves on; with this window full, at the next one."""
        before, counted, elapsed = getattr(self, "_window", (0, self.num_requests, 0.0))
        if before and counted + 1 <= self.num_requests:
            # before * (1 - e) + counted + 1 <= limit once e reaches this share of the window.
            reached = 1 - (self.num_requests - counted - 1) / before
            return max(1.0, (reached - elapsed) * self.duration)
        return max(1.0, (1 - elapsed) * self.duration)

    @classmethod
    def forget(cls, scope: str, ident: str) -> None:
        """Forget one client's counters of ``scope`` (tests: the cache outlives a test): the windows
        of the scope's own rate around now (an hour's for ``registration``, a minute's for the dry run)."""
        key = cls.cache_format % {"scope": scope, "ident": ident}
        throttle = cls()
        throttle.scope = scope
        _, duration = throttle.parse_rate(throttle.get_rate())
        window = int(time.time() // duration)
        for store in (cls.cache, LOCAL):
            for number in (window - 1, window, window + 1):
                try:
                    if store is LOCAL:
                        with LOCAL._lock:
                            LOCAL._values.pop(f"{key}:{number}", None)
                    else:
                        store.delete(f"{key}:{number}")
                except Exception:  # noqa: BLE001 - a cache that is down has nothing to forget
                    pass
