"""``{% load chances %}``: a table's win chances in a template.

    {% table_chances table names as outlook %}
    {% chances outlook %}  {# or {% chances outlook compact=True %}: a table card of a page #}

``names``: the players' names in seat order, as the page shows them to its reader (the page
decides who sees which name). ``outlook`` is ``None`` for a table without 2 to 6 seated players,
else ``{"favourite": seat or None, "favourites": [seats sharing the best chance], "seats": [...],
"provisional": bool, "basis": ...}`` where a seat is
``{"name", "win", "points", "percent", "place", "provisional"}``. The pages that show a table know
already that their reader may see it (``tournaments.policy``); the ratings read here are public.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django import template
from django.utils import formats
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from ratings.chances import whole_percents
from ratings.outlook import table_outlook
from tournaments.templatetags.rows import text

register = template.Library()


def percent(win: float) -> str:
    """A single chance as people read it: whole percent, ``<1 %`` and ``>99 %`` at the ends."""
    if win < 0.005:
        return "<1 %"
    if win > 0.995:
        return ">99 %"
    return f"{round(100 * win)} %"


def shown(points: int, seats: int) -> str:
    """A chance in whole percent as the table shows it: ``<1 %`` for a share that rounds to
    nothing and ``>99 %`` for one that rounds to everything (nobody is certain)."""
    if points <= 0 and seats > 1:
        return "<1 %"
    if points >= 100 and seats > 1:
        return ">99 %"
    return f"{points} %"


def outlook_view(outlook, names) -> dict | None:
    if outlook is None or len(names) != len(outlook.seats):
        return None
    points = whole_percents([seat.win for seat in outlook.seats])
    seats = [
        {"name": name, "win": seat.win, "points": share, "percent": shown(share, len(points)),
         "place": f"{seat.expected_place:.1f}", "provisional": seat.provisional, "player": seat.player_id}
        for name, seat, share in zip(names, outlook.seats, points)
    ]
    # The best chance as shown: a sole favourite, or several who share it (named together, unless
    # everybody does), so that the line never contradicts the percentages under it. Chances that
    # are equal stay shared even when the largest remainder gave one of them the odd point.
    best = max(seats, key=lambda seat: (seat["points"], seat["win"]))
    shared = [seat for seat in seats if seat["points"] == best["points"] or abs(seat["win"] - best["win"]) < 1e-9]
    return {
        "favourite": shared[0] if len(shared) == 1 else None,
        "favourites": shared if 1 < len(shared) < len(seats) else [],
        "seats": seats, "provisional": any(seat["provisional"] for seat in seats), "basis": outlook.basis,
    }


_PLACES = Decimal("0.0001")


def _win(win: float, separator: str) -> str:
    """A seat's chance as ``{{ win|floatformat:4 }}`` writes it (four decimals rounded half up from
    the number as Python prints it, the locale's decimal ``separator``), without the filter's
    machinery per seat."""
    return format(Decimal(repr(win)).quantize(_PLACES, ROUND_HALF_UP), "f").replace(".", separator)


@register.simple_tag
def table_chances(table, names):
    return outlook_view(table_outlook(table), list(names))


@register.simple_tag
def chances(outlook: dict | None, compact: bool = False) -> SafeString:
    """The chances' block of an ``outlook_view`` (nothing for None): the favourite, each seat's
    chance (``provisional`` marked) and, unless ``compact`` (a table card of a page), the notes
    under it. Written here rather than as an included template: a page of twelve table cards
    renders it twelve times, and the template's machinery cost ten times the markup."""
    if not outlook:
        return mark_safe("")
    favourite, favourites = outlook["favourite"], outlook["favourites"]
    if favourite:
        line = _("Favourite: <strong>%(name)s</strong> %(percent)s") % {
            "name": text(favourite["name"]), "percent": text(favourite["percent"])}
    elif favourites:
        names = ", ".join(f"<strong>{text(seat['name'])}</strong>" for seat in favourites)
        line = f'{text(_("Favourites:"))} {names} {text(favourites[0]["percent"])}'
    else:
        line = text(_("No favourite: the chances are even."))
    new = (f' <abbr class="provisional" title="{text(_("New player: too few rated sessions yet, the chance is provisional."))}">'
           f'{text(_("new"))}</abbr>')
    separator = formats.get_format("DECIMAL_SEPARATOR")
    seats = "".join(
        f'<li data-win="{_win(seat["win"], separator)}" data-points="{text(seat["points"])}"><span class="who">'
        f'{text(seat["name"])}{new if seat["provisional"] else ""}</span> <span class="pct">{text(seat["percent"])}</span></li>'
        for seat in outlook["seats"])
    notes = ""
    if outlook["provisional"] and not compact:
        notes += f'  <p class="note">{text(_("new: too few rated sessions yet, the chance is provisional."))}</p>\n'
    if outlook["basis"] == "published" and not compact:
        notes += f'  <p class="note basis">{text(_("As when the table was published: ratings have changed since."))}</p>\n'
    return mark_safe(
        f'<div class="chances{" compact" if compact else ""}" data-basis="{text(outlook["basis"])}">\n'
        f'  <p class="favourite">{line}</p>\n  <ul class="chance-list" aria-label="{text(_("Chance to win"))}">\n'
        f'    {seats}\n  </ul>\n{notes}</div>')
