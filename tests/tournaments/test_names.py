"""Namesakes told apart by one rule (tournaments/names.py), on every page that shows people."""
from __future__ import annotations

import csv
import io
import random

import pytest
from django.test import Client

from tests.api.play import next_record


@pytest.fixture
def namesakes(world):
    """Two "Max Müller" of the club at table 1 of every event, the second told apart as "junior"."""
    first, second = world.players[0], world.players[1]
    for player, distinction in ((first, ""), (second, "junior")):
        player.name, player.distinction = "Max Müller", distinction
        player.save()
    return first, second


def names_for(user, players):
    from tournaments import policy

    return (policy.visibility(user) if user else policy.public()).names(players)


def test_namesakes_get_the_organisers_addition_else_their_place(world, namesakes):
    first, second = namesakes
    third = world.players[2]
    shown = names_for(None, [first, second, third])
    assert shown == {first.pk: "Max Müller (1)", second.pk: "Max Müller (junior)", third.pk: third.name}
    # Namesakes are found among all players, not only those asked about: the same name everywhere.
    assert names_for(None, [second]) == {second.pk: "Max Müller (junior)"}
    assert names_for(None, [third]) == {third.pk: third.name}


def test_namesakes_in_different_clubs_get_their_club(world, namesakes):
    from tournaments.models import Membership

    first, second = namesakes
    second.distinction = ""
    second.save()
    Membership.objects.create(player=first, club=world.empty_club)
    assert names_for(None, [first, second]) == {first.pk: "Max Müller (Empty club, Testclub)",
                                                second.pk: "Max Müller (Testclub)"}


def test_initials_only_hide_the_addition_from_those_who_do_not_see_the_name(world, namesakes):
    first, second = namesakes
    for player in namesakes:
        player.initials_only = True
        player.save()
    assert names_for(None, namesakes) == {first.pk: "M.M. (1)", second.pk: "M.M. (2)"}
    assert names_for(world.organiser, namesakes) == {first.pk: "Max Müller (1)", second.pk: "Max Müller (junior)"}
    # A deleted player is no namesake of anyone; the other one keeps his plain name.
    from tournaments.services import player_anonymise

    player_anonymise(player=second)
    second.refresh_from_db()
    assert second.distinction == ""
    assert names_for(world.organiser, namesakes) == {first.pk: "Max Müller", second.pk: f"#{second.pk}"}


def test_the_sheet_the_cards_the_standings_and_the_csv_tell_them_apart(world, namesakes):
    from tournaments.results import services as results

    first, second = namesakes
    event = world.events["mu"]
    event.mu_fixed_deals = 1
    event.save()
    table = event.rounds.get(number=1).tables.get(number=1)
    table.first_dealer = 1
    table.save()
    client = Client()
    sheet = client.get(f"/t/{table.scorer_token}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Max Müller (1)" in sheet and "Max Müller (junior)" in sheet
    assert f"#{first.pk}" not in sheet and f"#{second.pk}" not in sheet
    organiser = Client()
    organiser.force_login(world.organiser)
    cards = organiser.get(f"/rounds/{table.round_id}/cards/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Max Müller (junior) deals first." in cards
    record = next_record("mu", random.Random(5), 4, {"next": {"dealer": 1, "direction": None}})
    results.hand_submit(table_id=table.pk, entry=results.Entry(record), by_user=world.organiser)
    standings = client.get(f"/api/v1/events/{event.pk}/standings/").json()["standings"]
    assert {row["player"]: row["name"] for row in standings if row["player"] in (first.pk, second.pk)} == {
        first.pk: "Max Müller (1)", second.pk: "Max Müller (junior)"}
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get(f"/api/v1/events/{event.pk}/standings.csv").streaming_content).decode())))
    assert {row["name"] for row in rows} >= {"Max Müller (1)", "Max Müller (junior)"}
    page = client.get(f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Max Müller (junior)" in page and f"#{first.pk}" not in page and f"#{second.pk}" not in page


def test_the_console_lists_namesakes_without_ids_and_sets_the_addition(world, namesakes):
    from tournaments.models import AuditEntry

    first, second = namesakes
    event = world.events["mu"]
    client = Client()
    client.force_login(world.club_organiser)
    url = f"/console/events/{event.pk}/players/"
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Max Müller (1)" in page and "Max Müller (junior)" in page
    assert f"#{first.pk}" not in page and f"#{second.pk}" not in page
    assert f'action="{url}{first.pk}/distinction/"' in page
    response = client.post(f"{url}{first.pk}/distinction/", {"distinction": "senior"})
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.distinction == "senior"
    entry = AuditEntry.objects.get(action="player_changed", object_id=first.pk)
    assert entry.via == "page" and entry.after == {"distinction": "senior"}
    assert names_for(None, namesakes) == {first.pk: "Max Müller (senior)", second.pk: "Max Müller (junior)"}
    # An event organiser who does not organise the player's club may not rename him.
    other = Client()
    other.force_login(world.organiser)
    assert other.post(f"{url}{first.pk}/distinction/", {"distinction": "x"}).status_code == 403
    # Added with an addition from the start.
    client.post(url, {"name": "Max Müller", "club": world.club.pk, "distinction": "from Bonn",
                      "confirm_duplicate": "True"})
    from tournaments.models import Player

    assert Player.objects.get(distinction="from Bonn").name == "Max Müller"


def test_the_leaderboard_tells_them_apart(world, namesakes, django_capture_on_commit_callbacks):
    from tournaments.results import services as results

    first, second = namesakes
    event = world.events["mu"]
    event.mu_fixed_deals = 1
    event.save()
    table = event.rounds.get(number=1).tables.get(number=1)
    with django_capture_on_commit_callbacks(execute=True):  # the ratings' sync, queued on commit
        results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("mu", random.Random(5), 4, None)), by_user=world.organiser)
    html = Client().get("/leaderboard/mu/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'href="/players/{first.pk}/">Max Müller (1)</a>' in html
    assert f'href="/players/{second.pk}/">Max Müller (junior)</a>' in html


def test_the_player_page_names_him_as_everywhere(world, namesakes):
    first, second = namesakes
    html = Client().get(f"/players/{second.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<h1>Max Müller (junior)</h1>" in html


@pytest.mark.django_db
def test_the_names_of_many_players_are_read_in_one_query_with_their_ids_as_one_parameter_on_postgresql():
    from django.db import connection

    from tournaments import policy
    from tournaments.models import Player

    players = Player.objects.bulk_create(Player(name=f"Many {i}", shown_name=f"M. {i}") for i in range(120))
    executed = []

    def recorded(execute, sql, params, many, context):
        executed.append(params)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(recorded):
        names = policy.public().names(players)
    assert names == {player.pk: f"Many {i}" for i, player in enumerate(players)}
    assert len(executed) == 1
    if connection.vendor == "postgresql":
        # The ids as one array (``= ANY(%s)``), the same statement whatever their number (psycopg
        # converts a statement of up to 50 parameters once), not a parameter per id and use.
        assert len(executed[0]) < 10
