"""Bad input gets 400 with a field-level message in the stable error shape; nothing is written."""
from __future__ import annotations

import pytest

from tests.api.test_permissions import snapshot
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def assert_refused(response, field, code="invalid"):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == code
    assert field in body["fields"], body
    assert body["message"]


def test_table_of_seven_for_mu_is_refused(world):
    event = world.events["mu"]
    round2 = client_for(world.organiser).post("/api/v1/rounds/", {"event": event.pk, "number": 2}, format="json").json()
    before = snapshot()
    response = client_for(world.organiser).post(
        "/api/v1/tables/", {"round": round2["id"], "number": 1, "players": [p.pk for p in world.players[:7]]}, format="json"
    )
    assert_refused(response, "players", "bad_player_count")
    assert "3 to 6" in response.json()["fields"]["players"][0]
    assert snapshot() == before


@pytest.mark.parametrize("game, count, ok", [("maumau", 1, False), ("maumau", 2, True), ("lut", 3, False), ("lut", 4, True), ("mu", 2, False), ("mu", 6, True)])
def test_table_sizes_follow_the_game(world, game, count, ok):
    event = world.events[game]
    round2 = client_for(world.organiser).post("/api/v1/rounds/", {"event": event.pk, "number": 2}, format="json").json()
    response = client_for(world.organiser).post(
        "/api/v1/tables/", {"round": round2["id"], "number": 1, "players": [p.pk for p in world.players[:count]]}, format="json"
    )
    assert response.status_code == (201 if ok else 400), response.content


def test_player_seated_twice_at_one_table_is_refused(world):
    event = world.events["mu"]
    round2 = client_for(world.organiser).post("/api/v1/rounds/", {"event": event.pk, "number": 2}, format="json").json()
    before = snapshot()
    twice = [world.players[0].pk, world.players[1].pk, world.players[0].pk, world.players[2].pk]
    response = client_for(world.organiser).post("/api/v1/tables/", {"round": round2["id"], "number": 1, "players": twice}, format="json")
    assert_refused(response, "players")
    assert snapshot() == before


def test_player_seated_at_two_tables_of_a_round_is_refused(world):
    round_ = world.events["lut"].rounds.get()
    before = snapshot()
    # Players 0–3 sit at table 1 already.
    response = client_for(world.organiser).post(
        "/api/v1/tables/", {"round": round_.pk, "number": 4, "players": [p.pk for p in world.players[2:6]]}, format="json"
    )
    assert_refused(response, "players", "seated_elsewhere")
    assert snapshot() == before


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"name": "Cup", "game": "mu"}, "club"),
        ({"club": "one", "name": "Cup", "game": "mu"}, "club"),
        ({"club": "CLUB", "name": "Cup", "game": "chess"}, "game"),
        ({"club": "CLUB", "name": "", "game": "mu"}, "name"),
        ({"club": "CLUB", "name": "Cup", "game": "mu", "mu_target_score": "lots"}, "mu_target_score"),
        ({"club": "CLUB", "name": "Cup", "game": "mu", "mu_target_score": 0}, "mu_target_score"),
        ({"club": "CLUB", "name": "Cup", "game": "maumau", "maumau_stake_cents": -5}, "maumau_stake_cents"),
        ({"club": "CLUB", "name": "Cup", "game": "maumau", "maumau_games_per_series": 0}, "maumau_games_per_series"),
        ({"club": "CLUB", "name": "Cup", "game": "mu", "standings_metrics": "placement,luck"}, "standings_metrics"),
    ],
)
def test_event_with_bad_fields_is_refused(world, payload, field):
    payload = {key: world.club.pk if value == "CLUB" else value for key, value in payload.items()}
    before = snapshot()
    response = client_for(world.club_organiser).post("/api/v1/events/", payload, format="json")
    assert_refused(response, field)
    assert snapshot() == before


@pytest.mark.parametrize(
    "payload, field",
    [({"event": 0, "number": 2}, "event"), ({"number": 2}, "event"), ("EVENT", "number")],
)
def test_round_with_bad_fields_is_refused(world, payload, field):
    event = world.events["mu"]
    if payload == "EVENT":
        payload = {"event": event.pk, "number": "two"}
    before = snapshot()
    response = client_for(world.organiser).post("/api/v1/rounds/", payload, format="json")
    assert_refused(response, field)
    assert snapshot() == before


def test_duplicate_round_number_is_refused(world):
    event = world.events["mu"]
    before = snapshot()
    response = client_for(world.organiser).post("/api/v1/rounds/", {"event": event.pk, "number": 1}, format="json")
    assert_refused(response, "number", "duplicate")
    assert snapshot() == before


def test_player_needs_a_club_and_a_name(world):
    before = snapshot()
    assert_refused(client_for(world.club_organiser).post("/api/v1/players/", {"name": "X", "clubs": []}, format="json"), "clubs")
    assert_refused(client_for(world.club_organiser).post("/api/v1/players/", {"clubs": [world.club.pk]}, format="json"), "name")
    assert snapshot() == before


def test_malformed_json_gets_the_stable_error_shape(world):
    response = client_for(world.club_organiser).generic(
        "POST", "/api/v1/players/", "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert set(response.json()) >= {"code", "message"}
