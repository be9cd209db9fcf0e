"""The API as an integrator meets it: a Python client generated from the served ``/api/schema/`` by
openapi-python-client (the version pinned in constraints.txt) imports whole and plays a Maumau evening
against a live server with nothing but its own functions and models; every answer it gets is checked
against the description (tests/openapi_check.py). TypeScript: openapi-typescript's types of the same
description compile with ``tsc --noEmit --strict``, and so does a whole evening written with openapi-fetch
over them (``tests/api/typescript/evening.ts``)."""
from __future__ import annotations

import importlib
import json
import pkgutil
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import npm, openapi_check
from tests.api.play import next_record
from tests.conftest import make_user

PACKAGE = "stich_api_client"
GENERATOR_CONFIG = {"project_name_override": "stich-api-client", "package_name_override": PACKAGE,
                    "post_hooks": []}


def _served_schema(base_url: str) -> bytes:
    import httpx

    answer = httpx.get(f"{base_url}/api/schema/", headers={"Accept": "application/vnd.oai.openapi+json"}, timeout=60)
    assert answer.status_code == 200, answer.text[:500]
    return answer.content


@pytest.fixture(scope="module")
def served_schema(live_server, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("schema") / "openapi.json"
    path.write_bytes(_served_schema(live_server.url))
    return path


@pytest.fixture(scope="module")
def client_package(served_schema, tmp_path_factory):
    """The generated client's package, importable as ``stich_api_client``."""
    root = tmp_path_factory.mktemp("client")
    config = root / "config.json"
    config.write_text(json.dumps(GENERATOR_CONFIG))
    generator = Path(sys.executable).with_name("openapi-python-client")
    done = subprocess.run(
        [str(generator), "generate", "--path", str(served_schema), "--meta", "none", "--config", str(config),
         "--output-path", str(root / PACKAGE)],
        capture_output=True, text=True, timeout=600, cwd=root,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def test_every_generated_module_imports(client_package):
    names = [info.name for info in pkgutil.walk_packages(client_package.__path__, PACKAGE + ".")]
    failed = {}
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 - each failure is reported
            failed[name] = repr(error)
    assert not failed, failed
    operations = [name for name in names if name.startswith(PACKAGE + ".api.") and name.count(".") == 3]
    models = [name for name in names if name.startswith(PACKAGE + ".models.")]
    print(f"generated modules: {len(names)} ({len(operations)} operations, {len(models)} models)")
    assert len(operations) >= 60 and len(models) >= 60
    # The record bodies are named models, one per game and body, not anonymous unions.
    for model in ("mu_full_record", "mu_summary_record", "maumau_full_record", "maumau_summary_record",
                  "lut_full_record", "lut_summary_record", "record_error", "error"):
        assert f"{PACKAGE}.models.{model}" in names


def _clients(package, base_url: str, strict: bool = True, **tokens):
    """One generated client per party; each answer is checked against the description. ``strict``:
    an answer the client has no model for raises (the JSON Lines export has none: the generator
    reads JSON, bytes and text, so its function returns the raw answer)."""
    hooks = {"response": [openapi_check.check_httpx]}
    made = {}
    for name, (token, prefix, header) in tokens.items():
        made[name] = package.AuthenticatedClient(base_url=base_url, token=token, prefix=prefix, auth_header_name=header,
                                                 httpx_args={"event_hooks": hooks}, raise_on_unexpected_status=strict)
    return made


def _ok(response, status: int):
    assert response.status_code == status, (response.status_code, response.content[:500])
    return response.parsed


@pytest.mark.django_db(transaction=True)
def test_an_evening_through_the_generated_client_alone(client_package, live_server):
    from stich_api_client.api.clubs import clubs_create
    from stich_api_client.api.events import (
        events_create,
        events_export_jsonl,
        events_money_retrieve,
        events_standings_csv,
        events_standings_retrieve,
    )
    from stich_api_client.api.hands import hands_confirm_create
    from stich_api_client.api.players import players_create
    from stich_api_client.api.ratings import ratings_leaderboard_list
    from stich_api_client.api.rounds import (
        rounds_create,
        rounds_draw_create,
        rounds_draw_publish_create,
    )
    from stich_api_client.api.tables import tables_hands_create, tables_hands_list
    from stich_api_client.models import (
        ClubRequest,
        ConfirmRequest,
        DrawRequest,
        EventRequest,
        GameEnum,
        MaumauFullRecord,
        Money,
        PaginatedLeaderboardRowList,
        PlayerRequest,
        RatingsLeaderboardListGame,
        Receipt,
        RecordError,
        RecordErrorCode,
        RoundRequest,
        Sheet,
        Standings,
        Table,
    )

    mismatches_before = len(openapi_check.TALLY.mismatches)
    staff, organiser = make_user("staff", is_staff=True), make_user("organiser")
    clients = _clients(client_package, live_server.url,
                       staff=(staff.auth_token.key, "Token", "Authorization"),
                       organiser=(organiser.auth_token.key, "Token", "Authorization"))
    staff_client, club_client = clients["staff"], clients["organiser"]

    club = _ok(clubs_create.sync_detailed(client=staff_client, body=ClubRequest(name="Stichclub", city="Tampere",
                                                                             organisers=[organiser.pk])), 201)
    players = [_ok(players_create.sync_detailed(client=club_client, body=PlayerRequest(
        name=f"Spieler {index}", clubs=[club.id])), 201) for index in range(8)]
    event = _ok(events_create.sync_detailed(client=club_client, body=EventRequest(
        club=club.id, name="Maumau evening", game=GameEnum.MAUMAU, published=True, maumau_games_per_series=2,
        maumau_stake_cents=10, confirm_hands=True, organisers=[organiser.pk])), 201)
    round_ = _ok(rounds_create.sync_detailed(client=club_client, body=RoundRequest(event=event.id)), 201)

    # --- check-in -------------------------------------------------------------------------------------
    # Seven players arrive and check in (one twice: nothing changes), one leaves again before the
    # draw; the draw seats who is checked in then.
    from stich_api_client.api.events import (
        events_checkins_create,
        events_checkins_destroy,
        events_checkins_list,
    )
    from stich_api_client.models import CheckinRequest

    for player in players + players[:1]:
        entry = _ok(events_checkins_create.sync_detailed(event.id, client=club_client,
                                                         body=CheckinRequest(player=player.id)), 200)
        assert entry.player == player.id
    assert events_checkins_destroy.sync_detailed(event.id, players[-1].id, client=club_client).status_code == 204
    present = [entry.player for entry in _ok(events_checkins_list.sync_detailed(event.id, client=club_client), 200).players]
    assert sorted(present) == sorted(player.id for player in players[:-1])
    _ok(events_checkins_create.sync_detailed(event.id, client=club_client, body=CheckinRequest(player=players[-1].id)), 200)
    present = [entry.player for entry in _ok(events_checkins_list.sync_detailed(event.id, client=club_client), 200).players]
    assert sorted(present) == sorted(player.id for player in players)

    draw = _ok(rounds_draw_create.sync_detailed(round_.id, client=club_client, body=DrawRequest(
        players=present, seed=7)), 200)
    assert sorted(player for table in draw.tables for player in table.players) == sorted(present)
    tables = _ok(rounds_draw_publish_create.sync_detailed(round_.id, client=club_client), 201)
    assert isinstance(tables, list) and all(isinstance(table, Table) for table in tables) and len(tables) == 2
    assert all(table.scorer_url and len(table.players) == 4 for table in tables)

    rng = random.Random(26)
    rejected = retried = 0
    hands = []
    for table in tables:
        token = table.scorer_url.rstrip("/").rsplit("/", 1)[-1]
        scorer = _clients(client_package, live_server.url, table=(token, "", "X-Scorer-Token"))["table"]
        sheet = _ok(tables_hands_list.sync_detailed(table.id, client=scorer), 200)
        assert isinstance(sheet, Sheet) and sheet.session is None and sheet.hands == []
        session = None
        while session is None or session["status"] == "open":
            record = next_record("maumau", rng, 4, session, table.first_dealer)
            body = MaumauFullRecord.from_dict(record)
            assert body.to_dict() == record  # the model carries the record as it is
            if not rejected:  # a record the engine refuses: 422, parsed as the error model
                wrong = MaumauFullRecord.from_dict({**record, "dealer": (record["dealer"] + 1) % 4})
                answer = tables_hands_create.sync_detailed(table.id, client=scorer, body=wrong, x_scorer_seat=0)
                assert answer.status_code == 422 and isinstance(answer.parsed, RecordError), answer.content
                assert isinstance(answer.parsed.code, RecordErrorCode) and answer.parsed.path is not None
                rejected += 1
            key = f"table-{table.id}-hand-{len(hands)}"
            receipt = _ok(tables_hands_create.sync_detailed(table.id, client=scorer, body=body, x_scorer_seat=0,
                                                            idempotency_key=key), 201)
            assert isinstance(receipt, Receipt) and receipt.hand.unconfirmed
            if not retried:  # the answer was lost: the same key again gives the same hand, stored once
                again = _ok(tables_hands_create.sync_detailed(table.id, client=scorer, body=body, x_scorer_seat=0,
                                                              idempotency_key=key), 201)
                assert again.hand.id == receipt.hand.id and again.session.hands == receipt.session.hands
                retried += 1
            hands.append(receipt.hand.id)
            session = receipt.session.to_dict()
        assert session["status"] == "finished" and session["next"] is None
    assert rejected == retried == 1 and len(hands) == 4

    for hand in hands:  # the organiser confirms what the tables entered
        confirmed = _ok(hands_confirm_create.sync_detailed(hand, client=club_client, body=ConfirmRequest()), 200)
        assert not confirmed.hand.unconfirmed

    standings = _ok(events_standings_retrieve.sync_detailed(event.id, client=club_client), 200)
    assert isinstance(standings, Standings) and len(standings.standings) == 8
    assert {row.played for row in standings.standings} == {1}
    table_text = events_standings_csv.sync_detailed(event.id, client=club_client)
    assert table_text.status_code == 200 and table_text.content.decode().splitlines()[0].startswith("rank,player,name")
    money = _ok(events_money_retrieve.sync_detailed(event.id, client=club_client), 200)
    assert isinstance(money, Money) and sum(money.cents.additional_properties.values()) == 0
    assert len(money.series) == 2
    leaderboard = _ok(ratings_leaderboard_list.sync_detailed(client=club_client, game=RatingsLeaderboardListGame.MAUMAU, page_size=5), 200)
    assert isinstance(leaderboard, PaginatedLeaderboardRowList) and leaderboard.count == 8
    assert len(leaderboard.results) == 5 and "page_size=5" in leaderboard.next_
    raw = _clients(client_package, live_server.url, strict=False,
                   organiser=(organiser.auth_token.key, "Token", "Authorization"))["organiser"]
    export = events_export_jsonl.sync_detailed(event.id, client=raw)
    assert export.status_code == 200 and export.headers["content-type"].startswith("application/jsonl")
    lines = [json.loads(line) for line in export.content.decode().splitlines()]
    assert lines[0]["type"] == "event" and lines[0]["id"] == event.id
    assert sum(line["type"] == "hand" for line in lines) == 4 and sum(line["type"] == "player" for line in lines) == 8

    assert openapi_check.TALLY.mismatches[mismatches_before:] == []


def _npm_tools() -> Path:
    """openapi-typescript, TypeScript and openapi-fetch, installed into the cache folder (tests/npm.py)."""
    return npm.node_modules() / ".bin"


def test_the_typescript_types_compile(served_schema, tmp_path):
    binaries = _npm_tools()
    types = _typescript_types(served_schema, tmp_path, binaries)
    usage = tmp_path / "usage.ts"
    usage.write_text(
        'import type { components, paths } from "./stich";\n'
        'type Receipt = paths["/api/v1/tables/{id}/hands/"]["post"]["responses"][201]["content"]["application/json"];\n'
        'type Rejected = paths["/api/v1/tables/{id}/hands/"]["post"]["responses"][422]["content"]["application/json"];\n'
        'const code: Rejected["code"] = "bad_card";\n'
        'const record: components["schemas"]["HandRecord"] = {game: "mu", players: 3, dealer: 0, summary: {bids: [1, 2, 0]}};\n'
        'export function hand(receipt: Receipt): number { return receipt.hand.number; }\n'
        'export { code, record };\n'
    )
    done = subprocess.run([str(binaries / "tsc"), "--noEmit", "--strict", "--target", "es2022", "--module", "esnext",
                           "--moduleResolution", "bundler", str(usage), str(types)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def _typescript_types(served_schema: Path, folder: Path, binaries: Path) -> Path:
    types = folder / "stich.d.ts"
    done = subprocess.run([str(binaries / "openapi-typescript"), str(served_schema), "--output", str(types)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return types


def test_an_evening_written_with_openapi_fetch_compiles(served_schema, tmp_path):
    """tests/api/typescript/evening.ts: a club, players, an event per game, check-in, a draw, hands of
    each game typed as the description's record components (a Mü summary as ``MuSummaryRecord``
    with ``claimed``, Maumau summary and full, LuT summary), a PATCH of one field, the dry run with
    its ``?name=`` and ``Accept-Language``, the standings — openapi-fetch over openapi-typescript's
    types, compiled with ``tsc --noEmit --strict``."""
    binaries = _npm_tools()
    _typescript_types(served_schema, tmp_path, binaries)
    source = Path(__file__).with_name("typescript") / "evening.ts"
    shutil.copy(source, tmp_path / "evening.ts")
    (tmp_path / "node_modules").symlink_to(npm.node_modules())
    done = subprocess.run([str(binaries / "tsc"), "--noEmit", "--strict", "--target", "es2022", "--module", "esnext",
                           "--moduleResolution", "bundler", "--lib", "es2022,dom", "evening.ts", "stich.d.ts"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_patch_bodies_declare_no_defaults(served_schema):
    """A generated client fills every member of a body it was not given with the member's
    ``default``: in a PATCH body that would set fields back. No ``Patched*`` component has one."""
    schemas = json.loads(served_schema.read_text())["components"]["schemas"]
    patched = {name: schema for name, schema in schemas.items() if name.startswith("Patched")}
    assert {"PatchedEventRequest", "PatchedSeriesRequest"} <= set(patched)
    assert [name for name, schema in patched.items() if '"default"' in json.dumps(schema)] == []
    assert not [name for name in schemas if name.endswith("RequestRequest")]


@pytest.mark.django_db(transaction=True)
def test_a_generated_client_patch_changes_only_what_it_names(client_package, live_server):
    """Attaching a published event to a series through the generated client leaves it published,
    its format and the series' scoring as they were."""
    from stich_api_client.api.events import events_partial_update
    from stich_api_client.api.series import series_partial_update
    from stich_api_client.models import PatchedEventRequest, PatchedSeriesRequest

    from tournaments import services
    from tournaments.models import Club

    organiser = make_user("organiser")
    club = Club.objects.create(name="Stichclub")
    club.organisers.add(organiser)
    event = services.event_create(by_user=None, club=club, name="Open night", game="mu", published=True,
                                  format="open")
    series = services.series_create(by_user=None, club=club, name="Season", game="mu", scoring="table",
                                    points_table=[5, 3, 1], min_events=3)
    client = _clients(client_package, live_server.url,
                      organiser=(organiser.auth_token.key, "Token", "Authorization"))["organiser"]

    answer = events_partial_update.sync_detailed(event.pk, client=client, body=PatchedEventRequest(series=series.pk))
    assert answer.status_code == 200, answer.content
    event.refresh_from_db()
    assert (event.series_id, event.published, event.format) == (series.pk, True, "open")
    answer = series_partial_update.sync_detailed(series.pk, client=client, body=PatchedSeriesRequest(name="Season 26"))
    assert answer.status_code == 200, answer.content
    series.refresh_from_db()
    assert (series.name, series.scoring, series.points_table, series.min_events) == ("Season 26", "table", [5, 3, 1], 3)
