"""The shared cache's pause after a failure (games/cache_pause.py): one mechanism for the live
pages, the kept chances and the dry run's throttle, which the tests end before each test."""
from __future__ import annotations

from games import cache_pause
from games.throttling import SlidingRateThrottle
from ratings import outlook
from tournaments import live


def test_a_started_pause_is_active_until_its_seconds_pass_or_it_is_ended(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(cache_pause.time, "monotonic", lambda: clock[0])
    pause = cache_pause.CachePause(5.0)
    assert not pause.active
    pause.start()
    clock[0] = 104.9
    assert pause.active
    clock[0] = 105.0
    assert not pause.active
    pause.start()
    pause.end()
    assert not pause.active


def test_end_all_ends_the_pauses_of_the_live_pages_the_chances_and_the_throttle():
    pauses = (live._cache_pause, outlook._cache_pause, SlidingRateThrottle._cache_pause)
    for pause in pauses:
        pause.start()
    assert all(pause.active for pause in pauses)
    cache_pause.end_all()
    assert not any(pause.active for pause in pauses)
