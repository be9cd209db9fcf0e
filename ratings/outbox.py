"""The pools' outbox: a change to what a pool should hold is written down in the database, in the
transaction of the change, as a ``PoolSyncRequest``; a sync deletes exactly the requests it saw.

So a committed result is never lost on the way to the ratings: queueing the sync task after the
commit may fail (the broker is down, the answer to the table must not wait for it), a worker may
die, and the periodic catch-up (``ratings.catch_up``, Celery beat) still finds the request and
syncs the pool. A sync that saw a request has, by construction, also seen the result written with
it (both committed before the sync read them); a request committed later stays for the next sync.
"""
from __future__ import annotations

from django.db import transaction

from . import services
from .models import PoolSyncRequest


def request_sync(game: str) -> None:
    """Inside the caller's transaction: the pool of ``game`` must be synced."""
    PoolSyncRequest.objects.create(game=game)


def sync(game: str) -> dict:
    """Sync the pool of ``game`` and settle the requests that were waiting for it (one transaction)."""
    with transaction.atomic():
        # Read before the sync reads the results: whatever these requests stand for is visible to it.
        seen = list(PoolSyncRequest.objects.filter(game=game).values_list("pk", flat=True))
        answer = services.pool_sync(game)
        PoolSyncRequest.objects.filter(pk__in=seen).delete()
    return {**answer, "requests": len(seen)}


def games_behind() -> list[str]:
    """The games whose pools have a request nobody settled yet."""
    return sorted(set(PoolSyncRequest.objects.values_list("game", flat=True)))
