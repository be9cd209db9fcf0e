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

from django.db.models import Count, Exists, Max, OuterRef, Prefetch, Q, QuerySet

from games.rules.maumau import settle

from . import policy
from .errors import NotFound
from .models import Attendance, Club, Event, Player, Seat, Session, Table, Transfer
from .progress import SessionRules, session_length
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
    lines = [SessionLine(result.players, result.totals) for result in results if result.hands]
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
                .values_list("table_id", "table__round__event_id", "totals"))
    seats: dict[int, list[int]] = defaultdict(list)
    for table_id, player_id in (Seat.objects.filter(table__round__event__in=ids).order_by("table_id", "position")
                                .values_list("table_id", "player_id")):
        seats[table_id].append(player_id)
    lines: dict[int, list[SessionLine]] = defaultdict(list)
    for table_id, event_id, totals in sessions:
        players = seats[table_id]
        lines[event_id].append(SessionLine(players, list(totals) or [0] * len(players)))
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


# --- the evening over the API: who is here, the tables' state, the reader's own account -----------

def checked_in(event: Event, *, visibility: policy.Visibility) -> list[dict]:
    """The players checked in at ``event`` (present now), in check-in order, by the names this
    reader sees (namesakes told apart): ``GET /api/v1/events/{id}/checkins/``."""
    rows = list(Attendance.objects.filter(event=event, present=True).order_by("checked_in_at", "player_id")
                .values_list("player_id", "checked_in_at"))
    names = visibility.names([player for player, _ in rows])
    return [{"player": player, "name": names.get(player, ""), "checked_in_at": at} for player, at in rows]


def checkin_entry(attendance: Attendance, *, visibility: policy.Visibility) -> dict:
    """One player's check-in as ``checked_in`` lists it."""
    name = visibility.names([attendance.player_id]).get(attendance.player_id, "")
    return {"player": attendance.player_id, "name": name, "checked_in_at": attendance.checked_in_at}


def tables_state(event: Event, *, visibility: policy.Visibility, round_number: int | None = None) -> dict:
    """The state of the event's tables (``GET /api/v1/events/{id}/tables/``), after MahjongPantheon's
    ``GetTablesState``: per table its number, its players in seat order (seats from 1) by the names
    this reader sees, its session's state (``not_started``, ``in_progress``, ``finished``,
    ``abandoned``) with the hands entered, the totals so far and when the last hand came in.

    The round: ``round_number``, else the latest round with tables; an open club night (each table a
    round of its own) shows every table of the evening. Only rounds the reader sees count (a round
    held back is missing for all but its organisers: a ``round_number`` of such a round is a 404).
    A constant number of queries, whatever the number of tables."""
    rounds = visibility.rounds().filter(event=event)
    if round_number is not None:
        chosen = list(rounds.filter(number=round_number))
        if not chosen:
            raise NotFound("this event has no such round, or its results are not shown to you")
    elif event.format == Event.Format.OPEN:
        chosen = list(rounds)
    else:
        latest = rounds.filter(Exists(Table.objects.filter(round=OuterRef("pk")))).order_by("-number").first()
        chosen = [latest] if latest is not None else []
    shown_round = chosen[0] if len(chosen) == 1 and (round_number is not None or event.format != Event.Format.OPEN) \
        else None
    sessions = Session.objects.order_by("number").annotate(
        waiting=Count("hands", filter=Q(hands__unconfirmed=True)), last_hand_at=Max("hands__created_at"))
    tables = list(
        Table.objects.filter(round__in=[round_.pk for round_ in chosen]).select_related("round")
        .order_by("round__number", "number")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.order_by("position")),
                          Prefetch("sessions", queryset=sessions))
    )
    names = visibility.names({seat.player_id for table in tables for seat in table.seats.all()})
    rows = []
    for table in tables:
        seats = list(table.seats.all())
        table_sessions = list(table.sessions.all())
        session = table_sessions[-1] if table_sessions else None
        hands = session.hand_count if session is not None else 0
        if session is not None and session.status == Session.Status.ABANDONED:
            state = "abandoned"
        elif session is not None and session.status == Session.Status.FINISHED:
            state = "finished"
        elif hands:
            state = "in_progress"
        else:
            state = "not_started"
        totals = (list(session.totals) if session is not None else []) or [0] * len(seats)
        length = session_length(SessionRules.for_event(event, len(seats)))
        rows.append({
            "id": table.pk, "number": table.number,
            "round": {"id": table.round_id, "number": table.round.number},
            "state": state,
            "session": session.pk if session is not None else None,
            "hands": hands,
            "hands_due": length.hands, "target": length.target,
            "waiting_for_confirmation": session.waiting if session is not None else 0,
            "last_hand_at": session.last_hand_at if session is not None else None,
            "players": [
                {"seat": index + 1, "player": seat.player_id, "name": names.get(seat.player_id, ""),
                 "total": totals[index] if index < len(totals) else 0}
                for index, seat in enumerate(seats)
            ],
        })
    return {
        "event": event.pk, "game": event.game,
        "round": {"id": shown_round.pk, "number": shown_round.number} if shown_round is not None else None,
        "tables": rows,
    }


def account(user) -> dict:
    """The logged-in user's own account (``GET /api/v1/me/``): his user name, his player (if one is
    linked to him) and his clubs with his roles in each (``organiser``: he organises the club;
    ``member``: his player belongs to it)."""
    player = Player.objects.filter(user=user.pk, anonymised=False).first()
    roles: dict[int, list[str]] = defaultdict(list)
    names: dict[int, str] = {}
    for club, name in Club.objects.filter(organisers=user.pk).values_list("pk", "name"):
        roles[club].append("organiser")
        names[club] = name
    if player is not None:
        for club, name in player.clubs.values_list("pk", "name"):
            roles[club].append("member")
            names[club] = name
    return {
        "id": user.pk,
        "username": user.get_username(),
        "staff": bool(user.is_staff),
        "player": None if player is None else {
            "id": player.pk, "name": player.name, "display_name": player.shown_name,
            "initials_only": player.initials_only,
        },
        "clubs": [{"id": club, "name": names[club], "roles": roles[club]}
                  for club in sorted(names, key=lambda pk: (names[pk].casefold(), pk))],
    }
