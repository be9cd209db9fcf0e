"""Celery tasks of the ratings: fetch ids, call the service (HackSoft). Idempotent by design."""
from celery import shared_task

from games.catalog import GAMES

from . import outbox, outlook, services


@shared_task(name="ratings.pool_sync", acks_late=True)
def pool_sync(game: str) -> dict:
    return outbox.sync(game)  # the sync fits the chances' scale when the pool has grown by a block


@shared_task(name="ratings.catch_up", acks_late=True, ignore_result=True)
def catch_up() -> dict:
    """Celery beat's periodic task: sync every pool with a request left over (ratings/outbox.py),
    and fit the chances' scale of a pool whose pages do not have it (a cache emptied, a fit that
    failed)."""
    result = {game: outbox.sync(game)["rated"] for game in outbox.games_behind()}
    for game in GAMES:
        if not outlook.scale_is_warm(game):
            services.warm_chances(game)
    return result
