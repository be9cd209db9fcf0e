"""Reads of results: session totals, event standings and Maumau money.

Each read takes the reader's ``policy.Visibility``: what he may not see (rounds whose results an
organiser holds back) is left out there, not here. Abandoned sessions never count.

Sessions keep their totals and hand count (``tournaments.results`` writes them with every hand),
so these reads cost what they show: the event's sessions and seats, whatever the club's history
(a constant number of queries per read, none per session).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from games.rules.maumau import settle

from . import policy
from .models import Attendance, Event, Player, Seat, Session, Transfer
from .standings import SessionLine, StandingRow, standings


@dataclass
class SessionResult:
    session: Session
    players: list[int]  # player ids in seat order
    totals: list[int]
    hands: int


def _with_seats(sessions: QuerySet[Session]) -> QuerySet[Session]:
    return sessions.select_related("table__round").prefetch_related(
        Prefetch("table__seats", queryset=Seat.objects.order_by("position"))
    )


def result_of(session: Session) -> SessionResult:
    """A session with its seats prefetched (``table__seats``) as the reads show it."""
    seats = [seat.player_id for seat in session.table.seats.all()]
    # A session without hands has stored no totals yet: zero for every seat.
    return SessionResult(session, seats, list(session.totals) or [0] * len(seats), session.hand_count)


def _sessions(event: Event, visibility: policy.Visibility):
    sessions = visibility.sessions().filter(table__round__event=event).exclude(status=Session.Status.ABANDONED)
    return _with_seats(sessions).order_by("table__round__number", "table__number", "number")


def session_results(event: Event, *, visibility: policy.Visibility) -> list[SessionResult]:
    return [result_of(session) for session in _sessions(event, visibility)]


def player_session_results(player: Player, *, visibility: policy.Visibility) -> list[SessionResult]:
    """The sessions ``player`` sat in (not abandoned), of every event, with their results: read
    from his seats, in event order then as ``session_results`` orders them."""
    sessions = visibility.sessions().filter(table__seats__player=player).exclude(status=Session.Status.ABANDONED)
    return [
        result_of(session)
        for session in _with_seats(sessions).order_by(
            "table__round__event", "table__round__number", "table__number", "number"
        )
    ]


def _standings(event: Event, results: list[SessionResult]) -> list[StandingRow]:
    lines = [SessionLine(result.players, result.totals, result.session.status == Session.Status.FINISHED)
             for result in results if result.hands]
    metrics = [name for name in event.standings_metrics.split(",") if name]
    return standings(lines, metrics)


def event_standings(event: Event, *, visibility: policy.Visibility) -> list[StandingRow]:
    return _standings(event, session_results(event, visibility=visibility))


def _money(event: Event, results: list[SessionResult]) -> dict:
    finished = [result for result in results if result.session.status == Session.Status.FINISHED]
    transfers: dict[int, list[dict]] = defaultdict(list)
    for t in Transfer.objects.filter(session__in=[result.session.pk for result in finished]).order_by("-cents", "id"):
        transfers[t.session_id].append({"id": t.pk, "from": t.payer_id, "to": t.payee_id, "cents": t.cents, "paid": t.paid})
    cents: dict[int, int] = defaultdict(int)
    series = []
    for result in finished:
        session = result.session
        # The engine's settlement (rules/maumau.md) of the series' minus points: the stored
        # totals are the games' minus points negated (results.maumau_settlement settles the same).
        nets, _ = settle([-total for total in result.totals], event.maumau_stake_cents)
        for seat, net in enumerate(nets):
            cents[result.players[seat]] += net
        series.append({
            "session": session.pk, "table": session.table_id, "round": session.table.round.number,
            "nets": dict(zip(result.players, nets)), "transfers": transfers[session.pk],
        })
    return {"cents": dict(cents), "series": series}


def event_money(event: Event, *, visibility: policy.Visibility, results: list[SessionResult] | None = None) -> dict:
    """Maumau: cents per player (the sum of the settled series) and the transfers per series.
    ``results``: the event's ``session_results`` when the caller read them already."""
    return _money(event, session_results(event, visibility=visibility) if results is None else results)


def standings_document(event: Event, *, visibility: policy.Visibility, results: list[SessionResult] | None = None) -> dict:
    """The event's standings as JSON: metrics as numbers (placement points rounded to 4 places).
    ``results``: the event's ``session_results`` when the caller read them already."""
    results = session_results(event, visibility=visibility) if results is None else results
    rows = _standings(event, results)
    names = visibility.names(Player.objects.filter(pk__in=[row.player for row in rows]))
    cents = _money(event, results)["cents"] if event.game == "maumau" else {}
    metrics = [name for name in event.standings_metrics.split(",") if name]
    return {
        "event": event.pk,
        "metrics": metrics,
        "standings": [
            {
                "rank": row.rank, "player": row.player, "name": names.get(row.player, ""), "played": row.played,
                **{name: _number(value) for name, value in row.metrics.items()},
                **({"cents": cents.get(row.player, 0)} if event.game == "maumau" else {}),
            }
            for row in rows
        ],
    }


def _number(value):
    return value if isinstance(value, int) else round(float(value), 4)


def present_players(event: Event) -> list[int]:
    """The ids of the players present at ``event`` (organisers' data), in the order they checked
    in: the players the next draw seats."""
    return list(
        Attendance.objects.filter(event=event, present=True).order_by("checked_in_at", "player_id")
        .values_list("player_id", flat=True)
    )


# --- series -------------------------------------------------------------------------------------

def series_events(series, *, visibility: policy.Visibility) -> list[Event]:
    """The series' events this user sees, in date order (undated last, then as created)."""
    from django.db.models import F

    return list(visibility.events().filter(series=series).order_by(F("starts_on").asc(nulls_last=True), "id"))


def series_results(series, *, visibility: policy.Visibility, events: list[Event] | None = None):
    """Each visible event of the series as its own standings rank it (``series.EventResult``), in
    date order. A constant number of queries whatever the number of events (the events, their
    sessions' kept totals and their seats, read as plain values), and the same ranking as
    ``event_standings``: abandoned sessions and sessions without hands do not count."""
    from .series import EventResult

    events = series_events(series, visibility=visibility) if events is None else events
    ids = [event.pk for event in events]
    sessions = (visibility.sessions().filter(table__round__event__in=ids, hand_count__gt=0)
                .exclude(status=Session.Status.ABANDONED)
                .order_by("table__round__number", "table__number", "number")
                .values_list("table_id", "table__round__event_id", "totals", "status"))
    seats: dict[int, list[int]] = defaultdict(list)
    for table_id, player_id in (Seat.objects.filter(table__round__event__in=ids).order_by("table_id", "position")
                                .values_list("table_id", "player_id")):
        seats[table_id].append(player_id)
    lines: dict[int, list[SessionLine]] = defaultdict(list)
    for table_id, event_id, totals, status in sessions:
        players = seats[table_id]
        lines[event_id].append(SessionLine(players, list(totals) or [0] * len(players), status == Session.Status.FINISHED))
    results = []
    for event in events:
        totals: dict[int, int] = defaultdict(int)
        for line in lines[event.pk]:
            for player, total in zip(line.players, line.totals):
                totals[player] += total
        metrics = [name for name in event.standings_metrics.split(",") if name]
        ranks = {row.player: row.rank for row in standings(lines[event.pk], metrics)}
        results.append(EventResult(event.pk, ranks, dict(totals)))
    return events, results


def series_rows(series, results):
    from .series import series_standings

    return series_standings(results, scoring=series.scoring, points_table=series.points_table,
                            best_of=series.best_of, min_events=series.min_events)


def series_document(series, *, visibility: policy.Visibility) -> dict:
    """The series' standings as JSON (``GET /api/v1/series/{id}/standings/``)."""
    events, results = series_results(series, visibility=visibility)
    rows = series_rows(series, results)
    names = visibility.names([row.player for row in rows])
    return {
        "scoring": series.scoring,
        "best_of": series.best_of,
        "min_events": series.min_events,
        "events": [event.pk for event in events],
        "standings": [
            {"rank": row.rank, "player": row.player, "name": names.get(row.player, ""), "points": row.points,
             "played": row.played, "wins": row.wins,
             "per_event": {str(event): entry for event, entry in row.per_event.items()}}
            for row in rows
        ],
    }
