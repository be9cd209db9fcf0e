"""Every numeric event option has bounds, kept as the model's validators: the API, the console,
the admin and the services refuse the same values (400 and the field named; the console and the
admin show the form again) and store nothing. The upper bounds are accepted."""
from __future__ import annotations

import pytest
from django.test import Client

from tests.conftest import client_for
from tournaments.models import EVENT_OPTION_BOUNDS

pytestmark = pytest.mark.django_db

TOO_LARGE = {"mu_target_score": 10**20, "maumau_stake_cents": 10**12, "maumau_games_per_series": 10**10,
             "mu_fixed_deals": 10**9}
BEYOND = [(name, high + 1) for name, (low, high) in EVENT_OPTION_BOUNDS.items()] + \
         [(name, low - 1) for name, (low, high) in EVENT_OPTION_BOUNDS.items()] + list(TOO_LARGE.items())


def console_form(world, **options) -> dict:
    form = {"club": world.club.pk, "name": "Bounded", "game": "maumau", "mu_target_score": 200, "mu_fixed_deals": "",
            "maumau_games_per_series": 8, "maumau_stake_cents": 10, "metric_1": "placement", "metric_2": "",
            "metric_3": ""}
    return {**form, **options}


def events() -> list:
    from tournaments.models import Event

    return list(Event.objects.order_by("pk").values())


@pytest.mark.parametrize("name, value", BEYOND)
def test_the_api_refuses_values_out_of_bounds(world, name, value):
    before = events()
    api = client_for(world.club_organiser)
    response = api.post("/api/v1/events/", {"club": world.club.pk, "name": "Bounded", "game": "maumau",
                                            name: value}, format="json")
    assert response.status_code == 400 and name in response.json()["fields"], response.content
    response = client_for(world.organiser).patch(f"/api/v1/events/{world.events['mu'].pk}/", {name: value},
                                                 format="json")
    assert response.status_code == 400 and name in response.json()["fields"], response.content
    assert events() == before


@pytest.mark.parametrize("name, value", BEYOND)
def test_the_console_refuses_values_out_of_bounds(world, name, value):
    client = Client()
    client.force_login(world.club_organiser)
    before = events()
    response = client.post("/console/events/new/", console_form(world, **{name: value}))
    assert response.status_code == 400, response.status_code
    client.force_login(world.organiser)
    event = world.events["maumau"]
    response = client.post(f"/console/events/{event.pk}/edit/", console_form(world, name=event.name, **{name: value}))
    assert response.status_code == 400, response.status_code
    assert events() == before


@pytest.mark.parametrize("name, value", list(TOO_LARGE.items()))
def test_the_admin_and_the_services_refuse_values_out_of_bounds(world, name, value):
    from tournaments import services
    from tournaments.errors import Invalid

    before = events()
    with pytest.raises(Invalid) as refused:
        services.event_create(by_user=None, club=world.club, name="Bounded", game="maumau", **{name: value})
    assert refused.value.field == name
    with pytest.raises(Invalid):
        services.event_update(event=world.events["maumau"], by_user=None, **{name: value})
    admin = Client()
    admin.force_login(world.staff.__class__.objects.create_superuser("root", password="pw"))
    response = admin.post("/admin/tournaments/event/add/", {
        "club": world.club.pk, "name": "Bounded", "game": "maumau", "mu_target_score": 200,
        "maumau_games_per_series": 8, "maumau_stake_cents": 10, "standings_metrics": "placement", name: value,
    })
    assert response.status_code == 200 and "errornote" in response.content.decode()
    assert events() == before


def test_the_upper_bounds_are_accepted(world):
    highest = {name: high for name, (low, high) in EVENT_OPTION_BOUNDS.items()}
    response = client_for(world.club_organiser).post(
        "/api/v1/events/", {"club": world.club.pk, "name": "Highest", "game": "maumau", **highest}, format="json")
    assert response.status_code == 201, response.content
    assert all(response.json()[name] == value for name, value in highest.items())
    client = Client()
    client.force_login(world.club_organiser)
    response = client.post("/console/events/new/", console_form(world, name="Highest too", **highest))
    assert response.status_code == 302
