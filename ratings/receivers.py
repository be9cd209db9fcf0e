"""When results change, queue the pool's sync (the signals are sent on commit)."""
from __future__ import annotations

from django.dispatch import receiver

from tournaments.signals import results_visibility_changed, session_result_changed


@receiver(session_result_changed)
def session_changed(sender, session_id: int, **kwargs) -> None:
    from tournaments.models import Session

    from .tasks import pool_sync

    game = Session.objects.filter(pk=session_id).values_list("table__round__event__game", flat=True).first()
    if game:
        pool_sync.delay(game)


@receiver(results_visibility_changed)
def visibility_changed(sender, event_id: int, **kwargs) -> None:
    from tournaments.models import Event

    from .tasks import pool_sync

    game = Event.objects.filter(pk=event_id).values_list("game", flat=True).first()
    if game:
        pool_sync.delay(game)
