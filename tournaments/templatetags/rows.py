"""``{% load rows %}``: the repeated rows of the public pages' tables, written here rather than in
the templates' loops: a page of a hundred standings rows and twelve table cards spent most of its
rendering in the template's machinery (a loop's context per row and cell), not in its markup.

    {% standings_rows standings moves=moves screen=screen maumau=maumau %}
    {% table_results t session_word %}  {# a table card: its heading, a column per session, a row per player #}

``standings_rows`` (``pages/_standings.html``: the event page, the room screen, the printed
standings): a row per player: rank, the change since the previous round (``moves``: the room screen),
the name (a link to the player's page; on the ``screen`` without a link, a namesake's addition
on a line of its own), sessions played, the metrics' values and Maumau's money. Whole numbers
(ranks, ids, counts) as they are, the values as people read them already (``display.number``).

``table_results`` (``pages/_rounds.html``): a table card's heading and results, as the template
wrote them: a column per session (its state and hands), a row per player (a link to his page, his
totals already as people read them), and a note while the table has not started."""
from __future__ import annotations

import re
from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

register = template.Library()


_SPECIAL = re.compile("[&<>\"']")  # what ``escape`` replaces


def text(value) -> str:
    """``value`` as HTML text: escaped unless it is HTML already (``conditional_escape``, without
    the machinery of Django's lazy wrapper: a page calls it a thousand times, mostly for numbers
    and names with nothing to escape, returned as they are)."""
    if type(value) is int:
        return str(value)
    if hasattr(value, "__html__"):
        return value.__html__()
    value = str(value)
    return escape(value) if _SPECIAL.search(value) else value


def _name(row: dict, screen: bool) -> str:
    if not screen:
        return f'<a href="{text(row["url"])}">{text(row["name"])}</a>'
    addition = row.get("addition")
    if addition:
        return f'{text(addition[0])} <span class="addition">{text(addition[1])}</span>'
    return text(row["name"])


def _move(row: dict) -> str:
    move = row.get("move") or {}
    kind = text(move.get("kind", ""))
    return (f'<td class="move {kind}" data-move="{kind}"><span aria-hidden="true">{text(move.get("text", ""))}</span>'
            f'<span class="visually-hidden">{text(move.get("words", ""))}</span></td>')


def _money(row: dict) -> str:
    cents = row.get("cents")
    down = " down" if cents is not None and cents < 0 else ""
    return f'<td class="num money{down}" data-cents="{text(cents)}">{text(row.get("money", ""))}</td>'


@register.simple_tag
def standings_rows(rows, *, moves: bool = False, screen: bool = False, maumau: bool = False) -> SafeString:
    return mark_safe("".join(
        f'\n        <tr data-player="{text(row["player_id"])}">\n          <td class="num rank">{text(row["rank"])}</td>'
        f'\n          {_move(row) if moves else ""}<td class="name">{_name(row, screen)}</td>'
        f'\n          <td class="num played">{text(row["played"])}</td>\n          '
        + "".join(f'<td class="num metric" data-metric="{text(value["name"])}">{text(value["text"])}</td>'
                  for value in row["values"])
        + f'{_money(row) if maumau else ""}\n        </tr>'
        for row in rows))


def _session_heads(sessions, word: str) -> str:
    """A table card's column heads: each session, its state and hands."""
    return "".join(
        f'\n                  <th scope="col" class="num" data-session="{text(s["session"].pk)}">{word} '
        f'{text(s["session"].number)}\n                    <span class="status status-{text(s["session"].status)}">'
        f'{text(s["status"])}{"" if s["abandoned"] else " · " + text(s["hands_text"])}</span>\n                  </th>'
        for s in sessions)


def _table_rows(rows) -> str:
    """A table card's rows: each player, a link to his page, and his totals, one per session."""
    return "".join(
        f'\n                <tr>\n                  <td class="name"><a href="{text(row["url"])}">{text(row["name"])}</a></td>'
        + "".join(f'<td class="num total">{text(total)}</td>' for total in row["totals"])
        + "\n                </tr>"
        for row in rows)


@register.simple_tag
def table_results(card: dict, session_word) -> SafeString:
    """A table card's heading, results and note (``pages/_rounds.html``; ``card``: the table, its
    sessions' views and its players' rows, as ``rounds_context`` builds them). Written here: the
    template's translations and conditions per card were most of its rendering."""
    sessions = card["sessions"]
    heading = text(_("Table %(number)s")) % {"number": text(card["table"].number)}
    empty = "" if sessions else f'<p class="empty">{text(_("Not started yet."))}</p>'
    return mark_safe(
        f'<h4>{heading}</h4>\n          <div class="scroll" tabindex="0">\n          <table class="results">\n'
        f'            <thead>\n              <tr>\n                <th scope="col">{text(_("Player"))}</th>\n'
        f'                {_session_heads(sessions, text(session_word))}\n              </tr>\n            </thead>\n'
        f'            <tbody>\n              {_table_rows(card["rows"])}\n            </tbody>\n          </table>\n'
        f'          </div>\n          {empty}')
