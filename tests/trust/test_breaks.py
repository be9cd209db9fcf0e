"""One regression test per break the trust review found (issue "Trust"); each failed before the
policy and the services were given one home."""
from __future__ import annotations

import random

import pytest

from tests.api.play import next_record
from tests.conftest import client_for

from .conftest import HELD_MARK, SECRET_NAME
from .test_role_matrix import database_state

pytestmark = pytest.mark.django_db


def test_1_hands_of_a_held_round_are_hidden_by_table(trust):
    anonymous = client_for(None)
    assert anonymous.get(f"/api/v1/tables/{trust.held_table.pk}/hands/").status_code == 404
    assert HELD_MARK not in anonymous.get("/api/v1/hands/").content.decode()
    # The event's organisers, and the club's, still see them (the same rule as rounds).
    for user in (trust.organiser, trust.club_organiser):
        assert HELD_MARK in client_for(user).get(f"/api/v1/tables/{trust.held_table.pk}/hands/").content.decode()
        assert HELD_MARK in client_for(user).get("/api/v1/hands/").content.decode()


def test_2_real_names_cannot_be_searched_or_ordered_by(trust):
    anonymous = client_for(None)
    for query in ("name__icontains=Zach", "name=Quintessenz"):
        ids = [row["id"] for row in anonymous.get(f"/api/v1/players/?{query}").json()["results"]]
        assert trust.secret.pk not in ids
    initials = anonymous.get(f"/api/v1/players/?name__icontains={trust.secret.public_name}").json()["results"]
    assert [row["id"] for row in initials] == [trust.secret.pk]
    # Ordering by name orders by the shown name: "Z. Q." does not sort as "Zacharias".
    ordered = [row["display_name"] for row in anonymous.get("/api/v1/players/?ordering=name&page_size=100").json()["results"]]
    assert ordered == sorted(ordered)
    # The browsable API's forms list neither names nor user names.
    browser = client_for(trust.stranger)
    browser.force_login(trust.stranger)
    html = browser.get("/api/v1/tables/", HTTP_ACCEPT="text/html").content.decode()
    assert SECRET_NAME not in html and "club_organiser" not in html and "Player 03" not in html


def test_3_another_clubs_organiser_cannot_take_over_a_shared_player(trust):
    from tournaments.models import Membership

    shared = trust.players[9]
    Membership.objects.create(player=shared, club=trust.other_club)
    outsider = client_for(trust.outsider)
    before = database_state()
    assert outsider.patch(f"/api/v1/players/{shared.pk}/", {"name": "Mine"}, format="json").status_code == 403
    assert outsider.patch(f"/api/v1/players/{shared.pk}/", {"clubs": [trust.other_club.pk]},
                          format="json").status_code == 403
    assert outsider.delete(f"/api/v1/players/{shared.pk}/").status_code == 403
    # Nor can he make your players members of his club, and so seat them at his events.
    assert outsider.patch(f"/api/v1/players/{trust.players[10].pk}/",
                          {"clubs": [trust.club.pk, trust.other_club.pk]}, format="json").status_code == 403
    assert database_state() == before


def test_3_only_members_of_the_events_club_are_seated(trust):
    from tournaments import services

    other_event = services.event_create(by_user=trust.outsider, club=trust.other_club, name="Raid", game="mu",
                                        published=True)
    round_ = services.round_create(event=other_event, by_user=trust.outsider)
    before = database_state()
    response = client_for(trust.outsider).post(
        "/api/v1/tables/", {"round": round_.pk, "players": [trust.other_player.pk] + [p.pk for p in trust.players[:3]]},
        format="json",
    )
    assert response.status_code == 400 and response.json()["code"] == "not_a_member"
    assert database_state() == before


def test_4_results_are_never_deleted(trust):
    organiser = client_for(trust.organiser)
    mu = trust.events["mu"]
    before = database_state()
    for url in (f"/api/v1/events/{mu.pk}/", f"/api/v1/rounds/{mu.rounds.get(number=1).pk}/",
                f"/api/v1/tables/{trust.mu_table.pk}/"):
        response = organiser.delete(url)
        assert response.status_code == 409 and response.json()["code"] == "has_results", url
    assert database_state() == before
    # An empty one can go.
    assert organiser.delete(f"/api/v1/tables/{trust.empty_table.pk}/").status_code == 204
    assert organiser.delete(f"/api/v1/events/{trust.empty_event.pk}/").status_code == 204


def test_5_a_table_with_results_cannot_be_reseated(trust):
    organiser = client_for(trust.organiser)
    seats = [s.player_id for s in trust.mu_table.seats.order_by("position")]
    before = database_state()
    for players in (list(reversed(seats)), seats[:3]):
        response = organiser.patch(f"/api/v1/tables/{trust.mu_table.pk}/", {"players": players}, format="json")
        assert response.status_code == 409 and response.json()["code"] == "has_results"
    assert database_state() == before


def test_6_money_of_other_games_and_odd_digits_are_clean_errors(trust):
    anonymous = client_for(None)
    for game in ("mu", "lut"):
        response = anonymous.get(f"/api/v1/events/{trust.events[game].pk}/money/")
        assert response.status_code == 404 and response.json()["code"] == "no_money"
    organiser = client_for(trust.organiser)
    response = organiser.post(f"/api/v1/tables/{trust.mu_table.pk}/hands/?hand=²", {}, format="json")
    assert response.status_code == 400 and "hand" in response.json()["fields"]


def test_7_an_idempotency_key_belongs_to_its_table(trust):
    from tournaments.models import Hand

    organiser = client_for(trust.organiser)
    first = next_record("mu", random.Random(1), 4, None, trust.own_table.first_dealer)
    key = {"HTTP_IDEMPOTENCY_KEY": "same-key"}
    assert organiser.post(f"/api/v1/tables/{trust.own_table.pk}/hands/", first, format="json", **key).status_code == 201
    table3 = trust.empty_table
    other = next_record("mu", random.Random(2), 4, None, table3.first_dealer)
    response = organiser.post(f"/api/v1/tables/{table3.pk}/hands/", other, format="json", **key)
    assert response.status_code == 201 and response.json()["hand"]["session"] != trust.own_table.pk
    assert Hand.objects.filter(session__table=table3).count() == 1
    # The same key at the same table with another record: refused, nothing stored.
    again = dict(first, dealer=(first["dealer"] + 1) % 4)
    response = organiser.post(f"/api/v1/tables/{trust.own_table.pk}/hands/", again, format="json", **key)
    assert response.status_code == 409 and response.json()["code"] == "idempotency_key_reused"
    assert Hand.objects.filter(session__table=trust.own_table).count() == 1


def test_8_the_admin_goes_through_the_services(trust):
    from django.test import Client

    from tournaments.models import AuditEntry, Player

    admin = Client()
    admin.force_login(trust.staff.__class__.objects.create_superuser("root", password="pw-root"))
    round_ = trust.events["mu"].rounds.get(number=1)
    response = admin.post("/admin/tournaments/round/", {"action": "hold_results", "_selected_action": [round_.pk]})
    assert response.status_code == 302
    entry = AuditEntry.objects.get(action="round_held", object_id=round_.pk)
    assert entry.via == "admin" and entry.actor.username == "root"
    victim = trust.players[11]
    admin.post(f"/admin/tournaments/player/{victim.pk}/delete/", {"post": "yes"})
    victim = Player.objects.get(pk=victim.pk)
    assert victim.anonymised and victim.name == ""
    # The game of an event with tables cannot change; seats are not editable there.
    page = admin.get(f"/admin/tournaments/event/{trust.events['mu'].pk}/change/").content.decode()
    assert 'name="game"' not in page
    page = admin.get(f"/admin/tournaments/table/{trust.mu_table.pk}/change/").content.decode()
    assert 'name="seats-0-player"' not in page


def test_8_the_demo_loader_goes_through_the_services(db):
    from django.core.management import call_command

    from tournaments.models import AuditEntry, Round

    call_command("load_demo")
    held = Round.objects.get(results_held=True)
    assert AuditEntry.objects.filter(action="round_held", object_id=held.pk, via="command").exists()
    from tournaments.models import Event

    assert AuditEntry.objects.filter(action="event_created", via="command").count() == Event.objects.count() >= 3


def test_9_the_drawn_first_dealer_is_stored_and_checked(trust):
    from tournaments.draws import services as draws
    from tournaments.models import Session

    round_ = trust.empty_round
    draws.draw_preview(round_, by_user=trust.organiser, seed=4, players=[p.pk for p in trust.players[:12]])
    table = draws.draw_publish(round_, by_user=trust.organiser)[0]
    organiser = client_for(trust.organiser)
    wrong = next_record("mu", random.Random(3), table.seats.count(), None, (table.first_dealer + 1) % table.seats.count())
    response = organiser.post(f"/api/v1/tables/{table.pk}/hands/", wrong, format="json")
    assert response.status_code == 422 and response.json()["code"] == "wrong_dealer"
    right = next_record("mu", random.Random(3), table.seats.count(), None, table.first_dealer)
    assert organiser.post(f"/api/v1/tables/{table.pk}/hands/", right, format="json").status_code == 201
    assert Session.objects.get(table=table).first_dealer == table.first_dealer


def test_9_the_export_keeps_each_versions_dealer(trust):
    import json as jsonlib

    from tournaments.results import services as results

    hand = trust.mu_session.hands.order_by("number").first()
    replacement = next_record("mu", random.Random(8), 4, None, hand.dealer)
    results.hand_correct(hand=hand, record=replacement, by_user=trust.organiser, reason="typo")
    lines = [jsonlib.loads(line) for line in client_for(trust.organiser).get(
        f"/api/v1/events/{trust.events['mu'].pk}/export.jsonl").content.decode().splitlines()]
    versions = [line for line in lines if line["type"] == "hand" and line["number"] == hand.number
                and line["session"] == hand.session_id]
    assert [v["dealer"] for v in versions] == [v["record"]["dealer"] for v in versions]


def test_10_void_keeps_the_slot_and_the_table_goes_on(trust):
    """Void: the hand stays in its slot and scores nothing; the table enters the next hand."""
    organiser = client_for(trust.organiser)
    sheet = organiser.get(f"/api/v1/tables/{trust.mu_table.pk}/hands/").json()
    last = sheet["hands"][-1]
    response = organiser.post(f"/api/v1/hands/{last['id']}/void/", {"reason": "misdeal"}, format="json")
    assert response.status_code == 200 and response.json()["hand"]["voided"]
    summary = response.json()["session"]
    assert summary["hands"] == 2 and summary["next"]["hand"] == 3
    record = next_record("mu", random.Random(9), 4, summary)
    assert organiser.post(f"/api/v1/tables/{trust.mu_table.pk}/hands/", record, format="json").status_code == 201


def test_10_correcting_a_voided_hand_brings_it_back(trust):
    organiser = client_for(trust.organiser)
    hand = trust.mu_session.hands.order_by("number").first()
    organiser.post(f"/api/v1/hands/{hand.pk}/void/", {"reason": "entered at the wrong table"}, format="json")
    record = next_record("mu", random.Random(10), 4, None, hand.dealer)
    response = organiser.post(f"/api/v1/hands/{hand.pk}/correct/", {"record": record, "reason": "found the sheet"},
                              format="json")
    assert response.status_code == 200
    body = response.json()
    assert not body["hand"]["voided"] and body["hand"]["version"] == 3 and body["result"]["scores"]
    assert trust.mu_session.hands.get(pk=hand.pk).versions.count() == 3
