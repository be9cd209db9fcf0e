"""The organisers print the players' personal codes with the table cards: a POST issues them and
answers the page to print (never cached); printing again kills the earlier slips; only those who
may change a player issue his code."""
from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _organiser(club):
    client = Client()
    client.force_login(club.organiser)
    return client


def test_a_rounds_codes_are_printed_with_table_and_seat(evening, phone):
    table = evening.tables["mu"]
    response = _organiser(evening).post(f"/console/rounds/{table.round.pk}/player-codes/")
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    html = response.content.decode()
    assert html.count('class="table-card player-slip"') == 5 and html.count("<svg") == 5
    pins = [pin.replace(" ", "") for pin in re.findall(r'class="pin-digits">([0-9 ]+)<', html)]
    assert len(pins) == 5 and "Table 1 · Seat 3" in html
    # The third slip is Conny's (seat 3): her PIN binds a phone to her.
    client = phone()
    assert client.post("/me/pin/", {"pin": pins[2]}).status_code == 302
    assert "Conny Cramer" in client.get("/me/").content.decode()
    # Printed again: the first slips are dead.
    _organiser(evening).post(f"/console/rounds/{table.round.pk}/player-codes/")
    assert phone().post("/me/pin/", {"pin": pins[0]}).status_code == 400


def test_only_those_who_may_change_a_player_issue_his_code(evening):
    from tests.conftest import make_user

    stranger = Client()
    stranger.force_login(make_user("stranger"))
    anna = evening.players[0]
    assert stranger.post(f"/console/players/{anna.pk}/code/").status_code == 403
    assert stranger.post(f"/console/rounds/{evening.tables['mu'].round.pk}/player-codes/").status_code in (403, 404)
    assert _organiser(evening).get(f"/console/players/{anna.pk}/code/").status_code == 405
    answer = _organiser(evening).post(f"/console/players/{anna.pk}/code/")
    assert answer.status_code == 200 and "Anna Adler" in answer.content.decode()
    from tournaments.models import PlayerCode

    assert PlayerCode.objects.filter(player=anna).count() == 1
