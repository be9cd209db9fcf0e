"""The console's board is fed, not refetched: rendered once per (event, organisers, version,
language) for every organiser of the event, pushed to their sockets (``?push=board:<round>``) and
served from the same cache when fetched; it carries nothing of the reader, and the forms around it
still work."""
from __future__ import annotations

import re

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    settings.STORAGES = {
        **settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def logged_in(user, **options) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en", **options)
    client.force_login(user)
    return client


@pytest.fixture
def counted(monkeypatch):
    """Every rendering of a board, by round."""
    from tournaments.console import views

    rendered = []
    original = views.render_board
    monkeypatch.setattr(views, "render_board", lambda round_: rendered.append(round_.pk) or original(round_))
    return rendered


def _namesakes(world):
    """A seated player and a namesake of his in a guest club that only the event's own organiser
    organises, showing initials only: read per reader, that organiser's board told the two apart
    ("Anna Berg (Testclub)") and the club's organiser's did not."""
    from tournaments import policy
    from tournaments.models import Club, Membership, Player

    event = world.events["mu"]
    round_ = event.rounds.get(number=1)
    seated = round_.tables.order_by("number").first().seats.order_by("position").first().player
    seated.name = "Anna Berg"
    seated.save()
    guests = Club.objects.create(name="Guests")
    guests.organisers.add(world.organiser)
    namesake = Player.objects.create(name="Anna Berg", initials_only=True)
    Membership.objects.create(player=namesake, club=guests)
    # The premise: the two organisers' own views of the player differ.
    assert policy.visibility(world.organiser).names([seated.pk])[seated.pk] == "Anna Berg (Testclub)"
    assert policy.visibility(world.club_organiser).names([seated.pk])[seated.pk] == "Anna Berg"
    return event, round_


@pytest.mark.django_db(transaction=True)
def test_every_organiser_reads_the_same_board_rendered_once_per_version(world, counted):
    """Three organisers (the event's, the club's, staff) fetch the board: the same bytes, one
    rendering, the event's version in ``X-Live-Version``; no CSRF token, no user in it. The round
    page shows the same region from the cache and asks for it to be pushed."""
    from tournaments import live

    event, round_ = _namesakes(world)
    url = f"/console/rounds/{round_.pk}/?fragment=board"
    answers = [logged_in(user).get(url) for user in (world.organiser, world.club_organiser, world.staff)]
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert len({answer.content for answer in answers}) == 1
    assert len({answer["X-Live-Version"] for answer in answers}) == 1
    assert counted == [round_.pk]
    html = answers[0].content.decode()
    assert "Anna Berg" in html and "Anna Berg (" not in html  # what every organiser sees
    assert "csrf" not in html.lower() and "<form" not in html
    assert "club_organiser" not in html and "staff" not in html
    assert 'data-table="1"' in html

    page = logged_in(world.club_organiser).get(f"/console/rounds/{round_.pk}/").content.decode()
    region = re.search(r'<div id="board"[^>]*>', page).group(0)
    assert f'data-live-push="board:{round_.pk}"' in region
    assert f'data-live-version="{answers[0]["X-Live-Version"]}"' in region
    assert html in page and counted == [round_.pk]  # read from the cache

    live.bump_version(event.pk)
    again = logged_in(world.organiser).get(url)
    assert int(again["X-Live-Version"]) > int(answers[0]["X-Live-Version"]) and counted == [round_.pk] * 2
    # Only organisers read it.
    assert logged_in(world.other_organiser).get(url).status_code in (403, 404)


@pytest.mark.django_db(transaction=True)
def test_the_forms_around_the_board_carry_the_readers_token_and_work(world):
    """The board holds no form; the round page's forms (hold back, print codes) carry the reader's
    CSRF token outside it and work with CSRF checks on; the change moves the board's version."""
    from tournaments.models import Round

    round_ = world.events["mu"].rounds.get(number=1)
    client = logged_in(world.organiser, enforce_csrf_checks=True)
    page = client.get(f"/console/rounds/{round_.pk}/").content.decode()
    board = client.get(f"/console/rounds/{round_.pk}/?fragment=board")
    hold = re.search(r'<section class="panel" id="hold">.*?</section>', page, re.DOTALL).group(0)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', hold).group(1)
    assert client.post(f"/console/rounds/{round_.pk}/hold/", {"held": "1"}).status_code == 403  # no token: refused
    answer = client.post(f"/console/rounds/{round_.pk}/hold/", {"held": "1", "reason": "prizes",
                                                                  "csrfmiddlewaretoken": token})
    assert answer.status_code == 302 and Round.objects.get(pk=round_.pk).results_held
    after = client.get(f"/console/rounds/{round_.pk}/?fragment=board")
    assert int(after["X-Live-Version"]) > int(board["X-Live-Version"])


@pytest.mark.django_db(transaction=True)
def test_a_new_scorer_link_moves_the_board(world):
    """The board links each table's score sheet: a rotated link is a change its version follows."""
    from tournaments import services

    round_ = world.events["mu"].rounds.get(number=1)
    table = round_.tables.order_by("number").first()
    client = logged_in(world.organiser)
    before = client.get(f"/console/rounds/{round_.pk}/?fragment=board")
    assert f"/t/{table.scorer_token}/" in before.content.decode()
    table = services.table_rotate_scorer_token(table=table, by_user=world.organiser)
    after = client.get(f"/console/rounds/{round_.pk}/?fragment=board")
    assert int(after["X-Live-Version"]) > int(before["X-Live-Version"])
    assert f"/t/{table.scorer_token}/" in after.content.decode()


def _socket(event_id: int, user, query: str) -> WebsocketCommunicator:
    from django.contrib.auth.models import AnonymousUser

    from tournaments.live import EventConsumer

    communicator = WebsocketCommunicator(EventConsumer.as_asgi(), f"/ws/events/{event_id}/?{query}")
    communicator.scope.update({"url_route": {"kwargs": {"event": event_id}}, "user": user or AnonymousUser()})
    return communicator


@pytest.mark.django_db(transaction=True)
def test_the_organisers_screens_are_fed_the_board_once_per_version_and_language(world, settings, counted):
    """Five organisers' consoles (two organisers, English) and one in German asked for the board:
    each message carries it, rendered twice per version between them (once per language), the same
    for every organiser; a public socket that asks for it never gets it, nor does a board of
    another event's round."""
    from tournaments import live

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    event, round_ = _namesakes(world)
    foreign = world.events["lut"].rounds.get(number=1)
    push = f"push=board:{round_.pk},board"  # a board without its round is no fragment: left out

    async def scenario():
        consoles = [_socket(event.pk, user, f"lang=en&{push}")
                    for user in (world.organiser, world.organiser, world.organiser, world.club_organiser,
                                 world.club_organiser)]
        german = _socket(event.pk, world.organiser, f"lang=de&push=board:{round_.pk}")
        public = _socket(event.pk, None, f"lang=en&push=board:{round_.pk},screen")
        elsewhere = _socket(event.pk, world.organiser, f"lang=en&push=board:{foreign.pk}")
        for socket in (*consoles, german, public, elsewhere):
            assert (await socket.connect())[0]
        layer = get_channel_layer()
        boards = []
        for _ in range(2):
            version = await sync_to_async(live.bump_version)(event.pk)
            for group in (live.organisers_group(event.pk), live.public_group(event.pk)):
                await layer.group_send(group, live._message(event.pk, version))
            for socket in consoles:
                message = await socket.receive_json_from(timeout=5)
                assert message["version"] == version and set(message["fragments"]) == {f"board:{round_.pk}"}
                boards.append(message["fragments"][f"board:{round_.pk}"])
            # Another event's round is no board of this event: nothing pushed (the page would fetch).
            message = await elsewhere.receive_json_from(timeout=5)
            assert message["version"] == version and "fragments" not in message
            message = await german.receive_json_from(timeout=5)
            assert message["version"] == version and set(message["fragments"]) == {f"board:{round_.pk}"}
            assert "Tisch" in message["fragments"][f"board:{round_.pk}"]
            message = await public.receive_json_from(timeout=5)
            assert set(message["fragments"]) == {"screen"}  # the public fragment only
        assert len(boards) == 10 and len(set(boards)) == 1  # the same for the event's and the club's organiser
        for socket in (*consoles, german, public, elsewhere):
            await socket.disconnect()

        consoles = [_socket(event.pk, user, f"lang=en&push=board:{round_.pk}")
                    for user in (world.organiser, world.club_organiser, world.staff)]
        for socket in consoles:
            assert (await socket.connect())[0]
        version = await sync_to_async(live.bump_version)(event.pk)
        await layer.group_send(live.organisers_group(event.pk), live._message(event.pk, version))
        fed = [await socket.receive_json_from(timeout=5) for socket in consoles]
        for socket in consoles:
            await socket.disconnect()
        return fed

    fed = async_to_sync(scenario)()
    # Two versions in two languages (the first scenario), then one version in one language.
    assert len(counted) == 5
    html = {message["fragments"][f"board:{round_.pk}"] for message in fed}
    assert len(html) == 1  # byte-identical for the event's organiser, the club's and staff
    (board,) = html
    assert "Anna Berg" in board and "Anna Berg (" not in board and "csrf" not in board.lower()
    assert {message["version"] for message in fed} == {fed[0]["version"]}
    response = logged_in(world.organiser).get(f"/console/rounds/{round_.pk}/?fragment=board")
    assert response.content.decode() == board and int(response["X-Live-Version"]) == fed[0]["version"]
    assert len(counted) == 5  # served from the cache the sockets filled


@pytest.mark.django_db(transaction=True)
def test_the_board_answers_without_the_cache(world, settings, monkeypatch):
    """A cache (Redis) that cannot be reached costs the board its cache, never an answer."""
    from django.core.cache import cache
    from redis.exceptions import ConnectionError as RedisConnectionError

    from tournaments import live

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:9/0", "OPTIONS": {"socket_connect_timeout": 0.5}}}
    with pytest.raises(RedisConnectionError):
        cache.get("anything")
    live._cache_pause.end()
    round_ = world.events["mu"].rounds.get(number=1)
    client = logged_in(world.organiser)
    board = client.get(f"/console/rounds/{round_.pk}/?fragment=board")
    assert board.status_code == 200 and "X-Live-Version" not in board and 'data-table="1"' in board.content.decode()
    page = client.get(f"/console/rounds/{round_.pk}/")
    assert page.status_code == 200 and 'data-live-version=""' in page.content.decode()
