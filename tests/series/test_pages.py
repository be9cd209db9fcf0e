"""The public series page, its room screen, the player's series positions, and the series socket
that hears its events' changes."""
from __future__ import annotations

import random

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client

from tournaments.models import Event, Round, Series, Session
from tournaments.services import table_create
from tournaments.standings.series_standings import rebuild


def _season(world):
    """Three published evenings of the club's series, best of 2: the last player of the first two
    evenings wins the third and climbs to the top."""
    series = Series.objects.create(club=world.club, name="Jahreswertung", game="mu", best_of=2, min_events=2)
    evenings = []
    for index, totals in enumerate(([40, 30, 20, 10], [40, 30, 20, 10], [10, 20, 30, 40])):
        event = Event.objects.create(club=world.club, name=f"Abend {index + 1}", game="mu", published=True,
                                     series=series)
        round_ = Round.objects.create(event=event, number=1)
        table = table_create(round_=round_, players=world.players[:4], by_user=None)
        Session.objects.create(table=table, status="finished", totals=totals, hand_count=3)
        evenings.append(event)
    # A guest at the last evening only: below min_events, no rank.
    round_ = evenings[2].rounds.get()
    table = table_create(round_=round_, players=world.players[4:8], by_user=None)
    Session.objects.create(table=table, status="finished", totals=[5, 0, 0, 0], hand_count=3)
    rebuild([event.pk for event in evenings])  # sessions written around the services: their standings sums
    return series, evenings


@pytest.mark.django_db
def test_the_series_page_marks_counted_points_strikes_the_others_and_shows_the_trend(world):
    series, evenings = _season(world)
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/series/{series.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Jahreswertung" in html and f"/api/v1/series/{series.pk}/standings.csv" in html
    # Player 00 scored 4 series points at each evening: one of them does not count.
    row = html.split(f'data-player="{world.players[0].pk}"')[1].split("</tr>")[0]
    assert '<s class="uncounted"' in row and '<span class="counted">' in row
    # Player 03 was last, then first: he climbed since the last event.
    row = html.split(f'data-player="{world.players[3].pk}"')[1].split("</tr>")[0]
    assert "▲3" in row and 'class="num rank">1<' in row
    row = html.split(f'data-player="{world.players[4].pk}"')[1].split("</tr>")[0]
    assert 'class="num rank">–<' in row
    assert f'/series/{series.pk}/screen/' in html
    screen = Client().get(f"/series/{series.pk}/screen/?fragment=standings")
    assert screen.status_code == 200 and "series-standings" in screen.content.decode()


@pytest.mark.django_db
def test_the_series_page_speaks_german(world):
    series, _ = _season(world)
    html = Client(HTTP_ACCEPT_LANGUAGE="de").get(f"/series/{series.pk}/").content.decode()
    assert "Serienpunkte" in html and "Tabelle" in html


@pytest.mark.django_db
def test_an_unpublished_series_is_missing_from_the_public_pages(world):
    series = Series.objects.create(club=world.club, name="Geheim", game="mu")
    assert Client().get(f"/series/{series.pk}/").status_code == 404
    assert "Geheim" not in Client().get("/").content.decode()


@pytest.mark.django_db
def test_the_player_page_shows_his_series_positions(world):
    series, _ = _season(world)
    html = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/players/{world.players[3].pk}/").content.decode()
    row = html.split(f'data-series="{series.pk}"')[1].split("</tr>")[0]
    assert "Jahreswertung" in row and "1 of 4" in row


@pytest.mark.django_db(transaction=True)
def test_the_series_socket_hears_a_hand_at_one_of_its_events(world, settings):
    from django.contrib.auth.models import AnonymousUser

    from tests.api.play import next_record
    from tournaments.live import SeriesConsumer
    from tournaments.results import services as results

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    series = Series.objects.create(club=world.club, name="Cup", game="mu")
    event = world.events["mu"]
    Event.objects.filter(pk=event.pk).update(series=series)
    hidden = Series.objects.create(club=world.club, name="Hidden", game="mu")
    table = event.rounds.get().tables.first()

    async def listen(series_id, act=None):
        communicator = WebsocketCommunicator(SeriesConsumer.as_asgi(), f"/ws/series/{series_id}/")
        communicator.scope["url_route"] = {"kwargs": {"series": series_id}}
        communicator.scope["user"] = AnonymousUser()
        connected, _ = await communicator.connect()
        message = None
        if connected and act is not None:
            from channels.db import database_sync_to_async

            await database_sync_to_async(act)()
            message = await communicator.receive_json_from(timeout=2)
        await communicator.disconnect()
        return connected, message

    def submit():
        results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("mu", random.Random(3), 4, None, table.first_dealer)), by_user=world.organiser)

    assert async_to_sync(listen)(hidden.pk)[0] is False
    connected, message = async_to_sync(listen)(series.pk, submit)
    # The message also carries the event's live version (the pages' fragments; tournaments/live.py).
    assert connected and {key: value for key, value in message.items() if key != "version"} == {
        "type": "results_changed", "event": event.pk}
