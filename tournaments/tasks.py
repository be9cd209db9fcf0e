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

# A series' sync starts this long after the request that queued it (``countdown``): every request
# committed before it starts is seen by it. So once a sync is queued, the requests committed
# within half this delay (the other half is the margin for the clocks of the processes and the
# worker) queue none: the hands of a busy series pay a lookup in a dict (this process queued it)
# or one Redis command (another did: a key that lives half the delay), not a task each, and the
# series is refreshed about once per this delay, whatever its pace and the number of processes.
SYNC_DELAY_SECONDS = 1.0
_queued: dict[int, float] = {}  # series -> until when a sync this process queued will see a new request
_shared: list = []  # this process's Redis client for the marks (made at the first use)


def _redis():
    if not _shared:
        _shared.append(redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
                       if settings.REDIS_URL else None)
    return _shared[0]


def _claim(series_id: int, now: float) -> bool:
    """Whether this commit must queue the series' sync, this process having queued none that will
    see it (``queue_series_sync`` asks ``_queued`` first): no sync queued within the last half
    delay by another process (through Redis, when there is one)."""
    client = _redis()
    if client is None:
        return True
    try:
        claimed = client.set(f"stich:series-sync:{series_id}", 1, nx=True, px=int(SYNC_DELAY_SECONDS * 500))
    except (redis.RedisError, OSError):  # Redis down: queue (which fails too, and is logged)
        return True
    if not claimed:
        # Another process queued a sync less than half the delay ago: it starts more than half the
        # delay from now, so the next quarter of it needs no command here either.
        _queued[series_id] = now + SYNC_DELAY_SECONDS / 4
    return bool(claimed)


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
    """Recompute a series' kept standings for the requests pending (tournaments/standings/outbox.py)."""
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
        return  # a task queued meanwhile starts later than this commit: it will see this request
    try:
        series_sync.apply_async(args=[series_id], countdown=SYNC_DELAY_SECONDS, ignore_result=True)
    except Exception:
        logger.warning("could not queue series %s's sync; the periodic catch-up will run it", series_id,
                       exc_info=True)
        return
    _queued[series_id] = now + SYNC_DELAY_SECONDS / 2


@receiver(series_sync_requested)
def series_sync_requested_received(sender, series_ids: list[int], **kwargs) -> None:
    for series_id in series_ids:
        queue_series_sync(series_id)
