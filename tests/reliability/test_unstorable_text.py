"""Text PostgreSQL cannot store (a NUL character, a lone UTF-16 surrogate) anywhere in a record —
an unknown member is enough — is refused with 400 ``bad_text`` naming its JSON Pointer by the same
reader on the dry run, the submission and the correction (API and console), and on import, before
anything is stored. The console's correction has the API's depth limit too."""
from __future__ import annotations

import json
import random

import pytest

from tests.api.play import next_record
from tests.conftest import client_for, forget_dry_runs

pytestmark = pytest.mark.django_db

DRY_RUN = "/api/v1/records/validate"
# (JSON text of a member, the pointer the answer must name)
BAD = [
    ('"note": "\\u0000"', "/note"),
    ('"note": "a\\ud800b"', "/note"),
    ('"note": {"x/y": ["ok", "\\udfff"]}', "/note/x~1y/1"),
    ('"note": {"a\\u0000": 1}', "/note"),
]


@pytest.fixture(autouse=True)
def _fresh_dry_run_count():
    forget_dry_runs()
    yield
    forget_dry_runs()


def stored() -> tuple:
    from tournaments.models import AuditEntry, Hand, HandVersion, IdempotentSubmission

    return (Hand.objects.count(), HandVersion.objects.count(), IdempotentSubmission.objects.count(),
            AuditEntry.objects.count(), list(HandVersion.objects.values_list("record", flat=True)))


def with_member(record: dict, member: str) -> str:
    text = json.dumps(record)
    return text[:-1] + ", " + member + "}"


def assert_bad_text(response, path: str):
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["code"] == "bad_text" and body["path"] == path and body["message"], body


@pytest.mark.parametrize("member, path", BAD)
def test_dry_run_submission_and_correction_refuse_it_alike(world, member, path):
    table = world.events["mu"].rounds.get().tables.first()
    record = next_record("mu", random.Random(2), 4, None, table.first_dealer)
    organiser = client_for(world.organiser)
    good = organiser.post(f"/api/v1/tables/{table.pk}/hands/", record, format="json")
    assert good.status_code == 201
    hand_id = good.json()["hand"]["id"]
    body = with_member(record, member)
    before = stored()
    assert_bad_text(client_for().post(DRY_RUN, data=body, content_type="application/json"), path)
    assert_bad_text(organiser.post(f"/api/v1/tables/{table.pk}/hands/", data=body, content_type="application/json",
                                   HTTP_IDEMPOTENCY_KEY="nul"), path)
    scorer = client_for()
    assert_bad_text(scorer.post(f"/api/v1/tables/{table.pk}/hands/", data=body, content_type="application/json",
                                HTTP_X_SCORER_TOKEN=table.scorer_token), path)
    correction = '{"reason": "typo", "record": ' + body + "}"
    assert_bad_text(organiser.post(f"/api/v1/hands/{hand_id}/correct/", data=correction,
                                   content_type="application/json"), "/record" + path)
    assert stored() == before


@pytest.mark.parametrize("member, path", BAD[:2])
def test_the_console_correction_refuses_it_and_names_the_pointer(world, member, path):
    from django.test import Client

    from tournaments.models import Hand
    from tournaments.results import services as results

    table = world.events["mu"].rounds.get().tables.first()
    record = next_record("mu", random.Random(2), 4, None, table.first_dealer)
    results.hand_submit(table_id=table.pk, entry=results.Entry(record), by_user=world.organiser)
    hand = Hand.objects.get(session__table=table)
    client = Client()
    client.force_login(world.organiser)
    before = stored()
    response = client.post(f"/console/hands/{hand.pk}/correct/", {"record": with_member(record, member),
                                                                   "reason": "typo"}, follow=True)
    assert response.status_code == 400  # refused: the page again, what was entered kept
    page = response.content.decode()
    assert "bad_text" in page and path in page
    assert stored() == before


def test_the_console_correction_has_the_depth_limit(world):
    from django.test import Client

    from tournaments.models import Hand
    from tournaments.results import services as results

    table = world.events["mu"].rounds.get().tables.first()
    record = next_record("mu", random.Random(2), 4, None, table.first_dealer)
    results.hand_submit(table_id=table.pk, entry=results.Entry(record), by_user=world.organiser)
    hand = Hand.objects.get(session__table=table)
    client = Client()
    client.force_login(world.organiser)
    before = stored()
    deep = json.dumps(record)[:-1] + ', "note": ' + "[" * 3000 + "]" * 3000 + "}"
    response = client.post(f"/console/hands/{hand.pk}/correct/", {"record": deep, "reason": "typo"}, follow=True)
    assert response.status_code == 400
    assert "too_deep" in response.content.decode()
    assert stored() == before


def test_the_service_refuses_it_from_any_caller(world):
    """A record handed to the service directly (a command, the admin) is refused the same way:
    ``bad_text`` at the pointer (400 over the API, not a 422), nothing stored."""
    from tournaments.errors import RecordRejected
    from tournaments.results import services as results

    table = world.events["maumau"].rounds.get().tables.first()
    record = {**next_record("maumau", random.Random(2), 4, None, table.first_dealer), "note": ["x", "\ud800"]}
    before = stored()
    with pytest.raises(RecordRejected) as refused:
        results.hand_submit(table_id=table.pk, entry=results.Entry(record), by_user=world.organiser, idempotency_key="k")
    assert (refused.value.code, refused.value.path) == ("bad_text", "/note/1")
    assert stored() == before


def test_the_import_refuses_it_naming_line_and_pointer(world):
    from tournaments import policy
    from tournaments.models import Event
    from tournaments.results import exchange
    from tournaments.results.exchange import ImportRejected

    table = world.events["mu"].rounds.get().tables.first()
    client_for(world.organiser).post(f"/api/v1/tables/{table.pk}/hands/",
                                     next_record("mu", random.Random(2), 4, None, table.first_dealer), format="json")
    lines = exchange.export_text(world.events["mu"], visibility=policy.visibility(world.organiser)).splitlines()
    hand_line = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "hand")
    lines[hand_line] = lines[hand_line][:-1] + ', "x": "\\u0000"}'
    events = Event.objects.count()
    with pytest.raises(ImportRejected) as refused:
        exchange.import_lines(lines)
    rejection = refused.value.rejections[0]
    assert (rejection.line, rejection.code, rejection.path) == (hand_line + 1, "bad_text", "/x")
    deep = lines[:hand_line] + ['{"type": "hand", "x": ' + "[" * 3000 + "]" * 3000 + "}"]
    with pytest.raises(ImportRejected) as refused:
        exchange.import_lines(deep)
    assert refused.value.rejections[0].code == "too_deep"
    assert Event.objects.count() == events


def test_the_reader():
    from games.parsers import MAX_DEPTH, Unreadable, read_json, text_error

    assert read_json('{"a": "\\u00e9\\ud83c\\udca1", "b": ["x"]}') == {"a": "é🂡", "b": ["x"]}
    for text, path in (('"\\u0000"', ""), ('[1, {"k~": "\\ud800"}]', "/1/k~0")):
        with pytest.raises(Unreadable) as refused:
            read_json(text)
        assert (refused.value.code, refused.value.path) == ("bad_text", path)
    with pytest.raises(Unreadable) as refused:
        read_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert refused.value.code == "too_deep"
    assert text_error({"a": ["b", {"c": "d"}]}) is None
