"""Win chances of stored tables over the API: who sees them, on which ratings, documented."""
from __future__ import annotations

import pytest

from ratings.calibration import PRIOR_SCALE
from ratings.chances import table_chances
from ratings.model import NEW_PLAYER
from ratings.models import Rating, RatingHistory
from ratings.outlook import event_upset, tables_outlook
from ratings.services import pool_sync
from tests.conftest import client_for, make_user
from tests.ratings.test_pool import finish_session


def url(table):
    return f"/api/v1/tables/{table.pk}/chances/"


def rate(player, game, mu, sigma, sessions=5):
    Rating.objects.update_or_create(player=player, game=game, defaults={"mu": mu, "sigma": sigma, "sessions": sessions})


@pytest.fixture
def mu_table(world):
    table = world.events["mu"].rounds.get(number=1).tables.get(number=1)
    players = [seat.player for seat in table.seats.order_by("position")]
    rate(players[0], "mu", 30.0, 2.0)
    rate(players[1], "mu", 24.0, 3.0)
    rate(players[2], "mu", 20.0, 1.5)
    rate(players[3], "lut", 45.0, 1.0)  # another game's rating: at Mü he is new
    return table, players


@pytest.mark.django_db
def test_anyone_sees_a_published_tables_chances_from_current_ratings(mu_table):
    table, players = mu_table
    answer = client_for().get(url(table))
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["basis"] == "current" and body["game"] == "mu"
    expected = table_chances([(30.0, 2.0), (24.0, 3.0), (20.0, 1.5), NEW_PLAYER], PRIOR_SCALE)
    assert [row["win"] for row in body["players"]] == pytest.approx([c.win for c in expected], abs=1e-9)
    assert sum(row["win"] for row in body["players"]) == pytest.approx(1.0, abs=1e-9)
    assert [row["provisional"] for row in body["players"]] == [False, False, False, True]
    assert body["favourite"] == players[0].pk
    assert [row["name"] for row in body["players"]] == [p.public_name for p in players]
    assert [row["seat"] for row in body["players"]] == [0, 1, 2, 3]


@pytest.mark.django_db
def test_a_held_round_or_unpublished_event_hides_the_chances_from_the_public(world, mu_table):
    table, _ = mu_table
    round_ = table.round
    round_.results_held = True
    round_.save()
    assert client_for().get(url(table)).status_code == 404
    assert client_for(world.other_organiser).get(url(table)).status_code == 404
    assert client_for(world.organiser).get(url(table)).status_code == 200
    assert client_for(world.player_user).get(url(table)).status_code == 200  # seated at it
    round_.results_held = False
    round_.save()
    event = round_.event
    event.published = False
    event.save()
    assert client_for().get(url(table)).status_code == 404
    assert client_for(make_user("stranger")).get(url(table)).status_code == 404
    assert client_for(world.club_organiser).get(url(table)).status_code == 200


@pytest.mark.django_db
def test_no_such_table_is_404_in_the_error_shape(world):
    answer = client_for().get("/api/v1/tables/999999/chances/")
    assert answer.status_code == 404
    assert answer.json()["code"] == "not_found"


@pytest.mark.django_db
def test_a_table_without_enough_players_is_400(world):
    from tournaments.models import Round, Table

    round_ = Round.objects.create(event=world.events["mu"], number=2)
    table = Table.objects.create(round=round_, number=1)
    answer = client_for().get(url(table))
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid"


@pytest.mark.django_db
def test_after_the_session_the_chances_are_those_before_it_and_the_upset_is_found(world):
    event = world.events["lut"]
    table = event.rounds.get(number=1).tables.get(number=1)
    players = [seat.player for seat in table.seats.order_by("position")]
    # A first session makes seat 0 the favourite; seat 3 wins the second.
    finish_session(table, [[9, 3, 2, 1]], minutes=5)
    pool_sync("lut")
    before = {r.player_id: (r.mu, r.sigma) for r in Rating.objects.filter(game="lut")}
    second = finish_session(table, [[1, 2, 3, 8]], minutes=30)
    pool_sync("lut")
    assert RatingHistory.objects.filter(session=second).count() == 4
    body = client_for().get(url(table)).json()
    assert body["basis"] == "before_session"
    expected = table_chances([before[p.pk] for p in players], PRIOR_SCALE)
    assert [row["win"] for row in body["players"]] == pytest.approx([c.win for c in expected], abs=1e-9)
    tables = list(event.rounds.get(number=1).tables.select_related("round__event"))
    upset = event_upset(tables, tables_outlook(tables))
    assert upset is not None and upset.player_id == players[3].pk and upset.session_id == second.pk
    assert upset.win == pytest.approx(expected[3].win, abs=1e-9)
    assert upset.win < max(c.win for c in expected)


@pytest.mark.django_db
def test_outlook_of_many_tables_takes_a_fixed_number_of_queries(world, django_assert_max_num_queries):
    tables = []
    for event in world.events.values():
        tables += list(event.rounds.get(number=1).tables.select_related("round__event"))
    # Seats, rating history, current ratings, and the pools' sizes (their fitted scales).
    with django_assert_max_num_queries(4):
        outlooks = tables_outlook(tables)
    assert len(outlooks) == 9


@pytest.mark.django_db
def test_the_endpoint_is_in_the_schema(world):
    schema = client_for().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/v1/tables/{id}/chances/"]["get"]
    assert {"200", "404"} <= set(operation["responses"])
    assert "TableChances" in schema["components"]["schemas"]
