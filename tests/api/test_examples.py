"""Every request example of the API description is sent to the service and gets its documented
answer: the success status of its operation, or 422 for the engine's refused example. The ids in an
example (club 1, players 1 to 9, event 1, ...) are replaced by those of the test club's objects."""
from __future__ import annotations

import random

import pytest

from tests import openapi_check
from tests.api.play import next_record, play_session
from tests.conftest import client_for

REFUSED = {"Card points that do not add up"}  # the engine's example of a rejected record: 422


def _examples():
    cases = []
    for path, operations in openapi_check.served_schema()["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            for name, example in content.get("examples", {}).items():
                if "value" in example:
                    cases.append(pytest.param(path, method, operation, example, id=f"{operation['operationId']}-{name}"))
    return cases


def _write_operations():
    return [(path, method, operation) for path, operations in openapi_check.served_schema()["paths"].items()
            for method, operation in operations.items() if method in ("post", "put", "patch")
            and "requestBody" in operation]


def test_every_write_operation_with_a_body_has_an_example(db):
    missing = [operation["operationId"] for _, _, operation in _write_operations()
               if not operation["requestBody"]["content"]["application/json"].get("examples")]
    assert not missing, missing


class Stage:
    """The objects an example's ids stand for, and who sends it."""

    def __init__(self, w):
        self.w = w
        self.user = w.organiser
        self.headers: dict = {}
        self.path_id = None
        self.ids = {"club": w.club.pk, "event": w.events["maumau"].pk,
                    "round": w.events["maumau"].rounds.get().pk, "series": None}

    def player(self, number: int) -> int:
        return self.w.players[number - 1].pk

    def substitute(self, value, key: str | None = None, listed: bool = False):
        if key == "record":  # a hand record: ids of seats, not of objects
            return value
        if isinstance(value, dict):
            return {name: self.substitute(item, name) for name, item in value.items()}
        if isinstance(value, list):
            return [self.substitute(item, key, listed=True) for item in value]
        if (key in ("players", "add", "remove") and listed or key in ("a", "b")) and isinstance(value, int):
            return self.player(value)
        if key == "player" and isinstance(value, int):  # one player (a check-in): the club's first
            return self.player(1)
        if key in ("clubs",):
            return self.ids["club"]
        if key in ("club", "event", "round") and isinstance(value, int):
            return self.ids[key]
        if key == "token":  # a registration's withdrawal token
            return self.ids["token"]
        if key == "organisers":
            return self.user.pk
        return value


def _maumau_hand(w, *, scorer: bool = False):
    from tournaments import policy
    from tournaments.results import services as results

    table = w.events["maumau"].rounds.get().tables.order_by("number").first()
    record = next_record("maumau", random.Random(3), 4, None, table.first_dealer)
    if scorer:
        entry = results.Entry(record, credentials=policy.Credentials(scorer_token=table.scorer_token, seat=0))
    else:
        entry = results.Entry(record)
    receipt = results.hand_submit(table_id=table.pk, entry=entry).receipt
    return table, receipt


def _stage(w, operation_id: str, body: dict) -> Stage:  # noqa: C901 - one branch per operation
    from tournaments import services
    from tournaments.draws import services as draws
    from tournaments.models import Attendance, Event, Round, Series, Table, Transfer
    from tournaments.results import services as results

    stage = Stage(w)
    maumau = w.events["maumau"]
    resource = operation_id.split("_", 1)[0]
    if operation_id.startswith(("events_registration", "registrations_")):
        from tournaments.entry import registration as registrations

        maumau.registration_open = True
        maumau.save(update_fields=["registration_open"])
        stage.path_id = maumau.pk
        if operation_id != "events_registration_create":
            registration = registrations.register(event=maumau, name="Katrin Zimmermann")
            stage.ids["token"], stage.path_id, stage.user = registration.token, registration.pk, w.organiser
        if operation_id in ("events_registration_create", "registrations_withdraw_by_token_create"):
            stage.user = None  # anyone, without an account
        return stage
    if operation_id == "rounds_clock_create":
        from tournaments.entry import clock

        stage.path_id = stage.ids["round"]
        if body.get("action") == "extend":  # a clock under way
            clock.change(round_=maumau.rounds.get(), action="set", minutes=30, by_user=w.organiser)
            clock.change(round_=maumau.rounds.get(), action="start", by_user=w.organiser)
        return stage
    if resource == "clubs":
        stage.user = w.staff if operation_id == "clubs_create" else w.club_organiser
        stage.path_id = w.club.pk
    elif resource == "players":
        stage.user, stage.path_id = w.club_organiser, w.players[5].pk
    elif operation_id == "me_player_partial_update":
        stage.user = w.player_user  # his own player (a user linked to a player)
    elif resource == "events" and operation_id != "events_open_table_create":
        stage.user = w.club_organiser if operation_id == "events_create" else w.organiser
        stage.path_id = maumau.pk
        if operation_id == "events_seating_script_update":  # its players by start number: eight checked in
            for number in range(1, 9):
                Attendance.objects.create(event=maumau, player_id=stage.player(number), present=True)
    elif resource == "series":
        stage.user = w.club_organiser
        stage.path_id = Series.objects.create(club=w.club, name="Saison", game="maumau").pk
    elif operation_id in ("rounds_create", "rounds_update", "rounds_partial_update"):
        stage.path_id = stage.ids["round"]
    elif operation_id.startswith("rounds_draw"):
        round_ = Round.objects.create(event=maumau, number=2)
        stage.path_id = round_.pk
        if "players" not in body:  # a swap, late arrivals, dropouts: of a draw already made
            draws.draw_preview(round_, by_user=w.organiser, players=[stage.player(n) for n in range(1, 9)], seed=1)
    elif operation_id == "tables_create":
        stage.ids["round"] = Round.objects.create(event=maumau, number=2).pk
    elif resource == "tables" and operation_id != "tables_hands_create":
        stage.path_id = Table.objects.get(round_id=stage.ids["round"], number=1).pk
    elif operation_id == "sessions_abandon_create":
        table, receipt = _maumau_hand(w)
        stage.path_id = receipt["session"]["id"]
    elif operation_id == "transfers_unpaid_create":
        table = maumau.rounds.get().tables.order_by("number").first()
        play_session(client_for(w.organiser), table, "maumau", random.Random(5))
        transfer = Transfer.objects.filter(session__table=table).first()
        results.transfer_mark_paid(transfer=transfer, by_user=w.organiser)
        stage.path_id = transfer.pk
    elif operation_id in ("hands_void_create", "hands_confirm_create", "hands_dispute_create"):
        maumau.confirm_hands = True
        maumau.save(update_fields=["confirm_hands"])
        table, receipt = _maumau_hand(w, scorer=operation_id != "hands_void_create")
        stage.path_id = receipt["hand"]["id"]
        if "seat" in body:  # on the table's device: another seat than the one that entered it
            stage.user, stage.headers = None, {"HTTP_X_SCORER_TOKEN": table.scorer_token}
    elif operation_id == "events_open_table_create":
        night = Event.objects.create(club=w.club, name="Open night", game="maumau", format="open", published=True)
        night.organisers.add(w.organiser)
        for number in range(1, 5):
            Attendance.objects.create(event=night, player_id=stage.player(number), present=True)
        stage.path_id = night.pk
    elif operation_id in ("tables_hands_create", "hands_correct_create", "records_validate_create"):
        # The examples are Mü deals of five players, dealt by seat 0.
        mu = w.events["mu"]
        round_ = Round.objects.create(event=mu, number=2)
        table = services.table_create(round_=round_, players=w.players[:5], number=1, first_dealer=0,
                                              by_user=None)
        stage.path_id = table.pk
        if operation_id == "hands_correct_create":
            first = next_record("mu", random.Random(9), 5, None, 0)
            stage.path_id = results.hand_submit(table_id=table.pk, entry=results.Entry(first)).receipt["hand"]["id"]
    return stage


@pytest.mark.parametrize(("path", "method", "operation", "example"), _examples())
def test_each_example_gets_its_documented_answer(world, path, method, operation, example):
    from tests.conftest import forget_dry_runs

    forget_dry_runs()
    stage = _stage(world, operation["operationId"], example["value"])
    record = operation["requestBody"]["content"]["application/json"]["schema"].get("$ref", "").endswith("/HandRecord")
    body = example["value"] if record else stage.substitute(example["value"])
    url = path.replace("{id}", str(stage.path_id))
    client = client_for(stage.user)
    response = getattr(client, method)(url, body, format="json", **stage.headers)
    if example.get("summary") in REFUSED:
        expected = {"422"}
    else:
        expected = {status for status in operation["responses"] if status.startswith("2")}
    assert str(response.status_code) in expected, (response.status_code, response.content[:400])
