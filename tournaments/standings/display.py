"""Standings and results as people read them, shared by the public pages, the room screen and the
console: numbers with at most two decimals in the reader's locale, money in euros, column labels
that say what they count, Maumau counted in games, a table's state and progress (namesakes are told
apart by tournaments/names.py).
"""
from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from django.utils import formats
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

from .tables import TableProgress, TableState

# Column headings of the standings metrics (tournaments/standings/metrics.py names them).
METRIC_LABELS = {
    "placement": gettext_lazy("Placement points"),
    "total": gettext_lazy("Total score"),
    "wins": gettext_lazy("Wins"),
    "average_placement": gettext_lazy("Placement points per session"),
    "played": gettext_lazy("Sessions played"),
}
# The same, abbreviated as sports tables do, for the narrow columns of a phone.
METRIC_SHORT = {
    "placement": pgettext_lazy("standings column, short", "Pts"),
    "total": pgettext_lazy("standings column, short", "Score"),
    "wins": pgettext_lazy("standings column, short", "W"),
    "average_placement": pgettext_lazy("standings column, short", "Pts/S"),
    "played": pgettext_lazy("standings column, short", "Pld"),
}
# What each column counts, in one sentence under the table.
METRIC_HELP = {
    "placement": gettext_lazy("Placement points: 1 for first place at a table, 0 for last, in equal steps "
                              "between, shared on ties; added up over the sessions."),
    "total": gettext_lazy("Total score: the points scored in all sessions (Maumau: minus points, "
                          "counted negative)."),
    "wins": gettext_lazy("Wins: sessions finished first at the table (shared first places count)."),
    "average_placement": gettext_lazy("Placement points per session: the placement points divided by the "
                                      "sessions played."),
    "played": gettext_lazy("Sessions played."),
}


def number(value) -> str:
    """A standings value as people read it: at most two decimals (placement points are fractions
    such as 2/3), no trailing zeros, the locale's decimal comma."""
    if isinstance(value, int):
        return _whole(value)
    rounded = Decimal(str(float(value))).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if rounded == rounded.to_integral_value():
        return _whole(int(rounded))
    text = format(rounded.normalize(), "f")
    if -1000 < rounded < 1000:  # no digit grouping (as ``_whole``): the locale's decimal sign only
        return text.replace(".", formats.get_format("DECIMAL_SEPARATOR"))
    return formats.number_format(Decimal(text), decimal_pos=len(text.split(".")[1]), use_l10n=True)


def _whole(value: int) -> str:
    # Below a thousand a whole number reads the same in every locale (no digit grouping, no
    # decimals): a page of standings has hundreds of them, each a lookup of the locale's formats.
    if -1000 < value < 1000:
        return str(value)
    return formats.number_format(value, use_l10n=True)


CARRY_WORDS = {"none": gettext_lazy("none of the preliminary points"), "half": gettext_lazy("half of the preliminary points"),
               "all": gettext_lazy("all of the preliminary points")}


def final_rule(event) -> str:
    """The event's final stage in words (the console's rules, the public registration page's
    format), or "" without one."""
    if not event.final_size:
        return ""
    return gettext("The top %(size)s of the preliminary rounds play the final; they keep %(carry)s.") % {
        "size": event.final_size, "carry": CARRY_WORDS[event.final_carry]}


def money(cents: int) -> str:
    return formats.number_format(Decimal(cents) / 100, decimal_pos=2, use_l10n=True) + "\u00a0€"


def hands_text(game: str, count: int) -> str:
    """How many hands a session has, in the game's own word: Maumau counts games."""
    if game == "maumau":
        return ngettext("%(count)s game", "%(count)s games", count) % {"count": count}
    return ngettext("%(count)s hand", "%(count)s hands", count) % {"count": count}


# A table's state in words, the same on the console's board and the room screen.
TABLE_STATE_LABELS = {
    TableState.WAITING: gettext_lazy("not started"),
    TableState.PLAYING: gettext_lazy("in progress"),
    TableState.CONFIRMING: gettext_lazy("waiting for confirmation"),
    TableState.FINISHED: gettext_lazy("finished"),
    TableState.ABANDONED: gettext_lazy("abandoned"),
}


def progress_text(game: str, table: TableProgress) -> str:
    """A table's hands as the board and the room screen say them: "2 hands of 4", or for Mü
    played to a target score "3 hands, best total 120 of 300"."""
    text = hands_text(game, table.hands)
    if table.due:
        return gettext("%(entered)s of %(due)s") % {"entered": text, "due": table.due}
    if table.hands:
        return gettext("%(entered)s, best total %(best)s of %(target)s") % {
            "entered": text, "best": max(table.totals, default=0), "target": table.target}
    return text


# --- series -------------------------------------------------------------------------------------

def series_move(trend, new: bool) -> str:
    """A series row's move since the latest event as a reader reads it: "new" for a player ranked
    now and not before, "=" for the same place, ▲n / ▼n for places gained or lost, "" for the
    unranked (and for everyone while the season has one event: they are all new then)."""
    if new:
        return gettext("new")
    if trend is None:
        return ""
    return "=" if trend == 0 else (f"▲{trend}" if trend > 0 else f"▼{-trend}")


def event_label(name: str, starts_on) -> str:
    """An event's column heading: its date in the reader's locale and its name."""
    if starts_on is None:
        return name
    if isinstance(starts_on, str):
        starts_on = date.fromisoformat(starts_on)  # the document's ISO date
    return f"{formats.date_format(starts_on, 'SHORT_DATE_FORMAT')} {name}"


def series_score(value) -> str:
    """A series score in the reader's locale: whole, or a mean to two decimals."""
    return number(value)
