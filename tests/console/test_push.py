"""Server push without a browser: the receivers tell the right groups, the consumer refuses what
the user may not see, and the Redis channel layer carries the messages."""
from __future__ import annotations

import asyncio
import random

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from tests.api.play import next_record


@pytest.mark.django_db(transaction=True)
def test_receivers_tell_the_public_only_what_it_may_see(world, settings):
    """A hand of a held-back round reaches the organisers' board, not the public pages."""
    from tournaments import live, results, services

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    layer = get_channel_layer()
    event = world.events["mu"]
    table = event.rounds.get(number=1).tables.order_by("number").first()

    async def listen(group):
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        return channel

    public = async_to_sync(listen)(live.public_group(event.pk))
    organisers = async_to_sync(listen)(live.organisers_group(event.pk))

    def received(channel) -> list:
        messages = []

        async def drain():
            while True:
                try:
                    messages.append(await asyncio.wait_for(layer.receive(channel), 0.2))
                except Exception:  # noqa: BLE001 - a timeout ends the drain
                    return

        async_to_sync(drain)()
        return messages

    results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("mu", random.Random(1), 4, None,
                                                                            table.first_dealer)), by_user=world.organiser)
    assert received(public) == [{"type": "results.changed", "event": event.pk}]
    assert len(received(organisers)) == 1
    services.round_set_results_held(round_=table.round, held=True, by_user=world.organiser)
    assert len(received(public)) == 1  # the round left the public standings: they change
    received(organisers)
    session = {"next": {"dealer": (table.sessions.get().hands.get().dealer + 1) % 4, "direction": None}}
    results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("mu", random.Random(2), 4, session)),
                        by_user=world.organiser)
    assert received(public) == []
    assert len(received(organisers)) == 1


@pytest.mark.django_db(transaction=True)
def test_the_socket_refuses_an_event_the_user_may_not_see(world, settings):
    from tournaments import services
    from tournaments.live import EventConsumer

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    hidden = services.event_create(by_user=world.club_organiser, club=world.club, name="hidden", game="mu")

    async def connect(event_id, user):
        from django.contrib.auth.models import AnonymousUser

        communicator = WebsocketCommunicator(EventConsumer.as_asgi(), f"/ws/events/{event_id}/")
        communicator.scope["url_route"] = {"kwargs": {"event": event_id}}
        communicator.scope["user"] = user or AnonymousUser()
        connected, _ = await communicator.connect()
        await communicator.disconnect()
        return connected

    assert async_to_sync(connect)(world.events["mu"].pk, None) is True
    assert async_to_sync(connect)(hidden.pk, None) is False
    assert async_to_sync(connect)(hidden.pk, world.club_organiser) is True


@pytest.mark.integration
def test_the_redis_channel_layer_carries_a_group_message(settings):
    """With REDIS_URL (CI, production) the layer is Redis: a message sent to a group arrives."""
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set")
    from channels.layers import channel_layers

    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    layer = channel_layers.make_backend("default")

    async def round_trip():
        channel = await layer.new_channel()
        await layer.group_add("event-test", channel)
        await layer.group_send("event-test", {"type": "results.changed", "event": 1})
        message = await layer.receive(channel)
        await layer.group_discard("event-test", channel)
        await layer.flush()
        return message

    assert async_to_sync(round_trip)() == {"type": "results.changed", "event": 1}


def test_a_burst_of_changes_goes_out_as_one_message_per_group(monkeypatch):
    """A shared layer hears of an event's changes once per ``COALESCE_SECONDS`` (per process),
    the public group when any of them was public, and the caller never waits for it."""
    import threading
    import time

    from tournaments import live

    sent, arrived = [], threading.Event()

    class Layer:  # a shared layer (not the in-memory one): the sender loop delivers to it
        async def group_send(self, group, message):
            sent.append((group, message))
            if len(sent) == 3:
                arrived.set()

    monkeypatch.setattr(live, "get_channel_layer", lambda: Layer())
    started = time.perf_counter()
    for index in range(50):
        live.announce(7, public=index == 20)
    live.announce(8, public=False)
    assert time.perf_counter() - started < 0.5 * live.COALESCE_SECONDS * 50  # nothing waited for delivery
    assert arrived.wait(5)
    time.sleep(3 * live.COALESCE_SECONDS)
    assert sorted(sent, key=str) == sorted([
        (live.organisers_group(7), {"type": "results.changed", "event": 7}),
        (live.public_group(7), {"type": "results.changed", "event": 7}),
        (live.organisers_group(8), {"type": "results.changed", "event": 8}),
    ], key=str)
    live.announce(7, public=False)  # a later change is announced again
    time.sleep(5 * live.COALESCE_SECONDS)
    assert sent[-1] == (live.organisers_group(7), {"type": "results.changed", "event": 7}) and len(sent) == 4
