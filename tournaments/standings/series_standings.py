"""A series' standings: a club's season ranked over its events, as each reader may see it, and
kept for the public.

**Reads.** ``series_document`` (``GET /api/v1/series/{id}/standings/``, the pages, the console)
ranks the series' events that the reader sees (``series_events``, date order) by each event's own
standings (``selectors.event_sums``, the kept round sums) and computes the season over them
(``series.series_standings``, plain Python). A reader who sees of the series what the public sees
reads the kept rows instead.

**Kept rows.** Each series' standings as the public reads them are kept (``SeriesStanding``): the
public's read is then one row per player, whatever the number of events. ``refresh`` computes a
series' public standings with the one computation there is (``series_results`` with
``policy.public()``, then ``series.series_standings``) and replaces its rows, in the caller's
transaction, under the series' row lock (so that two refreshes of one series run one after the
other, the later one reading what the earlier one committed). It is called by every write that can
move them:

- a hand stored, corrected, voided or confirmed, a session abandoned (``tournaments.results.services``)
  in an event of a series (whatever its publication or held rounds): after the event's sums
  changed, with the event's series read by a statement that follows the table's lock;
- an event published or unpublished, attached, detached or moved, its standings metrics or its
  date changed, a round of it held or released (``tournaments.services``). A move to or from a
  series first locks the event's tables, as a hand's write does, so a hand either commits before
  it (and is read) or waits and then finds the event's new series; a hold or release reads the
  event's series under a share lock of its row (``series_of``). The event, round and series rows
  are locked FOR NO KEY UPDATE, which the rows a hand adds (checked against them at its commit)
  do not wait for;
- a series' scoring, points table, ``best_of`` or ``min_events`` changed;
- the sums of events rebuilt (``rebuild``: imports and generated leagues).

The kept rows are read only while the series matches what they were computed over
(``SeriesStandingBasis``: its scoring, the public's events in order with their metrics, their held
rounds), so a change written around the services makes them computed again instead of read stale.
Readers who see more than the public of a series (an organiser of one of its unpublished events
or held rounds, staff) compute their standings as before; ``tests/series/test_kept_series.py``
compares the kept rows with that computation after random sequences of all the writes above.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from django.db import connection
from django.db.models import F

from .. import policy
from ..models import Event, Round, Series, SeriesStanding, SeriesStandingBasis, Table
from . import sums
from .metrics import ranked
from .selectors import event_metrics, event_sums
from .series import EventResult, series_standings


def _series_events(series, visibility: policy.Visibility):
    """The series' events this user sees, in date order (undated last, then as created)."""
    return visibility.events().filter(series=series).order_by(F("starts_on").asc(nulls_last=True), "id")


def series_events(series, *, visibility: policy.Visibility) -> list[Event]:
    """The series' events this user sees, in date order (undated last, then as created)."""
    return list(_series_events(series, visibility))


@dataclass(frozen=True)
class EventKey:
    """What a series' standings need of an event: its id, whether it is published, its metrics."""

    pk: int
    published: bool
    standings_metrics: str


def series_event_keys(series, *, visibility: policy.Visibility) -> list[EventKey]:
    """``series_events`` as ``EventKey``: the same events in the same order, read as plain values."""
    return [EventKey(*row) for row in
            _series_events(series, visibility).values_list("pk", "published", "standings_metrics")]


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
        results.append(EventResult(event.pk, ranks, {player: values.total for player, values in kept.items()}))
    return events, results


def series_rows(series, results):
    return series_standings(results, scoring=series.scoring, points_table=series.points_table,
                            best_of=series.best_of, min_events=series.min_events)


def series_document(series, *, visibility: policy.Visibility) -> dict:
    """The series' standings as JSON (``GET /api/v1/series/{id}/standings/``).

    A reader who sees of the series what the public sees reads its kept standings
    (``tournaments/standings/series_standings.py``: one row per player, whatever the number of events); one who
    sees more (an organiser of an unpublished event or a held round of it, staff) has them
    computed over the events and rounds he sees (and so does everyone while the kept rows do not
    match the series: ``series_standings.kept_rows``). A constant number of queries either way."""
    events = series_event_keys(series, visibility=visibility)
    kept = kept_rows(series, events) if visibility.sees_as_public(events) else None
    if kept is not None:
        rows = [{"rank": rank, "player": player, "points": points, "played": played, "wins": wins,
                 "per_event": per_event}
                for player, rank, points, played, wins, per_event in kept]
    else:
        _, results = series_results(series, visibility=visibility, events=events)
        rows = [{"rank": row.rank, "player": row.player, "points": row.points, "played": row.played,
                 "wins": row.wins, "per_event": {str(event): entry for event, entry in row.per_event.items()}}
                for row in series_rows(series, results)]
    names = visibility.names([row["player"] for row in rows])
    return {
        "scoring": series.scoring,
        "best_of": series.best_of,
        "min_events": series.min_events,
        "events": [event.pk for event in events],
        "standings": [
            {"rank": row["rank"], "player": row["player"], "name": names.get(row["player"], ""),
             "points": row["points"], "played": row["played"], "wins": row["wins"], "per_event": row["per_event"]}
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
    return [series.scoring, list(series.points_table or []), series.best_of, series.min_events,
            [[event.pk, event.standings_metrics] for event in events], list(held)]


def refresh(series_ids: Iterable[int | None]) -> None:
    """Recompute the public standings of ``series_ids`` (None ignored) and replace their rows."""
    ids = sorted({int(pk) for pk in series_ids if pk is not None})
    if not ids:
        return
    public = policy.public()
    # FOR NO KEY UPDATE: refreshes of one series wait for each other, rows referring to it do not.
    for series in Series.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk"):
        events = series_event_keys(series, visibility=public)
        _, results = series_results(series, visibility=public, events=events)
        rows = series_rows(series, results)
        SeriesStanding.objects.filter(series=series).delete()
        SeriesStanding.objects.bulk_create(
            (SeriesStanding(series=series, player_id=row.player, position=position, rank=row.rank,
                            points=row.points, played=row.played, wins=row.wins,
                            per_event={str(event): entry for event, entry in row.per_event.items()})
             for position, row in enumerate(rows)),
            batch_size=1000,
        )
        SeriesStandingBasis.objects.update_or_create(series=series,
                                                     defaults={"basis": basis(series, events, held_rounds(events))})


def series_of(event_ids: Iterable[int]) -> list[int]:
    """The series the events count for, read now under a share lock of the events' rows (on
    PostgreSQL): a change moving one of them to another series (``services.event_update``) either
    commits first and is read here, or waits for this transaction and then refreshes with what it
    wrote."""
    ids = sorted({int(pk) for pk in event_ids})
    if not ids:
        return []
    quote = connection.ops.quote_name
    share = " FOR SHARE" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT series_id FROM {quote(Event._meta.db_table)} "
                       f"WHERE id IN ({', '.join(['%s'] * len(ids))}) ORDER BY id{share}", ids)
        return sorted({row[0] for row in cursor.fetchall() if row[0] is not None})


def refresh_for_events(event_ids: Iterable[int]) -> None:
    """``refresh`` the series that the events count for now."""
    refresh(series_of(event_ids))


def lock_tables(event_ids: Iterable[int]) -> None:
    """Lock the events' tables as a hand's write does (``sql.lock_table``): a change of what the
    public's series standings read waits for the hands being written and holds back new ones
    until it commits."""
    ids = [int(pk) for pk in event_ids]
    if ids and connection.features.has_select_for_update:
        list(Table.objects.select_for_update(of=("self",)).filter(round__event__in=ids).order_by("pk").values_list("pk", flat=True))


def kept_rows(series, events) -> list | None:
    """The kept rows of ``series`` in ranking order, (player, rank, points, played, wins,
    per_event), when they were computed over what the series is now (``events``: the public's,
    read now); None when not (written around the services, or never kept): then the caller
    computes them."""
    found = (SeriesStandingBasis.objects.filter(series=series.pk)
             .values_list("basis", "series__scoring", "series__points_table", "series__best_of", "series__min_events")
             .first())
    if found is None:
        return None
    kept, scoring, points_table, best_of, min_events = found
    now = Series(pk=series.pk, scoring=scoring, points_table=points_table, best_of=best_of, min_events=min_events)
    if kept != basis(now, events, held_rounds(events)):
        return None
    return list(SeriesStanding.objects.filter(series=series.pk).order_by("position")
                .values_list("player_id", "rank", "points", "played", "wins", "per_event"))


def rebuild(event_ids: Iterable[int]) -> None:
    """Replace the events' kept sums by a recomputation (``sums.rebuild``: after data written
    around the services, imports, generated leagues), then the public standings of the series
    they count for (``refresh_for_events``)."""
    ids = list(event_ids)
    sums.rebuild(ids)
    refresh_for_events(ids)
