"""The series' outbox: a change that moves a series' public standings writes down, in its own
transaction, that the series must be synced (``SeriesSyncRequest``); a worker recomputes the
series' kept standings after the commit (``tournaments.tasks.series_sync``) and deletes exactly the
requests it saw.

So the season is a projection of the hands, off the hand's write: a hand in an event of a series
adds one row to this outbox (in its one statement on PostgreSQL, ``results.sql.store_hand``) and
takes no lock of the series; the refresh runs once for all the requests that piled up while the
previous one ran (coalesced per series). A sync that saw a request has also seen the change
written with it (both committed before it read them); a request committed later stays for the
next sync. While a request is pending the kept rows are not read (``series_standings.kept_rows``):
readers compute the standings, so no answer is stale. A request whose task was never queued (the
broker down) or whose worker died is synced by Celery beat's catch-up
(``tournaments.series_catch_up``, ``SERIES_CATCH_UP_SECONDS``).
"""
from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from ..models import Series, SeriesSyncRequest
from ..signals import announce_series_sync_requested
from . import series_standings


def requested(series_ids: Iterable[int | None], *, announced: bool = False) -> None:
    """The requests of ``series_ids`` (None ignored) were written by the caller's statement: have
    them synced after its commit. ``announced``: the caller moves the series' live pages itself
    (a hand's ``table_results_changed``, one round trip for the event's and the series' versions)."""
    ids = sorted({int(pk) for pk in series_ids if pk is not None})
    if ids:
        announce_series_sync_requested(ids, announced=announced)


def request_sync(series_ids: Iterable[int | None]) -> None:
    """Inside the caller's transaction: the series ``series_ids`` (None ignored) must be synced."""
    ids = sorted({int(pk) for pk in series_ids if pk is not None})
    if ids:
        SeriesSyncRequest.objects.bulk_create(SeriesSyncRequest(series_id=pk) for pk in ids)
        requested(ids)


def request_for_events(event_ids: Iterable[int], *, share: bool = False) -> None:
    """``request_sync`` for the series the events count for now (``series_standings.series_of``;
    ``share``: read under a share lock of the events' rows)."""
    request_sync(series_standings.series_of(event_ids, share=share))


def sync(series_id: int) -> int:
    """Recompute the kept standings of one series, if a request is pending for it, and settle the
    requests it saw (one transaction); returns their number (0: an earlier sync covered them)."""
    with transaction.atomic():
        # The series' row lock (FOR NO KEY UPDATE, taken by the sync only): two syncs of a series
        # run one after the other, and the later one reads the requests and results the earlier
        # one left, so an older computation never replaces a newer one.
        series = Series.objects.select_for_update(no_key=True).filter(pk=series_id).first()
        # Read before the computation reads the results: whatever these requests stand for is
        # visible to it.
        seen = list(SeriesSyncRequest.objects.filter(series_id=series_id).values_list("pk", flat=True))
        if not seen:
            return 0
        if series is not None:  # else deleted since: its requests are void
            series_standings.recompute(series)
        SeriesSyncRequest.objects.filter(pk__in=seen).delete()
    return len(seen)


def pending(series_id: int) -> bool:
    """Whether a request of the series waits for a sync."""
    return SeriesSyncRequest.objects.filter(series_id=series_id).exists()


def series_behind() -> list[int]:
    """The series with a request nobody settled yet."""
    return sorted(set(SeriesSyncRequest.objects.values_list("series_id", flat=True)))
