"""The live pages' channel layer on Redis: channels_redis's layer with a bounded pool that waits,
and commands that survive a Redis restart.

What channels_redis does by itself, and what went wrong with it under 200 room screens
(``python -m bench.rehearsal``):

- Its pool per host and event loop is redis-py's ``ConnectionPool`` with redis-py's default of 100
  connections, raising ``MaxConnectionsError`` when a command finds them all busy: 200 sockets
  that close at once (a room's Wi-Fi drops) each leave their group, and the commands beyond the
  hundredth failed. Here the pool is ``BlockingConnectionPool``: at most ``max_connections``
  (setting ``CHANNEL_LAYER_CONNECTIONS``) per process, and a command waits for a free one (up to
  ``pool_timeout`` seconds) instead of failing.
- A command that meets a connection a Redis restart broke fails at once (redis-py's asyncio
  connections retry nothing by default). The process's one receiving command (``BZPOPMIN`` on the
  process's channel) then failed inside one socket's consumer, which died; the web processes'
  announcements of that moment were lost. Here every command is tried again on a new connection,
  with a growing pause, for about ``retry_seconds``: a restart of that length goes unnoticed by the
  sockets, and an announcement arrives late instead of never.
- A Redis host that vanishes without closing its sockets (a node lost) would leave the receiving
  command waiting for ever, the whole process deaf: ``socket_timeout`` (longer than the layer's
  5-second ``BZPOPMIN``) ends it, and the retry goes on.

``group_renew`` adds a channel to a group again and says whether it was missing: a live socket
renews its groups now and then, so that a Redis that came back without its data (no persistence)
leaves a socket deaf for one renewal period at most, and the page is told to fetch again.
"""
from __future__ import annotations

import time

from channels_redis.core import RedisChannelLayer
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError


def _retries_for(seconds: float, base: float, cap: float) -> int:
    """How many retries of a doubling pause (``base``, at most ``cap``) add up to ``seconds``."""
    count, pause, total = 0, base, 0.0
    while total < seconds:
        total += min(pause, cap)
        pause *= 2
        count += 1
    return count


# Each group's expired members dropped and the rest counted, for every group of one announcement in
# one command: what a pipeline of ZREMRANGEBYSCORE and ZCARD per group did, without the client's
# work per command (a hand in an event of a series announces to three groups: its event's two and
# the series'; a message to many groups, ``bench.layer``'s 23, costs one command all the same).
_PRUNE_AND_COUNT = """
local counts = {}
for i, key in ipairs(KEYS) do
    redis.call('ZREMRANGEBYSCORE', key, 0, ARGV[1])
    counts[i] = redis.call('ZCARD', key)
end
return counts
"""


class BoundedRedisChannelLayer(RedisChannelLayer):
    """channels_redis's layer; each host's pool (per event loop) holds at most ``max_connections``
    connections and makes a command wait for one; every command is retried on connection errors
    for about ``retry_seconds``."""

    BACKOFF_BASE, BACKOFF_CAP = 0.05, 1.0

    def __init__(self, *args, max_connections: int = 20, pool_timeout: float = 20.0, retry_seconds: float = 10.0,
                 **kwargs):
        super().__init__(*args, **kwargs)
        self.max_connections, self.pool_timeout, self.retry_seconds = max_connections, pool_timeout, retry_seconds

    def create_pool(self, index):
        host = dict(self.hosts[index])
        address = host.pop("address")
        retry = Retry(ExponentialWithJitterBackoff(base=self.BACKOFF_BASE, cap=self.BACKOFF_CAP),
                      _retries_for(self.retry_seconds, self.BACKOFF_BASE, self.BACKOFF_CAP))
        options = {
            "max_connections": self.max_connections, "timeout": self.pool_timeout,
            "retry": retry, "retry_on_error": [RedisConnectionError, RedisTimeoutError, OSError],
            "socket_connect_timeout": 5, "socket_timeout": self.brpop_timeout + 5, "socket_keepalive": True,
            **host,
        }
        return aioredis.BlockingConnectionPool.from_url(address, **options)

    async def group_send(self, group, message):
        """channels_redis's ``group_send``, after one round trip that drops the group's expired
        members and counts the rest: an announcement to a group nobody listens to (an event's
        groups without a page open, most of them most of the time) costs that one round trip
        instead of the layer's two."""
        await self.group_send_many([(group, message)])

    async def group_send_many(self, sends: list[tuple[str, dict]]) -> None:
        """``group_send`` of each (group, message), the groups' expired members dropped and the
        rest counted in one command per Redis host for all of them (``_PRUNE_AND_COUNT``);
        channels_redis's send then only for the groups with members (a process's announcements of
        one moment: a hand in an event of a series moves the pages of every event of the series)."""
        by_host: dict[int, list[tuple[str, dict]]] = {}
        for group, message in sends:
            assert self.require_valid_group_name(group), "Group name not valid"
            by_host.setdefault(self.consistent_hash(group), []).append((group, message))
        for index, items in by_host.items():
            expired = int(time.time()) - self.group_expiry
            prune_and_count = self.connection(index).register_script(_PRUNE_AND_COUNT)
            members = await prune_and_count(keys=[self._group_key(group) for group, _message in items], args=[expired])
            for (group, message), count in zip(items, members):
                if count:
                    await super().group_send(group, message)

    async def group_renew(self, group: str, channel: str) -> bool:
        """Add ``channel`` to ``group`` (again) and refresh the group's expiry; True when the
        channel was not in the group (Redis lost it)."""
        assert self.require_valid_group_name(group), "Group name not valid"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        key = self._group_key(group)
        connection = self.connection(self.consistent_hash(group))
        added = await connection.zadd(key, {channel: time.time()})
        await connection.expire(key, self.group_expiry)
        return bool(added)
