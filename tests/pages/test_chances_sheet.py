"""The table card and the score sheet name the favourite before the first hand."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def page(client, url: str, **headers) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200, url
    return response.content.decode()


def test_table_cards_and_sheet_before_the_first_hand_name_the_favourite(world, client):
    from ratings.models import Rating

    table = world.events["mu"].rounds.get(number=1).tables.get(number=1)
    players = [seat.player for seat in table.seats.order_by("position")]
    for player, mu in zip(players[:3], (31.0, 24.0, 22.0)):
        Rating.objects.create(player=player, game="mu", mu=mu, sigma=2.0, sessions=4)
    client.force_login(world.organiser)
    cards = page(client, f"/rounds/{table.round.pk}/cards/", HTTP_ACCEPT_LANGUAGE="en")
    assert re.search(r"Favourite: <strong>Player 00</strong> \d+ %", cards)
    assert "provisional" in cards  # Player 03 has no Mü rating: new
    sheet = page(client, f"/t/{table.scorer_token}/", HTTP_ACCEPT_LANGUAGE="de")
    assert re.search(r"Favorit: <strong>Player 00</strong> \d+ %", sheet)
    assert ">neu</abbr>" in sheet

