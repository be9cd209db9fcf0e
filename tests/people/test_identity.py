"""A player's identity on a phone: his personal code binds it (PIN or QR link), a code issued
again kills the old one, a lost phone is unbound from another, guessing is locked out, and a code
appears in no page, log, audit row or export."""
from __future__ import annotations

import json
import logging

import pytest

from .conftest import bind, issue

pytestmark = pytest.mark.django_db


def test_a_pin_binds_the_phone_to_its_player_at_his_table_and_seat(evening, phone):
    anna, conny = evening.players[0], evening.players[2]
    code = issue(conny, evening.organiser)
    client = phone()
    assert "Conny Cramer" not in client.get("/me/").content.decode()  # not bound: the PIN form
    response = bind(client, f"{code.pin[:4]} {code.pin[4:]}")  # typed with a space
    assert response["Location"] == "/me/"
    page = client.get("/me/").content.decode()
    assert "Conny Cramer" in page and anna.name in page  # his table's players
    # Seat 3 at every table (he sits third at each), with a link to the sheet at his seat.
    for table in evening.tables.values():
        assert f"/me/tables/{table.pk}/" in page
    assert page.count("Seat 3") == 3
    sheet = client.get(f"/me/tables/{evening.tables['mu'].pk}/")
    assert sheet.status_code == 200
    assert sheet.context["my_seat"] == 2 and sheet.context["config"]["seat"] == 2


def test_the_qr_link_names_him_and_binds_on_this_is_me(evening, phone):
    beate = evening.players[1]
    code = issue(beate, evening.organiser)
    client = phone()
    page = client.get(f"/p/{code.link_key}/")
    assert page.status_code == 200 and "Beate Berg" in page.content.decode()
    assert client.get("/me/phones/").status_code == 404  # a GET binds nothing
    response = client.post(f"/p/{code.link_key}/")
    assert response.status_code == 302
    assert "Beate Berg" in client.get("/me/").content.decode()
    from tournaments.models import PlayerDevice

    device = PlayerDevice.objects.get(player=beate)
    assert device.label == "Chrome · Android" and device.revoked_at is None


def test_issuing_again_kills_the_old_code_but_keeps_his_bound_phones(evening, phone):
    emil = evening.players[4]
    old = issue(emil, evening.organiser)
    kept = phone()
    bind(kept, old.pin)
    new = issue(emil, evening.organiser)
    assert new.pin != old.pin and new.link_key != old.link_key
    late = phone()
    assert late.post("/me/pin/", {"pin": old.pin}).status_code == 400
    assert late.get(f"/p/{old.link_key}/").status_code == 404
    assert "Emil Eck" in kept.get("/me/").content.decode()  # bound before: still his
    bind(late, new.pin)
    assert "Emil Eck" in late.get("/me/").content.decode()


def test_a_lost_phone_is_unbound_from_another(evening, phone):
    from tournaments.models import PlayerDevice

    dagmar = evening.players[3]
    code = issue(dagmar, evening.organiser)
    lost, new = phone(), phone()
    bind(lost, code.pin)
    bind(new, code.pin)
    lost_device, new_device = PlayerDevice.objects.filter(player=dagmar).order_by("bound_at", "id")
    listing = new.get("/me/phones/").content.decode()
    assert listing.count(">Unbind</button>") == 2 and "this phone" in listing
    assert new.post(f"/me/phones/{lost_device.pk}/unbind/").status_code == 302
    lost_device.refresh_from_db()
    assert lost_device.revoked_at is not None
    # The lost phone is nobody's now: no page of his, no sheet at his seat, no API as him.
    assert "Dagmar Dorn" not in lost.get("/me/").content.decode()
    assert lost.get(f"/me/tables/{evening.tables['mu'].pk}/").status_code == 404
    assert lost.get("/api/v1/me/player/").status_code == 401
    assert "Dagmar Dorn" in new.get("/me/").content.decode()
    # Another player cannot unbind his phone.
    other = phone()
    bind(other, issue(evening.players[0], evening.organiser).pin)
    assert other.post(f"/me/phones/{new_device.pk}/unbind/").status_code == 404
    new_device.refresh_from_db()
    assert new_device.revoked_at is None


def test_unbinding_this_phone_forgets_him_here(evening, phone):
    code = issue(evening.players[0], evening.organiser)
    client = phone()
    bind(client, code.pin)
    from tournaments.models import PlayerDevice

    device = PlayerDevice.objects.get(player=evening.players[0])
    response = client.post(f"/me/phones/{device.pk}/unbind/")
    assert response.status_code == 302 and response.cookies["stich_player"].value == ""
    assert "Anna Adler" not in client.get("/me/").content.decode()


def test_pin_guessing_is_locked_out_per_address(evening, phone, settings):
    settings.AXES_FAILURE_LIMIT = 3
    code = issue(evening.players[0], evening.organiser)
    guesser = phone()
    wrong = "0" * 8 if code.pin != "0" * 8 else "1" * 8
    # A typo of another length guesses nothing: not counted.
    assert [guesser.post("/me/pin/", {"pin": "123"}).status_code for _ in range(4)] == [400] * 4
    answers = [guesser.post("/me/pin/", {"pin": wrong}).status_code for _ in range(3)]
    assert answers == [400, 400, 429]
    # Locked: the right PIN is refused too, and so is the QR link, from this address.
    assert guesser.post("/me/pin/", {"pin": code.pin}).status_code == 429
    assert guesser.get(f"/p/{code.link_key}/").status_code == 429
    from tournaments.models import PlayerDevice

    assert not PlayerDevice.objects.exists()
    # Another address is not locked.
    bind(phone(), code.pin)


def test_pin_guessing_from_many_addresses_locks_typed_pins_for_everyone(evening, phone, monkeypatch):
    from tournaments.people import codes

    monkeypatch.setattr(codes, "GLOBAL_FAILURES", 4)
    code = issue(evening.players[1], evening.organiser)
    wrong = "9" * 8 if code.pin != "9" * 8 else "8" * 8
    for _ in range(4):
        assert phone().post("/me/pin/", {"pin": wrong}).status_code in (400, 429)
    assert phone().post("/me/pin/", {"pin": code.pin}).status_code == 429
    # The printed QR link (192 random bits) still binds.
    client = phone()
    assert client.post(f"/p/{code.link_key}/").status_code == 302


def test_a_code_appears_in_no_page_log_audit_or_export(evening, phone, caplog):
    from ratings.people import player_export
    from tournaments.models import AuditEntry, PlayerCode

    anna = evening.players[0]
    code = issue(anna, evening.organiser)
    client = phone()
    with caplog.at_level(logging.DEBUG):
        client.post("/me/pin/", {"pin": "12345678" if code.pin != "12345678" else "87654321"})
        bind(client, code.pin)
        pages = [client.get(url).content.decode() for url in
                 ("/me/", "/me/phones/", "/me/privacy/", "/me/stats/", "/me/my-data.json", "/api/v1/me/player/",
                  "/api/v1/me/player/devices/", "/api/v1/me/player/export/")]
    secrets = [code.pin, f"{code.pin[:4]} {code.pin[4:]}", code.link_key]
    stored = PlayerCode.objects.get(player=anna)
    texts = [*pages, *(record.getMessage() for record in caplog.records),
             json.dumps(list(AuditEntry.objects.values("before", "after", "data", "reason")), default=str),
             json.dumps(player_export(anna), default=str), stored.pin_digest, stored.link_digest]
    for secret in secrets:
        assert not any(secret in text for text in texts), secret
