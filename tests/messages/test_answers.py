"""The engine's refusal where people read it: the API keeps its English sentence unless the client
asks with Accept-Language (then seats from 1, named with ``?name=``); the console names the table's
players in the page's language."""
from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.api.play import next_record

FOURTH_HAS_FOUR_COLOURS = {"game": "lut", "players": 4, "dealer": 0, "summary": {"stacks": [
    {"B": 3, "G": 3, "discarded": 0}, {"B": 3, "G": 3, "discarded": 0}, {"B": 3, "G": 3, "discarded": 0},
    {"B": 3, "G": 3, "R": 2, "Y": 2, "discarded": 0}]}}
NAMES = "?name=Anna&name=Beate&name=Conny&name=Dagmar%20M."


def _refusal(url: str, **headers) -> dict:
    response = Client().post(url, json.dumps(FOURTH_HAS_FOUR_COLOURS), content_type="application/json", **headers)
    assert response.status_code == 422
    return response.json()


@pytest.mark.django_db
def test_without_accept_language_the_api_answers_as_before():
    body = _refusal("/api/v1/records/validate" + NAMES)
    assert set(body) == {"code", "message", "path"}  # nothing the client did not ask for
    assert body["code"] == "too_many_colours" and body["path"] == "/summary/stacks/3"
    assert body["message"].startswith("seat 3 has four open colours")  # the engine's own sentence


@pytest.mark.django_db
@pytest.mark.parametrize("header, named, numbered", [
    ("de-DE,de;q=0.9,en;q=0.8", "Dagmar M. hat vier offene Farben", "Sitz 4 hat vier offene Farben"),
    ("fi", "Dagmar M.: neljä avointa väriä", "Paikka 4: neljä avointa väriä"),
    ("en-GB", "Dagmar M. has four open colours", "Seat 4 has four open colours"),
])
def test_accept_language_gives_the_sentence_in_that_language(header, named, numbered):
    body = _refusal("/api/v1/records/validate" + NAMES, HTTP_ACCEPT_LANGUAGE=header)
    assert set(body) == {"code", "message", "path"}
    assert body["message"].startswith(named)
    assert _refusal("/api/v1/records/validate", HTTP_ACCEPT_LANGUAGE=header)["message"].startswith(numbered)


@pytest.mark.django_db
def test_a_language_the_service_does_not_speak_keeps_the_english_sentence():
    assert _refusal("/api/v1/records/validate", HTTP_ACCEPT_LANGUAGE="sv")["message"].startswith("seat 3 has")


def test_the_console_says_why_a_correction_is_refused_in_the_readers_language(world):
    from tests.console.test_views import logged_in
    from tournaments.models import Hand
    from tournaments.results import services as results

    event = world.events["mu"]
    table = event.rounds.get(number=1).tables.order_by("number").first()
    import random

    record = next_record("mu", random.Random(3), table.seats.count(), None, table.first_dealer)
    results.hand_submit(table_id=table.pk, entry=results.Entry(record), by_user=world.organiser)
    hand = Hand.objects.get(session__table=table, number=1)
    wrong = {**record, "dealer": (record["dealer"] + 1) % 4}
    client = logged_in(world.organiser)
    response = client.post(f"/console/hands/{hand.pk}/correct/", {"record": json.dumps(wrong), "reason": "x"},
                           HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 400
    page = response.content.decode()
    seats = list(table.seats.order_by("position").select_related("player"))
    expected, given = seats[record["dealer"]].player.name, seats[wrong["dealer"]].player.name
    assert f"Spiel 1 gibt {expected}, nicht {given}." in page
    assert json.loads(page.split('id="record-', 1)[1].split(">", 1)[1].split("</textarea>")[0].replace("&quot;", '"')
                      ) == wrong  # what was entered is kept
    hand.refresh_from_db()
    assert hand.version == 1
