"""The organisers' console, page by page (Django's test client): who may use it, and that every
change goes through the services with ``via="page"``."""
from __future__ import annotations

import json
import random
import re

import pytest
from django.test import Client

from tests.api.play import next_record


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    settings.STORAGES = {
        **settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def audit(action: str):
    from tournaments.models import AuditEntry

    return AuditEntry.objects.filter(action=action)


@pytest.fixture
def evening(world):
    """An unpublished Mü event of the world's club, created by its club organiser, with no rounds."""
    from tournaments import services

    return services.event_create(by_user=world.club_organiser, club=world.club, name="Friday", game="mu",
                                 mu_fixed_deals=4)


def test_the_console_needs_a_login(db):
    response = Client().get("/console/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    page = Client().get("/accounts/login/?next=/console/")
    assert page.status_code == 200 and b'name="password"' in page.content


def test_an_organiser_logs_in_and_sees_only_his_events(world):
    client = Client()
    response = client.post("/accounts/login/", {"username": "other_organiser", "password": "pw-other_organiser"})
    assert response.status_code == 302 and response["Location"] == "/console/"
    html = client.get("/console/").content.decode()
    assert "other cup" in html and "mu cup" not in html
    assert "New event" not in html  # he organises no club
    assert client.get(f"/console/events/{world.events['mu'].pk}/").status_code == 403
    assert client.get("/console/events/new/").status_code == 403


def test_an_unpublished_event_of_someone_else_is_not_found(world, evening):
    assert logged_in(world.other_organiser).get(f"/console/events/{evening.pk}/").status_code == 404


def test_creating_an_event_explains_every_option_and_starts_unpublished(world):
    from tournaments.models import Event

    client = logged_in(world.club_organiser)
    form = client.get("/console/events/new/").content.decode()
    for words in ("reaches this score", "fixed number of deals", "games per series", "per minus point",
                  "Placement points: 1 for first place"):
        assert words in form
    response = client.post("/console/events/new/", {
        "club": world.club.pk, "name": "Herbstabend", "game": "mu", "mu_target_score": 200, "mu_fixed_deals": "",
        "maumau_games_per_series": 8, "maumau_stake_cents": 10, "metric_1": "placement", "metric_2": "total",
        "metric_3": "",
    })
    event = Event.objects.get(name="Herbstabend")
    assert response.status_code == 302 and response["Location"] == f"/console/events/{event.pk}/"
    assert not event.published and event.standings_metrics == "placement,total"
    assert list(event.organisers.all()) == [world.club_organiser]
    assert audit("event_created").get(object_id=event.pk).via == "page"
    page = client.get(f"/console/events/{event.pk}/").content.decode()
    assert "Not public yet." in page and "reaches 200 points" in page
    client.post(f"/console/events/{event.pk}/publish/", {"published": "1"})
    event.refresh_from_db()
    assert event.published


def test_the_same_ranking_twice_is_refused(world):
    client = logged_in(world.club_organiser)
    response = client.post("/console/events/new/", {
        "club": world.club.pk, "name": "Twice", "game": "mu", "mu_target_score": 200,
        "maumau_games_per_series": 8, "maumau_stake_cents": 10, "metric_1": "wins", "metric_2": "wins",
    })
    assert response.status_code == 400 and "only once" in response.content.decode()


def test_club_organisers_add_organisers(world, evening):
    client = logged_in(world.club_organiser)
    client.post(f"/console/events/{evening.pk}/organisers/", {"username": "other_organiser"})
    assert set(evening.organisers.values_list("username", flat=True)) == {"club_organiser", "other_organiser"}
    # An event organiser who does not organise the club cannot name organisers.
    assert logged_in(world.other_organiser).post(
        f"/console/events/{evening.pk}/organisers/", {"username": "staff"}).status_code == 403


def test_players_are_added_checked_in_and_duplicates_flagged(world, evening):
    from tournaments.models import Attendance, Player

    client = logged_in(world.club_organiser)
    url = f"/console/events/{evening.pk}/players/"
    client.post(url, {"name": "Anna Becker", "club": world.club.pk, "check_in": "on"})
    first = Player.objects.get(name="Anna Becker")
    assert Attendance.objects.get(event=evening, player=first).present
    assert audit("player_checked_in").get(object_id=first.pk).via == "page"
    # The same name again: a warning first, then "add anyway".
    warned = client.post(url, {"name": "anna  becker", "club": world.club.pk}).content.decode()
    assert "There is already a anna  becker in Testclub" in warned and "Add anyway" in warned
    assert Player.objects.filter(name__iexact="anna  becker").count() == 0
    client.post(url, {"name": "Anna Becker", "club": world.club.pk, "confirm_duplicate": "True"})
    assert Player.objects.filter(name="Anna Becker").count() == 2
    page = client.get(url).content.decode()
    assert page.count("2 Anna Becker in this club") == 2
    found = client.get(url, {"q": "becker"}).content.decode()
    assert found.count('class="person') == 2 and "Player 03" not in found
    # Checking out keeps the row: a dropout, not a stranger.
    client.post(f"{url}{first.pk}/attendance/", {"present": "0"})
    assert not Attendance.objects.get(event=evening, player=first).present
    assert audit("player_checked_out").count() == 1


def test_the_draw_seats_the_present_players_and_reports_in_words(world):
    from tournaments import services
    from tournaments.models import Round

    event = world.events["mu"]  # round 1 has three tables of four
    organiser = world.organiser
    for player in world.players:
        services.player_check_in(event=event, player=player, by_user=organiser)
    round_ = Round.objects.create(event=event, number=2)
    client = logged_in(organiser)
    client.post(f"/console/rounds/{round_.pk}/draw/")
    round_.refresh_from_db()
    assert sorted(p for t in round_.draft["tables"] for p in t["players"]) == sorted(p.pk for p in world.players)
    assert round_.draft["quality"]["repeated_pairs_lower_bound"] == 3
    page = client.get(f"/console/rounds/{round_.pk}/").content.decode()
    assert "3 pairs meet again — the fewest possible for 12 players in round 2." in page
    assert "Player 00" in page and 'data-player="%d"' % world.players[0].pk in page
    # A dropout: the page says so, the next draw leaves him out.
    services.player_check_out(event=event, player=world.players[5], by_user=organiser)
    page = client.get(f"/console/rounds/{round_.pk}/").content.decode()
    assert "Left since this draw: Player 05" in page
    client.post(f"/console/rounds/{round_.pk}/draw/")
    round_.refresh_from_db()
    assert world.players[5].pk not in round_.draft["players"]
    # Swap two players, then publish.
    a, b = round_.draft["tables"][0]["players"][0], round_.draft["tables"][1]["players"][0]
    client.post(f"/console/rounds/{round_.pk}/swap/", {"a": a, "b": b})
    round_.refresh_from_db()
    assert round_.draft["tables"][0]["players"][0] == b
    assert audit("draw_swapped").get().via == "page"
    client.post(f"/console/rounds/{round_.pk}/publish/")
    assert round_.tables.count() == 3 and audit("draw_published").get().via == "page"


def test_the_board_shows_each_table_and_hands_are_corrected_and_voided(world):
    from tournaments.models import AuditEntry, Hand
    from tournaments.results import services as results

    event = world.events["mu"]
    event.mu_fixed_deals = 4
    event.save()
    round_ = event.rounds.get(number=1)
    tables = list(round_.tables.order_by("number"))
    rng = random.Random(3)
    summary = None
    for _ in range(4):  # table 1 finishes
        record = next_record("mu", rng, 4, summary)
        summary = results.hand_submit(table_id=tables[0].pk, entry=results.Entry(record), by_user=world.organiser).receipt["session"]
    results.hand_submit(table_id=tables[1].pk, entry=results.Entry(next_record("mu", rng, 4, None)),
                        by_user=world.organiser)
    client = logged_in(world.organiser)
    board = client.get(f"/console/rounds/{round_.pk}/?fragment=board").content.decode()
    assert board.count('data-state="finished"') == 1
    assert board.count('data-state="playing"') == 1 and "1 hand of 4" in board
    assert board.count('data-state="waiting"') == 1
    hand = Hand.objects.get(session__table=tables[1], number=1)
    sheet = client.get(f"/console/tables/{tables[1].pk}/").content.decode()
    assert f'id="hand-{hand.pk}"' in sheet and "Correct or void hand 1" in sheet
    # Correct: the record pasted back (here: another legal first hand), with a reason.
    other = next_record("mu", random.Random(99), 4, {"next": {"dealer": hand.dealer, "direction": None}})
    client.post(f"/console/hands/{hand.pk}/correct/", {"record": json.dumps(other), "reason": "typo"})
    hand.refresh_from_db()
    assert hand.version == 2 and hand.record == other
    assert AuditEntry.objects.get(action="hand_corrected").via == "page"
    # Not JSON: nothing changes, the page says why.
    response = client.post(f"/console/hands/{hand.pk}/correct/", {"record": "{oops", "reason": "x"}, follow=True)
    assert "not valid JSON" in response.content.decode()
    client.post(f"/console/hands/{hand.pk}/void/", {"reason": "misdeal"})
    hand.refresh_from_db()
    assert hand.voided and AuditEntry.objects.get(action="hand_voided").reason == "misdeal"
    # Someone who does not organise the event cannot.
    assert logged_in(world.other_organiser).post(
        f"/console/hands/{hand.pk}/void/", {"reason": "x"}).status_code == 403


def test_rounds_are_held_back_and_released(world):
    event = world.events["mu"]
    round_ = event.rounds.get(number=1)
    client = logged_in(world.organiser)
    client.post(f"/console/rounds/{round_.pk}/hold/", {"held": "1", "reason": "prize-giving"})
    round_.refresh_from_db()
    assert round_.results_held and audit("round_held").get().reason == "prize-giving"
    assert "Release the results" in client.get(f"/console/rounds/{round_.pk}/").content.decode()
    client.post(f"/console/rounds/{round_.pk}/hold/", {"held": "0"})
    round_.refresh_from_db()
    assert not round_.results_held


def test_maumau_payments_are_ticked_paid(world):
    from tournaments.models import Transfer
    from tournaments.results import services as results

    event = world.events["maumau"]
    event.maumau_games_per_series = 2
    event.save()
    table = event.rounds.get(number=1).tables.order_by("number").first()
    rng = random.Random(7)
    summary = None
    while summary is None or summary["status"] == "open":
        summary = results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("maumau", rng, 4, summary)),
                                      by_user=world.organiser).receipt["session"]
    transfer = Transfer.objects.filter(session__table=table).first()
    if transfer is None:
        pytest.skip("this series settled to zero")
    client = logged_in(world.organiser)
    page = client.get(f"/console/events/{event.pk}/money/").content.decode()
    assert f'id="transfer-{transfer.pk}"' in page and "pays" in page
    client.post(f"/console/transfers/{transfer.pk}/paid/")
    transfer.refresh_from_db()
    assert transfer.paid and audit("transfer_paid").get().via == "page"


def test_all_rounds_are_planned_at_once_for_a_fixed_roster(world, evening):
    from tournaments import services

    for player in world.players:
        services.player_check_in(event=evening, player=player, by_user=world.club_organiser)
    client = logged_in(world.club_organiser)
    response = client.post(f"/console/events/{evening.pk}/plan/", {"rounds": 3})
    assert response.status_code == 302 and response["Location"] == f"/console/events/{evening.pk}/schedule/"
    rounds = list(evening.rounds.order_by("number"))
    assert [r.number for r in rounds] == [1, 2, 3] and all(r.draft and r.draft["planned"] for r in rounds)
    meetings = {}
    for round_ in rounds:
        for table in round_.draft["tables"]:
            for i, a in enumerate(table["players"]):
                for b in table["players"][i + 1:]:
                    meetings[frozenset((a, b))] = meetings.get(frozenset((a, b)), 0) + 1
    # 12 players in three tables of 4 over 3 rounds: 54 seatings of pairs among 66 pairs; the
    # planner keeps repeats to what round 2's pigeonhole forces and no pair meets three times.
    assert max(meetings.values()) <= 2
    schedule = client.get(f"/console/events/{evening.pk}/schedule/").content.decode()
    assert schedule.count("Table 1") == 3 and "Player 00" in schedule
    assert audit("draw_planned").get().via == "page"


def test_the_board_shows_a_table_waiting_for_confirmation(world):
    """A hand entered by one seat of an event with second-player confirmation: the board says the
    table waits for a confirmation, and no longer once another seat confirmed."""
    import random

    from tests.api.play import next_record
    from tournaments.console.views import board
    from tournaments.results import services as results

    event = world.events["lut"]
    event.confirm_hands = True
    event.save(update_fields=["confirm_hands"])
    round_ = event.rounds.get(number=1)
    table = round_.tables.get(number=2)
    record = next_record("lut", random.Random(2), 4, None, table.first_dealer)
    receipt = results.hand_submit(table_id=table.pk, entry=results.Entry(record, seat=0)).receipt
    states = {row["table"].pk: row["state"] for row in board(round_, {})}
    assert states[table.pk] == "confirming"
    hand = table.sessions.get().hands.get(pk=receipt["hand"]["id"])
    results.hand_confirm(hand=hand, seat=1)
    states = {row["table"].pk: row["state"] for row in board(round_, {})}
    assert states[table.pk] == "playing"


def test_the_board_reads_the_same_number_of_queries_for_any_number_of_started_tables(world, django_assert_num_queries):
    """The board reads every table's session with its kept totals, hand count and hands that
    wait in one query: a started table costs no query of its own."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments.console.views import board
    from tournaments.results import services as results

    round_ = world.events["mu"].rounds.get(number=1)
    tables = list(round_.tables.order_by("number"))
    assert len(tables) >= 3
    rng = random.Random(5)

    def start(table):
        record = next_record("mu", rng, 4, None, table.first_dealer)
        results.hand_submit(table_id=table.pk, entry=results.Entry(record), by_user=world.organiser)

    start(tables[0])
    with CaptureQueriesContext(connection) as one:
        rows = board(round_, {})
    assert [row["hands"] for row in rows][:2] == [1, 0]
    for table in tables[1:]:
        start(table)
    with django_assert_num_queries(len(one)):
        rows = board(round_, {})
    assert all(row["hands"] == 1 and row["state"] == "playing" for row in rows)
    for row in rows:
        totals = results.session_summary(row["table"].sessions.get())["totals"]
        assert [seat["total"] for seat in row["seats"]] == totals


def test_the_event_form_stores_the_format_and_keeps_the_date(world):
    """Issue 38: "Open club night" is stored (create and edit), and the date is rendered as ISO
    (``<input type="date">`` takes nothing else), so saving the form keeps it."""
    import datetime

    from tournaments import services
    from tournaments.models import Event

    client = logged_in(world.club_organiser)
    form = {"club": world.club.pk, "name": "Clubabend", "game": "mu", "starts_on": "2026-12-05",
            "format": "open", "mu_target_score": 200, "metric_1": "placement", "metric_2": "total", "metric_3": ""}
    for language in ("en", "de", "fi"):
        page = client.get("/console/events/new/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert 'name="format" value="open"' in page
    assert client.post("/console/events/new/", form).status_code == 302
    event = Event.objects.get(name="Clubabend")
    assert event.format == "open" and event.starts_on == datetime.date(2026, 12, 5)
    for language in ("en", "de", "fi"):
        edit = client.get(f"/console/events/{event.pk}/edit/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert 'type="date" name="starts_on" value="2026-12-05"' in edit, language
    # Edited back and forth while it has no rounds.
    assert client.post(f"/console/events/{event.pk}/edit/", {**form, "format": "rounds"}).status_code == 302
    assert Event.objects.get(pk=event.pk).format == "rounds"
    assert client.post(f"/console/events/{event.pk}/edit/", {**form, "format": "open"}).status_code == 302
    event.refresh_from_db()
    assert event.format == "open" and event.starts_on == datetime.date(2026, 12, 5)
    # Once a round exists the format is fixed: the field is shown disabled and a posted change ignored.
    services.round_create(event=event, by_user=world.club_organiser)
    edit = client.get(f"/console/events/{event.pk}/edit/").content.decode()
    assert re.search(r'<input type="radio" name="format" value="open"[^>]*disabled', edit)
    assert client.post(f"/console/events/{event.pk}/edit/", {**form, "format": "rounds", "name": "Clubabend 2"}
                       ).status_code == 302
    event.refresh_from_db()
    assert event.format == "open" and event.name == "Clubabend 2"
