"""The series pages are fed, not refetched: their standings are rendered once per (series,
version, language, page) for every reader, pushed to the pages' sockets (``?push=standings`` or
``screen``: the series' own group) and served from the same cache when fetched. The series'
version moves with every write that may move its public standings (their sync request's commit)
and with what its events' pages announce; a fragment never shows the rows a pending sync request
will replace."""
from __future__ import annotations

import random
import re

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client

from tests.api.play import next_record


@pytest.fixture
def season(world):
    """A series of the club with the Mü cup and the other cup in it, as the services attach them."""
    from tournaments import services

    series = services.series_create(by_user=world.club_organiser, club=world.club, name="Season", game="mu")
    for event in (world.events["mu"], world.other_event):
        services.event_update(event=event, by_user=world.club_organiser, series=series)
    return series


@pytest.fixture
def counted(monkeypatch):
    """Every rendering of a series page's standings, by fragment name."""
    from stich.pages import series as pages

    rendered = []
    original = pages._render
    monkeypatch.setattr(pages, "_render", lambda series, name, page, context=None: rendered.append(name)
                        or original(series, name, page, context))
    return rendered


def _hand(world, table, seed: int = 1):
    from tournaments.results import services as results

    results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("mu", random.Random(seed), 4, None,
                                                                            table.first_dealer)), by_user=world.organiser)


def _rows(html: str) -> set[int]:
    return {int(player) for player in re.findall(r'<tr data-player="(\d+)"', html)}


def _socket(series_id: int, query: str) -> WebsocketCommunicator:
    from django.contrib.auth.models import AnonymousUser

    from tournaments.live import SeriesConsumer

    communicator = WebsocketCommunicator(SeriesConsumer.as_asgi(), f"/ws/series/{series_id}/?{query}")
    communicator.scope.update({"url_route": {"kwargs": {"series": series_id}}, "user": AnonymousUser()})
    return communicator


@pytest.mark.django_db(transaction=True)
def test_the_series_screens_are_fed_one_rendering_per_version(world, season, settings, counted):
    """Five room screens and two pages of the series hear a hand at one of its events: each gets
    the new standings in the message (``series_changed``, the series' version), rendered once for
    the screens and once for the pages; nothing is fetched. A socket that asked for nothing (an API
    client) still hears the event's change."""
    from tournaments.models import SeriesSyncRequest

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    table = world.events["mu"].rounds.get(number=1).tables.order_by("number").first()
    seated = set(table.seats.values_list("player_id", flat=True))

    async def scenario():
        from channels.db import database_sync_to_async

        screens = [_socket(season.pk, "lang=en&push=screen") for _ in range(5)]
        pages = [_socket(season.pk, "lang=en&push=standings,bogus") for _ in range(2)]
        client = _socket(season.pk, "")
        for socket in (*screens, *pages, client):
            assert (await socket.connect())[0]
        await database_sync_to_async(_hand)(world, table)
        fed = [await socket.receive_json_from(timeout=5) for socket in (*screens, *pages)]
        heard = await client.receive_json_from(timeout=5)
        for socket in (*screens, *pages, client):
            await socket.disconnect()
        return fed, heard

    fed, heard = async_to_sync(scenario)()
    assert sorted(counted) == ["screen", "standings"]
    assert {message["type"] for message in fed} == {"series_changed"}
    assert {message["series"] for message in fed} == {season.pk} and len({message["version"] for message in fed}) == 1
    screens, pages = fed[:5], fed[5:]
    assert all(set(message["fragments"]) == {"screen"} for message in screens)
    assert all(set(message["fragments"]) == {"standings"} for message in pages)
    assert _rows(screens[0]["fragments"]["screen"]) == seated == _rows(pages[0]["fragments"]["standings"])
    assert 'href="/players/' not in screens[0]["fragments"]["screen"]  # the screen's own form of the table
    assert heard == {"type": "results_changed", "event": world.events["mu"].pk, "version": heard["version"]}
    assert not SeriesSyncRequest.objects.filter(series_id=season.pk).exists()  # synced at once (in-process Celery)
    # The page fetched afterwards (its socket down: polling) is the cached one of that version.
    response = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/series/{season.pk}/screen/?fragment=standings")
    assert int(response["X-Live-Version"]) == screens[0]["version"]
    assert response.content.decode() == screens[0]["fragments"]["screen"] and len(counted) == 2


@pytest.mark.django_db(transaction=True)
def test_a_fetched_series_fragment_is_the_cached_one_and_never_older_than_a_pending_request(world, season, counted,
                                                                                             monkeypatch):
    """Polled fragments come from the cache of the series' version (one rendering for many reads);
    a hand moves the version at its commit, so the next read shows its players while the sync
    request is still pending (the sync held back here), and the sync itself changes nothing shown."""
    from tournaments import tasks
    from tournaments.models import SeriesSyncRequest
    from tournaments.standings import outbox

    monkeypatch.setattr(tasks, "queue_series_sync", lambda series_id: None)  # the worker is late
    reader = Client(HTTP_ACCEPT_LANGUAGE="en")
    url = f"/series/{season.pk}/?fragment=standings"
    first, second = reader.get(url), reader.get(url)
    assert first.content == second.content and first["X-Live-Version"] == second["X-Live-Version"]
    assert counted == ["standings"] and _rows(first.content.decode()) == set()

    table = world.events["mu"].rounds.get(number=1).tables.order_by("number").first()
    _hand(world, table)
    assert SeriesSyncRequest.objects.filter(series_id=season.pk).exists()
    pending = reader.get(url)
    assert int(pending["X-Live-Version"]) > int(first["X-Live-Version"])
    assert _rows(pending.content.decode()) == set(table.seats.values_list("player_id", flat=True))
    assert reader.get(url).content == pending.content and len(counted) == 2

    assert outbox.sync(season.pk) == 1
    synced = reader.get(url)
    assert synced.content == pending.content and len(counted) == 2

    # The page shows the same region from the cache and asks for it to be pushed.
    page = reader.get(f"/series/{season.pk}/").content.decode()
    region = re.search(r'<div id="series-live"[^>]*>', page).group(0)
    assert 'data-live-push="standings"' in region and f'data-live-version="{pending["X-Live-Version"]}"' in region
    assert pending.content.decode() in page and len(counted) == 2


@pytest.mark.django_db(transaction=True)
def test_what_the_events_announce_moves_the_series_pages(world, season):
    """An event renamed (its column), a player renamed (his row), an event detached from the
    series: each moves the series' version, and the page read after it is the new one."""
    from tournaments import live, services

    event = world.events["mu"]
    _hand(world, event.rounds.get(number=1).tables.order_by("number").first())
    reader = Client(HTTP_ACCEPT_LANGUAGE="en")
    url = f"/series/{season.pk}/?fragment=standings"

    def read() -> tuple[str, int]:
        response = reader.get(url)
        return response.content.decode(), int(response["X-Live-Version"])

    html, version = read()
    player = world.players[0]
    writes = [
        ("the event renamed", lambda: services.event_update(event=event, by_user=world.organiser, name="Grand Prix"),
         lambda html: "Grand Prix" in html),
        ("a player renamed", lambda: services.player_update(player=player, by_user=world.club_organiser,
                                                            name="Zacharias Quist"),
         lambda html: "Zacharias Quist" in html),
        ("the event detached", lambda: services.event_update(event=event, by_user=world.club_organiser, series=None),
         lambda html: _rows(html) == set()),
    ]
    for what, write, shown in writes:
        write()
        html, newer = read()
        assert newer > version and shown(html), what
        assert live.current_series_version(season.pk) == newer, what
        version = newer


@pytest.mark.django_db(transaction=True)
def test_the_series_pages_answer_without_the_cache(world, season, settings, monkeypatch):
    """A cache (Redis) that cannot be reached costs the series pages their cache, never an answer."""
    from django.core.cache import cache
    from redis.exceptions import ConnectionError as RedisConnectionError

    from tournaments import live

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:9/0", "OPTIONS": {"socket_connect_timeout": 0.5}}}
    with pytest.raises(RedisConnectionError):
        cache.get("anything")
    live._cache_pause.end()
    _hand(world, world.events["mu"].rounds.get(number=1).tables.order_by("number").first())
    for url in (f"/series/{season.pk}/", f"/series/{season.pk}/screen/", f"/series/{season.pk}/?fragment=standings",
                f"/series/{season.pk}/screen/?fragment=standings"):
        response = Client().get(url)
        assert response.status_code == 200 and "X-Live-Version" not in response, url
    assert 'data-live-version=""' in Client().get(f"/series/{season.pk}/").content.decode()
