"""Celery tasks of the tournaments: fetch ids, call the service (HackSoft). Idempotent by design.

The series' syncs are queued here too, when their requests are committed
(``signals.series_sync_requested``, tournaments/standings/outbox.py): a request is what makes the
refresh durable, the task queued after the commit only makes it prompt, so a broker that cannot be
reached is logged and left to beat's catch-up.
"""
from __future__ import annotations

import logging
import time

import redis
from celery import shared_task
from django.conf import settings
from django.dispatch import receiver

from .management.backups import backup
from .signals import series_sync_requested
from .standings import outbox as series_outbox

logger = logging.getLogger(__name__)

# A series' sync starts this long after the request that queued it (``countdown``), and every
# request committed before it starts is seen by it. So the process that queues it marks the series
# in Redis (``_claim``: a key holding when it was queued), and the task deletes the mark when it
# starts, before it reads the requests (``_release``): a request committed while the mark is there
# queues nothing (the sync it names has not started, so it will see the request), one committed
# later queues the next sync. No clock decides what a sync sees: a busy series is refreshed once
# per this delay (plus the refresh's own time), whatever its pace and the number of processes, and
# its hands pay a lookup in this process's dict (until about half of what is left of the delay of
# the sync they know of) or one Redis command.
SYNC_DELAY_SECONDS = 1.0
# A mark whose task never started (lost with a broker, or a worker gone with it before it started)
# is forgotten after this long: the next request queues a sync again (beat's catch-up settles the
# requests meanwhile).
SYNC_MARK_SECONDS = 5 * SYNC_DELAY_SECONDS
_queued: dict[int, float] = {}  # series -> until when (monotonic) a sync known to this process will see a new request
_shared: list = []  # this process's Redis client for the marks (made at the first use)


def _redis():
    if not _shared:
        _shared.append(redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
                       if settings.REDIS_URL else None)
    return _shared[0]


def _mark_key(series_id: int) -> str:
    return f"stich:series-sync:{series_id}"


def _claim(series_id: int, now: float) -> bool:
    """Whether this commit must queue the series' sync: no sync queued by another process (or by
    this one, beyond what ``_queued`` remembers) is waiting to start (its mark in Redis, when there
    is one). Marks the series when it must."""
    client = _redis()
    if client is None:
        return True
    try:
        # One command: the mark set if there is none, else the one there read (SET NX GET).
        held = client.set(_mark_key(series_id), int(time.time() * 1000), nx=True, get=True,
                          px=int(SYNC_MARK_SECONDS * 1000))
    except (redis.RedisError, OSError):  # Redis down: queue (which fails too, and is logged)
        return True
    if held is None:
        return True
    # A sync queued at ``held`` (ms, that process's clock) has not started: it starts no earlier
    # than a delay after it. The next half of what is left needs no command here either (the other
    # half is the margin for the clocks of the processes and the worker).
    left = int(held) / 1000 + SYNC_DELAY_SECONDS - time.time()
    if left > 0:
        _queued[series_id] = now + min(left, SYNC_DELAY_SECONDS) / 2
    return False


def _release(series_id: int) -> None:
    """The series' sync starts: a request committed from now on may be unseen by it, so the next
    one queues a sync again (its mark deleted). A Redis that cannot be reached leaves the mark to
    expire (``SYNC_MARK_SECONDS``)."""
    client = _redis()
    if client is None:
        return
    try:
        client.delete(_mark_key(series_id))
    except (redis.RedisError, OSError):
        logger.warning("could not clear series %s's sync mark; it expires by itself", series_id)


@shared_task(name="tournaments.ping")
def ping(payload: str) -> dict:
    """Round trip through the broker: proves a worker took the task and answered."""
    from celery import current_task

    return {"echo": payload, "worker": current_task.request.hostname}


@shared_task(name="tournaments.backup_database", ignore_result=True)
def backup_database() -> str:
    """Beat's scheduled backup (``BACKUP_DIR``, ``BACKUP_SCHEDULE``) into the worker's BACKUP_DIR."""
    return str(backup(settings.BACKUP_DIR))


@shared_task(name="tournaments.series_sync", acks_late=True, ignore_result=True)
def series_sync(series_id: int) -> int:
    """Recompute a series' kept standings for the requests pending (tournaments/standings/outbox.py),
    its mark cleared first (``_release``: before the sync reads the requests)."""
    _release(series_id)
    return series_outbox.sync(series_id)


@shared_task(name="tournaments.series_catch_up", acks_late=True, ignore_result=True)
def series_catch_up() -> dict:
    """Celery beat's periodic task: sync every series with a request left over."""
    return {series_id: series_outbox.sync(series_id) for series_id in series_outbox.series_behind()}


def queue_series_sync(series_id: int) -> None:
    """Queue the sync of a series (its requests committed), to start after ``SYNC_DELAY_SECONDS``,
    unless this process queued one that will still see them (coalesced per series: the hands of a
    busy series share one refresh). Never raises for an unreachable broker."""
    now = time.monotonic()
    if _queued.get(series_id, 0.0) > now:
        return  # the commonest case of a busy series, decided first (Celery's settings cost more)
    if series_sync.app.conf.task_always_eager:
        series_sync.apply_async(args=[series_id])  # in-process: at once, a failure is a bug
        return
    if not _claim(series_id, now):
        return  # a task queued by another process has not started: it will see this request
    try:
        series_sync.apply_async(args=[series_id], countdown=SYNC_DELAY_SECONDS, ignore_result=True)
    except Exception:
        logger.warning("could not queue series %s's sync; the periodic catch-up will run it", series_id,
                       exc_info=True)
        _release(series_id)  # no sync waits: the next request tries again
        return
    _queued[series_id] = now + SYNC_DELAY_SECONDS / 2


@receiver(series_sync_requested)
def series_sync_requested_received(sender, series_ids: list[int], **kwargs) -> None:
    for series_id in series_ids:
        queue_series_sync(series_id)
