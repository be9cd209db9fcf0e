"""Server push for the live pages: the room screen, the public event page and the console's board.

When a table's results change (``signals.table_results_changed``, sent on commit after a hand is
stored, corrected or voided) or a round is held back or released
(``signals.results_visibility_changed``), the event's groups on the channel layer get a message;
every page connected to ``/ws/events/<id>/`` then fetches its live regions again (static/stich/
live.js). Messages say only *that* something changed: what the page shows is read anew through
the policy, so a push never carries what the reader may not see.

Two groups per event: the public one hears of changes the public can see (not of hands in a
held-back round), the organisers' one of every change.
"""
from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from django.dispatch import receiver
from django.urls import path

from . import policy
from .models import Round
from .signals import results_visibility_changed, table_results_changed

log = logging.getLogger(__name__)


def public_group(event_id: int) -> str:
    return f"event-{event_id}"


def organisers_group(event_id: int) -> str:
    return f"event-{event_id}-organisers"


def announce(event_id: int, *, public: bool) -> None:
    """Tell the event's live pages that its results changed. A lost message costs only freshness
    (the pages also poll when their socket is down), so a broken channel layer is logged and never
    fails the write that caused it."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": "results.changed", "event": event_id}
    groups = [organisers_group(event_id)] + ([public_group(event_id)] if public else [])
    try:
        for group in groups:
            async_to_sync(layer.group_send)(group, message)
    except Exception:  # noqa: BLE001 - the channel layer's failures are many (Redis down, loop closed)
        log.exception("could not announce the results of event %s to its live pages", event_id)


@receiver(table_results_changed, dispatch_uid="live_table_results_changed")
def _table_results_changed(sender, event_id: int, table_id: int, **kwargs) -> None:
    held = Round.objects.filter(tables=table_id, results_held=True).exists()
    announce(event_id, public=not held)


@receiver(results_visibility_changed, dispatch_uid="live_results_visibility_changed")
def _results_visibility_changed(sender, event_id: int, **kwargs) -> None:
    announce(event_id, public=True)


class EventConsumer(AsyncJsonWebsocketConsumer):
    """``/ws/events/<id>/``: sends ``{"type": "results_changed", "event": id}`` on every change the
    connected user may see. An event the user may not see is refused (closed with 4404)."""

    async def connect(self):
        self.event_id = int(self.scope["url_route"]["kwargs"]["event"])
        allowed, organiser = await database_sync_to_async(self._access)(self.scope.get("user"))
        if not allowed:
            await self.close(code=4404)
            return
        self.group = organisers_group(self.event_id) if organiser else public_group(self.event_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    def _access(self, user) -> tuple[bool, bool]:
        visibility = policy.Visibility(user)
        event = visibility.events().filter(pk=self.event_id).first()
        if event is None:
            return False, False
        return True, visibility.organises(event)

    async def disconnect(self, code):
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def results_changed(self, message):
        await self.send_json({"type": "results_changed", "event": message["event"]})


websocket_urlpatterns = [
    path("ws/events/<int:event>/", EventConsumer.as_asgi()),
]
