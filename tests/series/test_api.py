"""``/api/v1/series/``: who creates, changes and deletes a series, attaching events through
``PATCH /api/v1/events/{id}/``, the audit rows, the errors' shape, the CSV and the schema."""
from __future__ import annotations

import csv
import io

import pytest
from django.test import Client

from tests.conftest import client_for
from tournaments.models import AuditEntry, Event, Series
from tournaments.standings.series_standings import rebuild

pytestmark = pytest.mark.django_db


def _create(world, **extra):
    body = {"club": world.club.pk, "name": "Jahreswertung", "game": "mu", **extra}
    return client_for(world.club_organiser).post("/api/v1/series/", body, format="json")


def test_club_organisers_create_a_series_with_its_audit_row(world):
    response = _create(world, best_of=8, min_events=4, season_from="2026-01-01", season_to="2026-12-31")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["scoring"] == "placement" and body["best_of"] == 8 and body["events"] == []
    entry = AuditEntry.objects.get(action="series_created", object_id=body["id"])
    assert entry.actor == world.club_organiser and entry.after["best_of"] == 8


@pytest.mark.parametrize("user, status", [(None, 401), ("player_user", 403), ("organiser", 403)])
def test_others_may_not_create_change_or_delete_a_series(world, user, status):
    series = Series.objects.create(club=world.club, name="Cup", game="mu")
    client = client_for(getattr(world, user) if user else None)
    for method, url, body in [
        ("post", "/api/v1/series/", {"club": world.club.pk, "name": "X", "game": "mu"}),
        ("patch", f"/api/v1/series/{series.pk}/", {"name": "Renamed"}),
        ("delete", f"/api/v1/series/{series.pk}/", None),
    ]:
        response = getattr(client, method)(url, body, format="json")
        # An empty series is seen by its club's organisers only: a 404 for the others.
        assert response.status_code in (status, 404), (method, response.content)
        assert set(response.json()) >= {"code", "message"}
    assert Series.objects.get(pk=series.pk).name == "Cup"
    assert Series.objects.count() == 1


@pytest.mark.parametrize("body, field", [
    ({"scoring": "table"}, "points_table"),
    ({"scoring": "table", "points_table": [10, -1]}, "points_table"),
    ({"best_of": 0}, "best_of"),
    ({"scoring": "elo"}, "scoring"),
    ({"season_from": "2026-12-01", "season_to": "2026-01-01"}, "season_to"),
])
def test_bad_series_input_is_a_400_naming_its_field(world, body, field):
    response = _create(world, **body)
    assert response.status_code == 400, response.content
    assert response.json()["code"] and field in response.json()["fields"]
    assert not Series.objects.exists()


def test_events_attach_and_detach_through_the_event_and_a_series_with_events_is_kept(world):
    series_id = _create(world).json()["id"]
    organiser = client_for(world.club_organiser)
    event = world.events["mu"]
    response = organiser.patch(f"/api/v1/events/{event.pk}/", {"series": series_id}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["series"] == series_id
    entry = AuditEntry.objects.filter(action="event_changed", object_id=event.pk).latest("id")
    assert entry.before == {"series": None} and entry.after == {"series": series_id}

    response = organiser.delete(f"/api/v1/series/{series_id}/")
    assert response.status_code == 409 and response.json()["code"] == "has_events"
    response = organiser.patch(f"/api/v1/series/{series_id}/", {"game": "lut"}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "has_events"

    # Another game's event, another club's series: refused with the field named.
    response = organiser.patch(f"/api/v1/events/{world.events['lut'].pk}/", {"series": series_id}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "series_mismatch"
    assert Event.objects.get(pk=world.events["lut"].pk).series_id is None

    assert organiser.patch(f"/api/v1/events/{event.pk}/", {"series": None}, format="json").json()["series"] is None
    assert organiser.delete(f"/api/v1/series/{series_id}/").status_code == 204
    assert AuditEntry.objects.filter(action="series_deleted", object_id=series_id).exists()


def test_an_event_organiser_may_not_put_his_event_into_the_clubs_series(world):
    series_id = _create(world).json()["id"]
    response = client_for(world.organiser).patch(
        f"/api/v1/events/{world.events['mu'].pk}/", {"series": series_id}, format="json")
    assert response.status_code == 403
    assert Event.objects.get(pk=world.events["mu"].pk).series_id is None


def test_a_series_is_public_once_it_has_a_published_event(world):
    series = Series.objects.create(club=world.club, name="Cup", game="mu")
    anonymous = client_for()
    assert anonymous.get(f"/api/v1/series/{series.pk}/").status_code == 404
    assert client_for(world.club_organiser).get(f"/api/v1/series/{series.pk}/").status_code == 200
    Event.objects.filter(pk=world.events["mu"].pk).update(series=series)
    assert anonymous.get(f"/api/v1/series/{series.pk}/").json()["events"] == [world.events["mu"].pk]
    assert [s["id"] for s in anonymous.get("/api/v1/series/").json()["results"]] == [series.pk]


def test_standings_csv_marks_the_uncounted_points(world):
    series = Series.objects.create(club=world.club, name="Cup", game="mu", best_of=1)
    Event.objects.filter(pk=world.events["mu"].pk).update(series=series)
    other = Event.objects.create(club=world.club, name="mu 2", game="mu", published=True, series=series)
    from tournaments.models import Round, Session
    from tournaments.services import table_create

    round_ = Round.objects.create(event=other, number=1)
    table = table_create(round_=round_, players=world.players[:4], by_user=None)
    Session.objects.create(table=table, status="finished", totals=[40, 30, 20, 10], hand_count=4)
    rebuild([other.pk])  # a session written around the services: its standings sums
    response = client_for().get(f"/api/v1/series/{series.pk}/standings.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:9] == ["rank", "player", "name", "score", "points", "played", "counted", "missed", "wins"]
    document = client_for().get(f"/api/v1/series/{series.pk}/standings/").json()
    assert len(rows) == len(document["standings"]) + 1
    # The world's mu event has no hands: only the second event ranks its players.
    first = next(r for r in rows[1:] if r[1] == str(world.players[0].pk))
    assert first[0] == "1" and first[4] == "4"


def test_missing_series_standings_are_a_json_404_even_as_csv(world):
    response = client_for().get("/api/v1/series/999999/standings.csv")
    assert response.status_code == 404 and response.json()["code"]


def test_the_openapi_schema_documents_the_series_resources():
    paths = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]
    assert {"/api/v1/series/", "/api/v1/series/{id}/", "/api/v1/series/{id}/standings/"} <= set(paths)
    standings = paths["/api/v1/series/{id}/standings/"]["get"]["responses"]["200"]["content"]
    assert list(standings) == ["application/json"]
    table = paths["/api/v1/series/{id}/standings.csv"]["get"]["responses"]["200"]["content"]
    assert list(table) == ["text/csv"]
