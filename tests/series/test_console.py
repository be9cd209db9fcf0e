"""The console's series: a club's organiser creates a series, adds events, sees its standings;
others are refused; every change is audited with via="page"."""
from __future__ import annotations

import pytest
from django.test import Client

from tournaments.models import AuditEntry, Event, Series

pytestmark = pytest.mark.django_db


def _login(user):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def test_an_organiser_creates_a_series_and_adds_an_event(world):
    client = _login(world.club_organiser)
    assert client.get("/console/series/").status_code == 200
    response = client.post("/console/series/new/", {
        "club": world.club.pk, "name": "Jahreswertung", "game": "mu", "scoring": "table",
        "points_table": "25, 18, 15", "best_of": "8", "min_events": "4"})
    assert response.status_code == 302
    series = Series.objects.get()
    assert series.points_table == [25, 18, 15] and series.best_of == 8
    page = client.get(f"/console/series/{series.pk}/").content.decode()
    assert world.events["mu"].name in page and world.events["lut"].name not in page
    client.post(f"/console/series/{series.pk}/events/{world.events['mu'].pk}/", {"attach": "1"})
    assert Event.objects.get(pk=world.events["mu"].pk).series == series
    assert AuditEntry.objects.filter(action="event_changed", via="page", object_id=world.events["mu"].pk).exists()
    assert AuditEntry.objects.filter(action="series_created", via="page").exists()
    # With an event the series cannot be deleted; once it is removed it can.
    client.post(f"/console/series/{series.pk}/delete/")
    assert Series.objects.filter(pk=series.pk).exists()
    client.post(f"/console/series/{series.pk}/events/{world.events['mu'].pk}/", {"attach": "0"})
    client.post(f"/console/series/{series.pk}/delete/")
    assert not Series.objects.filter(pk=series.pk).exists()


def test_a_bad_points_table_is_shown_again_with_the_error(world):
    response = _login(world.club_organiser).post("/console/series/new/", {
        "club": world.club.pk, "name": "X", "game": "mu", "scoring": "table", "points_table": "", "min_events": "1"})
    assert response.status_code == 400 and "points table" in response.content.decode()
    assert not Series.objects.exists()


def test_an_event_organiser_cannot_run_the_clubs_series(world):
    series = Series.objects.create(club=world.club, name="Cup", game="mu")
    Event.objects.filter(pk=world.events["mu"].pk).update(series=series)
    client = _login(world.organiser)
    assert client.get(f"/console/series/{series.pk}/").status_code == 403
    assert client.post(f"/console/series/{series.pk}/events/{world.events['mu'].pk}/",
                       {"attach": "0"}).status_code == 403
    assert Event.objects.get(pk=world.events["mu"].pk).series == series
    assert client.get("/console/series/new/").status_code == 403
