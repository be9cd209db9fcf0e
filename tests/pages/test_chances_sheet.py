"""The table card and the score sheet name the favourite before the first hand; the event page
names the upset of the evening."""
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



def play_upset(event, round_number=1, table_number=1):
    """A rated first session at a table, then a second one won by the player with the smallest
    chance: the evening's upset. Returns the table and the winner's seat."""
    from ratings.outlook import tables_outlook
    from ratings.services import pool_sync
    from tests.ratings.test_pool import finish_session

    table = event.rounds.get(number=round_number).tables.select_related("round__event").get(number=table_number)
    finish_session(table, [[9, 6, 3, 0]], minutes=5)
    pool_sync(event.game)
    # seat 3 came last: the smallest chance at the next session, which he wins
    finish_session(table, [[1, 2, 3, 12]], minutes=40)
    pool_sync(event.game)
    outlook = tables_outlook([table])[table.pk]
    assert outlook.basis == "before_session"
    assert min(outlook.seats, key=lambda seat: seat.win).position == 3
    return table, outlook.seats[3]


def test_the_event_page_names_the_upset_of_the_evening(world, client):
    from tournaments.models import Player

    event = world.events["lut"]
    english = page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert 'id="upset"' not in english  # nothing played yet
    table, underdog = play_upset(event)
    name = Player.objects.get(pk=underdog.player_id).public_name
    english = page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert re.search(rf"Upset of the evening: <strong>{re.escape(name)}</strong> won table {table.number} of round 1 "
                     rf"with a chance of \d+ % before the game", english)
    german = page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="de")
    assert re.search(rf"Überraschung des Abends: <strong>{re.escape(name)}</strong> gewann Tisch {table.number}", german)
    # a held round takes its upset with it
    round_ = table.round
    round_.results_held = True
    round_.save()
    assert 'id="upset"' not in page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en")
