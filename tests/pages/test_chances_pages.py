"""Where people see the win chances: the public event page (tables, upset of the evening), the
room screen, the calibration page, the table cards and the score sheet."""
from __future__ import annotations

import re

import pytest

from ratings.outlook import tables_outlook

pytestmark = pytest.mark.django_db


def page(client, url: str, **headers) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200, url
    return response.content.decode()


def test_event_page_shows_each_tables_chances_and_never_a_held_rounds(demo, client):
    event = demo["lut"]
    html = page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    shown = [t for r in event.rounds.filter(results_held=False) for t in r.tables.select_related("round__event")]
    outlooks = tables_outlook(shown)
    assert html.count('class="chances compact"') == len(shown)
    wins = [float(value) for value in re.findall(r'data-win="([0-9.]+)"', html)]
    expected = [round(seat.win, 4) for table in shown for seat in outlooks[table.pk].seats]
    assert wins == pytest.approx(expected, abs=1e-4)
    held = event.rounds.get(results_held=True)
    for table in held.tables.all():
        assert f'data-table="{table.pk}"' not in html


def test_the_upset_of_the_evening_names_a_winner_who_was_not_the_favourite(demo, client):
    for event in demo.values():
        html = page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en")
        match = re.search(r'<p class="upset" id="upset">Upset of the evening: <strong>([^<]+)</strong> won table (\d+) '
                          r'of round (\d+) with a chance of ([^ ]+ %)', html)
        shown = event.rounds.filter(results_held=False)
        tables = [t for r in shown for t in r.tables.select_related("round__event")]
        outlooks = tables_outlook(tables)
        upsets = []
        for table in tables:
            outlook = outlooks[table.pk]
            session = table.sessions.filter(pk=outlook.session_id).first()
            if session is None or outlook.favourite is None or list(session.totals).count(max(session.totals)) > 1:
                continue
            winner = max(outlook.seats, key=lambda seat: session.totals[seat.position])
            if winner.player_id != outlook.favourite.player_id:
                upsets.append((winner.win, table))
        if not upsets:
            assert match is None
            continue
        assert match, event.name
        _, table_number, round_number, _ = match.groups()
        chance, table = min(upsets, key=lambda upset: upset[0])
        assert (table.number, table.round.number) == (int(table_number), int(round_number))
        german = page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="de")
        assert "Überraschung des Abends" in german


def test_room_screen_shows_the_latest_public_round_with_chances(demo, client):
    event = demo["mu"]
    html = page(client, f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE="en")
    latest = event.rounds.filter(results_held=False).order_by("-number").first()
    assert f"Round {latest.number}:" in html
    assert html.count('<article class="screen-table') == latest.tables.count()
    # A table that has not started shows its players' chances to win; one that has, their totals.
    for table in html.split('<article class="screen-table')[1:]:
        seats = table.split("</ul>")[0].count("<li>")
        shown = table.count('class="pct"') if 'data-state="waiting"' in table else table.count('class="total"')
        assert shown == seats


def test_calibration_page_draws_the_plot_and_scores_every_game(demo, client):
    html = page(client, "/calibration/", HTTP_ACCEPT_LANGUAGE="en")
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="reliability-chart"') == 3
    assert 'data-method="uniform"' in html and 'data-method="point"' in html
    assert "http" not in re.sub(r'xmlns="http://www.w3.org/2000/svg"', "", html.split("<body", 1)[1]).split("</main>")[0]



def test_room_screen_says_what_the_percentages_are_and_they_add_up_to_100(demo, client):
    from tournaments.models import Round
    from tournaments.services import table_create

    event = demo["mu"]
    first = event.rounds.order_by("number").first()
    players = [seat.player for table in first.tables.order_by("number") for seat in table.seats.order_by("position")]
    players = players[1::2] + players[::2]
    round_ = Round.objects.create(event=event, number=event.rounds.order_by("-number").first().number + 1)
    for index in range(0, len(players) - len(players) % 3, 3):  # tables of three: 100 / 3 does not round to 100
        table_create(round_=round_, number=index // 3 + 1, players=players[index:index + 3], by_user=None)
    legends = {"en": "chance to finish first at this table, from the ratings",
               "de": "an diesem Tisch Erster zu werden, aus den Wertungen",
               "fi": "mahdollisuus voittaa tämä pöytä, vahvuuslukujen perusteella"}
    for language, legend in legends.items():
        html = page(client, f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE=language)
        waiting = [table for table in html.split('<article class="screen-table')[1:] if 'data-state="waiting"' in table]
        assert waiting and legend in html
        for table in waiting:
            shown = re.findall(r'class="pct"[^>]*>([^<]+)<', table.split("</ul>")[0])
            numbers = [int(text.strip(" %<>")) for text in shown]
            if not any(text.startswith(("<", ">")) for text in shown):
                assert sum(numbers) == 100, shown
