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

# A series' sync starts this long after it is queued (``countdown``) and sees every request
# committed before it starts. A sync that saw requests queues the next one itself, this long after
# it, and keeps the series' mark in Redis (``_chain``): while a series is busy its syncs form a
# chain, once per this delay (plus the refresh's own time), whatever its pace and the number of
# processes. A sync that saw none ends the chain: it deletes the mark, then looks again, and queues
# a sync for what was committed meanwhile (``series_sync``). A commit queues a sync only when no
# chain holds the mark (``_claim``: SET NX). Either way some sync reads its request and, having
# seen it, queues the next one a delay later, so every request this process commits within that
# delay is seen too: its hands ask Redis at most once per half of it (the other half the margin
# for the clocks) and pay a lookup in this process's dict otherwise. Without Redis there is no mark
# and no chain: a process's commit queues a sync unless one it queued has not started yet.
SYNC_DELAY_SECONDS = 1.0
# A mark whose chain broke (its task lost with a broker, or a worker gone with it) is forgotten
# after this long: the next request queues a sync again (beat's catch-up settles the requests
# meanwhile). Each link of a chain renews it.
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


def _claim(series_id: int) -> bool:
    """Whether this commit must queue the series' sync: no chain of syncs holds its mark in Redis
    (then this call marks it). Without Redis, or with Redis down: yes."""
    client = _redis()
    if client is None:
        return True
    try:
        return bool(client.set(_mark_key(series_id), int(time.time() * 1000), nx=True,
                               px=int(SYNC_MARK_SECONDS * 1000)))
    except (redis.RedisError, OSError):  # Redis down: queue (which fails too, and is logged)
        return True


def _chain(series_id: int) -> None:
    """A sync saw requests: the next one starts a delay from now, the series' mark renewed, so
    that the commits meanwhile queue nothing (the next sync will see them). Without a mark (no
    Redis, or Redis down) there is no chain: each commit's process queues its own syncs, at most
    one per half delay, as a chain would multiply with every one of them."""
    client = _redis()
    if client is None:
        return
    try:
        client.set(_mark_key(series_id), int(time.time() * 1000), px=int(SYNC_MARK_SECONDS * 1000))
    except (redis.RedisError, OSError):
        logger.warning("could not renew series %s's sync mark; commits queue syncs again", series_id)
        _release(series_id)
        return
    _queue(series_id)


def _release(series_id: int) -> None:
    """The chain of the series' syncs ends: the next commit queues a sync again (its mark
    deleted). A Redis that cannot be reached leaves the mark to expire (``SYNC_MARK_SECONDS``)."""
    client = _redis()
    if client is None:
        return
    try:
        client.delete(_mark_key(series_id))
    except (redis.RedisError, OSError):
        logger.warning("could not clear series %s's sync mark; it expires by itself", series_id)


def _queue(series_id: int) -> bool:
    """The series' sync queued to start after ``SYNC_DELAY_SECONDS``; when the broker cannot take
    it, the mark is deleted (the next commit tries again, beat's catch-up syncs meanwhile)."""
    try:
        series_sync.apply_async(args=[series_id], countdown=SYNC_DELAY_SECONDS, ignore_result=True)
    except Exception:
        logger.warning("could not queue series %s's sync; the periodic catch-up will run it", series_id,
                       exc_info=True)
        _release(series_id)
        return False
    return True


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
    """Recompute a series' kept standings for the requests pending (tournaments/standings/outbox.py);
    then, queued through a broker, the chain of its syncs goes on (it saw requests: ``_chain``) or
    ends (it saw none: the mark deleted, then the requests read again, and what was committed
    between its read and the deletion queued)."""
    settled = series_outbox.sync(series_id)
    if series_sync.app.conf.task_always_eager:
        return settled  # in-process: every commit syncs at once, nothing is chained
    if settled:
        _chain(series_id)
    else:
        _release(series_id)
        # A commit that found the mark before it was deleted queued nothing: its request is here.
        if series_outbox.pending(series_id) and _claim(series_id):
            _queue(series_id)
    return settled


@shared_task(name="tournaments.series_catch_up", acks_late=True, ignore_result=True)
def series_catch_up() -> dict:
    """Celery beat's periodic task: sync every series with a request left over."""
    return {series_id: series_outbox.sync(series_id) for series_id in series_outbox.series_behind()}


def queue_series_sync(series_id: int) -> None:
    """Queue the sync of a series (its requests committed), to start after ``SYNC_DELAY_SECONDS``,
    unless a chain of its syncs holds the mark or this process knows of one that will see them
    (coalesced per series: the hands of a busy series share one refresh). Never raises for an
    unreachable broker."""
    now = time.monotonic()
    if _queued.get(series_id, 0.0) > now:
        return  # the commonest case of a busy series, decided first (Celery's settings cost more)
    if series_sync.app.conf.task_always_eager:
        series_sync.apply_async(args=[series_id])  # in-process: at once, a failure is a bug
        return
    if _claim(series_id) and not _queue(series_id):
        return  # no sync waits: the next commit tries again
    # A sync of the chain (or the one just queued) reads this commit's request and, having seen it,
    # queues the next one a delay later: what this process commits until then is seen as well.
    _queued[series_id] = now + SYNC_DELAY_SECONDS / 2


@receiver(series_sync_requested)
def series_sync_requested_received(sender, series_ids: list[int], **kwargs) -> None:
    for series_id in series_ids:
        queue_series_sync(series_id)
