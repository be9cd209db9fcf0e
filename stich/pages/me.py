"""A player's own pages (after his phone is bound by his personal code, or logged in): his
statistics per game with charts, his events and series, head-to-head against another player,
and his privacy (initials only, his data's export, his deletion). ``/players/<id>/stats/`` shows
anyone's statistics over what the reader sees.

Who he is comes from ``tournaments/people/identity.py`` and the policy (``view_own_player``,
``change_own_player``); what he reads of others follows ``policy.Visibility`` (his login's, else
the public's): another player is shown by the name he agreed to. Charts are SVG drawn on the
server (``charts.py``), no script.
"""
from __future__ import annotations

from datetime import datetime

from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from games.catalog import GAMES
from ratings.models import Rating
from ratings.people import export_response
from ratings.selectors import player_history
from tournaments import policy
from tournaments.models import Player
from tournaments.people import services as people
from tournaments.people import stats
from tournaments.people.identity import forget_on_phone, own
from tournaments.standings.display import money
from tournaments.standings.selectors import event_place

from .charts import ChartPoint, rating_chart
from .series import player_series
from .views import _local_date, games


def colour_name(code: str) -> str:
    return {"B": _("blue"), "G": _("green"), "R": _("red"), "Y": _("yellow")}[code]


def _me(request, permission: str = "view_own_player") -> Player:
    player = own(request, permission)
    if player is None:
        raise Http404(_("Bind this phone with your personal code first."))
    return player


def _visibility(request) -> policy.Visibility:
    return policy.visibility(request.user if request.user.is_authenticated else None)


def _stat_rows(game: str, row: dict) -> list[tuple[str, str]]:
    """A game's statistics as (label, value) lines, in the reader's language."""
    def avg(value):
        return "–" if value is None else f"{value:.2f}"

    lines = [(_("Sessions"), row["sessions"]), (_("Finished"), row["finished"]), (_("Wins"), row["wins"]),
             (_("Average place"), avg(row["average_place"]))]
    if game == "mu":
        lines += [(_("Deals"), row["hands"]), (_("Chef"), row["chef"]), (_("Vize"), row["vice"]),
                  (_("Deals on the Chef's team"), row["team_hands"]), (_("Team goal made"), row["team_goal_made"]),
                  (_("Eklats caused"), row["eklats_caused"])]
    elif game == "maumau":
        lines += [(_("Games"), row["games"]), (_("Average minus points"), avg(row["average_minus"])),
                  (_("Money"), money(row["cents"]))]
    else:
        lines += [(_("Rounds"), row["rounds"]), (_("Average points"), avg(row["average_points"]))]
        lines += [(_("Colour kept: %(colour)s") % {"colour": colour_name(c)}, n)
                  for c, n in row["colours_kept"].items()]
    return [(label, str(value)) for label, value in lines]


def _charts(player: Player, shown_name: str, visibility: policy.Visibility) -> dict[str, list[dict]]:
    """Game → its charts: rating, place per finished session and (Maumau) money summed up."""
    charts: dict[str, list[dict]] = {}
    for rating in Rating.objects.filter(player=player):
        history = player_history(player=player.pk, game=rating.game)
        if history:
            charts.setdefault(rating.game, []).append({"caption": _("Rating"), "svg": mark_safe(rating_chart(  # escaped in charts.py
                [ChartPoint(_local_date(datetime.fromisoformat(p["finished_at"])), p["rating_after"]) for p in history],
                title=_("Rating history of %(player)s in %(game)s") % {"player": shown_name,
                                                                        "game": GAMES[rating.game].name},
                x_label=_("Rating events"), y_label=_("Rating"), start=history[0]["rating_before"],
                attributes={"data-chart": "rating", "data-game": rating.game}))})
    for game, points in stats.timeline(player, visibility).items():
        name = GAMES[game].name
        charts.setdefault(game, []).append({"caption": _("Place per session (1 is first)"), "svg": mark_safe(rating_chart(
            [ChartPoint(_local_date(p["finished_at"]), p["place"]) for p in points],
            title=_("Places of %(player)s in %(game)s") % {"player": shown_name, "game": name},
            x_label=_("Sessions"), y_label=_("Place"), css_class="rating-chart place-chart",
            attributes={"data-chart": "place", "data-game": game, "data-points": str(len(points))}))})
        if game == "maumau":
            charts[game].append({"caption": _("Money over time (€)"), "svg": mark_safe(rating_chart(
                [ChartPoint(_local_date(p["finished_at"]), p["running_cents"] / 100) for p in points],
                title=_("Money of %(player)s in Maumau over time") % {"player": shown_name},
                x_label=_("Series"), y_label="€", css_class="rating-chart money-chart",
                attributes={"data-chart": "money", "data-game": game, "data-points": str(len(points))}))})
    return charts


def _events(player: Player, visibility: policy.Visibility) -> list[dict]:
    events = (visibility.events().filter(rounds__in=visibility.rounds(), rounds__tables__seats__player=player)
              .select_related("club").distinct().order_by("-starts_on", "name", "id"))
    found = []
    for event in events:
        place, of = event_place(event, player.pk, visibility=visibility)
        found.append({"event": event, "game_name": GAMES[event.game].name, "place": place, "of": of})
    return found


def _stats_context(player: Player, visibility: policy.Visibility, shown_name: str) -> dict:
    found = stats.game_stats(player, visibility)
    charts = _charts(player, shown_name, visibility)
    return {"games_stats": [{"game": game, "name": GAMES[game].name, "rows": _stat_rows(game, row),
                             "charts": charts.get(game, [])} for game, row in found.items()],
            "games": games()}


@never_cache
def stats_page(request):
    """His statistics per game, his events and series, with charts."""
    player = _me(request)
    visibility = _visibility(request)
    return render(request, "people/stats.html", {
        **_stats_context(player, visibility, player.name), "player": player, "shown_name": player.name, "own": True,
        "events": _events(player, visibility), "series": player_series(player),
    })


def public_stats(request, pk: int):
    """Anyone's statistics per game, over what the reader sees, by the name he is shown by."""
    player = get_object_or_404(Player, pk=pk)
    visibility = policy.visibility(request.user)
    shown_name = visibility.names([player])[player.pk]
    return render(request, "people/stats.html", {
        **_stats_context(player, visibility, shown_name), "player": player, "shown_name": shown_name, "own": False,
    })


@never_cache
def head_to_head_page(request):
    """Head-to-head against a player he sat with (chosen from a list by name)."""
    player = _me(request)
    visibility = _visibility(request)
    rivals = stats.opponents(player, visibility)
    names = visibility.names(Player.objects.filter(pk__in=rivals))
    choices = sorted(((pk, names[pk]) for pk in rivals), key=lambda item: item[1].casefold())
    chosen, result = None, None
    wanted = request.GET.get("player", "")
    if wanted:
        if not wanted.isdigit() or int(wanted) not in names:
            raise Http404(_("You have not played with this player."))
        chosen = int(wanted)
        found = stats.head_to_head(player, Player.objects.get(pk=chosen), visibility)
        result = {**found, "name": names[chosen],
                  "games": [{"name": GAMES[g].name, **row} for g, row in found["games"].items()]}
    return render(request, "people/head_to_head.html", {
        "player": player, "choices": choices, "chosen": chosen, "result": result, "games": games(),
    })


@never_cache
@require_http_methods(["GET", "POST"])
def privacy(request):
    """Initials only (his choice), his data's export, his deletion."""
    player = _me(request, "change_own_player" if request.method == "POST" else "view_own_player")
    if request.method == "POST":
        people.player_privacy(player=player, initials_only=request.POST.get("initials_only") == "on",
                              by_user=request.user)
        return redirect("pages:me_privacy")
    return render(request, "people/privacy.html", {"player": player, "games": games()})


@never_cache
def export(request):
    """All his data as a JSON file (GDPR Art. 15 and 20)."""
    return export_response(_me(request))


@never_cache
@require_http_methods(["GET", "POST"])
def delete(request):
    """His deletion: his name, account, clubs, code and phones go; his results stay (anonymised)."""
    player = _me(request, "change_own_player" if request.method == "POST" else "view_own_player")
    error = ""
    if request.method == "POST":
        if request.POST.get("confirm", "").strip().casefold() == player.name.strip().casefold():
            people.player_forget(player=player, by_user=request.user)
            response = render(request, "people/deleted.html", {"games": games()})
            forget_on_phone(response)
            return response
        error = _("Type your name exactly as shown to confirm.")
    return render(request, "people/delete.html", {"player": player, "error": error, "games": games()},
                  status=400 if error else 200)

