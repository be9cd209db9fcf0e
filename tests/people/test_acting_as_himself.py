"""A bound phone acts at its player's table as him: a hand it enters is his seat's, a
confirmation or dispute is recorded under his name in the audit trail (not "seat N"), a write
needs the page's CSRF token, and an unbound phone acts as nobody."""
from __future__ import annotations

import json

import pytest

from .conftest import bind, issue

pytestmark = pytest.mark.django_db

MU = [
    {"game": "mu", "players": 5, "dealer": 0,
     "summary": {"bids": [3, 1, 3, 4, 1], "chef": 3, "vice": 2, "provocateur": None, "vice_trump": "G",
                 "chef_trump": "1", "partner": 0, "card_points": [10, 12, 9, 19, 10]}},
]


def _bound(phone, player, organiser):
    client = phone(csrf=True)
    bind(client, issue(player, organiser).pin)
    client.get("/me/")  # the page sets the CSRF cookie
    return client


def _post(client, url, body, *, token=True):
    headers = {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value} if token else {}
    return client.post(url, data=json.dumps(body), content_type="application/json", **headers)


def test_a_hand_entered_and_confirmed_by_bound_phones_names_both_players(confirming, phone):
    from tournaments.models import AuditEntry, Hand

    table = confirming.tables["mu"]
    beate, dagmar = confirming.players[1], confirming.players[3]
    beates, dagmars = _bound(phone, beate, confirming.organiser), _bound(phone, dagmar, confirming.organiser)
    answer = _post(beates, f"/api/v1/tables/{table.pk}/hands/?hand=1", MU[0])
    assert answer.status_code == 201, answer.content
    hand = Hand.objects.get(session__table=table, number=1)
    assert hand.entered_by_seat == 1 and hand.unconfirmed
    # Beate cannot confirm her own hand; Dagmar can, as herself.
    assert _post(beates, f"/api/v1/hands/{hand.pk}/confirm/", {}).status_code == 403
    assert _post(dagmars, f"/api/v1/hands/{hand.pk}/confirm/", {}).status_code == 200
    hand.refresh_from_db()
    assert not hand.unconfirmed and hand.confirmed_by_seat == 3
    row = AuditEntry.objects.get(action="hand_confirmed", object_id=hand.pk)
    assert row.via == "player" and row.data == {"seat": 3, "player": dagmar.pk} and row.actor is None


def test_a_dispute_from_a_bound_phone_is_his(confirming, phone):
    from tournaments.models import AuditEntry, Hand

    table = confirming.tables["mu"]
    anna, emil = confirming.players[0], confirming.players[4]
    annas, emils = _bound(phone, anna, confirming.organiser), _bound(phone, emil, confirming.organiser)
    assert _post(annas, f"/api/v1/tables/{table.pk}/hands/", MU[0]).status_code == 201
    hand = Hand.objects.get(session__table=table, number=1)
    assert _post(emils, f"/api/v1/hands/{hand.pk}/dispute/", {"reason": "Chef had 21"}).status_code == 200
    row = AuditEntry.objects.get(action="hand_disputed", object_id=hand.pk)
    assert row.via == "player" and row.data == {"seat": 4, "player": emil.pk} and row.reason == "Chef had 21"


def test_a_write_without_the_csrf_token_is_not_his(confirming, phone):
    from tournaments.models import Hand

    table = confirming.tables["mu"]
    client = _bound(phone, confirming.players[0], confirming.organiser)
    assert _post(client, f"/api/v1/tables/{table.pk}/hands/", MU[0], token=False).status_code == 401
    assert not Hand.objects.exists()


def test_a_phone_of_a_player_not_at_the_table_does_not_submit(confirming, phone):
    from tournaments.models import Hand

    frieda = confirming.players[5]  # not seated at the Mü table
    client = _bound(phone, frieda, confirming.organiser)
    assert _post(client, f"/api/v1/tables/{confirming.tables['mu'].pk}/hands/", MU[0]).status_code == 401
    assert not Hand.objects.exists()


def test_an_unbound_phone_acts_as_nobody(confirming, phone):
    from tournaments.models import Hand, PlayerDevice

    table = confirming.tables["mu"]
    client = _bound(phone, confirming.players[0], confirming.organiser)
    device = PlayerDevice.objects.get(player=confirming.players[0])
    other = _bound(phone, confirming.players[0], confirming.organiser)
    assert other.post(f"/me/phones/{device.pk}/unbind/", HTTP_X_CSRFTOKEN=other.cookies["csrftoken"].value).status_code == 302
    assert _post(client, f"/api/v1/tables/{table.pk}/hands/", MU[0]).status_code == 401
    assert not Hand.objects.exists()
