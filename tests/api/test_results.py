"""Results through the API: whole sessions of each game played from generated legal records."""
from __future__ import annotations

import json
import random
from collections import defaultdict

import pytest
from django.apps import apps

from games.rules import validate, validate_series
from tests.api.play import next_record, play_session
from tests.conftest import client_for, forget_dry_runs, make_user

pytestmark = pytest.mark.django_db


def snapshot():
    state = {}
    for label in ("tournaments", "games"):
        for model in apps.get_app_config(label).get_models():
            state[model.__name__] = sorted(map(str, model.objects.values_list()))
    return state


def event_totals(tables_answers):
    """Expected per-player totals from the engine's answers, hand by hand."""
    totals = defaultdict(int)
    for table, answers in tables_answers:
        seats = list(table.seats.order_by("position").values_list("player_id", flat=True))
        for answer in answers:
            for seat, score in enumerate(answer["scores"]):
                totals[seats[seat]] += score
    return totals


@pytest.mark.parametrize("game", ["mu", "maumau", "lut"])
def test_whole_sessions_through_http_match_the_engine(world, game):
    event = world.events[game]
    event.mu_fixed_deals = 6 if game == "mu" else None
    event.maumau_games_per_series = 3
    event.save()
    client = client_for(world.organiser)
    rng = random.Random(f"{game}-sessions")
    played = []
    for table in event.rounds.get().tables.all():
        records, answers, session = play_session(client, table, game, rng)
        assert session["status"] == "finished"
        expected_hands = {"mu": 6, "maumau": 3, "lut": 4}[game]
        assert len(records) == expected_hands
        assert session["totals"] == [sum(a["scores"][seat] for a in answers) for seat in range(4)]
        played.append((table, answers, records))
    standings = client.get(f"/api/v1/events/{event.pk}/standings/").json()
    expected = event_totals([(table, answers) for table, answers, _ in played])
    assert {row["player"]: row["total"] for row in standings["standings"]} == dict(expected)
    ranks = [(row["placement"], row["total"], row["wins"]) for row in standings["standings"]]
    assert ranks == sorted(ranks, reverse=True)
    if game == "maumau":
        money = client.get(f"/api/v1/events/{event.pk}/money/").json()
        for table, _, records in played:
            seats = list(table.seats.order_by("position").values_list("player_id", flat=True))
            settled = validate_series({"records": records, "stake_cents": event.maumau_stake_cents})
            series = next(s for s in money["series"] if s["table"] == table.pk)
            assert series["nets"] == {str(p): n for p, n in zip(seats, settled["nets"])} or series["nets"] == dict(zip(seats, settled["nets"]))
            moved = defaultdict(int)
            for transfer in series["transfers"]:
                moved[transfer["from"]] -= transfer["cents"]
                moved[transfer["to"]] += transfer["cents"]
            assert all(moved[p] == n for p, n in zip(seats, settled["nets"]))
        assert sum(money["cents"].values()) == 0


def test_rejected_record_stores_nothing_and_names_the_pointer(world):
    table = world.events["lut"].rounds.get().tables.first()
    client = client_for(world.organiser)
    record = next_record("lut", random.Random(3), 4, None)
    record["players"] = 4.0  # types are strict: the engine's to judge
    before = snapshot()
    response = client.post(f"/api/v1/tables/{table.pk}/hands/", record, format="json")
    assert response.status_code == 422
    assert response.json()["path"] == "/players"
    assert set(response.json()) == {"code", "message", "path"}
    assert snapshot() == before


def test_record_that_is_not_an_object_is_the_engines_to_judge(world):
    table = world.events["mu"].rounds.get().tables.first()
    response = client_for(world.organiser).post(f"/api/v1/tables/{table.pk}/hands/", [1, 2], format="json")
    assert response.status_code == 422 and response.json()["path"] == ""


def test_player_of_another_table_is_refused_and_nothing_changes(world):
    event = world.events["mu"]
    tables = list(event.rounds.get().tables.all())
    # player_user sits at table 1 (player 0); table 2 is not his.
    record = next_record("mu", random.Random(5), 4, None)
    before = snapshot()
    response = client_for(world.player_user).post(f"/api/v1/tables/{tables[1].pk}/hands/", record, format="json")
    assert response.status_code == 403
    assert client_for().post(f"/api/v1/tables/{tables[1].pk}/hands/", record, format="json").status_code == 401
    assert client_for(world.other_organiser).post(f"/api/v1/tables/{tables[1].pk}/hands/", record, format="json").status_code == 403
    assert snapshot() == before
    assert client_for(world.player_user).post(f"/api/v1/tables/{tables[0].pk}/hands/", record, format="json").status_code == 201


def test_scorer_token_is_valid_for_its_table_only(world):
    tables = list(world.events["mu"].rounds.get().tables.all())
    record = next_record("mu", random.Random(6), 4, None)
    from rest_framework.test import APIClient

    device = APIClient()
    wrong = device.post(f"/api/v1/tables/{tables[1].pk}/hands/", record, format="json", HTTP_X_SCORER_TOKEN=tables[0].scorer_token)
    assert wrong.status_code == 403
    right = device.post(f"/api/v1/tables/{tables[0].pk}/hands/", record, format="json", HTTP_X_SCORER_TOKEN=tables[0].scorer_token)
    assert right.status_code == 201


def test_dealer_must_continue_the_session(world):
    table = world.events["lut"].rounds.get().tables.first()
    client = client_for(world.organiser)
    rng = random.Random(8)
    first = next_record("lut", rng, 4, None)
    session = client.post(f"/api/v1/tables/{table.pk}/hands/", first, format="json").json()["session"]
    assert session["next"]["dealer"] == (first["dealer"] + 1) % 4
    wrong = next_record("lut", rng, 4, {"next": {"dealer": first["dealer"], "direction": None}})
    response = client.post(f"/api/v1/tables/{table.pk}/hands/", wrong, format="json")
    assert response.status_code == 422 and response.json()["path"] == "/dealer"


def test_finished_session_and_taken_hand_answer_409(world):
    event = world.events["mu"]
    event.mu_fixed_deals = 1
    event.save()
    table = event.rounds.get().tables.first()
    client = client_for(world.organiser)
    rng = random.Random(9)
    record = next_record("mu", rng, 4, None)
    url = f"/api/v1/tables/{table.pk}/hands/"
    assert client.post(url + "?hand=2", record, format="json").status_code == 409  # not the next hand
    assert client.post(url + "?hand=1", record, format="json").status_code == 201
    again = client.post(url, next_record("mu", rng, 4, {"next": {"dealer": (record["dealer"] + 1) % 4, "direction": None}}), format="json")
    assert again.status_code == 409 and again.json()["code"] == "session_closed"


def test_idempotency_key_answers_the_first_response_and_stores_one_hand(world):
    table = world.events["lut"].rounds.get().tables.first()
    client = client_for(world.organiser)
    record = next_record("lut", random.Random(10), 4, None)
    url = f"/api/v1/tables/{table.pk}/hands/"
    first = client.post(url, record, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    second = client.post(url, record, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    from tournaments.models import Hand

    assert Hand.objects.filter(session__table=table).count() == 1


def test_correction_changes_totals_keeps_the_old_version_and_audits(world):
    event = world.events["lut"]
    table = event.rounds.get().tables.first()
    client = client_for(world.organiser)
    records, answers, session = play_session(client, table, "lut", random.Random(11))
    hands = client.get(f"/api/v1/hands/?session={session['id']}").json()["results"]
    second = hands[1]
    # Replace hand 2 with another legal round by the same dealer.
    rng = random.Random(99)
    replacement = next_record("lut", rng, 4, {"next": {"dealer": second["dealer"], "direction": None}})
    while validate(replacement)["scores"] == second["result"]["scores"]:
        replacement = next_record("lut", rng, 4, {"next": {"dealer": second["dealer"], "direction": None}})
    before_standings = client.get(f"/api/v1/events/{event.pk}/standings/").json()
    response = client.post(f"/api/v1/hands/{second['id']}/correct/", {"record": replacement, "reason": "typo on the sheet"}, format="json")
    assert response.status_code == 200, response.content
    new_scores = validate(replacement)["scores"]
    expected = [sum(a["scores"][s] for a in answers) - second["result"]["scores"][s] + new_scores[s] for s in range(4)]
    assert response.json()["session"]["totals"] == expected
    detail = client.get(f"/api/v1/hands/{second['id']}/").json()
    assert [v["version"] for v in detail["versions"]] == [1, 2]
    assert detail["versions"][0]["record"] == records[1]
    assert detail["versions"][1]["reason"] == "typo on the sheet"
    from tournaments.models import AuditEntry

    entries = AuditEntry.objects.filter(object_type="hand", object_id=second["id"])
    assert entries.count() == 1 and entries.get().actor == world.organiser
    after_standings = client.get(f"/api/v1/events/{event.pk}/standings/").json()
    assert after_standings != before_standings


def test_correction_with_a_wrong_dealer_is_rejected_and_changes_nothing(world):
    table = world.events["lut"].rounds.get().tables.first()
    client = client_for(world.organiser)
    play_session(client, table, "lut", random.Random(12))
    hand = table.sessions.get().hands.get(number=2)
    bad = next_record("lut", random.Random(1), 4, {"next": {"dealer": (hand.dealer + 1) % 4, "direction": None}})
    before = snapshot()
    response = client.post(f"/api/v1/hands/{hand.pk}/correct/", {"record": bad, "reason": "x"}, format="json")
    assert response.status_code == 422 and response.json()["path"] == "/dealer"
    assert snapshot() == before


def test_void_keeps_the_slot_and_a_mu_session_reopens_below_the_target(world):
    event = world.events["mu"]
    event.mu_target_score = 30
    event.save()
    table = event.rounds.get().tables.first()
    client = client_for(world.organiser)
    _, _, session = play_session(client, table, "mu", random.Random(13), limit=200)
    assert session["status"] == "finished"
    last = table.sessions.get().hands.order_by("-number").first()
    # Before the last deal every total was below the target (else the game had ended), so
    # voiding the last deal takes the game below the target again: it reopens.
    response = client.post(f"/api/v1/hands/{last.pk}/void/", {"reason": "misdeal"}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["hand"]["voided"] and body["session"]["status"] == "open"
    assert max(body["session"]["totals"]) < 30
    assert body["session"]["next"]["hand"] == last.number + 1
    assert body["session"]["next"]["dealer"] == (last.dealer + 1) % 4  # its dealer still moved


def test_other_roles_cannot_correct_or_void(world):
    table = world.events["lut"].rounds.get().tables.first()
    play_session(client_for(world.organiser), table, "lut", random.Random(14))
    hand = table.sessions.get().hands.first()
    before = snapshot()
    for user, code in [(None, 401), (world.player_user, 403), (world.other_organiser, 403)]:
        assert client_for(user).post(f"/api/v1/hands/{hand.pk}/void/", {"reason": "x"}, format="json").status_code == code
    assert snapshot() == before


def test_abandoned_session_leaves_the_standings(world):
    event = world.events["lut"]
    tables = list(event.rounds.get().tables.all())
    client = client_for(world.organiser)
    play_session(client, tables[0], "lut", random.Random(15))
    session = tables[0].sessions.get()
    players = set(tables[0].seats.values_list("player_id", flat=True))
    assert players <= {row["player"] for row in client.get(f"/api/v1/events/{event.pk}/standings/").json()["standings"]}
    response = client.post(f"/api/v1/sessions/{session.pk}/abandon/", {"reason": "fire alarm"}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "abandoned"
    rows = client.get(f"/api/v1/events/{event.pk}/standings/").json()["standings"]
    assert not players & {row["player"] for row in rows}


def test_a_session_under_way_is_not_played_or_won_in_the_live_standings(world):
    event = world.events["lut"]
    finished_table, open_table = list(event.rounds.get().tables.order_by("number"))[:2]
    client = client_for(world.organiser)
    play_session(client, finished_table, "lut", random.Random(16))
    # One round of four at the second table: its points so far count, the session does not.
    url = f"/api/v1/tables/{open_table.pk}/hands/"
    answer = client.post(url, next_record("lut", random.Random(17), 4, None, open_table.first_dealer), format="json")
    assert answer.status_code == 201 and answer.json()["session"]["status"] == "open"
    so_far = dict(zip(open_table.seats.order_by("position").values_list("player_id", flat=True),
                      answer.json()["session"]["totals"]))
    assert any(so_far.values())
    rows = {row["player"]: row for row in client.get(f"/api/v1/events/{event.pk}/standings/").json()["standings"]}
    for player, total in so_far.items():
        assert (rows[player]["played"], rows[player]["wins"], rows[player]["placement"]) == (0, 0, 0)
        assert rows[player]["total"] == total
    finished = set(finished_table.seats.values_list("player_id", flat=True))
    assert {rows[p]["played"] for p in finished} == {1} and sum(rows[p]["wins"] for p in finished) >= 1


def test_dry_run_answers_and_stores_nothing(world):
    record = next_record("mu", random.Random(16), 5, None)
    before = snapshot()
    ok = client_for().post("/api/v1/records/validate", record, format="json")
    assert ok.status_code == 200 and ok.json() == validate(record)
    record["dealer"] = 7
    bad = client_for().post("/api/v1/records/validate", record, format="json")
    assert bad.status_code == 422 and bad.json()["path"] == "/dealer"
    assert snapshot() == before


def test_dry_run_is_throttled(world, settings):
    from rest_framework.throttling import ScopedRateThrottle

    forget_dry_runs()
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "dry_run": "3/min"}
    original = ScopedRateThrottle.THROTTLE_RATES
    ScopedRateThrottle.THROTTLE_RATES = rates
    try:
        codes = [client_for().post("/api/v1/records/validate", {"game": "mu"}, format="json").status_code for _ in range(5)]
    finally:
        ScopedRateThrottle.THROTTLE_RATES = original
        forget_dry_runs()
    assert codes[:3] == [422, 422, 422] and codes[3:] == [429, 429]


def test_standings_csv_matches_json(world):
    event = world.events["lut"]
    client = client_for(world.organiser)
    play_session(client, event.rounds.get().tables.first(), "lut", random.Random(17))
    rows = client.get(f"/api/v1/events/{event.pk}/standings/").json()["standings"]
    text = b"".join(client.get(f"/api/v1/events/{event.pk}/standings.csv").streaming_content).decode()  # streamed
    lines = text.strip().splitlines()
    assert lines[0].startswith("rank,player,name,played,placement,total,wins")
    assert [int(line.split(",")[1]) for line in lines[1:]] == [row["player"] for row in rows]


def test_export_then_import_into_an_empty_database_reproduces_the_standings(world, tmp_path):
    from django.core.management import call_command

    from tournaments.models import Event

    event = world.events["maumau"]
    event.maumau_games_per_series = 2
    event.save()
    client = client_for(world.organiser)
    rng = random.Random(18)
    for table in event.rounds.get().tables.all():
        play_session(client, table, "maumau", rng)
    hand = event.rounds.get().tables.first().sessions.get().hands.first()
    client.post(f"/api/v1/hands/{hand.pk}/void/", {"reason": "misdeal"}, format="json")
    standings = client.get(f"/api/v1/events/{event.pk}/standings/").json()["standings"]
    money = client.get(f"/api/v1/events/{event.pk}/money/").json()
    path = tmp_path / "event.jsonl"
    path.write_bytes(client.get(f"/api/v1/events/{event.pk}/export.jsonl").content)
    # An empty database: remove everything, then import.
    from django.apps import apps

    for label in ("games", "tournaments"):
        for model in reversed(list(apps.get_app_config(label).get_models())):
            model.objects.all().delete()
    call_command("import_records", str(path), "--no-progress")
    imported = Event.objects.get()
    names = {row["player"]: row["name"] for row in standings}
    again = client_for(make_user("reader")).get(f"/api/v1/events/{imported.pk}/standings/").json()["standings"]
    assert [(r["rank"], r["name"], r["played"], r["placement"], r["total"], r["wins"], r["cents"]) for r in again] == [
        (r["rank"], names[r["player"]], r["played"], r["placement"], r["total"], r["wins"], r["cents"]) for r in standings
    ]
    assert sum(client.get(f"/api/v1/events/{imported.pk}/money/").json()["cents"].values()) == 0
    assert len(money["series"]) == 3


def test_import_reports_each_rejection_with_line_and_pointer(world, tmp_path):
    from django.core.management import CommandError, call_command

    from tournaments.models import Event

    event = world.events["lut"]
    client = client_for(world.organiser)
    play_session(client, event.rounds.get().tables.first(), "lut", random.Random(19))
    lines = client.get(f"/api/v1/events/{event.pk}/export.jsonl").content.decode().splitlines()
    import json

    hand_lines = [i for i, line in enumerate(lines) if json.loads(line)["type"] == "hand"]
    broken = json.loads(lines[hand_lines[1]])
    broken["record"]["dealer"] = 9
    lines[hand_lines[1]] = json.dumps(broken)
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n")
    events_before = Event.objects.count()
    import io

    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_records", str(path), "--no-progress", stderr=err)
    assert f"line {hand_lines[1] + 1}: out_of_range at /dealer" in err.getvalue() or f"line {hand_lines[1] + 1}:" in err.getvalue()
    assert "/dealer" in err.getvalue()
    assert Event.objects.count() == events_before


def test_a_held_back_round_is_missing_from_the_public_api_until_released(world):
    event = world.events["lut"]
    event.published = True
    event.save()
    organiser = client_for(world.organiser)
    round_ = event.rounds.get()
    table = round_.tables.first()
    play_session(organiser, table, "lut", random.Random(23))
    assert organiser.patch(f"/api/v1/rounds/{round_.pk}/", {"results_held": True}, format="json").status_code == 200
    anonymous = client_for()
    urls = {
        "rounds": f"/api/v1/rounds/?event={event.pk}",
        "tables": f"/api/v1/tables/?round={round_.pk}",
        "sessions": f"/api/v1/sessions/?table__round={round_.pk}",
        "hands": f"/api/v1/hands/?session__table={table.pk}",
        "transfers": f"/api/v1/transfers/?session__table__round__event={event.pk}",
    }
    for name, url in urls.items():
        assert anonymous.get(url).json()["count"] == 0, name
    assert anonymous.get(f"/api/v1/rounds/{round_.pk}/").status_code == 404
    assert anonymous.get(f"/api/v1/events/{event.pk}/standings/").json()["standings"] == []
    def exported_types(client):
        lines = client.get(f"/api/v1/events/{event.pk}/export.jsonl").content.decode().splitlines()
        return {json.loads(line)["type"] for line in lines}

    assert "hand" not in exported_types(anonymous) and "hand" in exported_types(organiser)
    # The organisers still see everything, and once released so does everyone.
    assert organiser.get(urls["sessions"]).json()["count"] == 1
    assert organiser.patch(f"/api/v1/rounds/{round_.pk}/", {"results_held": False}, format="json").status_code == 200
    assert anonymous.get(urls["sessions"]).json()["count"] == 1
    assert anonymous.get(urls["hands"]).json()["count"] == 4
    assert len(anonymous.get(f"/api/v1/events/{event.pk}/standings/").json()["standings"]) == 4
    assert "hand" in exported_types(anonymous)


@pytest.mark.parametrize("who, status", [("anonymous", 401), ("stranger", 403), ("wrong token", 403), ("no table", 404)])
def test_who_may_submit_is_decided_before_the_body_is_read(world, who, status):
    """A submission's rights come from the table's lock and its round and event: a refused
    request is refused as such (401, 403, 404) even with a body that is not JSON, and nothing is
    stored."""
    from tournaments.models import Hand, Session

    table = world.events["mu"].rounds.get().tables.first()
    other = world.events["lut"].rounds.get().tables.first()
    url = f"/api/v1/tables/{table.pk}/hands/"
    headers = {}
    client = client_for()
    if who == "stranger":
        client = client_for(make_user("someone"))
    elif who == "wrong token":
        headers["HTTP_X_SCORER_TOKEN"] = other.scorer_token
    elif who == "no table":
        client = client_for(world.organiser)
        url = f"/api/v1/tables/{table.pk + other.pk + 1000}/hands/"
    response = client.post(url, data="{not json", content_type="application/json", **headers)
    assert response.status_code == status, response.content
    assert set(response.json()) >= {"code", "message"}
    assert not Hand.objects.exists() and not Session.objects.exists()
    # The same body from someone who may submit is refused for what it is.
    allowed = client_for(world.organiser).post(f"/api/v1/tables/{table.pk}/hands/", data="{not json",
                                               content_type="application/json")
    assert allowed.status_code == 400


def test_maumau_direction_null_counts_as_absent_as_the_engine_says(world):
    # records.md: null counts as absent, so a game whose direction is null starts clockwise
    table = world.events["maumau"].rounds.get().tables.first()
    client = client_for(world.organiser)
    rng = random.Random(12)
    record = next_record("maumau", rng, 4, None, table.first_dealer)
    record["direction"] = None
    assert validate(record)["scores"]
    response = client.post(f"/api/v1/tables/{table.pk}/hands/", record, format="json")
    assert response.status_code == 201, response.json()
    following = next_record("maumau", rng, 4, response.json()["session"])
    if following.get("direction") == 1:
        following["direction"] = None
    response = client.post(f"/api/v1/tables/{table.pk}/hands/", following, format="json")
    assert response.status_code == 201, response.json()


def test_voiding_the_only_deal_of_a_one_deal_session_reopens_it_for_that_deal(world):
    """Issue 38: a voided slot is not a played deal of a fixed-deal session
    (tournaments/results/book.py, played_deals): voiding the only deal reopens the session, nobody
    has won, and the table deals again."""
    from tournaments import services

    event = world.events["mu"]
    event.mu_fixed_deals = 1
    event.save()
    series = services.series_create(by_user=world.organiser, club=world.club, name="Winter", game="mu")
    services.event_update(event=event, by_user=world.organiser, series=series)
    table = event.rounds.get().tables.order_by("number").first()
    client = client_for(world.organiser)
    url = f"/api/v1/tables/{table.pk}/hands/"
    rng = random.Random(38)
    record = next_record("mu", rng, 4, None, table.first_dealer)
    while not any(validate(record)["scores"]):  # a deal somebody wins
        record = next_record("mu", rng, 4, None, table.first_dealer)
    receipt = client.post(url, record, format="json").json()
    assert receipt["session"]["status"] == "finished"

    def wins(path):
        return {row["player"]: row["wins"] for row in client.get(path).json()["standings"]}

    assert sum(wins(f"/api/v1/events/{event.pk}/standings/").values()) >= 1
    assert sum(wins(f"/api/v1/series/{series.pk}/standings/").values()) >= 1
    response = client.post(f"/api/v1/hands/{receipt['hand']['id']}/void/", {"reason": "misdeal"}, format="json")
    assert response.status_code == 200, response.content
    session = response.json()["session"]
    assert session["status"] == "open" and session["hands"] == 1 and session["totals"] == [0, 0, 0, 0]
    assert session["next"] == {"hand": 2, "dealer": (record["dealer"] + 1) % 4, "direction": None}
    assert client.get(url).json()["session"]["status"] == "open"
    # Nobody has won the event or the series with 0, and nobody has played a whole session.
    assert set(wins(f"/api/v1/events/{event.pk}/standings/").values()) <= {0}
    # The series reads the event as it stands (in progress): nobody is ahead of anybody.
    season = client.get(f"/api/v1/series/{series.pk}/standings/").json()["standings"]
    assert len({(row["rank"], row["points"], row["wins"]) for row in season}) <= 1
    rows = client.get(f"/api/v1/events/{event.pk}/standings/").json()["standings"]
    assert all(row["played"] == 0 for row in rows)
    progress = client.get(f"/api/v1/events/{event.pk}/tables/").json()
    mine = next(row for row in progress["tables"] if row["id"] == table.pk)
    assert mine["state"] == "in_progress" and (mine["hands"], mine["hands_due"]) == (1, 2)
    # The table deals again, as the next slot, and the session ends with it.
    again = next_record("mu", random.Random(39), 4, session)
    answer = client.post(f"{url}?hand=2", again, format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["session"]["status"] == "finished"
    assert answer.json()["session"]["totals"] == validate(again)["scores"]
