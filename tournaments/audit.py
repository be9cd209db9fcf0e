"""The audit trail: one helper writes every row, with the action from one enumeration.

Every service that changes something calls ``audit.record`` inside its transaction, so the row
exists exactly when the change does (Zulip's ``RealmAuditLog`` pattern). A row says who (the user,
and ``via``: api, admin, page, command, the table's scorer link or a player's bound phone), what (action and object),
when, why (``reason``) and the state before and after.
"""
from __future__ import annotations

from django.db import models

from .models import AuditEntry, Event


def plain(value):
    """A value as the audit trail and the export write it in JSON: dates and times as ISO 8601."""
    return value.isoformat() if hasattr(value, "isoformat") else value


class Action(models.TextChoices):
    CLUB_CREATED = "club_created"
    CLUB_CHANGED = "club_changed"
    CLUB_DELETED = "club_deleted"
    PLAYER_CREATED = "player_created"
    PLAYER_CHANGED = "player_changed"
    PLAYER_JOINED_CLUB = "player_joined_club"
    PLAYER_LEFT_CLUB = "player_left_club"
    PLAYER_ANONYMISED = "player_anonymised"
    PLAYER_CHECKED_IN = "player_checked_in"
    PLAYER_CHECKED_OUT = "player_checked_out"
    PLAYER_CODE_ISSUED = "player_code_issued"
    PLAYER_DEVICE_BOUND = "player_device_bound"
    PLAYER_DEVICE_REVOKED = "player_device_revoked"
    EVENT_CREATED = "event_created"
    EVENT_CHANGED = "event_changed"
    EVENT_DELETED = "event_deleted"
    EVENT_IMPORTED = "event_imported"
    ROUND_CREATED = "round_created"
    ROUND_DELETED = "round_deleted"
    ROUND_HELD = "round_held"
    ROUND_RELEASED = "round_released"
    TABLE_CREATED = "table_created"
    TABLE_CHANGED = "table_changed"
    TABLE_DELETED = "table_deleted"
    SCORER_LINK_ROTATED = "scorer_link_rotated"
    DRAW_PREVIEWED = "draw_previewed"
    DRAW_SWAPPED = "draw_swapped"
    DRAW_PUBLISHED = "draw_published"
    DRAW_PLANNED = "draw_planned"
    SEATING_SCRIPT_SET = "seating_script_set"
    SEATING_SCRIPT_REMOVED = "seating_script_removed"
    HAND_CORRECTED = "hand_corrected"
    HAND_VOIDED = "hand_voided"
    HAND_CONFIRMED = "hand_confirmed"
    HAND_DISPUTED = "hand_disputed"
    SESSION_ABANDONED = "session_abandoned"
    TRANSFER_PAID = "transfer_paid"
    TRANSFER_UNPAID = "transfer_unpaid"
    SERIES_CREATED = "series_created"
    SERIES_CHANGED = "series_changed"
    SERIES_DELETED = "series_deleted"
    CLOCK_CHANGED = "clock_changed"
    REGISTRATION_CREATED = "registration_created"
    REGISTRATION_CONFIRMED = "registration_confirmed"
    REGISTRATION_MATCHED = "registration_matched"
    REGISTRATION_WITHDRAWN = "registration_withdrawn"
    REGISTRATION_MOVED_UP = "registration_moved_up"
    PLAYERS_IMPORTED = "players_imported"


# "player": a phone bound to a player by his personal code (tournaments/people/).
VIA = ("api", "admin", "page", "command", "scorer", "player")


def record(
    *, actor, action: Action, obj: models.Model, event: Event | int | None = None, reason: str = "",
    before=None, after=None, data: dict | None = None, via: str = "api",
) -> AuditEntry:
    """Write one audit row for ``action`` on ``obj`` (call inside the service's transaction)."""
    if via not in VIA:
        raise ValueError(f"unknown audit channel {via!r}")
    event_id = event.pk if isinstance(event, Event) else event
    return AuditEntry.objects.create(
        actor=actor if getattr(actor, "is_authenticated", False) else None, via=via, action=Action(action).value,
        event_id=event_id, object_type=obj._meta.model_name, object_id=obj.pk, reason=reason,
        before=before, after=after, data=data or {},
    )
