"""The shared cache's backend: Django's Redis cache with one Redis client per connection pool.

Django's ``RedisCacheClient`` builds a new ``redis.Redis`` for every command, and each copies the
library's table of reply callbacks: a page that asks the cache ten times (the event's version, its
fragments, the tables' chances) spent more on those copies than on the commands. A client is
thread-safe (each command takes a connection of its pool), so one per pool serves them all.

``count_window`` gives the throttles their count in one round trip (a pipeline).
"""
from __future__ import annotations

from django.core.cache.backends import redis


class _Client(redis.RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = super().get_client(key, write=write)
        return client

    def count_window(self, current: str, previous: str, timeout: int) -> tuple[int, int]:
        with self.get_client(current, write=True).pipeline(transaction=False) as pipe:
            number, _renewed, before = pipe.incr(current).expire(current, timeout).get(previous).execute()
        return number, 0 if before is None else int(before)


class RedisCache(redis.RedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = _Client

    def count_window(self, current: str, previous: str, timeout: int) -> tuple[int, int]:
        """A sliding-window throttle's count (``games.throttling``) in one round trip instead of
        four (``add``, ``incr``, which asks ``exists`` first, and ``get``): this window's counter
        incremented (created at 1, its lifetime renewed to ``timeout`` seconds) and the previous
        window's. Each command is atomic, so concurrent requests each get their own number."""
        return self._cache.count_window(self.make_and_validate_key(current), self.make_and_validate_key(previous),
                                        timeout)
