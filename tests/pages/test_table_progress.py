"""One read of how each table is doing (tournaments/standings/tables.py), shown three times: the
console's board, the room screen and ``GET /api/v1/events/{id}/tables/`` say the same of a round
built hand by hand with a table in each state — not started, in progress, waiting for a second
player's confirmation, finished and abandoned (with a hand still waiting: abandoned wins)."""
from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from tests.api.play import next_record
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db

# Table number → the state every reader must name (the pages' data-state, the API's state).
EXPECTED = {1: ("waiting", "not_started"), 2: ("playing", "in_progress"), 3: ("confirming", "confirming"),
            4: ("finished", "finished"), 5: ("abandoned", "abandoned")}


@pytest.fixture
def round_():
    """A published Mü event of four deals where a second player confirms each hand, one round of
    five tables: 1 not started; 2 one hand; 3 one hand and a second one entered by a seat that
    waits; 4 four hands (finished); 5 a hand that waits, then abandoned by the organiser."""
    from tournaments import services
    from tournaments.results import services as results

    organiser = make_user("progress_organiser")
    club = services.club_create(by_user=None, name="Progress Club", organisers=[organiser])
    players = [services.player_create(by_user=organiser, name=f"Spieler {n:02d}", clubs=[club]) for n in range(20)]
    event = services.event_create(by_user=organiser, club=club, name="Progress Cup", game="mu", published=True,
                                  mu_fixed_deals=4, confirm_hands=True)
    round_ = services.round_create(event=event, by_user=organiser)
    tables = [services.table_create(round_=round_, players=players[4 * n:4 * n + 4], by_user=organiser)
              for n in range(5)]
    rng = random.Random(36)

    def hands(table, count, *, confirmed=True):
        summary = None
        for _ in range(count):
            record = next_record("mu", rng, 4, summary, table.first_dealer)
            if confirmed:  # an organiser's hand counts at once
                submission = results.hand_submit(table_id=table.pk, entry=results.Entry(record), by_user=organiser)
            else:  # a seat's hand waits for another seat
                submission = results.hand_submit(table_id=table.pk, entry=results.Entry(record, seat=0))
            summary = submission.receipt["session"]
        return summary

    hands(tables[1], 1)
    summary = hands(tables[2], 1)
    results.hand_submit(table_id=tables[2].pk, by_user=None, entry=results.Entry(
        next_record("mu", rng, 4, summary, tables[2].first_dealer), seat=0))
    hands(tables[3], 4)
    hands(tables[4], 1, confirmed=False)
    results.session_abandon(session=tables[4].sessions.get(), by_user=organiser, reason="the pub closes")
    round_.organiser = organiser
    return round_


def _states(html: str) -> dict[int, str]:
    return {int(number): state for number, state in re.findall(r'data-table="(\d+)" data-state="(\w+)"', html)}


def test_the_board_the_room_screen_and_the_api_agree_on_each_table(round_):
    from tournaments import policy
    from tournaments.console.views import board
    from tournaments.standings.tables import round_progress

    event = round_.event
    progress = round_progress(event, visibility=policy.public())
    assert progress.round_number == round_.number and progress.finished == 2
    room = {table.number: table for table in progress.tables}
    assert {number: table.state for number, table in room.items()} == {n: page for n, (page, _) in EXPECTED.items()}
    assert [room[n].waiting for n in range(1, 6)] == [0, 0, 1, 0, 1]
    assert [room[n].hands for n in range(1, 6)] == [0, 1, 2, 4, 1]

    # The console's board: the same states, hands and totals.
    rows = {row["table"].number: row for row in board(round_, {})}
    assert {n: row["state"] for n, row in rows.items()} == {n: page for n, (page, _) in EXPECTED.items()}
    assert {n: [seat["total"] for seat in row["seats"]] for n, row in rows.items()} == \
        {n: table.totals for n, table in room.items()}
    organiser = Client()
    organiser.force_login(round_.organiser)
    page = organiser.get(f"/console/rounds/{round_.pk}/?fragment=board", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert _states(page) == {n: state for n, (state, _) in EXPECTED.items()}
    assert "2 of 5 tables finished" in page and "waiting for confirmation" in page

    # The room screen.
    screen = Client().get(f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert _states(screen) == {n: state for n, (state, _) in EXPECTED.items()}
    assert 'data-finished="2" data-tables="5"' in screen

    # The API: its own spelling of the same states, the same counts and totals.
    body = client_for().get(f"/api/v1/events/{event.pk}/tables/").json()
    api = {row["number"]: row for row in body["tables"]}
    assert {n: row["state"] for n, row in api.items()} == {n: state for n, (_, state) in EXPECTED.items()}
    assert {n: (row["hands"], row["waiting_for_confirmation"], [p["total"] for p in row["players"]])
            for n, row in api.items()} == {n: (t.hands, t.waiting, t.totals) for n, t in room.items()}
    assert {n: row["last_hand_at"] is None for n, row in api.items()} == {n: n == 1 for n in EXPECTED}


def test_the_api_documents_the_confirming_state():
    from tests.openapi_check import served_schema

    schemas = served_schema()["components"]["schemas"]
    state = schemas["TableState"]["properties"]["state"]
    enum = schemas[state["allOf"][0]["$ref"].rsplit("/", 1)[1]]["enum"]
    assert set(enum) == {"not_started", "in_progress", "confirming", "finished", "abandoned"}
    assert "confirming:" in state["description"]


def test_a_table_state_follows_one_rule():
    """Abandoned beats a waiting hand; a waiting hand beats the session's own state (finished
    included: the hand does not count until confirmed); no hand is not started."""
    from types import SimpleNamespace

    from tournaments.models import Session
    from tournaments.standings.tables import TableState, table_state

    def session(status, hands=4):
        return SimpleNamespace(status=status, hand_count=hands)

    assert table_state(None, waiting=0) is TableState.WAITING
    assert table_state(session(Session.Status.OPEN, 0), waiting=0) is TableState.WAITING
    assert table_state(session(Session.Status.OPEN, 2), waiting=0) is TableState.PLAYING
    assert table_state(session(Session.Status.OPEN, 2), waiting=1) is TableState.CONFIRMING
    assert table_state(session(Session.Status.FINISHED), waiting=1) is TableState.CONFIRMING
    assert table_state(session(Session.Status.FINISHED), waiting=0) is TableState.FINISHED
    assert table_state(session(Session.Status.ABANDONED, 0), waiting=0) is TableState.ABANDONED
    assert table_state(session(Session.Status.ABANDONED), waiting=2) is TableState.ABANDONED
