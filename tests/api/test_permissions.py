"""Every write endpoint refuses anonymous users, players and organisers of another event, and
lets the event's (or club's) organisers through. A refused write changes nothing."""
from __future__ import annotations

import pytest
from django.apps import apps

from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def snapshot():
    """Row counts and a fingerprint of every tournament table: 'nothing written' made checkable."""
    state = {}
    for model in apps.get_app_config("tournaments").get_models():
        state[model.__name__] = sorted(map(str, model.objects.values_list()))
    return state


def write_cases(w):
    """(method, url, payload, allowed user) for every write endpoint of the tournament API."""
    event = w.events["mu"]
    round_ = event.rounds.get()
    table = round_.tables.first()
    player = w.players[5]
    fresh = [w.players[i].pk for i in range(4)]
    return [
        ("post", "/api/v1/clubs/", {"name": "New club"}, w.staff),
        ("patch", f"/api/v1/clubs/{w.club.pk}/", {"city": "Bonn"}, w.club_organiser),
        ("delete", f"/api/v1/clubs/{w.empty_club.pk}/", None, w.staff),
        ("post", "/api/v1/players/", {"name": "Neu", "clubs": [w.club.pk]}, w.club_organiser),
        ("patch", f"/api/v1/players/{player.pk}/", {"name": "Renamed"}, w.club_organiser),
        ("delete", f"/api/v1/players/{player.pk}/", None, w.club_organiser),
        ("post", "/api/v1/events/", {"club": w.club.pk, "name": "Cup", "game": "mu"}, w.club_organiser),
        ("patch", f"/api/v1/events/{event.pk}/", {"name": "Renamed cup"}, w.organiser),
        ("delete", f"/api/v1/events/{event.pk}/", None, w.organiser),
        ("post", "/api/v1/rounds/", {"event": event.pk, "number": 2}, w.organiser),
        ("patch", f"/api/v1/rounds/{round_.pk}/", {"results_held": True}, w.organiser),
        ("delete", f"/api/v1/rounds/{round_.pk}/", None, w.organiser),
        ("post", "/api/v1/tables/", {"round": round_.pk, "number": 9, "players": []}, None),
        ("patch", f"/api/v1/tables/{table.pk}/", {"players": list(reversed(fresh))}, w.organiser),
        ("delete", f"/api/v1/tables/{table.pk}/", None, w.organiser),
    ]


def send(client, method, url, payload):
    return getattr(client, method)(url, payload, format="json") if payload is not None else getattr(client, method)(url)


@pytest.mark.parametrize("index", range(15))
def test_write_refused_for_anonymous_player_and_other_organiser(world, index):
    method, url, payload, _ = write_cases(world)[index]
    if url == "/api/v1/tables/" and method == "post":
        payload = _new_table_payload(world)
    before = snapshot()
    for user, expected in [(None, 401), (world.player_user, 403), (world.other_organiser, 403)]:
        response = send(client_for(user), method, url, payload)
        assert response.status_code == expected, (user, response.content)
        assert set(response.json()) >= {"code", "message"}
    assert snapshot() == before


@pytest.mark.parametrize("index", range(15))
def test_write_allowed_for_the_owner(world, index):
    method, url, payload, owner = write_cases(world)[index]
    if url == "/api/v1/tables/" and method == "post":
        payload, owner = _new_table_payload(world), world.organiser
    response = send(client_for(owner), method, url, payload)
    assert response.status_code in (200, 201, 204), response.content


def _new_table_payload(w):
    """A fourth table in a new round of the Mü event, so its players are free."""
    from tournaments.models import Round

    round_ = Round.objects.create(event=w.events["mu"], number=5)
    return {"round": round_.pk, "number": 1, "players": [p.pk for p in w.players[:4]]}


def test_club_organiser_names_event_organisers_but_event_organiser_cannot(world):
    event = world.events["lut"]
    refused = client_for(world.organiser).patch(
        f"/api/v1/events/{event.pk}/", {"organisers": [world.organiser.pk, world.player_user.pk]}, format="json"
    )
    assert refused.status_code == 403
    assert not event.organisers.filter(pk=world.player_user.pk).exists()
    allowed = client_for(world.club_organiser).patch(
        f"/api/v1/events/{event.pk}/", {"organisers": [world.organiser.pk, world.player_user.pk]}, format="json"
    )
    assert allowed.status_code == 200
    assert event.organisers.filter(pk=world.player_user.pk).exists()


def test_unpublished_event_is_hidden_from_the_public(world):
    event = world.events["maumau"]
    event.published = False
    event.save()
    assert client_for().get(f"/api/v1/events/{event.pk}/").status_code == 404
    assert client_for().get(f"/api/v1/rounds/?event={event.pk}").json()["count"] == 0
    assert client_for(world.organiser).get(f"/api/v1/events/{event.pk}/").status_code == 200


def test_deleting_a_player_anonymises_him(world):
    player = world.players[3]
    response = client_for(world.club_organiser).delete(f"/api/v1/players/{player.pk}/")
    assert response.status_code == 204
    player.refresh_from_db()
    assert player.anonymised and player.name == ""
    assert player.seats.count() == 3  # his seats, and so his results, stay
    shown = client_for().get(f"/api/v1/players/{player.pk}/").json()
    assert shown["name"] == f"#{player.pk}"
