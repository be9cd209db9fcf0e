"""Celery tasks of the ratings: fetch ids, call the service (HackSoft). Idempotent by design."""
from celery import shared_task

from . import outbox


@shared_task(name="ratings.pool_sync", acks_late=True)
def pool_sync(game: str) -> dict:
    return outbox.sync(game)  # the sync warms the chances' scale itself (ratings.services)


@shared_task(name="ratings.catch_up", acks_late=True, ignore_result=True)
def catch_up() -> dict:
    """Celery beat's periodic task: sync every pool with a request left over (ratings/outbox.py)."""
    return {game: outbox.sync(game)["rated"] for game in outbox.games_behind()}
