from celery import shared_task
from django.conf import settings

from .management.backups import backup


@shared_task(name="tournaments.ping")
def ping(payload: str) -> dict:
    """Round trip through the broker: proves a worker took the task and answered."""
    from celery import current_task

    return {"echo": payload, "worker": current_task.request.hostname}


@shared_task(name="tournaments.backup_database", ignore_result=True)
def backup_database() -> str:
    """Beat's scheduled backup (``BACKUP_DIR``, ``BACKUP_SCHEDULE``) into the worker's BACKUP_DIR."""
    return str(backup(settings.BACKUP_DIR))
