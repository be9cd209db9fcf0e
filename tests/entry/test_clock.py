"""The round's clock across start, pause, resume, extend and end, at moments the test names (no
sleeps): the time left is computed here by hand from the moments."""
from __future__ import annotations

import datetime as dt

import pytest

from tests.conftest import client_for
from tournaments.entry import clock
from tournaments.errors import Conflict, Invalid
from tournaments.models import AuditEntry

T0 = dt.datetime(2026, 11, 28, 19, 0, tzinfo=dt.timezone.utc)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


@pytest.fixture
def round_(world):
    return world.events["mu"].rounds.get()


def change(round_, world, action, seconds, minutes=None):
    return clock.change(round_=round_, action=action, by_user=world.organiser, minutes=minutes, now=at(seconds))


def test_the_clock_across_pause_and_extend(round_, world):
    assert clock.reading(round_, at(0)).state == clock.State.UNSET
    ready = change(round_, world, "set", 0, minutes=45)
    assert (ready.state, ready.left) == (clock.State.READY, 45 * 60)
    running = change(round_, world, "start", 10)
    assert running.state == clock.State.RUNNING and running.ends_at == at(10 + 45 * 60)
    round_.refresh_from_db()
    # 20 minutes in: 25 left.
    assert clock.reading(round_, at(10 + 20 * 60)).left == 25 * 60
    paused = change(round_, world, "pause", 10 + 20 * 60)
    assert (paused.state, paused.left, paused.ends_at) == (clock.State.PAUSED, 25 * 60, None)
    round_.refresh_from_db()
    # A pause of ten minutes costs nothing.
    assert clock.reading(round_, at(10 + 30 * 60)).left == 25 * 60
    resumed = change(round_, world, "resume", 10 + 30 * 60)
    assert resumed.ends_at == at(10 + 30 * 60 + 25 * 60)
    extended = change(round_, world, "extend", 10 + 40 * 60, minutes=5)
    # Ten minutes after resuming: 15 left, and 5 more.
    assert extended.left == 20 * 60 and extended.seconds == 50 * 60
    assert extended.ends_at == at(10 + 40 * 60 + 20 * 60)
    round_.refresh_from_db()
    # 30.5 seconds before the end: 31 whole seconds shown (a second begun counts).
    assert clock.reading(round_, at(10 + 60 * 60 - 30.5)).left == 31
    over = clock.reading(round_, at(10 + 60 * 60))
    assert over.state == clock.State.OVER and over.left == 0
    # Ran out: an extension starts it again from now, the time after the end not counted.
    again = change(round_, world, "extend", 10 + 70 * 60, minutes=3)
    assert again.state == clock.State.RUNNING and again.ends_at == at(10 + 70 * 60 + 3 * 60)
    ended = change(round_, world, "end", 10 + 71 * 60)
    assert ended.state == clock.State.OVER
    round_.refresh_from_db()
    assert clock.reading(round_, at(10 + 71 * 60 + 1)).over
    actions = list(AuditEntry.objects.filter(action="clock_changed", object_id=round_.pk)
                   .order_by("id").values_list("data__action", flat=True))
    assert actions == ["set", "start", "pause", "resume", "extend", "extend", "end"]


def test_what_the_clock_refuses(round_, world):
    with pytest.raises(Conflict):
        change(round_, world, "start", 0)  # no length
    change(round_, world, "set", 0, minutes=10)
    with pytest.raises(Conflict):
        change(round_, world, "pause", 1)  # not running
    with pytest.raises(Conflict):
        change(round_, world, "extend", 1, minutes=5)  # not started
    with pytest.raises(Invalid):
        change(round_, world, "set", 1, minutes=0)
    change(round_, world, "start", 2)
    with pytest.raises(Conflict):
        change(round_, world, "set", 3, minutes=20)  # under way: extend or end it
    before = AuditEntry.objects.count()
    assert change(round_, world, "start", 4).state == clock.State.RUNNING  # again: nothing changes
    assert AuditEntry.objects.count() == before


@pytest.mark.django_db(transaction=True)  # each change commits, as a request's does: the live version moves
def test_every_screen_gets_the_same_clock_and_the_version_moves(round_, world):
    from tournaments import live

    version = live.current_version(round_.event_id)
    change(round_, world, "set", 0, minutes=30)
    assert live.current_version(round_.event_id) != version  # the screens' fragments are rendered anew
    clock.change(round_=round_, action="start", by_user=world.organiser)
    public = client_for().get(f"/api/v1/rounds/{round_.pk}/clock/").json()
    organiser = client_for(world.organiser).get(f"/api/v1/rounds/{round_.pk}/clock/").json()
    assert public["ends_at"] == organiser["ends_at"] and public["state"] == "running"
    assert public["rule"] == "finish_deal"
    ends = dt.datetime.fromisoformat(public["ends_at"])
    now = dt.datetime.fromisoformat(public["now"])
    assert abs((ends - now).total_seconds() - public["left"]) <= 1
    table = round_.tables.first()
    sheet = client_for().get(f"/t/{table.scorer_token}/clock/").json()
    assert sheet["ends_at"] == public["ends_at"]
    page = client_for().get(f"/t/{table.scorer_token}/").content.decode()
    ends_ms = int(ends.timestamp() * 1000)
    assert f'data-ends-at="{ends_ms}"' in page and "data-server-now=" in page
    screen = client_for().get(f"/events/{round_.event_id}/screen/").content.decode()
    assert f'data-ends-at="{ends_ms}"' in screen


def test_the_sheet_says_the_rule_when_the_time_is_up(round_, world):
    event = round_.event
    event.clock_rule = "no_new_deal"
    event.save()
    change(round_, world, "set", 0, minutes=1)
    clock.change(round_=round_, action="start", by_user=world.organiser)
    clock.change(round_=round_, action="end", by_user=world.organiser)
    table = round_.tables.first()
    page = client_for().get(f"/t/{table.scorer_token}/").content.decode()
    over = page.split("data-clock-over", 1)[1].split("</p>", 1)[0]
    assert "hidden" not in over.split(">", 1)[0] and "no new deal" in over


def test_the_api_changes_the_clock_for_organisers_only(round_, world):
    url = f"/api/v1/rounds/{round_.pk}/clock/"
    assert client_for().post(url, {"action": "set", "minutes": 30}, format="json").status_code == 401
    assert client_for(world.other_organiser).post(url, {"action": "set", "minutes": 30},
                                                  format="json").status_code == 403
    organiser = client_for(world.organiser)
    assert organiser.post(url, {"action": "start"}, format="json").status_code == 409
    assert organiser.post(url, {"action": "set", "minutes": 0}, format="json").status_code == 400
    assert organiser.post(url, {"action": "fly"}, format="json").status_code == 400
    answer = organiser.post(url, {"action": "set", "minutes": 30}, format="json")
    assert answer.status_code == 200 and answer.json()["left"] == 1800 and answer.json()["state"] == "ready"


def test_the_console_runs_the_clock(round_, world):
    from django.test import Client

    organiser = Client()
    organiser.force_login(world.organiser)
    page = f"/console/rounds/{round_.pk}/"
    assert "clock-set" in organiser.get(page).content.decode()
    organiser.post(f"{page}clock/", {"action": "set", "minutes": "20"})
    organiser.post(f"{page}clock/", {"action": "start"})
    round_.refresh_from_db()
    assert clock.reading(round_).state == clock.State.RUNNING and round_.clock_seconds == 1200
    assert 'id="clock-pause"' in organiser.get(page).content.decode()
    organiser.post(f"{page}clock/", {"action": "extend", "minutes": "x"})  # refused: nothing changes
    round_.refresh_from_db()
    assert round_.clock_seconds == 1200
    other = Client()
    other.force_login(world.other_organiser)
    assert other.post(f"{page}clock/", {"action": "end"}).status_code in (403, 404)
    round_.refresh_from_db()
    assert not round_.clock_ended
