"""Hostile bodies get the JSON error shape at once and store nothing: nesting too deep, bodies too
large (announced or not), records with a million events; unknown members stay allowed within the
record size limit (records.md's promise)."""
from __future__ import annotations

import io
import json
import random
import time

import pytest
from django.conf import settings

from games.parsers import MAX_DEPTH, JSONParser
from tests.api.play import next_record
from tests.conftest import client_for, forget_dry_runs

pytestmark = pytest.mark.django_db

DRY_RUN = "/api/v1/records/validate"


def stored() -> tuple[int, int, int]:
    from tournaments.models import Hand, HandVersion, IdempotentSubmission

    return Hand.objects.count(), HandVersion.objects.count(), IdempotentSubmission.objects.count()


def post_raw(client, url: str, body: bytes, **headers):
    """The answer and the CPU seconds this process spent on it (the request is served in this
    process): what a hostile body costs the server, which other work on the machine does not stretch."""
    started = time.process_time()
    response = client.post(url, data=body, content_type="application/json", **headers)
    return response, time.process_time() - started


def hands_url(world, game: str = "maumau") -> str:
    return f"/api/v1/tables/{world.events[game].rounds.get().tables.first().pk}/hands/"


def assert_json_error(response, status: int, code: str):
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["code"] == code and body["message"]


@pytest.fixture(autouse=True)
def _fresh_dry_run_count():
    forget_dry_runs()
    yield
    forget_dry_runs()


@pytest.mark.parametrize("opening, closing", [(b"[", b"]"), (b'{"a":', b"}")])
def test_json_nested_ten_thousand_deep_is_400_too_deep_fast(world, opening, closing):
    body = opening * 10_000 + b"1" + closing * 10_000
    before = stored()
    for client, url in ((client_for(), DRY_RUN), (client_for(world.organiser), hands_url(world))):
        response, seconds = post_raw(client, url, body, HTTP_IDEMPOTENCY_KEY="deep")
        assert_json_error(response, 400, "too_deep")
        assert seconds < 1.0
    assert stored() == before


def test_nesting_just_past_the_limit_is_refused_and_just_within_it_reaches_the_engine(world):
    client = client_for()
    deep = json.dumps({"game": "mu", "note": json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)})
    assert_json_error(client.post(DRY_RUN, data=deep, content_type="application/json"), 400, "too_deep")
    within = json.dumps({"game": "mu", "note": json.loads("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))})
    response = client.post(DRY_RUN, data=within, content_type="application/json")
    assert response.status_code == 422 and "path" in response.json()  # the engine's answer, not the parser's


def test_many_brackets_side_by_side_are_not_depth(world):
    """The parser walks a document only when it has more brackets than the depth limit; a wide
    document with many of them, shallow, still reaches the engine, and a deep one inside it
    is still refused."""
    client = client_for()
    wide = {"game": "mu", "note": [[] for _ in range(3 * MAX_DEPTH)], "text": "[" * (2 * MAX_DEPTH)}
    response = client.post(DRY_RUN, data=json.dumps(wide), content_type="application/json")
    assert response.status_code == 422 and "path" in response.json()
    wide["deep"] = json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert_json_error(client.post(DRY_RUN, data=json.dumps(wide), content_type="application/json"), 400, "too_deep")


def test_a_twenty_megabyte_body_is_413_too_large_fast(world):
    body = b'{"game": "mu", "pad": "' + b"x" * (20 * 1024 * 1024) + b'"}'
    before = stored()
    for client, url in ((client_for(), DRY_RUN), (client_for(world.organiser), hands_url(world)),
                        (client_for(world.organiser), "/api/v1/clubs/")):
        response, seconds = post_raw(client, url, body)
        assert_json_error(response, 413, "too_large")
        assert seconds < 1.0
    assert stored() == before


def test_a_record_with_a_million_events_is_413_and_nothing_is_stored(world):
    record = next_record("maumau", random.Random(3), 4, None)
    events = [json.dumps(event, separators=(",", ":")).encode() for event in record["events"]]
    head = json.dumps({**record, "events": []}, separators=(",", ":")).encode()[:-3]  # up to '"events":'
    assert head.endswith(b'"events":')
    body = head + b"[" + b",".join(events[i % len(events)] for i in range(1_000_000)) + b"]}"
    before = stored()
    response, seconds = post_raw(client_for(world.organiser), hands_url(world), body, HTTP_IDEMPOTENCY_KEY="million")
    assert_json_error(response, 413, "too_large")
    assert seconds < 1.0
    assert stored() == before


def test_a_body_longer_than_announced_is_cut_at_the_limit():
    """Whatever ``Content-Length`` says, the parser reads one byte past the limit and no more: the
    memory a hostile body costs is bounded."""

    class Counting(io.BytesIO):
        taken = 0

        def read(self, size=-1):
            chunk = super().read(size)
            self.taken += len(chunk)
            return chunk

    stream = Counting(b"[" + b"0," * (10 * 1024 * 1024) + b"0]")
    with pytest.raises(Exception) as raised:
        JSONParser().parse(stream, "application/json", {})
    assert raised.value.status_code == 413 and raised.value.default_code == "too_large"
    assert stream.taken == settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1


def test_unknown_members_are_kept_up_to_the_record_size_limit(world):
    client = client_for(world.organiser)
    url = hands_url(world, "lut")
    record = next_record("lut", random.Random(5), 4, None)
    size = len(json.dumps(record).encode())
    record["club_notes"] = "n" * (settings.MAX_RECORD_BYTES - size - 100)
    response = client.post(url, record, format="json")
    assert response.status_code == 201, response.content[:300]
    from tournaments.models import Hand

    assert Hand.objects.get(pk=response.json()["hand"]["id"]).record["club_notes"] == record["club_notes"]
    # A record over the limit by more than the envelope's allowance is refused whole.
    record["club_notes"] = "n" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    before = stored()
    assert_json_error(client.post(url, record, format="json"), 413, "too_large")
    assert stored() == before


def test_malformed_json_is_400_in_the_error_shape(world):
    for body in (b'{"game": "mu",', b'{"x": NaN}', b"\xff\xfe{}", b'{"n": 1' + b"0" * 5000 + b"}"):
        assert_json_error(client_for().post(DRY_RUN, data=body, content_type="application/json"), 400, "parse_error")


def test_too_many_parameters_under_the_api_are_a_json_400():
    """More parameters than DATA_UPLOAD_MAX_NUMBER_FIELDS: Django refuses them before any view,
    under /api/ in the JSON error shape (its HTML page elsewhere)."""
    from django.test import Client

    query = "&".join(f"p{index}=1" for index in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    for response in (Client().get(f"/api/v1/clubs/?{query}"),
                     Client().post(f"{DRY_RUN}?{query}", "{}", content_type="application/json")):
        assert response.status_code == 400 and response["Content-Type"] == "application/json", response.content[:200]
        assert response.json()["code"] == "invalid"
    assert Client().get(f"/?{query}")["Content-Type"].startswith("text/html")


@pytest.mark.parametrize("value", ["²", "١", "12345678901234567890123", "-1", " 1"])
def test_the_console_opens_no_table_for_players_that_are_no_ids(world, value):
    """"Open a table" with a player value that is no plain id (a superscript or Arabic-Indic
    digit passes str.isdigit() but not int(); an id beyond any stored one): the page says why,
    nothing is opened."""
    from django.test import Client

    from tournaments import services
    from tournaments.models import Table

    night = services.event_create(by_user=world.club_organiser, club=world.club, name="Clubabend", game="mu",
                                  format="open", published=True)
    for player in world.players[:4]:
        services.player_check_in(event=night, player=player, by_user=world.club_organiser)
    browser = Client()
    browser.force_login(world.club_organiser)
    before = Table.objects.count()
    response = browser.post(f"/console/events/{night.pk}/open-table/",
                            {"players": [value, *(str(p.pk) for p in world.players[:2])]})
    assert response.status_code == 302, response.status_code
    assert Table.objects.count() == before
