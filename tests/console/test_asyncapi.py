"""The live sockets as the AsyncAPI document (tournaments/api/asyncapi.yaml) describes them: real
WebSockets to the ASGI server (gunicorn's uvicorn worker, as deployed) hear an accepted hand and an
unpublished event, and every message and close code they receive is one the document declares."""
from __future__ import annotations

import json
import random
import re
import urllib.request
from pathlib import Path

import jsonschema
import pytest
import yaml
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.conftest import make_user

from .test_live import post_hand

ROOT = Path(__file__).resolve().parents[2]


def load_document() -> dict:
    return yaml.safe_load((ROOT / "tournaments" / "api" / "asyncapi.yaml").read_text(encoding="utf-8"))


def deref(document: dict, node):
    """``node`` with its local ``$ref`` followed (``#/components/...``)."""
    while isinstance(node, dict) and "$ref" in node:
        target = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def message_validators(document: dict, channel: str) -> list[jsonschema.Draft7Validator]:
    """A validator of each message the document lets the channel send (AsyncAPI's schema format is
    a superset of JSON Schema draft 7)."""
    validators = []
    for operation in document["operations"].values():
        if deref(document, operation["channel"]) is not document["channels"][channel] or operation["action"] != "send":
            continue
        for message in operation["messages"]:
            payload = deref(document, deref(document, message)["payload"])
            jsonschema.Draft7Validator.check_schema(payload)
            validators.append(jsonschema.Draft7Validator(payload))
    assert validators, f"the document declares no message on {channel}"
    return validators


def assert_declared(document: dict, channel: str, text: str) -> dict:
    message = json.loads(text)
    errors = [list(v.iter_errors(message)) for v in message_validators(document, channel)]
    assert any(not found for found in errors), (channel, message, errors)
    return message


def close_codes(document: dict, channel: str) -> set[int]:
    return {int(code) for code in document["channels"][channel]["x-close-codes"]}


# The reference parser of AsyncAPI documents, run with Node.js: the diagnostics it reports, and
# whether it gives a document.
PARSE = """
const { createRequire } = require("module");
const fs = require("fs");
const load = createRequire(process.argv[2] + "/");
const { Parser } = load("@asyncapi/parser");
new Parser().parse(fs.readFileSync(process.argv[3], "utf8")).then(({ document, diagnostics }) => {
  console.log(JSON.stringify({ parsed: document !== undefined,
    diagnostics: diagnostics.map((d) => ({ severity: d.severity, code: d.code, message: d.message, path: d.path })) }));
});
"""


def test_the_reference_parser_accepts_the_document(tmp_path):
    """``@asyncapi/parser`` (npm, the parser of AsyncAPI's own tools) reads the document without an
    error or a warning (close codes are string keys: YAML's integer keys are refused). Skipped
    when npm is not installed."""
    import subprocess

    from tests import npm

    modules = npm.node_modules()
    script = tmp_path / "parse.cjs"
    script.write_text(PARSE)
    done = subprocess.run(["node", str(script), str(modules), str(ROOT / "tournaments" / "api" / "asyncapi.yaml")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    # Severity 0 is an error, 1 a warning; 2 (information: a newer AsyncAPI exists) and 3 are hints.
    assert [d for d in answer["diagnostics"] if d["severity"] <= 1] == [] and answer["parsed"], answer


def test_the_document_matches_the_routes_and_close_codes():
    """Each channel is a route of tournaments/live.py, and each close code the sockets use is
    declared (and described)."""
    from tournaments import live

    document = load_document()
    assert document["asyncapi"].startswith("3.")
    routes = {"/" + str(pattern.pattern).replace("<int:", "{").replace(">", "}") for pattern in live.websocket_urlpatterns}
    assert {channel["address"] for channel in document["channels"].values()} == routes
    used = {value for name, value in vars(live).items() if name.startswith("CLOSE_")}
    described = {int(code) for code in document["info"]["x-close-codes"]}
    assert used == described
    assert all(isinstance(code, str) for code in document["info"]["x-close-codes"])  # a mapping's keys are text
    for channel in document["channels"]:
        assert close_codes(document, channel) == described  # each socket may be refused or closed with any
        for parameter in document["channels"][channel]["parameters"]:
            assert "{" + parameter + "}" in document["channels"][channel]["address"]
    for message in document["components"]["messages"].values():
        for example in message["examples"]:
            jsonschema.validate(example["payload"], deref(document, message["payload"]))


@pytest.mark.django_db
def test_the_document_is_served_as_yaml_and_json(client):
    document = load_document()
    as_yaml = client.get("/api/asyncapi.yaml")
    assert as_yaml.status_code == 200 and as_yaml["Content-Type"].startswith("application/yaml")
    assert yaml.safe_load(as_yaml.content) == document
    as_json = client.get("/api/asyncapi.json")
    assert as_json.status_code == 200
    assert as_json.json() == json.loads(json.dumps(document))
    assert client.post("/api/asyncapi.json").status_code == 405


@pytest.fixture
def live_world(transactional_db):
    """A published Mü event in a series, one round of two tables, its organiser logged in."""
    from django.test import Client

    from tournaments import services

    organiser = make_user("socket_organiser")
    club = services.club_create(by_user=None, name="Socket Club", organisers=[organiser])
    players = [services.player_create(by_user=organiser, name=f"Spieler {i:02d}", clubs=[club]) for i in range(8)]
    series = services.series_create(by_user=organiser, club=club, name="Saison", game="mu")
    event = services.event_create(by_user=organiser, club=club, name="Socket Cup", game="mu", published=True,
                                  mu_fixed_deals=4, series=series)
    round_ = services.round_create(event=event, by_user=organiser)
    tables = [services.table_create(round_=round_, players=players[4 * i:4 * i + 4], by_user=organiser, first_dealer=0)
              for i in range(2)]
    browser = Client()
    browser.force_login(organiser)
    return organiser, browser.cookies["sessionid"].value, series, event, tables


def ws_url(base: str, path: str) -> str:
    return re.sub(r"^http", "ws", base) + path


def test_real_sockets_receive_what_the_document_declares(asgi_server, live_world):
    organiser, session_cookie, series, event, tables = live_world
    document = load_document()
    origin = asgi_server
    timeout = 10
    cookie = {"Cookie": f"sessionid={session_cookie}"}
    with connect(ws_url(asgi_server, f"/ws/events/{event.pk}/"), origin=origin, open_timeout=timeout) as public, \
            connect(ws_url(asgi_server, f"/ws/events/{event.pk}/"), origin=origin, open_timeout=timeout,
                    additional_headers=cookie) as organisers, \
            connect(ws_url(asgi_server, f"/ws/series/{series.pk}/"), origin=origin, open_timeout=timeout) as season, \
            connect(ws_url(asgi_server, f"/ws/events/{event.pk}/?lang=en&push=board:{tables[0].round_id}"),
                    origin=origin, open_timeout=timeout, additional_headers=cookie) as console, \
            connect(ws_url(asgi_server, f"/ws/series/{series.pk}/?lang=en&push=standings"), origin=origin,
                    open_timeout=timeout) as season_page, \
            connect(ws_url(asgi_server, f"/ws/events/{event.pk}/?lang=en&push=screen,series-top"), origin=origin,
                    open_timeout=timeout) as screen:
        post_hand(asgi_server, tables[0], organiser.auth_token.key, random.Random(3))
        for socket, channel in ((public, "event"), (organisers, "event"), (season, "series")):
            message = assert_declared(document, channel, socket.recv(timeout=timeout))
            assert message["event"] == event.pk
        # The organiser's console is fed its board; the series page its standings, at the series' version.
        message = assert_declared(document, "event", console.recv(timeout=timeout))
        assert 'id="board-summary"' in message["fragments"][f"board:{tables[0].round_id}"]
        message = assert_declared(document, "series", season_page.recv(timeout=timeout))
        assert message["type"] == "series_changed" and message["series"] == series.pk
        assert 'id="series-standings"' in message["fragments"]["standings"]
        # The room screen is fed its event's screen and its series' top, each at its own version.
        fed = {}
        for _ in range(2):
            message = assert_declared(document, "event", screen.recv(timeout=timeout))
            fed[message["type"]] = message
        assert set(fed["results_changed"]["fragments"]) == {"screen"}
        assert fed["series_changed"]["series"] == series.pk
        assert 'id="series-title"' in fed["series_changed"]["fragments"]["series-top"]
        # Frames a client sends are ignored: the socket stays open and keeps speaking.
        public.send("hello")
        post_hand(asgi_server, tables[1], organiser.auth_token.key, random.Random(4))
        assert_declared(document, "event", public.recv(timeout=timeout))
        organisers.recv(timeout=timeout)
        season.recv(timeout=timeout)
        # The event unpublished over the API: the public sockets are closed with a declared code,
        # the organiser's hears of it.
        request = urllib.request.Request(
            f"{asgi_server}/api/v1/events/{event.pk}/", data=json.dumps({"published": False}).encode(), method="PATCH",
            headers={"Authorization": f"Token {organiser.auth_token.key}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            assert response.status == 200
        for socket, channel in ((public, "event"), (season, "series"), (season_page, "series")):
            with pytest.raises(ConnectionClosed) as closed:
                while True:  # what the second hand sent first, then the close
                    assert_declared(document, channel, socket.recv(timeout=timeout))
            assert closed.value.rcvd is not None and closed.value.rcvd.code in close_codes(document, channel)
            assert closed.value.rcvd.code == 4404
        assert_declared(document, "event", organisers.recv(timeout=timeout))
    # A socket the reader may not see is refused at the handshake, as the document says.
    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url(asgi_server, f"/ws/events/{event.pk}/"), origin=origin, open_timeout=timeout)
    assert refused.value.response.status_code == 403
    assert "HTTP 403" in document["info"]["description"]
