from celery import shared_task


@shared_task(name="tournaments.ping")
def ping(payload: str) -> dict:
    """Round trip through the broker: proves a worker took the task and answered."""
    from celery import current_task

    return {"echo": payload, "worker": current_task.request.hostname}
