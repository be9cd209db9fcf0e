"""How each table of a round is doing, read once for the three places that show it: the console's
board, the room screen and the API's ``/api/v1/events/{id}/tables/``.

One vocabulary of states (``TableState``) with one rule for which applies, and one read that takes
the reader's ``policy.Visibility`` (a round whose results are held back is missing for all but its
organisers) and answers plain dataclasses: per table its number, its players by seat with their
totals, its state, the hands entered and due, the hands waiting for a confirmation and the time of
its last hand. Names are not read here: each reader names the players as it shows them.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from enum import StrEnum

from django.db.models import Count, Exists, Max, OuterRef, Prefetch, Q

from .. import policy
from ..models import Event, Round, Seat, Session, Table
from ..results.book import SessionRules, hands_due, session_length


class TableState(StrEnum):
    """What a table is doing, judged on its latest session. The pages show these names (the
    board's and the room screen's ``data-state``); the API spells ``waiting`` as ``not_started``
    and ``playing`` as ``in_progress``, the names its clients know."""

    WAITING = "waiting"  # no session yet, or no hand stored in it
    PLAYING = "playing"  # hands stored, the session not over
    CONFIRMING = "confirming"  # a hand entered by one seat waits for another's (or an organiser's) confirmation
    FINISHED = "finished"
    ABANDONED = "abandoned"  # given up: nothing more is played there

    @property
    def done(self) -> bool:
        """Nothing more will be played at the table (it counts as through for the round)."""
        return self in (TableState.FINISHED, TableState.ABANDONED)


def table_state(session: Session | None, *, waiting: int) -> TableState:
    """The state of a table whose latest session is ``session`` (None: none yet) with ``waiting``
    hands waiting for a confirmation. Abandoned first (nothing more is played, whatever waits);
    then a waiting hand, even in a session its hands finished: the hand does not count until
    it is confirmed (``results.counts``), so the table is not through."""
    if session is not None and session.status == Session.Status.ABANDONED:
        return TableState.ABANDONED
    if waiting:
        return TableState.CONFIRMING
    if session is None or session.hand_count == 0:
        return TableState.WAITING
    if session.status == Session.Status.FINISHED:
        return TableState.FINISHED
    return TableState.PLAYING


@dataclass(frozen=True)
class SeatTotal:
    player: int  # the player's id
    total: int  # his total in the latest session (hands that count; 0 before the first hand)


@dataclass
class TableProgress:
    id: int  # the table's id
    number: int  # its number in its round
    round_id: int
    round_number: int
    state: TableState
    session: int | None  # the latest session's id (None before the table has one)
    hands: int  # hands stored in the latest session (voided and waiting ones included)
    due: int | None  # hand slots a session runs: its length and the voided slots not played (book.hands_due; None: to a target)
    target: int | None  # Mü's target score when the session has no fixed length
    waiting: int  # hands of the latest session waiting for a confirmation
    last_hand_at: datetime.datetime | None  # when its last hand was entered
    seats: list[SeatTotal]  # in seat order

    @property
    def players(self) -> list[int]:
        return [seat.player for seat in self.seats]

    @property
    def totals(self) -> list[int]:
        return [seat.total for seat in self.seats]


@dataclass
class RoundProgress:
    round_id: int | None  # None: every table of an open club night's evening (each a round of its own)
    round_number: int | None
    tables: list[TableProgress]

    @property
    def finished(self) -> int:
        """Tables through: finished, or abandoned."""
        return sum(table.state.done for table in self.tables)


def round_progress(event: Event, *, visibility: policy.Visibility, number: int | None = None,
                   whole_evening: bool = False) -> RoundProgress | None:
    """The progress of a round of ``event`` that ``visibility`` sees, table by table: round
    ``number``, else the latest round with tables; ``whole_evening``: every round with tables
    instead (an open club night, where each table is a round of its own; the answer names no
    round). None when there is no such round (a held one is missing for all but its organisers).
    Four queries, whatever the number of tables."""
    rounds = visibility.rounds().filter(event=event)
    if number is not None:
        chosen = list(rounds.filter(number=number))
    else:
        rounds = rounds.filter(Exists(Table.objects.filter(round=OuterRef("pk"))))
        chosen = list(rounds.order_by("number")) if whole_evening else list(rounds.order_by("-number")[:1])
    if not chosen:
        return None
    shown = chosen[0] if number is not None or not whole_evening else None
    return RoundProgress(shown.pk if shown else None, shown.number if shown else None, tables_progress(event, chosen))


def tables_progress(event: Event, rounds: list[Round]) -> list[TableProgress]:
    """The tables of ``rounds`` (of ``event``, read through the reader's visibility), in round then
    table order. Three queries whatever the number of tables: the tables, their seats, and their
    sessions with the kept totals and hand counts and the hands that wait, counted by the database."""
    sessions = Session.objects.order_by("number").annotate(
        waiting=Count("hands", filter=Q(hands__unconfirmed=True)), voided=Count("hands", filter=Q(hands__voided=True)),
        last_hand_at=Max("hands__created_at"))
    tables = (Table.objects.filter(round__in=[round_.pk for round_ in rounds]).select_related("round")
              .order_by("round__number", "number")
              .prefetch_related(Prefetch("seats", queryset=Seat.objects.order_by("position")),
                                Prefetch("sessions", queryset=sessions)))
    rows = []
    for table in tables:
        players = [seat.player_id for seat in table.seats.all()]
        table_sessions = list(table.sessions.all())
        session = table_sessions[-1] if table_sessions else None
        waiting = session.waiting if session is not None else 0
        totals = list(session.totals or []) if session is not None else []
        totals += [0] * (len(players) - len(totals))
        rules = SessionRules.for_event(event, len(players))
        length = session_length(rules)
        # A voided hand keeps its slot; the slots due grow by those not played (results/book.py, played_deals).
        due = hands_due(rules, session.hand_count, session.voided) if session is not None else length.hands
        rows.append(TableProgress(
            id=table.pk, number=table.number, round_id=table.round_id, round_number=table.round.number,
            state=table_state(session, waiting=waiting), session=session.pk if session is not None else None,
            hands=session.hand_count if session is not None else 0, due=due, target=length.target,
            waiting=waiting, last_hand_at=session.last_hand_at if session is not None else None,
            seats=[SeatTotal(player, total) for player, total in zip(players, totals)],
        ))
    return rows
