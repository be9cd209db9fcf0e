"""The public pages of a series: its standings with each event's points (the counted ones
marked, the others struck through) and the move since its latest event, its room screen, and
the series positions on a player's page. Read with ``policy.public()``, as every public page
(Maumau's money over the season: the club's organisers everyone's, a player his own).

The standings are the series' kept rows (``series_standings.series_document``: one row per
player whatever the number of events), and the table shows a window of ``WINDOW`` events (the
latest by default, ``?page=`` pages back): the page costs the same for 5 events and for 50. On a
phone it shows rank, name, score, move and the latest event; the rest of a row folds into its
details."""
from __future__ import annotations

from fractions import Fraction

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.catalog import GAMES
from tournaments import live, policy
from tournaments.models import Player, Series
from tournaments.standings.display import event_label, money, number, series_move
from tournaments.standings.selectors import series_money
from tournaments.standings.series_standings import series_document

SCORING_HELP = {
    "placement": _("Series points per event: the number of ranked players minus the rank plus one "
                   "(a shared rank counts as the better one)."),
    "table": _("Series points per event from a table by rank; ranks past its end score nothing."),
    "total": _("Series points per event: the player's game total (Maumau: minus points count negative)."),
}

WINDOW = 6  # event columns per page of the series' table


def public_series():
    return policy.public().series().select_related("club")


def _page(value, pages: int) -> int:
    """The window asked for (0: the latest events), within the pages there are."""
    try:
        return min(max(int(value), 0), max(pages - 1, 0))
    except (TypeError, ValueError):
        return 0


def series_context(series: Series, *, page=None) -> dict:
    """The series' public standings as its page and room screen show them: the kept rows, the
    window ``page`` of its event columns (0: the latest ``WINDOW``)."""
    document = series_document(series, visibility=policy.public())
    columns = [{**column, "number": index + 1, "label": event_label(column["name"], column["starts_on"]),
                "date": event_label("", column["starts_on"]).strip() if column["starts_on"] else "",
                "game_name": GAMES[column["game"]].name}
               for index, column in enumerate(document["event_columns"])]
    pages = -(-len(columns) // WINDOW)
    page = _page(page, pages)
    end = len(columns) - page * WINDOW
    window = columns[max(0, end - WINDOW):end]
    latest = columns[-1] if columns else None
    games = [{"code": code, "name": GAMES[code].name} for code in document["games"]] if len(document["games"]) > 1 \
        else []
    average = document["aggregate"] == "average"
    standings = []
    for row in document["standings"]:
        standings.append({
            "rank": row["rank"], "player_id": row["player"], "name": row["name"], "points": number(row["score"]),
            "sum": row["points"], "played": row["played"], "wins": row["wins"], "counted": row["counted"],
            "absences": row["absences"], "qualified": row["qualified"], "trend": row["trend"], "new": row["new"],
            "trend_text": series_move(row["trend"], row["new"]),
            "latest": row["per_event"].get(str(latest["id"])) if latest else None,
            "cells": [row["per_event"].get(str(column["id"])) for column in window],
            "per_game": [{"name": game["name"], "value": _game_cell(row["per_game"].get(game["code"]), average)}
                         for game in games],
        })
    first_unqualified = next((index for index, row in enumerate(standings) if not row["qualified"]), None)
    return {
        "series": series, "game_name": " · ".join(GAMES[code].name for code in document["games"]),
        "columns": window, "all_columns": columns, "latest": latest, "game_columns": games, "standings": standings,
        "first_unqualified": first_unqualified, "document": document,
        "column_count": 6 + bool(latest) + len(games) + len(window),
        "page": page, "pages": pages, "earlier": page + 1 if page + 1 < pages else None,
        "later": page - 1 if page > 0 else None,
        "scoring_help": SCORING_HELP[series.scoring], "updated": timezone.localtime(),
        "event_ids": [column["id"] for column in columns],
    }


def _game_cell(entry, average: bool) -> str:
    """A player's points in one game of a mixed season: their sum, or their mean for ``average``."""
    if not entry or not entry["events"]:
        return "·"
    if average:
        return number(Fraction(entry["points"], entry["counted"])) if entry["counted"] else "·"
    return number(entry["points"])


def money_rows(series: Series, user, standings: list[dict]) -> list[dict]:
    """Maumau's money over the season as ``user`` may see it (``Visibility.series_money_players``):
    every player's for the club's organisers, his own for a player, nothing for the public."""
    visibility = policy.visibility(user)
    if "maumau" not in series.game_codes:
        return []
    players = visibility.series_money_players(series)
    found = series_money(series, visibility=visibility, players=players)
    if not found:
        return []
    names = {row["player_id"]: row["name"] for row in standings}
    missing = [player for player in found if player not in names]
    names.update(visibility.names(missing) if missing else {})
    return [{"name": names.get(player, ""), "won": money(values["won"]), "lost": money(values["lost"]),
             "open": money(values["won_open"] + values["lost_open"]), "net": money(values["net"]),
             "net_cents": values["net"]}
            for player, values in sorted(found.items(), key=lambda item: (-item[1]["net"], names.get(item[0], "")))]


# The series pages' live region (``settings.LIVE_SERIES_FRAGMENTS``), as ``tournaments.live``
# renders it once per series version and language for every reader: the public standings, on the
# page (``standings``, with the window ``page`` of event columns) or on the room screen (``screen``),
# and their top on the room screen of each of the series' events (``top``).

TOP_ROWS = 5  # the players of the series' top on an event's room screen


def _render(series: Series, name: str, page: int, context: dict | None = None) -> str:
    context = context if context is not None else series_context(series, page=page)
    if name == "top":
        return render_to_string("pages/_series_top.html", {
            "series": series, "standings": context["standings"][:TOP_ROWS],
            "more": max(0, len(context["standings"]) - TOP_ROWS)})
    return render_to_string("pages/_series_standings.html", {**context, "screen": name == "screen"})


def _public_fragment(series_id: int, name: str, page: int) -> str | None:
    series = public_series().filter(pk=series_id).first()
    return None if series is None else _render(series, name, page)


def standings_fragment(series_id: int, page: int = 0) -> str | None:
    return _public_fragment(series_id, "standings", page)


def screen_fragment(series_id: int, page: int = 0) -> str | None:
    return _public_fragment(series_id, "screen", 0)


def top_fragment(series_id: int, page: int = 0) -> str | None:
    return _public_fragment(series_id, "top", 0)


def top_region(series_id: int | None) -> dict | None:
    """The series' top as an event's room screen shows it (its own live region, of the series'
    version): the series, the fragment and its version; None for no series or one the public
    does not see."""
    series = None if series_id is None else public_series().filter(pk=series_id).first()
    if series is None:
        return None
    html, version = _fragment(series, "top", 0)
    return {"series": series, "html": html, "version": version}


def _page_asked(value) -> int:
    """The window of event columns asked for (``?page=``), as the cache names it (0: the latest)."""
    try:
        return min(max(int(value), 0), 10**6)
    except (TypeError, ValueError):
        return 0


def _fragment(series: Series, name: str, page: int, *, version=None, context=None) -> tuple[str, int | None]:
    """The series' live region from the cache of its version (``tournaments.live.series_fragment``);
    ``context``: the page's, read after ``version`` was."""
    html, version = live.series_fragment(series.pk, name, language=get_language(), page=page, version=version,
                                         render=lambda: _render(series, name, page, context))
    return mark_safe(html or ""), version  # rendered by Django's templates, escaped there


def _fragment_response(series: Series, name: str, page: int) -> HttpResponse:
    html, version = _fragment(series, name, page)
    response = HttpResponse(html)
    if version is not None:
        response["X-Live-Version"] = str(version)
    return response


def series_detail(request, pk: int):
    """The series page: its standings are the live region, read from the cache of the series'
    version (the same for every reader); the events and the money (the reader's own) around it."""
    series = get_object_or_404(public_series(), pk=pk)
    page = _page_asked(request.GET.get("page"))
    if request.GET.get("fragment") == "standings":
        return _fragment_response(series, "standings", page)
    version = live.current_series_version(series.pk)  # read before the data the region shows
    context = series_context(series, page=page)
    html, version = _fragment(series, "standings", context["page"], version=version, context=context)
    return render(request, "pages/series.html", {
        **context, "standings_html": html, "live_version": version,
        "money_rows": money_rows(series, request.user, context["standings"]),
        "games": [{"code": info.code, "name": info.name} for info in GAMES.values()]})


def series_screen(request, pk: int):
    """The series' room screen: its standings in large type, kept up to date by server push."""
    series = get_object_or_404(public_series(), pk=pk)
    if request.GET.get("fragment") == "standings":
        return _fragment_response(series, "screen", 0)
    if request.GET.get("fragment") == "top":  # the series' top on its events' room screens
        return _fragment_response(series, "top", 0)
    html, version = _fragment(series, "screen", 0)
    return render(request, "pages/series_screen.html", {
        "series": series, "game_name": " · ".join(GAMES[code].name for code in series.game_codes),
        "standings_html": html, "live_version": version})


def player_series(player: Player) -> list[dict]:
    """The public series ``player`` played in, with his position: a constant number of queries
    per series."""
    visibility = policy.public()
    played = visibility.series().filter(events__in=visibility.events().filter(
        rounds__in=visibility.rounds(), rounds__tables__seats__player=player)).distinct()
    positions = []
    for series in played.select_related("club").order_by("-season_from", "name", "id"):
        rows = series_document(series, visibility=visibility)["standings"]  # the kept rows
        row = next((row for row in rows if row["player"] == player.pk), None)
        if row is not None:
            positions.append({"series": series, "game_name": " · ".join(GAMES[code].name for code in series.game_codes),
                              "rank": row["rank"], "of": sum(r["rank"] is not None for r in rows),
                              "points": number(row["score"]), "played": row["played"]})
    return positions
