"""Celery tasks of the ratings: fetch ids, call the service (HackSoft). Idempotent by design."""
from celery import shared_task


@shared_task(name="ratings.pool_sync", acks_late=True)
def pool_sync(game: str) -> dict:
    from .services import pool_sync as sync

    return sync(game)
