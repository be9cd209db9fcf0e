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
    from tournaments import live, services
    from tournaments.results import services as results

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
        return [{key: value for key, value in message.items() if key != "id"} for message in messages]

    results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("mu", random.Random(1), 4, None,
                                                                            table.first_dealer)), by_user=world.organiser)
    first = received(public)
    # The message names the event's version after the change (the pages' fragments are cached by it).
    assert first == [{"type": "results.changed", "event": event.pk, "version": live.current_version(event.pk)}]
    assert len(received(organisers)) == 1
    services.round_set_results_held(round_=table.round, held=True, by_user=world.organiser)
    held = received(public)  # the round left the public standings: they change
    assert len(held) == 1 and held[0]["version"] > first[0]["version"]
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

    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "stich.layers.BoundedRedisChannelLayer"
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
            sent.append((group, {key: value for key, value in message.items() if key not in ("id", "version")}))
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


def test_the_announcements_of_one_moment_go_to_the_layer_together(monkeypatch):
    """A hand in an event of a series moves every event of the series and the series itself:
    the process's announcements of one ``COALESCE_SECONDS`` reach the project's layer in one call
    (``group_send_many``: one round trip for all the groups nobody listens to)."""
    import threading
    import time

    from tournaments import live

    calls, arrived = [], threading.Event()

    class Layer:
        async def group_send_many(self, sends):
            calls.append(sorted(group for group, _message in sends))
            arrived.set()

        async def group_send(self, group, message):
            raise AssertionError("each group sent on its own")

    monkeypatch.setattr(live, "get_channel_layer", lambda: Layer())
    live.announce_all({7: True, 8: True, 9: False}, series=[3])
    live.announce_all({7: True}, series=[3])  # the next hand of the same moment rides along
    assert arrived.wait(5)
    time.sleep(3 * live.COALESCE_SECONDS)
    assert calls == [sorted([live.organisers_group(7), live.public_group(7), live.organisers_group(8),
                             live.public_group(8), live.organisers_group(9), live.series_group(3)])]


def test_the_hands_of_scorers_move_their_versions_with_the_next_push(monkeypatch):
    """Hands from tables' scorer tokens (``coalesced``: their writers read no page after them) cost
    their requests no round trip to the cache: the process's sender bumps the versions of their
    events and series in one round trip right before the moment's message, which carries them.
    What waits when the process exits is delivered then; a sender that cannot take a change has
    its versions bumped at once."""
    import threading
    import time

    from tournaments import live

    calls, bumps, arrived = [], [], threading.Event()

    class Layer:
        async def group_send_many(self, sends):
            calls.append(dict(sends))
            arrived.set()

    counter = iter(range(100, 1000))

    def bump_all(keys, backend=None):
        bumps.append((threading.current_thread().name, sorted(keys)))
        return {key: next(counter) for key in keys}

    monkeypatch.setattr(live, "get_channel_layer", lambda: Layer())
    monkeypatch.setattr(live, "_bump_all", bump_all)
    live.announce_all({7: True}, series=[3], coalesced=True)
    live.announce_all({7: True}, coalesced=True)  # the next hand of the same moment rides along
    live.announce_all({8: False}, coalesced=True)  # a held-back round: the organisers only
    assert bumps == []  # nothing on the writers' requests
    assert arrived.wait(5)
    time.sleep(3 * live.COALESCE_SECONDS)
    assert len(bumps) == 1 and bumps[0] == (
        "live-announce", sorted([live._version_key(7), live._version_key(8), live._series_version_key(3)]))
    [sent] = calls
    assert set(sent) == {live.organisers_group(7), live.public_group(7), live.organisers_group(8), live.series_group(3)}
    versions = {message.get("event", message.get("series")): message["version"] for message in sent.values()}
    assert sorted(versions.values()) == [100, 101, 102] and sent[live.public_group(7)]["version"] == versions[7]

    # The process exits within the moment: the change is delivered, its version bumped, at once.
    arrived.clear()
    live.announce_all({9: True}, coalesced=True)
    live._sender.flush()
    assert arrived.is_set() and bumps[-1][1] == [live._version_key(9)] and calls[-1][live.public_group(9)]["version"] == 103
    time.sleep(3 * live.COALESCE_SECONDS)
    assert len(calls) == 2  # nothing left for the moment's own delivery

    # A sender that cannot take the change: its version moves now, on the request.
    def broken(*args, **kwargs):
        raise RuntimeError("the loop closed")

    monkeypatch.setattr(live._sender, "send_all", broken)
    live.announce_all({10: True}, coalesced=True)
    assert bumps[-1] == (threading.current_thread().name, [live._version_key(10)])


def socket_to(event_id: int, user=None) -> WebsocketCommunicator:
    from django.contrib.auth.models import AnonymousUser

    from tournaments.live import EventConsumer

    communicator = WebsocketCommunicator(EventConsumer.as_asgi(), f"/ws/events/{event_id}/")
    communicator.scope["url_route"] = {"kwargs": {"event": event_id}}
    communicator.scope["user"] = user or AnonymousUser()
    return communicator


@pytest.mark.django_db(transaction=True)
def test_a_socket_opened_before_its_event_was_unpublished_hears_no_more(world, settings):
    from asgiref.sync import sync_to_async

    from tournaments import live, services

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    event = world.events["mu"]

    async def scenario():
        public, organiser = socket_to(event.pk), socket_to(event.pk, world.organiser)
        assert (await public.connect())[0] and (await organiser.connect())[0]
        layer = get_channel_layer()
        await layer.group_send(live.public_group(event.pk), {"type": "results.changed", "event": event.pk})
        assert await public.receive_json_from(timeout=2) == {"type": "results_changed", "event": event.pk}
        await sync_to_async(services.event_update)(event=event, by_user=world.organiser, published=False)
        # the unpublishing is announced to both groups: the public socket is closed, not pinged
        assert await public.receive_output(timeout=2) == {"type": "websocket.close", "code": live.CLOSE_NOT_VISIBLE}
        told = await organiser.receive_json_from(timeout=2)  # with the event's version after the change
        assert told == {"type": "results_changed", "event": event.pk, "version": told["version"]}
        await layer.group_send(live.public_group(event.pk), {"type": "results.changed", "event": event.pk})
        assert await public.receive_nothing(timeout=0.3)
        await organiser.disconnect()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_the_screens_of_one_process_share_the_policy_decision_for_a_message(world, settings, monkeypatch):
    """Five anonymous screens hearing one announcement ask the policy once between them (a room
    of 200 screens: one database query per message, not 200); the organiser's socket asks for
    himself, and each new message is decided anew."""
    from tournaments import live

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    event = world.events["mu"]
    asked = []
    access = live.EventConsumer._access

    def counting(self, user):
        asked.append(user.is_authenticated)
        return access(self, user)

    monkeypatch.setattr(live.EventConsumer, "_access", counting)

    async def scenario():
        screens = [socket_to(event.pk) for _ in range(5)]
        board = socket_to(event.pk, world.organiser)
        for socket in [*screens, board]:
            assert (await socket.connect())[0]
        asked.clear()
        layer = get_channel_layer()
        for _ in range(2):
            message = live._message(event.pk)
            await layer.group_send(live.public_group(event.pk), message)
            await layer.group_send(live.organisers_group(event.pk), message)
            for socket in [*screens, board]:
                assert await socket.receive_json_from(timeout=2) == {"type": "results_changed", "event": event.pk}
        for socket in [*screens, board]:
            await socket.disconnect()

    async_to_sync(scenario)()
    assert sorted(asked) == [False, False, True, True]  # per message: the public once, the organiser once


@pytest.mark.django_db(transaction=True)
def test_a_frame_from_the_client_is_ignored_quietly(world, settings, caplog):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    event = world.events["mu"]

    async def scenario():
        socket = socket_to(event.pk)
        assert (await socket.connect())[0]
        await socket.send_to(text_data="not JSON {")
        await socket.send_to(bytes_data=b"\x00\xff")
        await socket.send_to(text_data='{"type": "results_changed"}')
        assert await socket.receive_nothing(timeout=0.3)
        await get_channel_layer().group_send(f"event-{event.pk}", {"type": "results.changed", "event": event.pk})
        assert (await socket.receive_json_from(timeout=2))["event"] == event.pk  # still connected
        await socket.disconnect()

    with caplog.at_level("DEBUG"):
        async_to_sync(scenario)()
    assert not [record for record in caplog.records if record.levelname in ("ERROR", "CRITICAL") or record.exc_info]


class RedisProxy:
    """A TCP relay to Redis that can be cut and restored: Redis going away and coming back."""

    def __init__(self, host: str, port: int) -> None:
        import socket

        self.target = (host, port)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.server, self.writers = None, set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)

    async def stop(self) -> None:
        self.server.close()
        for writer in self.writers:
            writer.close()
        self.writers.clear()
        await self.server.wait_closed()

    async def _relay(self, reader, writer) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        self.writers |= {writer, upstream_writer}

        async def pipe(source, sink):
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.close()

        asyncio.ensure_future(pipe(reader, upstream_writer))
        asyncio.ensure_future(pipe(upstream_reader, writer))


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_the_first_socket_after_redis_returns_connects(world, settings):
    from urllib.parse import urlsplit

    from tournaments import live

    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set")
    address = urlsplit(settings.REDIS_URL)
    proxy = RedisProxy(address.hostname, address.port or 6379)
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                                           "CONFIG": {"hosts": [f"redis://127.0.0.1:{proxy.port}{address.path}"]}}}
    event = world.events["mu"]

    async def scenario():
        await proxy.start()
        before = socket_to(event.pk)
        assert (await before.connect())[0]
        await proxy.stop()  # Redis restarts: the layer's connection is broken
        await proxy.start()
        after = socket_to(event.pk)
        assert (await after.connect())[0]  # not the broken connection's error (a 500)
        await proxy.stop()  # Redis is gone for a while
        during = socket_to(event.pk)
        assert await during.connect() == (False, live.CLOSE_LAYER_DOWN)  # refused cleanly: the page polls
        await proxy.start()  # and back
        again = socket_to(event.pk)
        assert (await again.connect())[0]
        await get_channel_layer().group_send(live.public_group(event.pk), {"type": "results.changed", "event": event.pk})
        assert await again.receive_json_from(timeout=3) == {"type": "results_changed", "event": event.pk}
        await again.disconnect()
        await proxy.stop()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_a_new_socket_is_refused_in_bounded_time_while_redis_does_not_answer(world, settings):
    """A Redis that takes connections and never answers (a host lost behind a proxy, a frozen
    server): the layer's own retries would keep the handshake waiting for a minute and more. The
    socket is closed with 4503 within LIVE_JOIN_SECONDS and the page polls."""
    import time

    from channels.layers import channel_layers

    from tournaments import live

    async def silent(reader, writer):  # reads everything, answers nothing
        while await reader.read(65536):
            pass

    async def scenario():
        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        settings.CHANNEL_LAYERS = {"default": {"BACKEND": "stich.layers.BoundedRedisChannelLayer",
                                               "CONFIG": {"hosts": [f"redis://127.0.0.1:{port}/0"]}}}
        settings.LIVE_JOIN_SECONDS = 1.0
        channel_layers.backends.clear()
        try:
            started = time.monotonic()
            socket = socket_to(world.events["mu"].pk)
            assert await socket.connect(timeout=30) == (False, live.CLOSE_LAYER_DOWN)
            assert time.monotonic() - started < 5
        finally:
            server.close()
            channel_layers.backends.clear()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_the_screens_are_fed_one_rendering_per_version_and_language(world, settings, monkeypatch):
    """Five room screens that asked for the screen fragment get it in the message, rendered once
    between them for the version (and once more for a screen in another language); a message of
    the same version renders nothing again, the next version once more. Nothing is fetched. Each
    message's text is encoded once for the screens of one language, not once per screen."""
    from stich.pages import views
    from tournaments import live

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    event = world.events["mu"]
    rendered = []
    screen = views.screen_fragment

    def counting(event_id, page=1):
        from django.utils.translation import get_language  # the language it renders in

        rendered.append(get_language())
        return screen(event_id, page=page)

    monkeypatch.setattr(views, "screen_fragment", counting)
    from tournaments.live import EventConsumer

    encoded = []
    encode = EventConsumer.encode_json

    async def encode_counted(cls, content):
        encoded.append(content.get("version"))
        return await encode(content)

    monkeypatch.setattr(EventConsumer, "encode_json", classmethod(encode_counted))

    def fed(event_id, language):
        communicator = socket_to(event_id)
        communicator = WebsocketCommunicator(communicator.application, f"/ws/events/{event_id}/?push=screen,bogus&lang={language}")
        communicator.scope.update({"url_route": {"kwargs": {"event": event_id}}, "user": socket_to(event_id).scope["user"]})
        return communicator

    async def scenario():
        from asgiref.sync import sync_to_async

        screens = [fed(event.pk, "en") for _ in range(5)] + [fed(event.pk, "de")]
        for socket in screens:
            assert (await socket.connect())[0]
        layer = get_channel_layer()
        for version in (await sync_to_async(live.bump_version)(event.pk),) * 2 + (
                await sync_to_async(live.bump_version)(event.pk),):
            await layer.group_send(live.public_group(event.pk), live._message(event.pk, version))
            for socket in screens:
                message = await socket.receive_json_from(timeout=5)
                assert message["version"] == version and set(message["fragments"]) == {"screen"}
                assert 'id="screen-standings"' in message["fragments"]["screen"]
            assert 'lang' not in message["fragments"]["screen"][:20]
        german = message["fragments"]["screen"]
        assert "Rangliste" in german or "Tabelle" in german or "Stand" in german, german[:300]
        for socket in screens:
            await socket.disconnect()

    async_to_sync(scenario)()
    assert sorted(rendered) == ["de", "de", "en", "en"]  # two versions, two languages: four renderings
    # Each message's answer is encoded once per language for the six screens: the text is shared.
    assert len(encoded) == 3 * 2


@pytest.mark.django_db(transaction=True)
def test_a_hand_is_stored_and_announced_when_the_cache_cannot_be_reached(world, settings, monkeypatch, client):
    """The event's version lives in the shared cache; a cache that cannot be reached fails
    neither the hand nor its announcement (sent without a version: the pages fetch), and the
    pages then render without it."""
    from django.core.cache import cache

    from ratings import outlook
    from tournaments import live
    from tournaments.results import services as results

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    layer = get_channel_layer()
    event = world.events["mu"]
    table = event.rounds.get(number=1).tables.order_by("number").first()

    # A cache whose server cannot be reached (nothing listens on that port).
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:9/0", "OPTIONS": {"socket_connect_timeout": 0.5}}}
    with pytest.raises(Exception):
        cache.get("anything")
    live._cache_pause.end()
    outlook._cache_pause.end()

    async def listen():
        channel = await layer.new_channel()
        await layer.group_add(live.public_group(event.pk), channel)
        return channel

    channel = async_to_sync(listen)()
    results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("mu", random.Random(1), 4, None,
                                                                            table.first_dealer)), by_user=world.organiser)
    assert table.sessions.get().hands.count() == 1
    message = async_to_sync(lambda: asyncio.wait_for(layer.receive(channel), 2))()
    assert message["event"] == event.pk and "version" not in message
    for url in (f"/events/{event.pk}/", f"/events/{event.pk}/screen/", f"/events/{event.pk}/screen/?fragment=screen",
                f"/events/{event.pk}/?fragment=rounds"):
        assert client.get(url).status_code == 200, url


@pytest.mark.django_db(transaction=True)
def test_a_polled_fragment_is_rendered_once_per_version(world, settings, monkeypatch, client):
    """Screens that poll (their socket is down) are answered from the cache of the event's
    version: the second request renders nothing; a change renders once more."""
    from stich.pages import views
    from tournaments import live

    event = world.events["mu"]
    rendered = []
    screen = views.screen_context  # what every rendering of the screen's fragment reads
    monkeypatch.setattr(views, "screen_context", lambda event, page=1: rendered.append(page) or screen(event, page=page))
    first = client.get(f"/events/{event.pk}/screen/?fragment=screen")
    second = client.get(f"/events/{event.pk}/screen/?fragment=screen")
    assert first.status_code == second.status_code == 200 and first.content == second.content
    assert first["X-Live-Version"] == second["X-Live-Version"] and len(rendered) == 1
    live.bump_version(event.pk)
    third = client.get(f"/events/{event.pk}/screen/?fragment=screen")
    assert int(third["X-Live-Version"]) > int(first["X-Live-Version"]) and len(rendered) == 2


@pytest.mark.django_db(transaction=True)
def test_every_write_that_moves_a_page_moves_its_version(world, settings, client):
    """The services that change what the public pages show announce it on commit: the event's
    version moves, the public hears one message per write, and the page read after the write is
    the new one, never the cached one of the version before (a player renamed, an event renamed,
    a table added, a round held back; a hand in another event of the series moves the series' top on
    its screen, a region of the series: the series' version moves and its group hears it, the
    event's do not)."""
    from django.db import transaction

    from tournaments import live, services
    from tournaments.results import services as results

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    layer = get_channel_layer()
    event, other = world.events["mu"], world.other_event
    series = services.series_create(by_user=world.club_organiser, club=world.club, name="Season", game="mu")
    for each in (event, other):
        services.event_update(event=each, by_user=world.club_organiser, series=series)

    async def listen():
        channel = await layer.new_channel()
        await layer.group_add(live.public_group(event.pk), channel)
        return channel

    channel = async_to_sync(listen)()

    def heard() -> int:
        count = 0

        async def drain():
            nonlocal count
            while True:
                try:
                    await asyncio.wait_for(layer.receive(channel), 0.2)
                except Exception:  # noqa: BLE001 - a timeout ends the drain
                    return
                count += 1

        async_to_sync(drain)()
        return count

    def screen() -> tuple[str, int]:
        response = client.get(f"/events/{event.pk}/screen/?fragment=screen", HTTP_ACCEPT_LANGUAGE="en")
        return response.content.decode(), int(response["X-Live-Version"])

    page, version = screen()
    assert screen() == (page, version)  # cached: the same version, the same fragment
    player = world.players[0]
    writes = [
        ("a player renamed", lambda: services.player_update(player=player, by_user=world.club_organiser,
                                                            name="Zacharias Quist"), "Zacharias Quist"),
        ("the event renamed", lambda: services.event_update(event=event, by_user=world.organiser,
                                                            name="Grand Prix of Wurst"), None),
        ("a round with a table", lambda: services.table_create(
            round_=services.round_create(event=event, by_user=world.organiser), players=world.players[:4],
            by_user=world.organiser), None),
        ("the round held back", lambda: services.round_set_results_held(
            round_=event.rounds.get(number=2), held=True, by_user=world.organiser), 'data-held-round="2"'),
    ]
    for what, write, shown in writes:
        write()
        assert heard() >= 1, what
        page, newer = screen()
        assert newer > version, what
        assert shown is None or shown in page, what
        version = newer
    assert heard() == 0
    with transaction.atomic():
        services.table_create(round_=services.round_create(event=event, by_user=world.organiser),
                              players=world.players[4:8], by_user=world.organiser)
    assert heard() == 1  # one message for a transaction of two writes
    services.table_create(round_=services.round_create(event=other, by_user=world.club_organiser),
                          players=world.players[4:8], by_user=world.club_organiser)
    assert heard() == 0  # another event's seating
    version = screen()[1]

    def top() -> tuple[str, int]:
        response = client.get(f"/series/{series.pk}/screen/?fragment=top", HTTP_ACCEPT_LANGUAGE="en")
        return response.content.decode(), int(response["X-Live-Version"])

    before = top()

    async def listen_series():
        channel = await layer.new_channel()
        await layer.group_add(live.series_group(series.pk), channel)
        return channel

    series_channel = async_to_sync(listen_series)()
    table = other.rounds.get(number=1).tables.get()
    results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("mu", random.Random(1), 4, None,
                                                                            table.first_dealer)), by_user=world.club_organiser)
    assert heard() == 0 and screen()[1] == version  # this event's own region did not move

    async def series_heard():
        return await asyncio.wait_for(layer.receive(series_channel), 1)

    message = async_to_sync(series_heard)()
    assert message["type"] == "series.changed" and message["series"] == series.pk
    after = top()
    assert after[1] > before[1] and after[1] == message["version"]  # the series' top may have moved


@pytest.mark.django_db(transaction=True)
def test_new_ratings_render_the_fragments_anew(world, client, monkeypatch):
    """The pages' win chances come from the ratings, which the rating writer changes after the
    hand's commit: the cached fragments are keyed by the game's ratings too, so the page read
    after a rating sync is rendered anew (an unchanged event version notwithstanding)."""
    from stich.pages import views
    from tournaments import live

    event = world.events["mu"]
    rendered = []
    screen = views.screen_context
    monkeypatch.setattr(views, "screen_context", lambda event, page=1: rendered.append(page) or screen(event, page=page))
    url = f"/events/{event.pk}/screen/?fragment=screen"
    first = client.get(url)["X-Live-Version"]
    assert client.get(url)["X-Live-Version"] == first and len(rendered) == 1
    live.ratings_changed("lut")  # another game's ratings: nothing moves
    client.get(url)
    assert len(rendered) == 1
    live.ratings_changed("mu")
    assert client.get(url)["X-Live-Version"] == first and len(rendered) == 2


@pytest.mark.django_db(transaction=True)
def test_a_room_screen_in_a_series_gets_the_series_top_from_the_series_not_from_every_event(world, settings):
    """The room screen of an event in a series asks its socket for ``screen`` and ``series-top``:
    a hand in another event of the series sends it the series' top at the series' version (one
    rendering for every screen of the season), and nothing of its own event; a hand in its own
    event sends both, each with its own version."""
    from asgiref.sync import sync_to_async

    from tournaments import live, services
    from tournaments.results import services as results

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    event, other = world.events["mu"], world.other_event
    series = services.series_create(by_user=world.club_organiser, club=world.club, name="Season", game="mu")
    for each in (event, other):
        services.event_update(event=each, by_user=world.club_organiser, series=series)
    table = services.table_create(round_=services.round_create(event=other, by_user=world.club_organiser),
                                  players=world.players[4:8], by_user=world.club_organiser)

    def screen_socket():
        communicator = WebsocketCommunicator(socket_to(event.pk).application,
                                             f"/ws/events/{event.pk}/?push=screen,series-top&lang=en")
        communicator.scope.update({"url_route": {"kwargs": {"event": event.pk}}, "user": socket_to(event.pk).scope["user"]})
        return communicator

    def hand(at):
        results.hand_submit(table_id=at.pk, entry=results.Entry(next_record("mu", random.Random(at.pk), 4, None,
                                                                             at.first_dealer)),
                            by_user=world.club_organiser)

    async def scenario():
        socket = screen_socket()
        assert (await socket.connect())[0]
        await sync_to_async(hand)(table)  # another event of the series
        message = await socket.receive_json_from(timeout=5)
        assert message["type"] == "series_changed" and message["series"] == series.pk
        assert message["version"] == await sync_to_async(live.current_series_version)(series.pk)
        assert set(message["fragments"]) == {"series-top"} and "Season" in message["fragments"]["series-top"]
        assert await socket.receive_nothing(timeout=0.3)  # nothing of this event's own region
        own = await sync_to_async(lambda: event.rounds.get(number=1).tables.first())()
        await sync_to_async(hand)(own)
        kinds = {}
        for _ in range(2):
            message = await socket.receive_json_from(timeout=5)
            kinds[message["type"]] = message
        assert set(kinds["results_changed"]["fragments"]) == {"screen"}
        assert kinds["results_changed"]["version"] == await sync_to_async(live.current_version)(event.pk)
        assert set(kinds["series_changed"]["fragments"]) == {"series-top"}
        await socket.disconnect()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_a_message_to_many_screens_costs_the_database_thread_the_same_as_to_one(world, settings, monkeypatch):
    """The screens of one process that hear one message share its decision and its fragment: the
    sync thread is entered as often for twelve screens as for one (channels' own dispatch entered
    it once more per socket and message, to close old connections, which the shared calls do
    themselves)."""
    from asgiref.sync import SyncToAsync

    from tournaments import live

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    event = world.events["mu"]
    entered = []
    enter = SyncToAsync.thread_handler
    monkeypatch.setattr(SyncToAsync, "thread_handler",
                        lambda self, *args, **kwargs: entered.append(1) or enter(self, *args, **kwargs))

    def fed():
        communicator = WebsocketCommunicator(socket_to(event.pk).application, f"/ws/events/{event.pk}/?push=screen&lang=en")
        communicator.scope.update({"url_route": {"kwargs": {"event": event.pk}}, "user": socket_to(event.pk).scope["user"]})
        return communicator

    async def hops(count: int) -> int:
        from asgiref.sync import sync_to_async

        screens = [fed() for _ in range(count)]
        for socket in screens:
            assert (await socket.connect())[0]
        version = await sync_to_async(live.bump_version)(event.pk)
        entered.clear()
        await get_channel_layer().group_send(live.public_group(event.pk), live._message(event.pk, version))
        for socket in screens:
            assert (await socket.receive_json_from(timeout=5))["version"] == version
        made = len(entered)
        for socket in screens:
            await socket.disconnect()
        return made

    one, twelve = async_to_sync(hops)(1), async_to_sync(hops)(12)
    assert one > 0 and twelve == one
