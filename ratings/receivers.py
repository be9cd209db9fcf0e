"""When results change: a sync request for the pool in the same transaction, the task on commit.

The request (ratings/outbox.py) is what makes the update durable; the task queued after the
commit only makes it prompt. Queueing must never fail a stored result, so a broker that cannot be
reached is logged and left to the periodic catch-up.
"""
from __future__ import annotations

import logging

from django.db import transaction
from django.dispatch import receiver

from tournaments.models import Event, Session
from tournaments.signals import results_visibility_changing, session_result_changing

from . import outbox
from .tasks import pool_sync

logger = logging.getLogger(__name__)


def queue_sync(game: str) -> None:
    try:
        # Nobody waits for this result: without a result backend call, a dead broker fails fast.
        pool_sync.apply_async(args=[game], ignore_result=True)
    except Exception:
        if pool_sync.app.conf.task_always_eager:
            raise  # run in-process: a failure is a bug in the sync, not an unreachable broker
        logger.warning("could not queue the %s pool's sync; the periodic catch-up will run it", game, exc_info=True)


def _request(game: str | None) -> None:
    if game:
        outbox.request_sync(game)
        transaction.on_commit(lambda: queue_sync(game))


@receiver(session_result_changing)
def session_changing(sender, session_id: int, **kwargs) -> None:
    _request(Session.objects.filter(pk=session_id).values_list("table__round__event__game", flat=True).first())


@receiver(results_visibility_changing)
def visibility_changing(sender, event_id: int, **kwargs) -> None:
    _request(Event.objects.filter(pk=event_id).values_list("game", flat=True).first())
