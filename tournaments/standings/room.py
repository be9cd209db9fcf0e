"""What the room screen shows besides the standings: the round's progress table by table, the
change of every player's rank since the previous round, and the latest finished sessions with
their winners.

Every read takes the reader's ``policy.Visibility`` (the screen is public): a round whose results
are held back is missing from the progress, from both standings the change compares and from the
latest results, so the change since the last round never reveals a held round.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q

from .. import policy
from ..models import Event, Seat, Session
from ..results.book import SessionRules, session_length
from .metrics import SessionLine, StandingRow, standings
from .selectors import SessionResult
from .series import trend


@dataclass
class TableProgress:
    number: int
    state: str  # waiting, playing, confirming, finished, abandoned
    hands: int  # hands stored in the table's latest session
    due: int | None  # hands a session has (None: Mü played to a target score)
    target: int | None  # Mü's target score when the session has no fixed length
    players: list[int]  # player ids in seat order
    totals: list[int]  # the latest session's totals per seat (zeros before the first hand)


@dataclass
class RoundProgress:
    round_number: int
    tables: list[TableProgress]

    @property
    def finished(self) -> int:
        """Tables done: finished, or abandoned (nothing more will be played there)."""
        return sum(table.state in ("finished", "abandoned") for table in self.tables)


def round_progress(event: Event, *, visibility: policy.Visibility) -> RoundProgress | None:
    """The latest round with tables that ``visibility`` sees, table by table: not started, in
    progress (hands stored of those due), waiting for a second player's confirmation, finished.
    Three queries whatever the number of tables."""
    round_ = visibility.rounds().filter(event=event, tables__isnull=False).order_by("-number").first()
    if round_ is None:
        return None
    waiting = Count("hands", filter=Q(hands__unconfirmed=True))
    tables = round_.tables.order_by("number").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.order_by("position")),
        Prefetch("sessions", queryset=Session.objects.order_by("number").annotate(waiting=waiting)),
    )
    rows = []
    for table in tables:
        sessions = list(table.sessions.all())
        session = sessions[-1] if sessions else None
        players = [seat.player_id for seat in table.seats.all()]
        hands = session.hand_count if session is not None else 0
        if session is not None and session.status == Session.Status.ABANDONED:
            state = "abandoned"
        elif session is not None and session.waiting:
            state = "confirming"  # a hand entered that does not count until another seat confirms it
        elif session is None or hands == 0:
            state = "waiting"
        elif session.status == Session.Status.FINISHED:
            state = "finished"
        else:
            state = "playing"
        length = session_length(SessionRules.for_event(event, len(players)))
        totals = (list(session.totals) if session is not None else []) or [0] * len(players)
        rows.append(TableProgress(table.number, state, hands, length.hands, length.target, players, totals))
    return RoundProgress(round_.number, rows)


def _standings(event: Event, results: list[SessionResult]) -> list[StandingRow]:
    """The standings over ``results`` (some of an event's rounds), by the event's metrics."""
    lines = [SessionLine(result.players, result.totals, result.session.status == Session.Status.FINISHED)
             for result in results if result.hands]
    return standings(lines, [name for name in event.standings_metrics.split(",") if name])


def standings_moves(event: Event, results: list[SessionResult]) -> tuple[int | None, dict]:
    """The change of each player's rank since the standings after the previous round: places
    gained (+) or lost (−), 0 for the same rank, None for a player who had no rank then.

    ``results``: the event's session results as the reader sees them (``session_results``), so a
    held round counts in neither standings. The latest round is the latest one with a hand in
    them; the standings before it are those of the rounds before it. Ranks are the standings'
    own, shared ranks included (two players tied on 2nd who stay tied have moved 0).
    Returns (the previous round's number, the moves); (None, {}) while no earlier round has
    results to compare with."""
    counted = [result for result in results if result.hands]
    if not counted:
        return None, {}
    latest = max(result.session.table.round.number for result in counted)
    before = [result for result in counted if result.session.table.round.number < latest]
    if not before:
        return None, {}
    previous = max(result.session.table.round.number for result in before)
    return previous, trend(_standings(event, before), _standings(event, counted))


@dataclass
class FinishedSession:
    round_number: int
    table_number: int
    players: list[int]
    totals: list[int]
    winners: list[int]  # the players with the highest total (shared first places included)


def latest_results(results: list[SessionResult], *, limit: int = 3) -> list[FinishedSession]:
    """The ``limit`` sessions finished last, latest first, with their winners."""
    finished = [result for result in results if result.session.status == Session.Status.FINISHED and result.hands]
    finished.sort(key=lambda result: (result.session.finished_at is not None, result.session.finished_at,
                                      result.session.pk), reverse=True)
    shown = []
    for result in finished[:limit]:
        best = max(result.totals)
        shown.append(FinishedSession(
            result.session.table.round.number, result.session.table.number, list(result.players),
            list(result.totals), [p for p, total in zip(result.players, result.totals) if total == best]))
    return shown
