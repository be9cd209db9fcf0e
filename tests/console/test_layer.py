"""The live pages' Redis channel layer (stich/layers.py) under the failures the rehearsal met:
200 sockets leaving at once, Redis restarting under a waiting receive, Redis coming back empty."""
from __future__ import annotations

import asyncio
import uuid

import pytest
from asgiref.sync import async_to_sync

from tests.console.test_push import RedisProxy, socket_to

pytestmark = pytest.mark.integration


@pytest.fixture
def redis_url(settings):
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set")
    return settings.REDIS_URL


def bounded_layer(url: str, **options):
    from stich.layers import BoundedRedisChannelLayer

    # A prefix of its own: the test's keys are its own on a shared Redis database, and flushed.
    return BoundedRedisChannelLayer(hosts=[url], prefix=f"test-{uuid.uuid4().hex}:", **options)


def test_the_settings_use_the_bounded_layer_on_redis(redis_url, settings):
    from channels.layers import channel_layers

    from stich.layers import BoundedRedisChannelLayer

    assert isinstance(channel_layers.make_backend("default"), BoundedRedisChannelLayer)


def test_two_hundred_sockets_joining_and_leaving_at_once_wait_for_the_bounded_pool(redis_url):
    """channels_redis's own pool (redis-py's default, 100 connections) raised MaxConnectionsError
    here; the bounded pool makes the commands wait and holds at most its connections."""
    import redis

    name = f"test-{uuid.uuid4().hex}"
    layer = bounded_layer(redis_url, max_connections=8)
    layer.hosts = [{**layer.hosts[0], "client_name": name}]  # its connections, counted by Redis

    async def scenario():
        channels = [await layer.new_channel() for _ in range(200)]
        await asyncio.gather(*(layer.group_add("room", channel) for channel in channels))
        await layer.group_send("room", {"type": "results.changed", "event": 1})
        received = await asyncio.gather(*(layer.receive(channel) for channel in channels))
        await asyncio.gather(*(layer.group_discard("room", channel) for channel in channels))
        opened = sum(1 for client in redis.Redis.from_url(redis_url).client_list() if client["name"] == name)
        members = await layer.connection(0).zcard(layer._group_key("room"))
        await layer.flush()
        return received, opened, members

    received, opened, members = async_to_sync(scenario)()
    assert received == [{"type": "results.changed", "event": 1}] * 200
    assert 1 <= opened <= 8
    assert members == 0


def test_a_redis_restart_under_a_waiting_receive_goes_unnoticed(redis_url):
    """A receive waiting when Redis goes away and comes back gets the next message; a group
    message sent right after the restart is not lost to the connection the restart broke."""
    from urllib.parse import urlsplit

    address = urlsplit(redis_url)
    proxy = RedisProxy(address.hostname, address.port or 6379)
    layer = bounded_layer(f"redis://127.0.0.1:{proxy.port}{address.path}", retry_seconds=5)

    async def scenario():
        await proxy.start()
        channel = await layer.new_channel()
        await layer.group_add("room", channel)
        waiting = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(0.3)  # the receive waits in BZPOPMIN
        await proxy.stop()  # Redis restarts: every connection is broken
        await asyncio.sleep(0.5)
        await proxy.start()
        await layer.group_send("room", {"type": "results.changed", "event": 2})
        message = await asyncio.wait_for(waiting, timeout=10)
        await layer.group_discard("room", channel)
        await layer.flush()
        await proxy.stop()
        return message

    assert async_to_sync(scenario)() == {"type": "results.changed", "event": 2}


@pytest.mark.django_db(transaction=True)
def test_a_socket_whose_membership_redis_lost_joins_again_and_tells_its_page(redis_url, world, settings, monkeypatch):
    """Redis came back without its data: the open socket is in no group. Its next renewal joins
    again and tells the page to fetch (it may have missed changes); later changes reach it."""
    from channels.layers import get_channel_layer

    from tournaments import live

    monkeypatch.setattr(live, "RENEW_SECONDS", 0.3)
    prefix = f"test-{uuid.uuid4().hex}:"
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "stich.layers.BoundedRedisChannelLayer",
                                           "CONFIG": {"hosts": [redis_url], "prefix": prefix}}}
    event = world.events["mu"]
    group = live.public_group(event.pk)

    async def scenario():
        layer = get_channel_layer()
        socket = socket_to(event.pk)
        assert (await socket.connect())[0]
        assert await socket.receive_nothing(timeout=0.6)  # renewals that found the membership say nothing
        await layer.connection(layer.consistent_hash(group)).delete(layer._group_key(group))  # Redis lost it
        told = await socket.receive_json_from(timeout=3)
        await layer.group_send(group, {"type": "results.changed", "event": event.pk})
        heard = await socket.receive_json_from(timeout=3)
        await socket.disconnect()
        await layer.flush()
        return told, heard

    told, heard = async_to_sync(scenario)()
    assert told == {"type": "results_changed", "event": event.pk}
    assert heard == {"type": "results_changed", "event": event.pk}


@pytest.fixture
def library_sends(monkeypatch):
    """The groups that channels_redis's own ``group_send`` was called for (the layer's override
    calls it only for groups with members)."""
    from channels_redis.core import RedisChannelLayer

    sent, library_send = [], RedisChannelLayer.group_send

    async def counted(self, group, message):
        sent.append(group)
        await library_send(self, group, message)

    monkeypatch.setattr(RedisChannelLayer, "group_send", counted)
    return sent


def test_a_send_to_a_group_nobody_listens_to_is_one_round_trip(redis_url, library_sends):
    """A hand announces itself to its event's groups (and to its series' other events'), most of
    which have no page open: such a send drops the expired members and counts the rest in one
    round trip, and goes no further; a group with a member gets the message as before."""
    layer = bounded_layer(redis_url, group_expiry=60)

    async def scenario():
        await layer.group_send("empty", {"type": "results.changed", "event": 1})
        # A member whose entry expired (its socket died without leaving) counts as nobody.
        gone = await layer.new_channel()
        await layer.connection(0).zadd(layer._group_key("stale"), {gone: 1})
        await layer.group_send("stale", {"type": "results.changed", "event": 2})
        stale_left = await layer.connection(0).zcard(layer._group_key("stale"))
        channel = await layer.new_channel()
        await layer.group_add("room", channel)
        await layer.group_send("room", {"type": "results.changed", "event": 3})
        received = await layer.receive(channel)
        await layer.flush()
        return stale_left, received

    stale_left, received = async_to_sync(scenario)()
    assert library_sends == ["room"] and stale_left == 0
    assert received == {"type": "results.changed", "event": 3}


def test_the_announcements_of_one_moment_cost_one_command_for_the_groups_nobody_listens_to(
        redis_url, library_sends, monkeypatch):
    """``group_send_many``: the expired members of every group dropped and the rest counted in one
    command (a script); the layer's own send only for the group with a member, which gets its
    message."""
    from redis.asyncio.client import Redis

    layer = bounded_layer(redis_url)
    commands, execute_command = [], Redis.execute_command

    async def counted(self, *args, **options):
        if not library_sends:  # before the layer's own send to the group with a member
            commands.append((args[0], args[2] if args[0] == "EVALSHA" else None))
        return await execute_command(self, *args, **options)

    async def scenario():
        channel = await layer.new_channel()
        await layer.group_add("event-3", channel)
        # The script known to Redis first (a Redis that never ran it answers NOSCRIPT once, and
        # redis-py loads it then).
        await layer.group_send_many([("nobody", {"type": "results.changed", "event": 0})])
        monkeypatch.setattr(Redis, "execute_command", counted)
        await layer.group_send_many([(f"event-{n}", {"type": "results.changed", "event": n}) for n in range(1, 11)])
        monkeypatch.setattr(Redis, "execute_command", execute_command)
        received = await layer.receive(channel)
        await layer.flush()
        return received

    received = async_to_sync(scenario)()
    assert library_sends == ["event-3"] and received == {"type": "results.changed", "event": 3}
    assert commands == [("EVALSHA", 10)]  # ten groups' expiry and count, in one command
