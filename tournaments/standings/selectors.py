"""Reads of results: session totals, event standings and Maumau money.

Each read takes the reader's ``policy.Visibility``: what he may not see (rounds whose results an
organiser holds back) is left out there, not here. Abandoned sessions never count.

Sessions keep their totals and hand count, and each round its players' sums
(``tournaments.results.services`` writes both with every hand), so these reads cost what they show: the
standings read the sums (one row per player and round), the tables and money the event's
sessions and seats, whatever the club's history (a constant number of queries per read, none per
session).
"""
from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from django.db import connection
from django.db.models import Prefetch, Q, QuerySet, Sum

from .. import policy
from ..errors import Invalid, NotFound
from ..models import (
    Attendance,
    Club,
    Event,
    EventStanding,
    Player,
    Round,
    RoundStanding,
    Seat,
    Session,
    Table,
    Transfer,
)
from ..results.book import money
from .finals import FinalRow, final_ranking, qualifiers
from .metrics import StandingRow, Sums, metric_values, ranked
from .sums import FIELDS


@dataclass
class SessionResult:
    session: Session | SessionRow  # a model, or a row read with its table (the event page's table cards)
    players: list[int]  # player ids in seat order
    totals: list[int]
    hands: int


class SessionRow(NamedTuple):
    """A session of a table read as plain values (``tables_seats_and_sessions``), with the fields its
    readers use (``SessionResult``, ``event_money``, the table cards, the chances): a model
    instance of every column cost twice as much to read."""

    pk: int
    table: Table  # the table it was read with (and its round, when the caller selected it)
    number: int
    status: str
    totals: list
    hand_count: int
    finished_at: datetime.datetime | None

    @property
    def table_id(self) -> int:
        return self.table.pk


def tables_seats_and_sessions(tables: list[Table]) -> tuple[dict[int, list[tuple[int, int]]],
                                                           dict[int, list[SessionRow]]]:
    """Of ``tables`` (that the caller may show: ``policy.Visibility``'s), their seats as (position,
    player id) pairs by position and their sessions (``SessionRow``) by number, table id → list:
    two queries of plain rows whatever the number of tables."""
    by_id = {table.pk: table for table in tables}
    seats: dict[int, list[tuple[int, int]]] = {pk: [] for pk in by_id}
    sessions: dict[int, list[SessionRow]] = {pk: [] for pk in by_id}
    if not by_id:
        return seats, sessions
    for table, position, player in (Seat.objects.filter(table__in=list(by_id)).order_by("table", "position")
                                    .values_list("table", "position", "player")):
        seats[table].append((position, player))
    for pk, table, number, status, totals, hands, finished_at in (
            Session.objects.filter(table__in=list(by_id)).order_by("table", "number")
            .values_list("pk", "table", "number", "status", "totals", "hand_count", "finished_at")):
        sessions[table].append(SessionRow(pk, by_id[table], number, status, totals, hands, finished_at))
    return seats, sessions


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


def session_results(event: Event, *, visibility: policy.Visibility, tables=None) -> list[SessionResult]:
    """The event's sessions with their results; only those of ``tables`` (ids) when given."""
    sessions = _sessions(event, visibility)
    if tables is not None:
        sessions = sessions.filter(table__in=list(tables))
    return [result_of(session) for session in sessions]


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


def event_metrics(event: Event) -> list[str]:
    return [name for name in event.standings_metrics.split(",") if name]


def event_sums(event_ids, *, visibility: policy.Visibility, preliminary: bool = False
               ) -> dict[int, dict[int, tuple[Sums, int]]]:
    """Event id → player id → (his ``Sums``, his Maumau cents) over the rounds this user sees:
    one query over the kept sums (``tournaments/standings/sums.py``), whatever the number of sessions
    and rounds: each player's event sums (``EventStanding``, every round) less his sums of the
    rounds this user may not see (rounds held back: few). Events this user does not see are left
    out, and players seated at no session with a hand he sees. Written as SQL (the visibility
    compiled by the ORM): the rows come as plain integers."""
    ids = [int(pk) for pk in event_ids]
    if not ids:
        return {}
    seen_sql, seen_params = visibility.events().filter(pk__in=ids).order_by().values("pk").query.sql_with_params()
    unseen = Round.objects.filter(event__in=ids).exclude(pk__in=visibility.rounds().order_by().values("pk"))
    if preliminary:
        unseen = Round.objects.filter(event__in=ids).filter(
            Q(stage=Round.Stage.FINAL) | ~Q(pk__in=visibility.rounds().order_by().values("pk")))
    unseen = unseen.order_by().values("pk")
    unseen_sql, unseen_params = unseen.query.sql_with_params()
    quote = connection.ops.quote_name
    columns = ", ".join(quote(name) for name in FIELDS)
    negated = ", ".join(f"-{quote(name)}" for name in FIELDS)
    sums = ", ".join(f"CAST(SUM({quote(name)}) AS BIGINT)" for name in FIELDS)
    sql = (f"SELECT event_id, player_id, {sums} FROM ("
           f"SELECT event_id, player_id, {columns} FROM {quote(EventStanding._meta.db_table)} "
           f"WHERE event_id IN ({seen_sql}) "
           f"UNION ALL SELECT event_id, player_id, {negated} FROM {quote(RoundStanding._meta.db_table)} "
           f"WHERE round_id IN ({unseen_sql}) AND event_id IN ({seen_sql})"
           f") AS kept GROUP BY event_id, player_id HAVING SUM({quote('seated')}) > 0")
    found: dict[int, dict[int, tuple[Sums, int]]] = defaultdict(dict)
    with connection.cursor() as cursor:
        cursor.execute(sql, [*seen_params, *unseen_params, *seen_params])
        for event_id, player, seated, played, placement, total, wins, cents in cursor.fetchall():
            found[event_id][player] = (Sums(seated, played, placement, total, wins), cents)
    return found


def _event_rows(event: Event, visibility: policy.Visibility, *, values: bool = True, preliminary: bool = False
                ) -> tuple[list[StandingRow], dict[int, int], dict[int, Sums]]:
    """The event's ranked rows, each player's cents and sums. ``values=False``: the rows without
    their metrics' values (``with_values`` adds them to the rows shown: a page of a long event).
    ``preliminary``: over the preliminary rounds only."""
    found = event_sums([event.pk], visibility=visibility, preliminary=preliminary).get(event.pk, {})
    sums = {player: kept for player, (kept, _) in found.items()}
    rows = ranked(sums, event_metrics(event), values=values)
    return rows, {player: cents for player, (_, cents) in found.items()}, sums


def _with_values(rows: list[StandingRow], sums: dict, metrics: list[str]) -> list[StandingRow]:
    return [StandingRow(row.player, row.rank, row.played, metric_values(sums[row.player], metrics)) for row in rows]


def event_standings(event: Event, *, visibility: policy.Visibility) -> list[StandingRow]:
    return _event_rows(event, visibility)[0]


# --- seating by standings, and the final stage (tournaments/standings/finals.py) ------------------

def start_numbers(event: Event) -> dict[int, int]:
    """Each player's number in the event: his start number, 1, 2, 3 … in the order he was first
    checked in (the order of his attendance row, which is kept when he leaves and comes back).
    A seating script names the players by it; the console shows it beside each name."""
    players = Attendance.objects.filter(event=event).order_by("pk").values_list("player_id", flat=True)
    return {player: number for number, player in enumerate(players, start=1)}


def rounds_sums(event: Event, rounds: QuerySet) -> dict[int, Sums]:
    """Each player's sums over ``rounds`` (a queryset of the event's rounds): the kept round sums
    (``RoundStanding``) added up in one query."""
    rows = (RoundStanding.objects.filter(event=event, round__in=rounds.order_by().values("pk"))
            .values("player").annotate(**{name: Sum(name) for name in FIELDS}).order_by())
    return {row["player"]: Sums(int(row["seated"]), int(row["played"]), int(row["placement"]), int(row["total"]),
                                int(row["wins"])) for row in rows if row["seated"]}


def ranking_before(event: Event, number: int) -> list[StandingRow]:
    """The standings after the event's preliminary rounds numbered below ``number``, every round
    counted (held ones too: the organisers' draw): what the ``standings`` and ``interval`` draws
    and the final's qualification read."""
    rounds = Round.objects.filter(event=event, number__lt=number, stage=Round.Stage.PRELIMINARY)
    return ranked(rounds_sums(event, rounds), event_metrics(event), values=False)


def finalists(event: Event, number: int) -> list[int]:
    """The top ``event.final_size`` of the preliminary standings before round ``number``
    (``finals.qualifiers``: a tie at the cut goes to the lower start number)."""
    return qualifiers(ranking_before(event, number), event.final_size or 0, start_numbers(event))


def final_rows(event: Event, visibility: policy.Visibility) -> list[FinalRow] | None:
    """The final ranking as ``visibility`` sees it, or None while the event has no final round
    with tables that this reader sees. The finalists are the players seated in the final rounds,
    in their preliminary order; their points, the final's first metric plus the carry-over."""
    if not event.final_size:
        return None
    final_rounds = visibility.rounds().filter(event=event, stage=Round.Stage.FINAL)
    seated = set(Seat.objects.filter(round__in=final_rounds.order_by().values("pk")).values_list("player_id", flat=True))
    if not seated:
        return None
    rows, _, sums = _event_rows(event, visibility, values=False, preliminary=True)
    ranks = {row.player: row.rank for row in rows}
    numbers = start_numbers(event)
    order = sorted(seated, key=lambda p: (ranks.get(p, len(rows) + 1), numbers.get(p, 10**9), p))
    return final_ranking(order, sums, ranks, rounds_sums(event, final_rounds), event_metrics(event),
                         event.final_carry)


def _final_document(event: Event, rows: list[FinalRow], visibility: policy.Visibility) -> dict:
    names = visibility.names([row.player for row in rows])
    return {
        "size": event.final_size, "carry": event.final_carry, "metric": event_metrics(event)[0],
        "standings": [{"rank": row.rank, "player": row.player, "name": names.get(row.player, ""),
                       "played": row.played, "final": _number(row.final), "carried": _number(row.carried),
                       "points": _number(row.points), "preliminary_rank": row.preliminary_rank}
                      for row in rows],
    }


def _money(event: Event, results: list[SessionResult]) -> dict:
    finished = [result for result in results if result.session.status == Session.Status.FINISHED]
    transfers: dict[int, list[dict]] = defaultdict(list)
    for t in Transfer.objects.filter(session__in=[result.session.pk for result in finished]).order_by("-cents", "id"):
        transfers[t.session_id].append({"id": t.pk, "from": t.payer_id, "to": t.payee_id, "cents": t.cents, "paid": t.paid})
    cents: dict[int, int] = defaultdict(int)
    series = []
    for result in finished:
        session = result.session
        # The engine's settlement (rules/maumau.md) of the series' stored totals, as the session's
        # book settles it when the series finishes (``book.money``).
        nets, _ = money(result.totals, event.maumau_stake_cents)
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


def series_money(series, *, visibility: policy.Visibility, players: list[int] | None) -> dict[int, dict] | None:
    """Maumau money over the season: per player whose money this user sees
    (``players``, from ``Visibility.series_money_players``: None for all), the cents he won and lost in the series' events he
    sees, and of each what is not paid yet (``Transfer.paid``): ``{"won", "won_open", "lost",
    "lost_open", "net"}``. None when he sees nobody's. Two queries whatever the season's length."""
    if players == []:
        return None
    transfers = visibility.transfers().filter(session__table__round__event__series=series.pk).order_by()
    found: dict[int, dict] = {}

    def entry(player):
        return found.setdefault(player, {"won": 0, "won_open": 0, "lost": 0, "lost_open": 0, "net": 0})

    for side, key in (("payee", "won"), ("payer", "lost")):
        rows = transfers if players is None else transfers.filter(**{f"{side}__in": players})
        for player, cents, open_cents in (rows.values(side).annotate(
                all_cents=Sum("cents"), open_cents=Sum("cents", filter=Q(paid=False)))
                .values_list(side, "all_cents", "open_cents")):
            values = entry(player)
            values[key] += cents
            values[f"{key}_open"] += open_cents or 0
    for values in found.values():
        values["net"] = values["won"] - values["lost"]
    return found


def _standing(event: Event, metrics: list[str], row: StandingRow, name: str, cents: dict) -> dict:
    return {
        "rank": row.rank, "player": row.player, "name": name, "played": row.played,
        **{metric: _number(row.metrics[metric]) for metric in metrics if metric in row.metrics},
        **({"cents": cents.get(row.player, 0)} if event.game == "maumau" else {}),
    }


# Long standings come in pages (API ``?page=&page_size=``, the pages' ``?page=``): a page's rows
# keep the ranks of the whole standings. Standings of at most one default page, asked for without
# a page, come whole, in the document's shape of old.
STANDINGS_PAGE_SIZE = 100
STANDINGS_MAX_PAGE_SIZE = 1000


def standings_document(event: Event, *, visibility: policy.Visibility, page: int | None = None,
                       page_size: int | None = None, clamp: bool = False) -> dict:
    """The event's standings as JSON: metrics as numbers (placement points rounded to 4 places).

    Read from the kept round sums (a constant number of queries and no session read, whatever
    the event's size); names are looked up for the rows shown only.

    Paginated when ``page`` or ``page_size`` is given or the standings are longer than
    ``STANDINGS_PAGE_SIZE``: then one page of rows (ranks stay those of the whole standings) and
    ``count`` (rows in all), ``page``, ``pages`` and ``page_size``. A page past the last is
    ``NotFound``, or the last page with ``clamp``; a size outside 1–``STANDINGS_MAX_PAGE_SIZE``
    is ``Invalid``.

    An event whose final rounds have tables (that this reader sees) adds ``final``: the final
    ranking (``final_rows``); ``standings`` is then the preliminary ranking, over the preliminary
    rounds only, and ``stage`` says so (``"final"``; ``"preliminary"`` otherwise)."""
    final = final_rows(event, visibility)
    rows, cents, sums = _event_rows(event, visibility, values=False, preliminary=final is not None)
    paging = None
    if page is not None or page_size is not None or len(rows) > STANDINGS_PAGE_SIZE:
        size = STANDINGS_PAGE_SIZE if page_size is None else page_size
        if not 1 <= size <= STANDINGS_MAX_PAGE_SIZE:
            raise Invalid(f"page_size is between 1 and {STANDINGS_MAX_PAGE_SIZE}", field="page_size")
        number = 1 if page is None else page
        if number < 1:
            raise Invalid("pages are numbered from 1", field="page")
        pages = max(1, -(-len(rows) // size))
        if number > pages:
            if not clamp:
                raise NotFound(f"the standings have {pages} page(s) of {size} rows")
            number = pages
        paging = {"count": len(rows), "page": number, "pages": pages, "page_size": size}
        rows = rows[(number - 1) * size:number * size]
    metrics = event_metrics(event)
    rows = _with_values(rows, sums, metrics)  # the values of the rows shown only
    names = visibility.names([row.player for row in rows])
    document = {
        "event": event.pk,
        "metrics": metrics,
        "standings": [_standing(event, metrics, row, names.get(row.player, ""), cents) for row in rows],
    }
    if final is not None:
        document["stage"] = "final"
        document["final"] = _final_document(event, final, visibility)
    return {**document, **paging} if paging else document


def standings_stream(event: Event, *, visibility: policy.Visibility, chunk: int = 500):
    """The standings document's metrics, then its rows one by one, every row of the event: what a
    CSV streams. Names are looked up ``chunk`` rows at a time. With a final (``final_rows``):
    first ``(metrics, final document)``, then the preliminary rows."""
    final = final_rows(event, visibility)
    rows, cents, sums = _event_rows(event, visibility, values=False, preliminary=final is not None)
    metrics = event_metrics(event)
    yield metrics if final is None else (metrics, _final_document(event, final, visibility))
    for first in range(0, len(rows), chunk):
        part = _with_values(rows[first:first + chunk], sums, metrics)
        names = visibility.names([row.player for row in part])
        for row in part:
            yield _standing(event, metrics, row, names.get(row.player, ""), cents)


def _number(value):
    return value if isinstance(value, int) else round(float(value), 4)


def present_players(event: Event) -> list[int]:
    """The ids of the players present at ``event`` (organisers' data), in the order they checked
    in: the players the next draw seats."""
    return list(
        Attendance.objects.filter(event=event, present=True).order_by("checked_in_at", "player_id")
        .values_list("player_id", flat=True)
    )


# --- the evening over the API: who is here, the tables' state, the reader's own account -----------

def checked_in(event: Event, *, visibility: policy.Visibility) -> list[dict]:
    """The players checked in at ``event`` (present now), in check-in order, by the names this
    reader sees (namesakes told apart): ``GET /api/v1/events/{id}/checkins/``."""
    rows = list(Attendance.objects.filter(event=event, present=True).order_by("checked_in_at", "player_id")
                .values_list("player_id", "checked_in_at"))
    names = visibility.names([player for player, _ in rows])
    numbers = start_numbers(event)
    return [{"player": player, "name": names.get(player, ""), "checked_in_at": at, "number": numbers[player]}
            for player, at in rows]


def checkin_entry(attendance: Attendance, *, visibility: policy.Visibility) -> dict:
    """One player's check-in as ``checked_in`` lists it."""
    name = visibility.names([attendance.player_id]).get(attendance.player_id, "")
    number = Attendance.objects.filter(event=attendance.event_id, pk__lte=attendance.pk).count()
    return {"player": attendance.player_id, "name": name, "checked_in_at": attendance.checked_in_at,
            "number": number}


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


def event_place(event: Event, player_id: int, *, visibility: policy.Visibility) -> tuple[int | None, int]:
    """``player_id``'s rank in the event's standings as this user sees them, and the number of
    ranked players (None: he has no row)."""
    rows = _event_rows(event, visibility, values=False)[0]
    return next((row.rank for row in rows if row.player == player_id), None), len(rows)
