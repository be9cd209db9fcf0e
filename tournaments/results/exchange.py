"""A self-contained event export as JSON Lines, and its import into another database.

One JSON object per line, each with a ``type``, in this order: the event with its options, its
clubs, its players, rounds, tables with their seats, sessions, then every hand version with its
record. Ids are the exporting database's; the import maps them to new rows. Every record is
validated again on import; a rejection names its line and JSON Pointer and nothing is imported.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Iterator

from django.db import transaction
from django.db.models import DateTimeField
from django.utils.dateparse import parse_datetime

from games.parsers import read_json
from games.refusals import Reason, Unreadable
from games.rules import Code, RecordError, validate

from .. import audit, policy
from ..audit import plain as _plain
from ..errors import Error, ImportCode, Invalid
from ..models import (
    Club,
    Event,
    Hand,
    HandVersion,
    Membership,
    Player,
    Round,
    Seat,
    Session,
    Table,
)
from ..services import EVENT_FIELDS, _check_event
from ..standings import series_standings
from .services import HAND_STATE_FIELDS, session_recount

FORMAT = "stich-event/1"
# Every option of an event and every state of a hand, from the services' own lists: an option or
# a state added there travels with the export without a change here.
EVENT_OPTIONS = list(EVENT_FIELDS)
HAND_STATE = [name for name in HAND_STATE_FIELDS if name != "confirmed_by"]  # user accounts stay home


def export_lines(event: Event, *, visibility: policy.Visibility) -> Iterator[dict]:
    rounds = visibility.rounds().filter(event=event).order_by("number")
    tables = Table.objects.filter(round__in=rounds).order_by("round__number", "number")
    seats = Seat.objects.filter(table__in=tables).order_by("table", "position")
    player_ids = sorted(set(seats.values_list("player_id", flat=True)))
    players = Player.objects.filter(pk__in=player_ids).prefetch_related("clubs")
    clubs = {event.club_id} | set(Membership.objects.filter(player__in=player_ids).values_list("club_id", flat=True))

    yield {"type": "event", "format": FORMAT, "id": event.pk, "club": event.club_id,
           **{name: _plain(getattr(event, name)) for name in EVENT_OPTIONS}}
    for club in Club.objects.filter(pk__in=clubs).order_by("pk"):
        yield {"type": "club", "id": club.pk, "name": club.name, "city": club.city}
    # The names the reader sees, by the rule of every other read (the standings' CSV included):
    # ``policy.Visibility``, without the namesakes' addition (the import stores the name).
    names = visibility.plain_names(player_ids)
    for player in players.order_by("pk"):
        yield {"type": "player", "id": player.pk, "name": names[player.pk], "initials_only": player.initials_only,
               "anonymised": player.anonymised, "clubs": sorted(c.pk for c in player.clubs.all())}
    for round_ in rounds:
        yield {"type": "round", "id": round_.pk, "number": round_.number, "results_held": round_.results_held,
               **({"stage": round_.stage} if round_.stage != Round.Stage.PRELIMINARY else {})}
    seated: dict[int, list[int]] = {}
    for seat in seats:
        seated.setdefault(seat.table_id, []).append(seat.player_id)
    for table in tables:
        yield {"type": "table", "id": table.pk, "round": table.round_id, "number": table.number, "seats": seated.get(table.pk, [])}
    sessions = Session.objects.filter(table__in=tables).order_by("table__round__number", "table__number", "number")
    for session in sessions:
        yield {"type": "session", "id": session.pk, "table": session.table_id, "number": session.number,
               "status": session.status, "first_dealer": session.first_dealer,
               "finished_at": _plain(session.finished_at)}
    versions = HandVersion.objects.filter(hand__session__in=sessions).select_related("hand").order_by(
        "hand__session__table__round__number", "hand__session__table__number", "hand__session__number",
        "hand__number", "version",
    )
    for version in versions:
        hand = version.hand
        yield {"type": "hand", "session": hand.session_id, "number": hand.number,
               "version": version.version, "voided": version.voided,
               # Each version's own dealer (a correction may change it); versions stored before
               # dealers were kept per version have it only in their record.
               "dealer": version.dealer if version.dealer is not None else (version.record or {}).get("dealer"),
               "reason": version.reason, "record": version.record,
               # The hand's state now (the same on each of its versions' lines; the last one stands).
               "state": {name: _plain(getattr(hand, name)) for name in HAND_STATE}}


def export_text(event: Event, *, visibility: policy.Visibility) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in export_lines(event, visibility=visibility))


@dataclass
class Rejection:
    """A line the import refuses. ``code`` is a member of an enumeration: the engine's
    (``games.rules.Code``) for a record, ``Error`` for an option out of bounds or what the reader
    refuses (``too_deep``, ``bad_text``), ``ImportCode`` for a line that is no export line or a
    file without an event."""

    line: int
    code: Code | Error | ImportCode
    path: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.code} at {self.path or '(root)'}: {self.message}"


class ImportRejected(Exception):
    def __init__(self, rejections: list[Rejection]) -> None:
        super().__init__("; ".join(map(str, rejections)))
        self.rejections = rejections


def import_lines(lines: Iterable[str], *, progress=None, by_user=None, via: str = "command") -> Event:
    """Import one exported event (new rows throughout). All or nothing; one audit row."""
    ids: dict[str, dict] = {kind: {} for kind in ("club", "player", "round", "table", "session")}
    rejections: list[Rejection] = []
    event = None
    event_data: dict = {}
    touched: dict[int, Session] = {}
    abandoned: list[Session] = []
    finished_at: dict[int, str | None] = {}
    with transaction.atomic():
        for number, text in enumerate(lines, start=1):
            if progress:
                progress()
            if not text.strip():
                continue
            try:
                item = read_json(text)  # the API's reader: depth limit, text the database can store
                kind = item["type"]
            except Unreadable as exc:
                code = ImportCode.BAD_LINE if exc.reason is Reason.PARSE_ERROR else Error(exc.reason)
                rejections.append(Rejection(number, code, exc.path, f"not an export line: {exc}"))
                continue
            except (KeyError, TypeError) as exc:
                rejections.append(Rejection(number, ImportCode.BAD_LINE, "", f"not an export line: {exc}"))
                continue
            if kind == "event":
                event_data = item
            elif kind == "club":
                club, _ = Club.objects.get_or_create(name=item["name"], defaults={"city": item.get("city", "")})
                ids["club"][item["id"]] = club
                if event is None and item["id"] == event_data.get("club"):
                    event = Event(club=club, **{k: event_data[k] for k in EVENT_OPTIONS if k in event_data})
                    try:
                        _check_event(event)  # the options' bounds, as for an event created here
                    except Invalid as error:
                        # Nothing of the event can be read without it: refused at once.
                        rejections.append(Rejection(number, error.code, f"/{error.field or ''}", error.message))
                        raise ImportRejected(rejections) from None
                    event.save()
            elif kind == "player":
                player = Player.objects.create(name=item["name"], initials_only=item.get("initials_only", False))
                for club_id in item.get("clubs", []):
                    if club_id in ids["club"]:
                        Membership.objects.get_or_create(player=player, club=ids["club"][club_id])
                ids["player"][item["id"]] = player
            elif kind == "round":
                stage = item.get("stage") if item.get("stage") in Round.Stage.values else Round.Stage.PRELIMINARY
                ids["round"][item["id"]] = Round.objects.create(event=event, number=item["number"],
                                                                results_held=item["results_held"], stage=stage)
            elif kind == "table":
                table = Table.objects.create(round=ids["round"][item["round"]], number=item["number"])
                Seat.objects.bulk_create(
                    Seat(table=table, round=table.round, player=ids["player"][pid], position=pos)
                    for pos, pid in enumerate(item["seats"])
                )
                ids["table"][item["id"]] = table
            elif kind == "session":
                session = Session.objects.create(
                    table=ids["table"][item["table"]], number=item["number"], first_dealer=item.get("first_dealer", 0)
                )
                ids["session"][item["id"]] = session
                finished_at[session.pk] = item.get("finished_at")
                if item["status"] == Session.Status.ABANDONED:
                    abandoned.append(session)
            elif kind == "hand":
                session = ids["session"][item["session"]]
                record = item.get("record")
                result = None
                if not item.get("voided"):
                    try:
                        result = validate(record)
                    except RecordError as error:
                        rejections.append(Rejection(number, error.code, error.path, error.message))
                        continue
                hand, created = Hand.objects.get_or_create(
                    session=session, number=item["number"],
                    defaults={"dealer": item["dealer"], "record": record, "result": result,
                              "voided": item.get("voided", False), "version": item["version"]},
                )
                if not created:
                    hand.record, hand.result, hand.voided, hand.version = record, result, item.get("voided", False), item["version"]
                    hand.dealer = item["dealer"]
                state = item.get("state") or {}
                for name in HAND_STATE:
                    if name in state:
                        value = state[name]
                        if isinstance(value, str) and isinstance(Hand._meta.get_field(name), DateTimeField):
                            value = parse_datetime(value)
                        setattr(hand, name, value)
                hand.save()
                HandVersion.objects.create(hand=hand, version=item["version"], dealer=item["dealer"], record=record, result=result,
                                           voided=item.get("voided", False), reason=item.get("reason", ""))
                touched[session.pk] = session
        if event is None:
            rejections.append(Rejection(1, ImportCode.NO_EVENT, "", "the file holds no event"))
        if rejections:
            transaction.set_rollback(True)
            raise ImportRejected(rejections)
        for session in touched.values():
            session_recount(session=session)
        for session in abandoned:
            session.status = Session.Status.ABANDONED
            session.save(update_fields=["status"])
        for session in Session.objects.filter(pk__in=finished_at, status=Session.Status.FINISHED):
            if finished_at[session.pk]:  # when it finished, not when it was imported
                session.finished_at = parse_datetime(finished_at[session.pk])
                session.save(update_fields=["finished_at"])
        series_standings.rebuild([event.pk])  # sessions abandoned above: the sums from what is stored now
        audit.record(actor=by_user, via=via, action=audit.Action.EVENT_IMPORTED, obj=event, event=event,
                     after={"format": FORMAT, "sessions": len(ids["session"]), "players": len(ids["player"])})
    return event
