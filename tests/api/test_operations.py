"""The operations integrators asked for (issue 26): check-in over the API, who am I, player search
and the event's tables' state. Roles, visibility, bad input (4xx in the error shape, nothing
changed) and the idempotency of check-in."""
from __future__ import annotations

import random

import pytest

from tests.api.play import next_record
from tests.api.test_permissions import snapshot
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db

SECRET = "Zacharias Quintessenz"  # an initials-only player's real name


def checkins_url(event) -> str:
    return f"/api/v1/events/{event.pk}/checkins/"


def play(table, hands: int | None = None, seed: int = 1):
    """Store generated legal hands at ``table`` through the service (the whole session by default)."""
    from tournaments.results import services as results

    rng = random.Random(seed)
    summary, count = None, 0
    while hands is None or count < hands:
        session = results.current_session(table)
        if session is not None and session.status != "open":
            break
        record = next_record(table.round.event.game, rng, table.seats.count(), summary, table.first_dealer)
        summary = results.hand_submit(table_id=table.pk, entry=results.Entry(record)).receipt["session"]
        count += 1
    return results.current_session(table)


@pytest.fixture
def secret(world):
    player = world.players[7]
    player.name, player.initials_only = SECRET, True
    player.save()
    return player


# --- check-in -----------------------------------------------------------------------------------

@pytest.mark.parametrize("role", ["organiser", "club_organiser", "staff"])
def test_the_events_organisers_check_a_player_in_and_out(world, role):
    from tournaments.models import Attendance

    event, player = world.events["mu"], world.players[3]
    api = client_for(getattr(world, role))
    response = api.post(checkins_url(event), {"player": player.pk}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["player"] == player.pk and response.json()["name"] == "Player 03"
    assert Attendance.objects.get(event=event, player=player).present
    listed = api.get(checkins_url(event)).json()
    assert listed["event"] == event.pk
    assert [row["player"] for row in listed["players"]] == [player.pk]
    response = api.delete(f"{checkins_url(event)}{player.pk}/")
    assert response.status_code == 204, response.content
    assert not Attendance.objects.get(event=event, player=player).present
    assert api.get(checkins_url(event)).json()["players"] == []


def test_checking_in_twice_changes_nothing_and_answers_the_same(world):
    from tournaments.models import AuditEntry

    event, player = world.events["mu"], world.players[3]
    api = client_for(world.organiser)
    first = api.post(checkins_url(event), {"player": player.pk}, format="json")
    before = snapshot()
    audit = AuditEntry.objects.count()
    second = api.post(checkins_url(event), {"player": player.pk}, format="json")
    assert second.status_code == first.status_code == 200
    assert second.json() == first.json()
    assert snapshot() == before and AuditEntry.objects.count() == audit
    # Checking out twice, too.
    api.delete(f"{checkins_url(event)}{player.pk}/")
    before = snapshot()
    assert api.delete(f"{checkins_url(event)}{player.pk}/").status_code == 204
    assert snapshot() == before
    # And back: a new check-in, listed once.
    assert api.post(checkins_url(event), {"player": player.pk}, format="json").status_code == 200
    assert [row["player"] for row in api.get(checkins_url(event)).json()["players"]] == [player.pk]


def test_the_organisers_order_is_the_check_in_order_and_names_follow_the_policy(world, secret):
    event = world.events["mu"]
    api = client_for(world.organiser)
    for player in (world.players[5], secret, world.players[1]):
        api.post(checkins_url(event), {"player": player.pk}, format="json")
    rows = api.get(checkins_url(event)).json()["players"]
    assert [row["player"] for row in rows] == [world.players[5].pk, secret.pk, world.players[1].pk]
    assert rows[1]["name"] == SECRET  # an organiser of his club's event sees his real name
    assert all(row["checked_in_at"] for row in rows)


@pytest.mark.parametrize("role, status", [("anonymous", 401), ("stranger", 403), ("player_user", 403),
                                          ("other_organiser", 403), ("outsider", 403)])
def test_only_the_events_organisers_check_in_or_see_who_is_here(world, role, status):
    from tournaments import services

    world.stranger = make_user("stranger")
    world.outsider = make_user("outsider")
    from tournaments.models import Club

    Club.objects.create(name="Elsewhere").organisers.add(world.outsider)
    event, player = world.events["mu"], world.players[3]
    services.player_check_in(event=event, player=world.players[4], by_user=world.organiser)
    api = client_for(getattr(world, role, None))
    before = snapshot()
    for response in (api.post(checkins_url(event), {"player": player.pk}, format="json"),
                     api.delete(f"{checkins_url(event)}{world.players[4].pk}/"),
                     api.get(checkins_url(event))):
        assert response.status_code == status, (response.status_code, response.content)
        assert response.json()["code"] == ("not_authenticated" if status == 401 else "permission_denied")
    assert snapshot() == before


def test_an_unpublished_event_is_not_found_for_those_who_do_not_see_it(world):
    event = world.events["mu"]
    event.published = False
    event.save(update_fields=["published"])
    stranger = make_user("stranger")
    before = snapshot()
    response = client_for(stranger).post(checkins_url(event), {"player": world.players[3].pk}, format="json")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert snapshot() == before
    assert client_for(world.organiser).post(checkins_url(event), {"player": world.players[3].pk},
                                            format="json").status_code == 200


@pytest.mark.parametrize("payload, field, code", [
    ({}, "player", "invalid"),
    ({"player": "three"}, "player", "invalid"),
    ({"player": None}, "player", "invalid"),
    ({"player": 987654}, "player", "invalid"),
    ({"player": [1, 2]}, "player", "invalid"),
])
def test_bad_check_in_input_is_400_and_changes_nothing(world, payload, field, code):
    before = snapshot()
    response = client_for(world.organiser).post(checkins_url(world.events["mu"]), payload, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == code and field in body["fields"] and body["message"]
    assert snapshot() == before


def test_a_player_of_another_club_or_a_deleted_one_is_refused(world):
    from tournaments import services
    from tournaments.models import Club, Membership, Player

    event = world.events["mu"]
    guest = Player.objects.create(name="Gast")
    Membership.objects.create(player=guest, club=Club.objects.create(name="Elsewhere"))
    gone = services.player_anonymise(player=world.players[11], by_user=world.club_organiser)
    api = client_for(world.organiser)
    before = snapshot()
    response = api.post(checkins_url(event), {"player": guest.pk}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "not_a_member", response.content
    response = api.post(checkins_url(event), {"player": gone.pk}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "anonymised", response.content
    # Checking out someone who is not of the event's club: no such check-in.
    response = api.delete(f"{checkins_url(event)}{guest.pk}/")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert api.delete(f"{checkins_url(event)}987654/").status_code == 404
    assert snapshot() == before


def test_a_form_body_is_refused_with_415(world):
    before = snapshot()
    response = client_for(world.organiser).post(checkins_url(world.events["mu"]), {"player": world.players[3].pk},
                                              format="multipart")
    assert response.status_code == 415, response.content
    assert response.json()["code"] == "unsupported_media_type"
    assert snapshot() == before


# --- who am I -----------------------------------------------------------------------------------

def test_me_is_the_user_his_player_and_his_clubs_with_his_roles(world):
    from tournaments.models import Membership

    me = client_for(world.player_user).get("/api/v1/me/")
    assert me.status_code == 200, me.content
    assert me.json() == {
        "id": world.player_user.pk, "username": "player_user", "staff": False,
        "player": {"id": world.players[0].pk, "name": "Player 00", "display_name": "Player 00", "initials_only": False},
        "clubs": [{"id": world.club.pk, "name": "Testclub", "roles": ["member"]}],
    }
    organiser = client_for(world.club_organiser).get("/api/v1/me/").json()
    assert organiser["player"] is None
    assert organiser["clubs"] == [{"id": world.empty_club.pk, "name": "Empty club", "roles": ["organiser"]},
                                  {"id": world.club.pk, "name": "Testclub", "roles": ["organiser"]}]
    # An organiser who plays in his club has both roles there.
    world.players[2].user = world.club_organiser
    world.players[2].save()
    Membership.objects.create(player=world.players[2], club=world.empty_club)
    roles = {club["name"]: club["roles"] for club in client_for(world.club_organiser).get("/api/v1/me/").json()["clubs"]}
    assert roles == {"Empty club": ["organiser", "member"], "Testclub": ["organiser", "member"]}
    assert client_for(world.staff).get("/api/v1/me/").json()["staff"] is True


def test_me_shows_a_player_his_own_real_name(world, secret):
    secret.user = make_user("secret_user")
    secret.save()
    body = client_for(secret.user).get("/api/v1/me/").json()
    assert body["player"] == {"id": secret.pk, "name": SECRET, "display_name": "Z.Q.", "initials_only": True}


@pytest.mark.parametrize("authorization, code", [(None, "not_authenticated"), ("Token not-a-key", "authentication_failed")])
def test_me_is_401_without_a_valid_login(world, authorization, code):
    from rest_framework.test import APIClient

    api = APIClient()
    if authorization:
        api.credentials(HTTP_AUTHORIZATION=authorization)
    response = api.get("/api/v1/me/")
    assert response.status_code == 401, response.content
    assert response.json()["code"] == code


def test_me_is_read_only(world):
    response = client_for(world.player_user).post("/api/v1/me/", {"username": "x"}, format="json")
    assert response.status_code == 405 and response.json()["code"] == "method_not_allowed"


# --- player search ------------------------------------------------------------------------------

def search(user, text: str) -> list[dict]:
    response = client_for(user).get("/api/v1/players/", {"search": text})
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_search_never_finds_a_hidden_real_name(world, secret):
    stranger = make_user("stranger")
    for user in (None, stranger, world.player_user):
        assert search(user, "Zacharias") == []
        assert search(user, "quint") == []
        found = search(user, "Z.Q.")
        assert [row["id"] for row in found] == [secret.pk]
        assert found[0]["label"] == found[0]["name"] == "Z.Q."
        response = client_for(user).get("/api/v1/players/", {"search": "Z.Q."})
        assert "Zacharias" not in response.content.decode() and "Quintessenz" not in response.content.decode()
    # Those who see the real name find him by it.
    for user in (world.organiser, world.club_organiser, world.staff):
        found = search(user, "zacharias")
        assert [row["id"] for row in found] == [secret.pk]
        assert found[0]["label"] == SECRET


def test_search_takes_every_word_in_any_order(world):
    assert [row["label"] for row in search(None, "03 player")] == ["Player 03"]
    assert len(search(None, "player")) == 12
    assert search(None, "player nobody") == []


def test_namesakes_found_by_search_are_told_apart(world):
    from tournaments.models import Club, Membership, Player

    elsewhere = Club.objects.create(name="Elsewhere")
    for club in (world.club, elsewhere):
        player = Player.objects.create(name="Max Müller")
        Membership.objects.create(player=player, club=club)
    labels = sorted(row["label"] for row in search(None, "müller"))
    assert labels == ["Max Müller (Elsewhere)", "Max Müller (Testclub)"]
    # The same labels as one player's own answer.
    one = Player.objects.filter(name="Max Müller").order_by("pk").first()
    assert client_for().get(f"/api/v1/players/{one.pk}/").json()["label"] == "Max Müller (Testclub)"


# --- the event's tables ---------------------------------------------------------------------------

def tables_url(event, **query) -> str:
    suffix = "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
    return f"/api/v1/events/{event.pk}/tables/{suffix}"


def test_the_tables_state_of_the_current_round(world, secret):
    from tournaments.models import Hand

    event = world.events["mu"]
    tables = list(event.rounds.get().tables.order_by("number"))
    session = play(tables[1], hands=2, seed=4)
    body = client_for().get(tables_url(event)).json()
    assert body["event"] == event.pk and body["game"] == "mu"
    assert body["round"] == {"id": tables[0].round_id, "number": 1}
    assert [row["number"] for row in body["tables"]] == [1, 2, 3]
    first, second, _ = body["tables"]
    assert first["state"] == "not_started" and first["hands"] == 0 and first["last_hand_at"] is None
    assert first["session"] is None
    assert [(p["seat"], p["player"], p["total"]) for p in first["players"]] == [
        (index + 1, world.players[index].pk, 0) for index in range(4)]
    assert second["state"] == "in_progress" and second["hands"] == 2 and second["session"] == session.pk
    assert [p["total"] for p in second["players"]] == session.totals
    last = Hand.objects.filter(session=session).order_by("-created_at").first().created_at
    assert second["last_hand_at"].replace("Z", "+00:00").startswith(last.isoformat()[:19])
    # The initials-only player sits at the second table: the public sees his initials only.
    shown = {p["player"]: p["name"] for p in second["players"]}
    assert shown[secret.pk] == "Z.Q."
    assert SECRET not in client_for().get(tables_url(event)).content.decode()
    assert {p["player"]: p["name"] for p in client_for(world.organiser).get(tables_url(event)).json()["tables"][1]
            ["players"]}[secret.pk] == SECRET


def test_finished_and_abandoned_sessions(world):
    from tournaments.results import services as results

    event = world.events["maumau"]
    tables = list(event.rounds.get().tables.order_by("number"))
    play(tables[0], seed=3)
    abandoned = play(tables[2], hands=1, seed=5)
    results.session_abandon(session=abandoned, by_user=world.organiser, reason="fire alarm")
    states = [row["state"] for row in client_for().get(tables_url(event)).json()["tables"]]
    assert states == ["finished", "not_started", "abandoned"]
    row = client_for().get(tables_url(event)).json()["tables"][0]
    assert row["hands"] == row["hands_due"] == event.maumau_games_per_series


def test_a_held_round_is_missing_for_all_but_its_organisers(world):
    from tournaments import services

    event = world.events["mu"]
    held = services.round_create(event=event, number=2, by_user=None)
    table = services.table_create(round_=held, players=world.players[:4], by_user=None)
    play(table, hands=1, seed=6)
    services.round_set_results_held(round_=held, held=True, by_user=None)
    public = client_for().get(tables_url(event)).json()
    assert public["round"]["number"] == 1 and table.pk not in [row["id"] for row in public["tables"]]
    response = client_for(make_user("stranger")).get(tables_url(event, round=2))
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    organiser = client_for(world.organiser).get(tables_url(event)).json()
    assert organiser["round"]["number"] == 2 and [row["id"] for row in organiser["tables"]] == [table.pk]
    assert client_for(world.organiser).get(tables_url(event, round=1)).json()["round"]["number"] == 1


def test_an_unpublished_event_is_404_for_the_public(world):
    event = world.events["lut"]
    event.published = False
    event.save(update_fields=["published"])
    response = client_for().get(tables_url(event))
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert client_for(world.organiser).get(tables_url(event)).status_code == 200


@pytest.mark.parametrize("value", ["two", "0", "-1", "1.5", "99999"])
def test_a_round_that_is_not_a_round_number_is_400(world, value):
    response = client_for().get(tables_url(world.events["mu"], round=value))
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid" and "round" in response.json()["fields"]


def test_a_round_that_does_not_exist_is_404_and_no_round_yet_is_empty(world):
    from tournaments import services

    assert client_for().get(tables_url(world.events["mu"], round=7)).status_code == 404
    empty = services.event_create(by_user=world.club_organiser, club=world.club, name="Later", game="mu",
                                  published=True)
    assert client_for().get(tables_url(empty)).json() == {"event": empty.pk, "game": "mu", "round": None, "tables": []}


def test_an_open_club_night_shows_every_table_of_the_evening(world):
    from tournaments import services
    from tournaments.draws import open_nights

    night = services.event_create(by_user=world.club_organiser, club=world.club, name="Clubabend", game="lut",
                                  format="open", published=True)
    for player in world.players[:8]:
        services.player_check_in(event=night, player=player, by_user=world.club_organiser)
    first = open_nights.open_table(event=night, players=world.players[:4], by_user=world.club_organiser)
    second = open_nights.open_table(event=night, players=world.players[4:8], by_user=world.club_organiser)
    body = client_for().get(tables_url(night)).json()
    assert body["round"] is None
    assert [row["id"] for row in body["tables"]] == [first.pk, second.pk]
    assert [row["round"]["number"] for row in body["tables"]] == [1, 2]


def test_the_tables_state_reads_a_constant_number_of_queries(world, django_assert_max_num_queries):
    from tournaments import services

    event = world.events["mu"]
    round2 = services.round_create(event=event, number=2, by_user=None)
    client = client_for()
    for number in range(3):
        services.table_create(round_=round2, players=world.players[4 * number:4 * number + 4], by_user=None)
        if number == 0:
            with django_assert_max_num_queries(30) as few:
                client.get(tables_url(event))
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(tables_url(event))
