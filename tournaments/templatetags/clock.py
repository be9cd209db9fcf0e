"""The round's clock on a page: ``{% round_clock round %}`` (the room screen, the console, the
table's sheet all show it by this one tag, so they say the same). The clock's state and, while it
runs, the moment the time is up; ``static/stich/clock.js`` counts down from it against the
server's now (``data-server-now``), never the device's own clock."""
from __future__ import annotations

from django import template
from django.utils import timezone

from ..entry import clock
from ..models import ClockRule

register = template.Library()


@register.inclusion_tag("clock/_clock.html")
def round_clock(round_, *, controls: bool = False, src: str = "", server_now: bool = True, heading: bool = True):
    """The clock of ``round_`` (None or a round without a clock: nothing). ``controls``: the
    organisers' buttons; ``src``: an address that answers the clock as JSON (the page asks it
    again now and then); ``server_now``: the server's now on the element (False in a fragment that
    is cached: the page carries it)."""
    if round_ is None:
        return {"clock": None}
    now = timezone.now()
    reading = clock.reading(round_, now)
    if reading.state == clock.State.UNSET and not controls:
        return {"clock": None}
    rule = round_.event.clock_rule
    return {"clock": reading, "round": round_, "controls": controls, "src": src, "heading": heading,
            "server_now": int(now.timestamp() * 1000) if server_now else None,
            "ends_at_ms": int(reading.ends_at.timestamp() * 1000) if reading.ends_at else None,
            "left_text": clock.minutes_seconds(reading.left), "rule": rule,
            "rule_text": ClockRule(rule).label, "minutes": (round_.clock_seconds or 0) // 60 or 45}
