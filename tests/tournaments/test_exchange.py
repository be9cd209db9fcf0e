"""An event's export read back by the import is the same event: every option (the services' own
list, ``confirm_hands`` included), every round, table, seat, session (status, first dealer, when it
finished, totals) and every hand with all its versions and its state (entered by, waiting for
confirmation, disputed, confirmed by which seat and when). Exported again, it gives the same lines."""
from __future__ import annotations

import json
import random

import pytest

from tests.api.play import next_record
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

REFERENCES = {"event": {"club": "club"}, "player": {"clubs": "club"}, "table": {"round": "round", "seats": "player"},
              "session": {"table": "table"}, "hand": {"session": "session"}}


def normalised(text: str) -> list[dict]:
    """The export's lines with every id replaced by its place in the file (ids differ between
    databases; what they refer to must not)."""
    lines = [json.loads(line) for line in text.splitlines()]
    places: dict[str, dict] = {}
    for line in lines:
        if "id" in line:
            places.setdefault(line["type"], {})[line["id"]] = len(places.get(line["type"], {}))
    out = []
    for line in lines:
        line = dict(line)
        if "id" in line:
            line["id"] = places[line["type"]][line["id"]]
        for key, kind in REFERENCES.get(line["type"], {}).items():
            value = line[key]
            line[key] = [places[kind][v] for v in value] if isinstance(value, list) else places[kind].get(value, value)
        out.append(line)
    return out


def build(world):
    """A Mü event with every option away from its default and hands in every state."""
    from tournaments import services
    from tournaments.results import services as results

    event = world.events["mu"]
    services.event_update(event=event, by_user=None, confirm_hands=True, mu_fixed_deals=3, mu_target_score=150,
                          standings_metrics="total,wins", starts_on="2026-11-20")
    tables = list(event.rounds.get().tables.order_by("number"))
    rng = random.Random(11)
    summary = None
    hands = []
    for seat in (0, 1, 2):  # table 1: three hands entered by seats 0, 1, 2
        record = next_record("mu", rng, 4, summary, tables[0].first_dealer)
        receipt = results.hand_submit(table_id=tables[0].pk, entry=results.Entry(record, seat=seat)).receipt
        summary = receipt["session"]
        hands.append(tables[0].sessions.get().hands.get(pk=receipt["hand"]["id"]))
    results.hand_confirm(hand=hands[0], seat=3)
    results.hand_dispute(hand=hands[1], seat=0, reason="wrong points")
    # hands[2] still waits. Table 2: an organiser's hands (confirmed at once), one corrected, one void.
    summary = None
    for _ in range(3):
        record = next_record("mu", rng, 4, summary, tables[1].first_dealer)
        summary = results.hand_submit(table_id=tables[1].pk, entry=results.Entry(record), by_user=world.organiser).receipt["session"]
    played = list(tables[1].sessions.get().hands.order_by("number"))
    other = next_record("mu", random.Random(5), 4, {"next": {"dealer": played[0].dealer, "direction": None}})
    results.hand_correct(hand=played[0], record=other, by_user=world.organiser, reason="typo")
    results.hand_void(hand=played[2], by_user=world.organiser, reason="misdeal")
    return event


def hand_states(event) -> list[tuple]:
    from tournaments.models import Hand
    from tournaments.results.exchange import HAND_STATE

    hands = Hand.objects.filter(session__table__round__event=event).order_by(
        "session__table__number", "session__number", "number")
    return [(h.session.table.number, h.number, h.version, h.voided, h.dealer, h.record, h.result,
             *[getattr(h, name) for name in HAND_STATE]) for h in hands]


def sessions(event) -> list[tuple]:
    from tournaments.models import Session

    return [(s.table.number, s.number, s.status, s.first_dealer, s.finished_at, s.totals, s.hand_count)
            for s in Session.objects.filter(table__round__event=event).order_by("table__number", "number")]


def test_an_export_imported_is_the_same_event(world):
    from tournaments import policy, services
    from tournaments.models import Event
    from tournaments.results.exchange import export_text, import_lines

    event = Event.objects.get(pk=build(world).pk)
    seen = policy.visibility(world.organiser)
    first = export_text(event, visibility=seen)
    copy = import_lines(first.splitlines(), by_user=world.staff)
    assert copy.pk != event.pk
    event, copy = Event.objects.get(pk=event.pk), Event.objects.get(pk=copy.pk)
    for name in services.EVENT_FIELDS:
        assert getattr(copy, name) == getattr(event, name), name
    assert copy.confirm_hands is True
    assert hand_states(copy) == hand_states(event)
    # The case is not empty: confirmed, disputed, waiting (entered_by_seat, unconfirmed, disputed, …).
    states = {(row[0], row[1]): row[7:10] for row in hand_states(copy)}
    assert states[(1, 1)] == (0, False, False) and states[(1, 2)] == (1, True, True)
    assert states[(1, 3)] == (2, True, False)
    assert sessions(copy) == sessions(event)
    again = export_text(copy, visibility=policy.visibility(world.staff))
    assert normalised(again) == normalised(first)


def test_an_import_refuses_options_out_of_bounds(world):
    from tournaments import policy
    from tournaments.models import Event
    from tournaments.results.exchange import ImportRejected, export_text, import_lines

    lines = export_text(world.events["mu"], visibility=policy.visibility(world.organiser)).splitlines()
    head = json.loads(lines[0])
    lines[0] = json.dumps({**head, "mu_target_score": 10**20})
    count = Event.objects.count()
    with pytest.raises(ImportRejected) as refused:
        import_lines(lines)
    assert refused.value.rejections[0].path == "/mu_target_score"
    assert Event.objects.count() == count


def test_every_rejection_of_the_import_carries_a_member_of_an_enumeration(world):
    """What the import refuses is named with an enum member: ``ImportCode`` for a line that is no
    export line and a file without an event, ``Error`` for what the reader refuses, the engine's
    ``Code`` for a record."""
    from games.rules import Code
    from tournaments import policy
    from tournaments.errors import Error, ImportCode
    from tournaments.results.exchange import ImportRejected, export_text, import_lines

    table = world.events["mu"].rounds.get().tables.first()
    client_for(world.organiser).post(f"/api/v1/tables/{table.pk}/hands/",
                                     next_record("mu", random.Random(2), 4, None, table.first_dealer), format="json")
    lines = export_text(world.events["mu"], visibility=policy.visibility(world.organiser)).splitlines()
    hand = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "hand")
    broken = json.loads(lines[hand])
    broken["record"] = {**broken["record"], "game": "chess"}
    lines[hand] = json.dumps(broken)
    lines += ["{not json", '{"no": "type"}', "[" * 100 + "]" * 100]
    with pytest.raises(ImportRejected) as refused:
        import_lines(lines)
    rejections = refused.value.rejections
    with pytest.raises(ImportRejected) as refused:
        import_lines(["{}"])
    rejections += refused.value.rejections
    assert [rejection.code for rejection in rejections] == [
        Code.UNKNOWN_GAME, ImportCode.BAD_LINE, ImportCode.BAD_LINE, Error.TOO_DEEP, ImportCode.BAD_LINE,
        ImportCode.NO_EVENT]
    assert all(type(rejection.code) in (Code, Error, ImportCode) for rejection in rejections)


def test_the_export_names_players_as_the_standings_csv_does(world):
    """One rule for the names of every read: for each reader, the export's player lines carry the
    name the standings' CSV shows him (``policy.Visibility``; no namesakes here, so no additions):
    an initials-only player's real name only to those who see it, a deleted player as ``#id``."""
    import csv
    import io

    from tests.conftest import make_user
    from tournaments import services
    from tournaments.models import Club, Event, Player

    event = Event.objects.get(pk=build(world).pk)
    own = Player.objects.get(user=world.player_user)  # the player's own: he sees his real name
    seated = [own, *Player.objects.filter(seats__table__round__event=event).exclude(pk=own.pk).distinct().order_by("pk")]
    for player, name in zip(seated[:3], ("Anna Berg", "Carl Dorn", "Eva Fink")):  # initials of their own
        services.player_update(player=player, by_user=None, name=name, initials_only=True)
    services.player_anonymise(player=seated[2], by_user=None)
    stranger = make_user("stranger")  # organises an event of another club only
    other_club = Club.objects.create(name="Anderer Club")
    services.event_create(by_user=stranger, club=other_club, name="Elsewhere", game="mu", organisers=[stranger])
    readers = {"anonymous": None, "player": world.player_user, "other organiser": world.other_organiser,
               "organiser": world.organiser, "club organiser": world.club_organiser, "staff": world.staff,
               "stranger": stranger}
    hidden, mine = "Carl Dorn", "Anna Berg"
    for who, user in readers.items():
        api = client_for(user)
        table = "".join(part.decode() for part in api.get(f"/api/v1/events/{event.pk}/standings.csv").streaming_content)
        shown = {int(row["player"]): row["name"] for row in csv.DictReader(io.StringIO(table))}
        export = api.get(f"/api/v1/events/{event.pk}/export.jsonl").content.decode()
        exported = {line["id"]: line["name"] for line in map(json.loads, export.splitlines()) if line["type"] == "player"}
        assert set(shown) <= set(exported) and {pk: exported[pk] for pk in shown} == shown, who
        sees = who in ("other organiser", "organiser", "club organiser", "staff")
        assert (exported[seated[1].pk] == hidden) is sees, who
        assert (exported[own.pk] == mine) is (sees or who == "player"), who
    assert exported[seated[2].pk] == f"#{seated[2].pk}"


def test_the_export_command_writes_what_staff_or_the_public_sees(world, tmp_path):
    from django.core.management import call_command

    from tournaments import services

    event = build(world)
    player = event.rounds.get().tables.first().seats.first().player
    services.player_update(player=player, by_user=None, initials_only=True)
    full, public = tmp_path / "full.jsonl", tmp_path / "public.jsonl"
    call_command("export_event", event.pk, str(full))
    call_command("export_event", event.pk, str(public), "--public")
    names = {path: {line["id"]: line["name"] for line in map(json.loads, path.read_text().splitlines())
                    if line["type"] == "player"} for path in (full, public)}
    player.refresh_from_db()
    assert names[full][player.pk] == player.name and names[public][player.pk] == player.public_name
