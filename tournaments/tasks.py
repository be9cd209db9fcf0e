"""Celery tasks of the tournaments: fetch ids, call the service (HackSoft). Idempotent by design.

The series' syncs are queued here too, when their requests are committed
(``signals.series_sync_requested``, tournaments/standings/outbox.py): a request is what makes the
refresh durable, the task queued after the commit only makes it prompt, so a broker that cannot be
reached is logged and left to beat's catch-up.
"""
from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.dispatch import receiver

from .management.backups import backup
from .signals import series_sync_requested
from .standings import outbox as series_outbox

logger = logging.getLogger(__name__)

# Set while a series' sync task is queued and not yet started: the hands committed meanwhile need
# no task of their own (the queued one will see their requests). It expires, so a task lost on
# the way costs at most this long before the next hand queues another (and beat's catch-up runs
# anyway).
QUEUED_SECONDS = 10


def _queued_key(series_id: int) -> str:
    return f"series-sync-queued:{series_id}"


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
    """Recompute a series' kept standings for the requests pending (tournaments/standings/outbox.py).
    The queued mark goes first: a request committed from now on queues a task of its own, one
    committed before is read by this sync."""
    try:
        cache.delete(_queued_key(series_id))
    except Exception:  # the cache down: the mark expires by itself
        logger.warning("could not clear the queued mark of series %s", series_id, exc_info=True)
    return series_outbox.sync(series_id)


@shared_task(name="tournaments.series_catch_up", acks_late=True, ignore_result=True)
def series_catch_up() -> dict:
    """Celery beat's periodic task: sync every series with a request left over."""
    return {series_id: series_outbox.sync(series_id) for series_id in series_outbox.series_behind()}


def queue_series_sync(series_id: int) -> None:
    """Queue the sync of a series unless one is queued and not started yet (coalesced per series:
    the hands of a busy series share one refresh). Never raises for an unreachable broker."""
    if series_sync.app.conf.task_always_eager:
        series_sync.apply_async(args=[series_id])  # in-process: at once, a failure is a bug
        return
    try:
        if not cache.add(_queued_key(series_id), 1, QUEUED_SECONDS):
            return  # a queued task will see this request
    except Exception:
        logger.warning("the cache is unreachable; queueing series %s's sync anyway", series_id, exc_info=True)
    try:
        series_sync.apply_async(args=[series_id], ignore_result=True)
    except Exception:
        logger.warning("could not queue series %s's sync; the periodic catch-up will run it", series_id,
                       exc_info=True)
        try:
            cache.delete(_queued_key(series_id))  # the next request tries again
        except Exception:
            pass


@receiver(series_sync_requested)
def series_sync_requested_received(sender, series_ids: list[int], **kwargs) -> None:
    for series_id in series_ids:
        queue_series_sync(series_id)
