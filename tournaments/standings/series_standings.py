"""A series' standings: a club's season ranked over its events, as each reader may see it, and
kept for the public.

**Reads.** ``series_document`` (``GET /api/v1/series/{id}/standings/``, the pages, the console)
ranks the series' events that the reader sees (``series_events``, date order) by each event's own
standings (``selectors.event_sums``, the kept round sums) and computes the season over them
(``series.series_standings``, plain Python). A reader who sees of the series what the public sees
reads the kept rows instead.

**Kept rows.** Each series' standings as the public reads them are kept (``SeriesStanding``): the
public's read is then one row per player, whatever the number of events. They are a projection,
kept off the writes: every write that can move them records a sync request for the series in its
own transaction (``tournaments/standings/outbox.py``), and a worker recomputes them after the
commit, once for all the requests that piled up (``recompute``, with the one computation there is:
``series_results`` with ``policy.public()``, then ``series.series_standings``). The writes:

- a hand stored, corrected, voided or confirmed, a session abandoned (``tournaments.results.services``)
  in an event of a series (whatever its publication or held rounds): the event's series is read
  after the table's lock, in the statement that changes the event's sums, and the request is
  written there too; no lock of the series is taken;
- an event published or unpublished, attached, detached or moved, its standings metrics or its
  date changed, a round of it held or released (``tournaments.services``). A move to or from a
  series first locks the event's tables, as a hand's write does (``lock_tables``), so that a hand
  either commits before it (and the sync of the new series, which runs after the move, reads it)
  or waits and then requests the sync of the event's new series; a hold or release reads the
  event's series under a share lock of its row (``series_of``), which a move holds until it
  commits;
- a series' scoring, points table, ``best_of``, ``min_events``, games, aggregate,
  ``drop_worst``, ``qualify_percent`` or ``absence_deduction`` changed;
- the sums of events rebuilt (``rebuild``: imports and generated leagues; recomputed at once).

The kept rows are read only while no request for the series is pending and the series matches
what they were computed over (``SeriesStandingBasis``: its scoring, the public's events in order
with their metrics, their held rounds), so neither a change the worker has not synced yet nor one
written around the services is read stale: the standings are computed instead (a constant
number of queries). Readers who see more than the public of a series (an organiser of one of its
unpublished events or held rounds, staff) compute their standings as before;
``tests/series/test_kept_series.py`` compares both the answers and, after the sync, the kept rows
with that computation after random sequences of all the writes above.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection
from django.db.models import Exists, F

from .. import policy
from ..models import (
    Event,
    Round,
    Series,
    SeriesStanding,
    SeriesStandingBasis,
    SeriesSyncRequest,
    Table,
)
from . import sums
from .metrics import ranked
from .selectors import event_metrics, event_sums, series_money
from .series import (
    EventResult,
    SeriesRow,
    moves,
    required_events,
    series_standings,
    shown_score,
)

# The series' options the standings follow from (``basis``, ``kept_rows``), besides its events.
OPTIONS = ("scoring", "points_table", "best_of", "min_events", "games", "aggregate", "drop_worst",
           "qualify_percent", "absence_deduction")


def _series_events(series, visibility: policy.Visibility):
    """The series' events this user sees, in date order (undated last, then as created)."""
    return visibility.events().filter(series=series).order_by(F("starts_on").asc(nulls_last=True), "id")


def series_events(series, *, visibility: policy.Visibility) -> list[Event]:
    """The series' events this user sees, in date order (undated last, then as created)."""
    return list(_series_events(series, visibility))


@dataclass(frozen=True)
class EventKey:
    """What a series' standings need of an event: its id, whether it is published, its metrics,
    and what its column is named by (its game, name and date)."""

    pk: int
    published: bool
    standings_metrics: str
    game: str = ""
    name: str = ""
    starts_on: object = None


def series_event_keys(series, *, visibility: policy.Visibility) -> list[EventKey]:
    """``series_events`` as ``EventKey``: the same events in the same order, read as plain values."""
    return [EventKey(*row) for row in
            _series_events(series, visibility).values_list("pk", "published", "standings_metrics", "game",
                                                            "name", "starts_on")]


def series_results(series, *, visibility: policy.Visibility, events: list[Event] | None = None):
    """Each visible event of the series as its own standings rank it (``series.EventResult``), in
    date order. Two queries whatever the number of events (the events, and their players' kept
    round sums over the rounds this user sees: ``event_sums``), and the same ranking as
    ``event_standings``."""
    events = series_events(series, visibility=visibility) if events is None else events
    sums = event_sums([event.pk for event in events], visibility=visibility)
    results = []
    for event in events:
        kept = {player: values for player, (values, _) in sums.get(event.pk, {}).items()}
        ranks = {row.player: row.rank for row in ranked(kept, event_metrics(event), values=False)}
        results.append(EventResult(event.pk, ranks, {player: values.total for player, values in kept.items()},
                                   event.game))
    return events, results


def series_rows(series, results):
    return series_standings(results, scoring=series.scoring, points_table=series.points_table,
                            best_of=series.best_of, min_events=series.min_events, drop_worst=series.drop_worst,
                            aggregate=series.aggregate, qualify_percent=series.qualify_percent,
                            absence_deduction=series.absence_deduction)


def ranked_rows(series, results) -> list[tuple[SeriesRow, dict]]:
    """The series' rows with the rest of each row (``row_extra``: the move since the latest event
    besides the score and the counts), in ranking order."""
    rows = series_rows(series, results)
    before = series_rows(series, results[:-1]) if len(results) > 1 else None
    move = moves(before, rows)
    return [(row, row_extra(row, move[row.player])) for row in rows]


NO_MONEY = {"won": 0, "won_open": 0, "lost": 0, "lost_open": 0, "net": 0}


def row_extra(row: SeriesRow, move: dict) -> dict:
    """What a kept row holds besides its columns (``SeriesStanding.extra``), as JSON."""
    return {"score": shown_score(row.score), "counted": row.counted, "absences": row.absences,
            "qualified": row.qualified, "per_game": row.per_game, "trend": move["trend"], "new": move["new"]}


def series_document(series, *, visibility: policy.Visibility) -> dict:
    """The series' standings as JSON (``GET /api/v1/series/{id}/standings/``).

    A reader who sees of the series what the public sees reads its kept standings
    (``tournaments/standings/series_standings.py``: one row per player, whatever the number of events); one who
    sees more (an organiser of an unpublished event or a held round of it, staff) has them
    computed over the events and rounds he sees (and so does everyone while a sync of the series
    is pending or the kept rows do not match it: ``kept_rows``). A constant number of queries
    either way."""
    events = series_event_keys(series, visibility=visibility)
    kept = kept_rows(series, events) if visibility.sees_as_public(events) else None
    if kept is not None:
        rows = [{"rank": rank, "player": player, "points": points, "played": played, "wins": wins,
                 "per_event": per_event, **extra}
                for player, rank, points, played, wins, per_event, extra in kept]
    else:
        _, results = series_results(series, visibility=visibility, events=events)
        rows = [{"rank": row.rank, "player": row.player, "points": row.points, "played": row.played,
                 "wins": row.wins, "per_event": {str(event): entry for event, entry in row.per_event.items()},
                 **extra}
                for row, extra in ranked_rows(series, results)]
    names = visibility.names([row["player"] for row in rows])
    # Maumau's money over the season, for the club's organisers and each player his own.
    money_players = visibility.series_money_players(series) if "maumau" in series.game_codes else []
    money = series_money(series, visibility=visibility, players=money_players)
    # Every row has played + missed = the events held (those with a ranked player).
    held = rows[0]["played"] + rows[0]["absences"] if rows else 0
    return {
        "scoring": series.scoring,
        "best_of": series.best_of,
        "min_events": series.min_events,
        "games": series.game_codes,
        "aggregate": series.aggregate,
        "drop_worst": series.drop_worst,
        "qualify_percent": series.qualify_percent,
        "absence_deduction": series.absence_deduction,
        "held": held,
        "required_events": required_events(held, min_events=series.min_events,
                                           qualify_percent=series.qualify_percent),
        "money_shown": money is not None,
        "events": [event.pk for event in events],
        "event_columns": [{"id": event.pk, "name": event.name, "game": event.game,
                           "starts_on": event.starts_on.isoformat() if event.starts_on else None}
                          for event in events],
        "standings": [
            {"rank": row["rank"], "player": row["player"], "name": names.get(row["player"], ""),
             "points": row["points"], "score": row["score"], "played": row["played"], "counted": row["counted"],
             "absences": row["absences"], "wins": row["wins"], "qualified": row["qualified"],
             "trend": row["trend"], "new": row["new"], "per_game": row["per_game"], "per_event": row["per_event"],
             "money": None if money is None else money.get(row["player"], NO_MONEY) if (
                 money_players is None or row["player"] in money_players) else None}
            for row in rows
        ],
    }


# --- kept rows -----------------------------------------------------------------------------------

def held_rounds(events) -> list[int]:
    """The ids of the held rounds of ``events``, in order."""
    ids = [event.pk for event in events]
    if not ids:
        return []
    return list(Round.objects.filter(event__in=ids, results_held=True).order_by("pk").values_list("pk", flat=True))


def basis(series, events, held: list[int]) -> list:
    """What the public's standings of ``series`` follow from besides the sums: its scoring, the
    public's events in order with their metrics, and their held rounds (JSON)."""
    options = [getattr(series, name) for name in OPTIONS]
    return [*options, [[event.pk, event.standings_metrics, event.game] for event in events], list(held)]


def recompute(series: Series) -> None:
    """Recompute the public standings of ``series`` and replace its kept rows, in the caller's
    transaction, which holds the series' row lock (``refresh``, ``outbox.sync``)."""
    public = policy.public()
    events = series_event_keys(series, visibility=public)
    _, results = series_results(series, visibility=public, events=events)
    rows = ranked_rows(series, results)
    SeriesStanding.objects.filter(series=series).delete()
    if connection.vendor == "postgresql":
        _insert_rows(series, rows)
    else:
        SeriesStanding.objects.bulk_create(
            (SeriesStanding(series=series, player_id=row.player, position=position, rank=row.rank,
                            points=row.points, played=row.played, wins=row.wins,
                            per_event={str(event): entry for event, entry in row.per_event.items()}, extra=extra)
             for position, (row, extra) in enumerate(rows)),
            batch_size=1000,
        )
    SeriesStandingBasis.objects.update_or_create(series=series,
                                                 defaults={"basis": basis(series, events, held_rounds(events))})


_ROW_COLUMNS = ("series_id", "player_id", "position", "rank", "points", "played", "wins", "per_event", "extra")


def _insert_rows(series: Series, rows) -> None:
    """PostgreSQL: the rows as one JSON parameter, expanded by the server. ``bulk_create`` sends
    a column array per field, and quoting each row's ``per_event`` into an array cost most of a
    sync's CPU (a 128-player, 10-event season: 58 of 120 ms, profiled)."""
    if not rows:
        return
    quote = connection.ops.quote_name
    document = json.dumps([[row.player, position, row.rank, row.points, row.played, row.wins,
                            {str(event): entry for event, entry in row.per_event.items()}, extra]
                           for position, (row, extra) in enumerate(rows)])
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {quote(SeriesStanding._meta.db_table)} "
            f"({', '.join(quote(column) for column in _ROW_COLUMNS)}) "
            f"SELECT %s, (r->>0)::bigint, (r->>1)::int, (r->>2)::int, (r->>3)::bigint, (r->>4)::int, (r->>5)::int, "
            f"r->6, r->7 FROM jsonb_array_elements(%s::jsonb) AS r",
            [series.pk, document],
        )


def refresh(series_ids: Iterable[int | None]) -> None:
    """Recompute the public standings of ``series_ids`` (None ignored) now, in the caller's
    transaction, under each series' row lock (FOR NO KEY UPDATE: as a sync, ``outbox.sync``)."""
    ids = sorted({int(pk) for pk in series_ids if pk is not None})
    if not ids:
        return
    for series in Series.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk"):
        recompute(series)


def series_of(event_ids: Iterable[int], *, share: bool = False) -> list[int]:
    """The series the events count for, read now; with ``share``, under a share lock of the
    events' rows (on PostgreSQL): a change moving one of them to another series
    (``services.event_update``) either commits first and is read here, or waits for this
    transaction and then requests the syncs of what it wrote."""
    ids = sorted({int(pk) for pk in event_ids})
    if not ids:
        return []
    quote = connection.ops.quote_name
    lock = " FOR SHARE" if share and connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT series_id FROM {quote(Event._meta.db_table)} "
                       f"WHERE id IN ({', '.join(['%s'] * len(ids))}) ORDER BY id{lock}", ids)
        return sorted({row[0] for row in cursor.fetchall() if row[0] is not None})


def lock_tables(event_ids: Iterable[int]) -> None:
    """Lock the events' tables as a hand's write does (``sql.lock_table``): a move of the events to
    or from a series waits for the hands being written and holds back new ones until it commits,
    so that each hand requests the sync of the series its event counts for when it commits."""
    ids = [int(pk) for pk in event_ids]
    if ids and connection.features.has_select_for_update:
        tables = list(Table.objects.select_for_update(of=("self",)).filter(round__event__in=ids).order_by("pk")
                      .values_list("pk", flat=True))
        # A hand read before the move (without the lock: results.sql.read_table) is then made
        # again under the lock, and requests the sync of the series its event counts for now.
        Table.objects.filter(pk__in=tables).update(revision=F("revision") + 1)


def kept_rows(series, events) -> list | None:
    """The kept rows of ``series`` in ranking order, (player, rank, points, played, wins,
    per_event, extra), when no sync request for the series is pending and they were computed over what
    the series is now (``events``: the public's, read now); None when not (a change not synced
    yet, one written around the services, never kept): then the caller computes them. The
    pending requests are read with the basis, before the rows: rows read later are those of that
    moment or of a later sync."""
    pending = SeriesSyncRequest.objects.filter(series_id=series.pk)
    found = (SeriesStandingBasis.objects.filter(series=series.pk)
             .annotate(pending=Exists(pending))
             .values_list("basis", *(f"series__{name}" for name in OPTIONS), "pending")
             .first())
    if found is None or found[-1]:
        return None
    now = Series(pk=series.pk, **dict(zip(OPTIONS, found[1:-1])))
    if found[0] != basis(now, events, held_rounds(events)):
        return None
    return list(SeriesStanding.objects.filter(series=series.pk).order_by("position")
                .values_list("player_id", "rank", "points", "played", "wins", "per_event", "extra"))


def rebuild(event_ids: Iterable[int]) -> None:
    """Replace the events' kept sums by a recomputation (``sums.rebuild``: after data written
    around the services, imports, generated leagues), then the public standings of the series
    they count for (``refresh``, at once: the data was not written through the outbox)."""
    ids = list(event_ids)
    sums.rebuild(ids)
    refresh(series_of(ids))
