"""The round's clock: how long a round runs, and how much of it is left.

A round's clock is four stored values (``Round.clock_*``): its length in seconds (extensions
added), the moment the stretch it runs now began (null while it does not run), the milliseconds it
ran before that stretch, and whether an organiser ended it. Everything else is computed from them
and a moment ``now`` (``reading``), so that every screen — the room screen, the console, the table's
sheet, the API — says the same: the server sends the moment the time is up (``ends_at``, while it
runs) or the time left (while it is paused), with its own ``now``; a page counts down from the
difference between that ``now`` and its own clock, never from its own idea of the time.

The organisers set the length, start, pause, resume, extend and end it (the services below, each
one transaction with its audit row); every change bumps the event's live version, so the screens
get the new clock at once (tournaments/live.py). What a table does when the time is up is the
event's ``clock_rule``.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from .. import audit
from ..errors import Conflict, Error, Invalid
from ..models import Round
from ..signals import announce_event_shown_changed

MAX_SECONDS = 24 * 3600  # a round's length, extensions included, at most


class State:
    UNSET = "unset"  # no length: the round has no clock
    READY = "ready"  # a length, not started
    RUNNING = "running"
    PAUSED = "paused"
    OVER = "over"  # ran out, or ended by an organiser


@dataclass(frozen=True)
class Reading:
    """The clock as of ``now``: its state, the length, the seconds left (whole seconds, rounded up
    while it runs), and ``ends_at`` while it runs."""

    state: str
    seconds: int | None
    left_ms: int | None
    ends_at: dt.datetime | None
    now: dt.datetime

    @property
    def left(self) -> int | None:
        """Whole seconds left (a second begun counts)."""
        return None if self.left_ms is None else -(-self.left_ms // 1000)

    @property
    def over(self) -> bool:
        return self.state == State.OVER

    def as_dict(self) -> dict:
        return {"state": self.state, "seconds": self.seconds, "left": self.left,
                "ends_at": self.ends_at.isoformat() if self.ends_at else None, "now": self.now.isoformat()}


def _ms(delta: dt.timedelta) -> int:
    return int(delta / dt.timedelta(milliseconds=1))


def used_ms(round_: Round, now: dt.datetime) -> int:
    running = _ms(now - round_.clock_running_since) if round_.clock_running_since else 0
    return round_.clock_used_ms + max(0, running)


def reading(round_: Round, now: dt.datetime | None = None) -> Reading:
    """The clock of ``round_`` at ``now`` (default: the server's now). Pure: reads the round's
    fields only."""
    now = now or timezone.now()
    if round_.clock_seconds is None:
        return Reading(State.UNSET, None, None, None, now)
    total_ms = round_.clock_seconds * 1000
    left = max(0, total_ms - used_ms(round_, now))
    if round_.clock_ended or left == 0:
        return Reading(State.OVER, round_.clock_seconds, 0, None, now)
    if round_.clock_running_since is not None:
        ends_at = round_.clock_running_since + dt.timedelta(milliseconds=total_ms - round_.clock_used_ms)
        return Reading(State.RUNNING, round_.clock_seconds, left, ends_at, now)
    if round_.clock_used_ms == 0:
        return Reading(State.READY, round_.clock_seconds, left, None, now)
    return Reading(State.PAUSED, round_.clock_seconds, left, None, now)


# --- the organisers' changes --------------------------------------------------------------------

ACTIONS = ("set", "start", "pause", "resume", "extend", "end")


def _minutes(value, field: str = "minutes") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SECONDS // 60:
        raise Invalid(f"minutes are a whole number from 1 to {MAX_SECONDS // 60}", field=field)
    return value


@transaction.atomic
def change(*, round_: Round, action: str, by_user, minutes: int | None = None, now: dt.datetime | None = None,
           via: str = "api") -> Reading:
    """Change the round's clock (``ACTIONS``):

    - ``set`` its length to ``minutes`` (before it starts, or to start it again once over);
    - ``start`` it (a length is needed); ``pause`` and ``resume`` it;
    - ``extend`` it by ``minutes`` (running, paused, or over after running out: it runs again);
    - ``end`` it now (the time is up for every table).

    A change that changes nothing (pausing a paused clock) answers the clock as it is; one that
    cannot be done is 409 ``clock_state`` (starting a clock without a length, pausing one that is
    over). Returns the clock after the change."""
    now = now or timezone.now()
    if action not in ACTIONS:
        raise Invalid(f"unknown clock action; known: {', '.join(ACTIONS)}", field="action")
    round_ = Round.objects.select_for_update(no_key=True).get(pk=round_.pk)
    before = reading(round_, now)
    state = before.state
    if action == "set":
        seconds = _minutes(minutes) * 60
        if state in (State.RUNNING, State.PAUSED):
            raise Conflict("the clock is under way: extend or end it", code=Error.CLOCK_STATE, field="action")
        round_.clock_seconds, round_.clock_used_ms = seconds, 0
        round_.clock_running_since, round_.clock_ended = None, False
    elif action == "start":
        if state == State.UNSET:
            raise Conflict("set the round's length first", code=Error.CLOCK_STATE, field="action")
        if state != State.READY:
            if state == State.RUNNING:
                return before
            raise Conflict("the clock has started already: resume, extend or set it again", code=Error.CLOCK_STATE,
                           field="action")
        round_.clock_running_since = now
    elif action == "pause":
        if state == State.PAUSED:
            return before
        if state != State.RUNNING:
            raise Conflict("only a running clock pauses", code=Error.CLOCK_STATE, field="action")
        round_.clock_used_ms = used_ms(round_, now)
        round_.clock_running_since = None
    elif action == "resume":
        if state == State.RUNNING:
            return before
        if state != State.PAUSED:
            raise Conflict("only a paused clock resumes", code=Error.CLOCK_STATE, field="action")
        round_.clock_running_since = now
    elif action == "extend":
        extra = _minutes(minutes) * 60
        if state in (State.UNSET, State.READY) or round_.clock_ended:
            raise Conflict("only a clock under way, or one that ran out, is extended", code=Error.CLOCK_STATE,
                           field="action")
        if round_.clock_seconds + extra > MAX_SECONDS:
            raise Invalid(f"a round runs {MAX_SECONDS // 3600} hours at most", field="minutes")
        if state == State.OVER and round_.clock_running_since is not None:
            # It ran out while running: the time after the end does not count, it runs on from now.
            round_.clock_used_ms = round_.clock_seconds * 1000
            round_.clock_running_since = now
        round_.clock_seconds += extra
    elif action == "end":
        if state == State.OVER:
            return before
        if state == State.UNSET:
            raise Conflict("the round has no clock", code=Error.CLOCK_STATE, field="action")
        round_.clock_used_ms = min(used_ms(round_, now), round_.clock_seconds * 1000)
        round_.clock_running_since, round_.clock_ended = None, True
    round_.save(update_fields=["clock_seconds", "clock_running_since", "clock_used_ms", "clock_ended"])
    after = reading(round_, now)
    audit.record(actor=by_user, via=via, action=audit.Action.CLOCK_CHANGED, obj=round_, event=round_.event_id,
                 before={"state": before.state, "seconds": before.seconds, "left": before.left},
                 after={"state": after.state, "seconds": after.seconds, "left": after.left},
                 data={"action": action, **({"minutes": minutes} if minutes is not None else {})})
    announce_event_shown_changed(round_.event_id)  # every screen gets the new clock
    return after


def latest_with_clock(rounds) -> Round | None:
    """The round a screen shows the clock of: the latest of ``rounds`` (those the reader sees)
    that has one."""
    return rounds.filter(clock_seconds__isnull=False).select_related("event").order_by("-number").first()


def minutes_seconds(seconds: int | None) -> str:
    """``seconds`` as people read a clock: 45:00, 1:05:00 past an hour."""
    if seconds is None:
        return ""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
