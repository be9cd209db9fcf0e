"""Open club nights: no draw; the organiser opens a table for present, free players; the
suggestion seats those who met least tonight, then over the series; results count as anywhere."""
from __future__ import annotations

import pytest
from django.test import Client

from tests.conftest import client_for
from tournaments import services
from tournaments.draws import open_nights, seating
from tournaments.models import AuditEntry, Event, Round, Series, Session
from tournaments.standings.series_standings import rebuild

pytestmark = pytest.mark.django_db


def test_the_suggestion_avoids_tonights_and_then_the_seasons_meetings():
    # Pure: 1..8 waiting; 1–2–3–4 sat together tonight; 1 and 5 met in the season.
    tonight = seating.MeetingHistory.from_rounds([[(1, 2, 3, 4)]], game="mu")
    season = seating.MeetingHistory.from_rounds([[(1, 5, 6)]], game="mu")
    table = seating.suggest_open_table([1, 2, 3, 4, 5, 6, 7, 8], 4, tonight=tonight, season=season,
                                       tables_tonight={1: 1, 2: 1, 3: 1, 4: 1})
    # Player 5 waited longest among those with no table tonight; he avoids 1–4 (tonight) and 6
    # (season) when 7 and 8 are free, and takes one of 1–4 only as the fourth.
    assert set(table.players) >= {5, 7, 8} and 6 not in table.players
    assert len(table.players) == 4 and 0 <= table.dealer < 4
    assert seating.open_table_size("mu", 7) == 5 and seating.open_table_size("mu", 3) == 3
    assert seating.open_table_size("mu", 2) is None


def _open_night(world, **extra):
    event = services.event_create(by_user=world.club_organiser, club=world.club, name="Clubabend", game="mu",
                                  format="open", published=True, **extra)
    for player in world.players[:9]:
        services.player_check_in(event=event, player=player, by_user=world.club_organiser)
    return event


def test_an_organiser_opens_tables_as_players_arrive_and_they_play_as_anywhere(world):
    event = _open_night(world)
    client = client_for(world.club_organiser)
    proposal = client.get(f"/api/v1/events/{event.pk}/open-table/").json()
    assert proposal["size"] == 5 and len(proposal["players"]) == 5 and len(proposal["free"]) == 9
    first = client.post(f"/api/v1/events/{event.pk}/open-table/", {"players": proposal["players"]}, format="json")
    assert first.status_code == 201, first.content
    assert sorted(first.json()["players"]) == sorted(proposal["players"]) and "scorer_url" in first.json()
    # The four left are the next table; the five seated are busy until their session finishes.
    proposal = client.get(f"/api/v1/events/{event.pk}/open-table/").json()
    assert len(proposal["free"]) == 4 and proposal["size"] == 4
    busy = client.post(f"/api/v1/events/{event.pk}/open-table/", {"players": first.json()["players"][:3]},
                       format="json")
    assert busy.status_code == 400 and busy.json()["code"] == "still_playing"
    second = client.post(f"/api/v1/events/{event.pk}/open-table/", {"players": proposal["players"]}, format="json")
    assert second.status_code == 201
    assert list(event.rounds.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert AuditEntry.objects.filter(event=event, action="table_created").count() == 2

    # A finished session frees its players; a table of them that met tonight is avoided.
    table = event.rounds.get(number=1).tables.get()
    Session.objects.create(table=table, status="finished", totals=[30, 20, 10, 0, 0], hand_count=4)
    rebuild([event.pk])  # a session written around the services: its standings sums
    freed = client.get(f"/api/v1/events/{event.pk}/open-table/").json()
    assert sorted(freed["free"]) == sorted(first.json()["players"])
    standings = client_for().get(f"/api/v1/events/{event.pk}/standings/").json()["standings"]
    assert [row["player"] for row in standings if row["rank"] == 1] == [table.seats.get(position=0).player_id]


def test_only_open_nights_open_tables_and_open_nights_have_no_draw(world):
    client = client_for(world.club_organiser)
    event = world.events["mu"]
    response = client.post(f"/api/v1/events/{event.pk}/open-table/", {"players": [p.pk for p in world.players[:4]]},
                           format="json")
    assert response.status_code == 409 and response.json()["code"] == "not_open"
    night = _open_night(world)
    round_ = Round.objects.create(event=night, number=1)
    response = client.post(f"/api/v1/rounds/{round_.pk}/draw/", {}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "open_event"


def test_absent_players_and_other_users_are_refused(world):
    night = _open_night(world)
    client = client_for(world.club_organiser)
    response = client.post(f"/api/v1/events/{night.pk}/open-table/",
                           {"players": [p.pk for p in world.players[8:12]]}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "not_present"
    assert client_for(world.organiser).get(f"/api/v1/events/{night.pk}/open-table/").status_code == 403
    assert client_for().post(f"/api/v1/events/{night.pk}/open-table/", {}, format="json").status_code == 401
    assert not night.rounds.exists()


def test_the_console_opens_the_suggested_table_and_the_night_counts_for_its_series(world):
    series = Series.objects.create(club=world.club, name="Jahreswertung", game="mu")
    night = _open_night(world, series=series)
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    browser.force_login(world.club_organiser)
    page = browser.get(f"/console/events/{night.pk}/").content.decode()
    assert "open-table-form" in page and 'id="new-round"' not in page
    ticked = page.count(" checked>")
    assert ticked == 5
    proposal = open_nights.suggestion(night)
    response = browser.post(f"/console/events/{night.pk}/open-table/", {"players": proposal["players"]})
    assert response.status_code == 302
    table = night.rounds.get().tables.get()
    Session.objects.create(table=table, status="finished", totals=[10, 20, 30, 40, 50], hand_count=4)
    rebuild([night.pk])  # a session written around the services: its standings sums
    document = client_for().get(f"/api/v1/series/{series.pk}/standings/").json()
    assert document["events"] == [night.pk]
    top = table.seats.get(position=4).player_id
    assert document["standings"][0]["player"] == top and document["standings"][0]["points"] == 5
    assert Event.objects.get(pk=night.pk).format == "open"
