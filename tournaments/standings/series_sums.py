"""Each series' standings as the public reads them, kept (``SeriesStanding``): the series read of
the public (``selectors.series_document``) is then one row per player, whatever the number of
events, instead of every event's sums ranked and the series computed over them.

``refresh`` computes a series' public standings with the one computation there is
(``selectors.series_results`` with ``policy.public()``, then ``series.series_standings``) and
replaces its rows, in the caller's transaction, under the series' row lock (so that two
refreshes of one series run one after the other, the later one reading what the earlier one
committed). It is called by every write that can move them:

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
- the sums of events rebuilt (``aggregates.rebuild``: imports and generated leagues).

The kept rows are read only while the series matches what they were computed over
(``SeriesStandingBasis``: its scoring, the public's events in order with their metrics, their held
rounds), so a change written around the services makes them computed again instead of read stale.
Readers who see more than the public of a series (an organiser of one of its unpublished events
or held rounds, staff) compute their standings as before; ``tests/series/test_kept_series.py``
compares the kept rows with that computation after random sequences of all the writes above.
"""
from __future__ import annotations

from typing import Iterable

from django.db import connection


def held_rounds(events) -> list[int]:
    """The ids of the held rounds of ``events``, in order."""
    from ..models import Round

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
    from .. import policy
    from ..models import Series, SeriesStanding, SeriesStandingBasis
    from .selectors import series_event_keys, series_results, series_rows

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
    from ..models import Event

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
    from ..models import Table

    ids = [int(pk) for pk in event_ids]
    if ids and connection.features.has_select_for_update:
        list(Table.objects.select_for_update(of=("self",)).filter(round__event__in=ids).order_by("pk").values_list("pk", flat=True))


def kept_rows(series, events) -> list | None:
    """The kept rows of ``series`` in ranking order, (player, rank, points, played, wins,
    per_event), when they were computed over what the series is now (``events``: the public's,
    read now); None when not (written around the services, or never kept): then the caller
    computes them."""
    from ..models import Series, SeriesStanding, SeriesStandingBasis

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
