"""The public pages of a series: its standings with each event's points (the counted ones
marked, the others struck through) and the trend since its latest event, its room screen, and
the series positions on a player's page. Read with ``policy.public()``, as every public page."""
from __future__ import annotations

from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.catalog import GAMES
from tournaments import policy
from tournaments.models import Player, Series
from tournaments.standings.series import trend
from tournaments.standings.series_standings import series_results, series_rows

SCORING_HELP = {
    "placement": _("Series points per event: the number of ranked players minus the rank plus one "
                   "(a shared rank counts as the better one)."),
    "table": _("Series points per event from a table by rank; ranks past its end score nothing."),
    "total": _("Series points per event: the player's game total (Maumau: minus points count negative)."),
}


def public_series():
    return policy.public().series().select_related("club")


def series_context(series: Series) -> dict:
    """The series' public standings as its page and room screen show them."""
    events, results = series_results(series, visibility=policy.public())
    rows = series_rows(series, results)
    moves = trend(series_rows(series, results[:-1]), rows) if len(results) > 1 else {}
    ids = [row.player for row in rows]
    names = policy.public().names(ids)
    columns = [{"event": event, "number": index + 1} for index, event in enumerate(events)]
    standings = []
    for row in rows:
        move = moves.get(row.player)
        standings.append({
            "rank": row.rank, "player_id": row.player, "name": names.get(row.player, ""), "points": row.points,
            "played": row.played, "wins": row.wins, "trend": move,
            "trend_text": "" if not move else (f"▲{move}" if move > 0 else f"▼{-move}"),
            "cells": [row.per_event.get(event.pk) for event in events],
        })
    return {
        "series": series, "game_name": GAMES[series.game].name, "columns": columns, "standings": standings,
        "scoring_help": SCORING_HELP[series.scoring], "updated": timezone.localtime(),
        "event_ids": [event.pk for event in events],
    }


def series_detail(request, pk: int):
    series = get_object_or_404(public_series(), pk=pk)
    context = series_context(series)
    if request.GET.get("fragment") == "standings":
        return render(request, "pages/_series_standings.html", context)
    return render(request, "pages/series.html", {**context, "games": [
        {"code": info.code, "name": info.name} for info in GAMES.values()]})


def series_screen(request, pk: int):
    """The series' room screen: its standings in large type, kept up to date by server push."""
    series = get_object_or_404(public_series(), pk=pk)
    context = {**series_context(series), "screen": True}
    if request.GET.get("fragment") == "standings":
        return render(request, "pages/_series_standings.html", context)
    return render(request, "pages/series_screen.html", context)


def player_series(player: Player) -> list[dict]:
    """The public series ``player`` played in, with his position: a constant number of queries
    per series."""
    visibility = policy.public()
    played = visibility.series().filter(events__in=visibility.events().filter(
        rounds__in=visibility.rounds(), rounds__tables__seats__player=player)).distinct()
    positions = []
    for series in played.select_related("club").order_by("-season_from", "name", "id"):
        _, results = series_results(series, visibility=visibility)
        rows = series_rows(series, results)
        row = next((row for row in rows if row.player == player.pk), None)
        if row is not None:
            positions.append({"series": series, "game_name": GAMES[series.game].name, "rank": row.rank,
                              "of": sum(r.rank is not None for r in rows), "points": row.points,
                              "played": row.played})
    return positions
