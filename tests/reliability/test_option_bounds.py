"""Every numeric event option has bounds, kept as the model's validators: the API, the console,
the admin and the services refuse the same values (400 and the field named; the console and the
admin show the form again) and store nothing. The upper bounds are accepted."""
from __future__ import annotations

import pytest
from django.test import Client

from tests.conftest import client_for
from tournaments.models import EVENT_OPTION_BOUNDS, SERIES_OPTION_BOUNDS

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


# --- a series' options ------------------------------------------------------------------------------
# Beyond its bounds (tournaments.models.SERIES_OPTION_BOUNDS): a points-table entry of 10^30 made every
# hand of the series' events answer 500 where the kept standings are written; best_of and
# min_events above 32,767 failed in the database's small integer.

SERIES_BEYOND = [("points_table", [10**30]), ("points_table", [2**62, 1]), ("points_table", [10_001]),
                 ("points_table", [1] * 1_001), ("points_table", [-1]), ("best_of", 40_000), ("best_of", 1_001),
                 ("best_of", 0), ("min_events", 40_000), ("min_events", 1_001), ("min_events", -1)]


def all_series() -> list:
    from tournaments.models import Series

    return list(Series.objects.order_by("pk").values())


def a_series(world):
    from tournaments import services

    series = services.series_create(by_user=None, club=world.club, name="Season", game="mu", scoring="table",
                                    points_table=[10, 5])
    services.event_update(event=world.events["mu"], by_user=None, series=series)
    return series


def console_series_form(world, **options) -> dict:
    form = {"club": world.club.pk, "name": "Season", "game": "mu", "season_from": "", "season_to": "",
            "scoring": "table", "points_table": "10, 5", "best_of": "", "min_events": 1}
    return {**form, **options}


@pytest.mark.parametrize("name, value", SERIES_BEYOND)
def test_a_series_out_of_bounds_is_refused_everywhere(world, name, value):
    from tournaments import services
    from tournaments.errors import Invalid

    series = a_series(world)
    before = all_series()
    api = client_for(world.club_organiser)
    response = api.post("/api/v1/series/", {"club": world.club.pk, "name": "Other", "game": "mu", name: value},
                        format="json")
    assert response.status_code == 400 and name in response.json()["fields"], response.content
    response = api.patch(f"/api/v1/series/{series.pk}/", {name: value}, format="json")
    assert response.status_code == 400 and name in response.json()["fields"], response.content
    with pytest.raises(Invalid) as refused:
        services.series_update(series=series, by_user=None, **{name: value})
    assert refused.value.field == name
    console = Client()
    console.force_login(world.club_organiser)
    text = ", ".join(map(str, value)) if isinstance(value, list) else value
    assert console.post("/console/series/new/", console_series_form(world, **{name: text})).status_code == 400
    assert console.post(f"/console/series/{series.pk}/", console_series_form(world, **{name: text})).status_code == 400
    assert all_series() == before


def test_hands_of_a_series_at_its_bounds_are_stored(world):
    """The largest options a series may have: the hands of its events are stored (no 500)."""
    import random

    from tests.api.play import next_record
    from tournaments import services

    series = a_series(world)
    high = {name: bounds[1] for name, bounds in SERIES_OPTION_BOUNDS.items()}
    services.series_update(series=series, by_user=None, points_table=[high["points_table"]] * 1_000,
                           best_of=high["best_of"], min_events=high["min_events"])
    table = world.events["mu"].rounds.get().tables.order_by("number").first()
    api = client_for(world.organiser)
    record = next_record("mu", random.Random(3), table.seats.count(), None, table.first_dealer)
    response = api.post(f"/api/v1/tables/{table.pk}/hands/", record, format="json")
    assert response.status_code == 201, response.content
    assert api.get(f"/api/v1/series/{series.pk}/standings/").status_code == 200
