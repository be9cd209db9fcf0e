"""The console's series: create a club's series, change its scoring, attach and detach its
events. The same policy permissions (on the same ``policy.Change``) and services as the API
(``via="page"``)."""
from __future__ import annotations

from fractions import Fraction

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from games.catalog import GAME_CHOICES, GAMES

from .. import policy, services
from ..models import SERIES_OPTION_BOUNDS, Club, Series, validate_points_table
from ..standings.display import money, number, series_move
from ..standings.series_standings import series_document
from .forms import DateInput
from .views import (
    VIA,
    _form_status,
    _names,
    _organised_clubs,
    _require,
    _visibility,
    refusal,
)

SCORING_CHOICES = [
    ("placement", gettext_lazy("Placement: an event of n players gives the winner n points, the last 1 "
                               "(a shared place counts as the better one)")),
    ("table", gettext_lazy("Points table: fixed points by place, e.g. 25, 18, 15, 12, 10, 8, 6, 4, 2, 1")),
    ("total", gettext_lazy("Game total: the points scored at the event (Maumau: minus points count negative)")),
]

AGGREGATE_CHOICES = [
    ("sum", gettext_lazy("Sum: the series points of the counted events added up")),
    ("average", gettext_lazy("Average: the series points per counted event (fair to players who miss evenings)")),
]


def _count(name: str, label, help_text, initial=0):
    low, high = SERIES_OPTION_BOUNDS[name]
    return forms.IntegerField(label=label, required=False, initial=initial, min_value=low, max_value=high,
                              widget=forms.NumberInput(attrs={"inputmode": "numeric"}), help_text=help_text)


class SeriesForm(forms.Form):
    club = forms.ModelChoiceField(queryset=None, label=gettext_lazy("Club"), empty_label=None)
    name = forms.CharField(label=gettext_lazy("Name"), max_length=160,
                           help_text=gettext_lazy("e.g. “Jahreswertung 2026” or “Winter cup”."))
    game = forms.ChoiceField(label=gettext_lazy("Game"), choices=GAME_CHOICES)
    season_from = forms.DateField(label=gettext_lazy("Season from"), required=False,
                                  widget=DateInput())
    season_to = forms.DateField(label=gettext_lazy("Season to"), required=False,
                                widget=DateInput())
    scoring = forms.ChoiceField(label=gettext_lazy("Series points per event"), choices=SCORING_CHOICES,
                                widget=forms.RadioSelect, initial="placement")
    points_table = forms.CharField(
        label=gettext_lazy("Points table"), required=False,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "placeholder": "25, 18, 15, 12, 10, 8, 6, 4, 2, 1"}),
        help_text=gettext_lazy("Only for the points table: the points of 1st, 2nd, 3rd … place, separated by "
                               "commas; later places score nothing."))
    best_of = forms.IntegerField(
        label=gettext_lazy("Only the best … events count"), required=False,
        min_value=SERIES_OPTION_BOUNDS["best_of"][0], max_value=SERIES_OPTION_BOUNDS["best_of"][1],
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        help_text=gettext_lazy("Leave empty to count every event."))
    min_events = forms.IntegerField(
        label=gettext_lazy("Ranked from … events on"), initial=1,
        min_value=SERIES_OPTION_BOUNDS["min_events"][0], max_value=SERIES_OPTION_BOUNDS["min_events"][1],
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        help_text=gettext_lazy("Players with fewer events are listed after the others, without a place."))
    games = forms.MultipleChoiceField(
        label=gettext_lazy("Events of these games count"), required=False, choices=GAME_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("Tick two or more games for a season over several games (each event then scores "
                               "by placement or points table). None ticked: only the series' game."))
    aggregate = forms.ChoiceField(label=gettext_lazy("A player's score"), choices=AGGREGATE_CHOICES,
                                  widget=forms.RadioSelect, initial="sum", required=False)
    drop_worst = _count("drop_worst", gettext_lazy("The worst … events do not count"),
                        gettext_lazy("0: every event counts. A player keeps at least one event. Not together with "
                                     "“only the best … events count”."))
    qualify_percent = _count("qualify_percent", gettext_lazy("Ranked from … % of the events held on"),
                             gettext_lazy("e.g. 50: with 7 events held a player needs 4 (rounded up). 0: only the "
                                          "minimum above applies."))
    absence_deduction = _count("absence_deduction", gettext_lazy("Points taken off per missed event"),
                               gettext_lazy("Taken off a player's score for each event held without him. 0: none."))

    def __init__(self, *args, clubs, locked_game: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["club"].queryset = clubs
        if locked_game:
            self.fields["game"].disabled = True
            self.fields["club"].disabled = True

    def clean_points_table(self):
        text = self.cleaned_data["points_table"].replace(";", ",")
        try:
            table = [int(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise forms.ValidationError(_("Write whole numbers separated by commas.")) from None
        validate_points_table(table)  # the model's bounds, as in the API and the services
        return table

    def clean(self):
        data = super().clean()
        for name in ("drop_worst", "qualify_percent", "absence_deduction"):
            if name in data and data[name] is None:
                data[name] = 0
        data["aggregate"] = data.get("aggregate") or "sum"
        game, games = data.get("game"), data.get("games") or []
        # The series' own game first; a single game (or none) ticked: the series' game only.
        data["games"] = [game, *(code for code in games if code != game)] if set(games) - {game} else []
        return data

    def options(self) -> dict:
        data = self.cleaned_data
        return {name: data[name] for name in services.SERIES_FIELDS}

    @classmethod
    def initial_for(cls, series: Series) -> dict:
        return {"club": series.club_id, "name": series.name, "game": series.game,
                "season_from": series.season_from, "season_to": series.season_to, "scoring": series.scoring,
                "points_table": ", ".join(map(str, series.points_table)), "best_of": series.best_of,
                "min_events": series.min_events, "games": series.game_codes if series.mixed else [],
                "aggregate": series.aggregate, "drop_worst": series.drop_worst,
                "qualify_percent": series.qualify_percent, "absence_deduction": series.absence_deduction}


def _series(request, pk: int, permission: str = "change_series") -> Series:
    series = get_object_or_404(_visibility(request).series().select_related("club"), pk=pk)
    _require(request, permission, series)
    return series


def _creatable_clubs(request):
    return Club.objects.filter(pk__in=[c.pk for c in _organised_clubs(request)
                                       if policy.may(request.user, "add_series", policy.Change(None, {"club": c}))])


@login_required
def series_list(request):
    series = (_visibility(request).series().filter(club__in=_organised_clubs(request))
              .select_related("club").order_by("-season_from", "name"))
    return render(request, "console/series_list.html", {
        "series": series, "may_create": _creatable_clubs(request).exists()})


@login_required
def series_new(request):
    clubs = _creatable_clubs(request)
    if not clubs.exists():
        raise PermissionDenied(_("You organise no club, so you cannot create series."))
    form = SeriesForm(request.POST or None, clubs=clubs)
    if request.method == "POST" and form.is_valid():
        club = form.cleaned_data["club"]
        _require(request, "add_series", policy.Change(None, {"club": club, **form.options()}))
        with refusal(request) as attempt:
            series = services.series_create(by_user=request.user, via=VIA, club=club, **form.options())
        if attempt.done:
            messages.success(request, _("Series created. Now add its events."))
            return redirect("console:series", series.pk)
    return render(request, "console/series_form.html", {"form": form, "series": None}, status=_form_status(request))


@login_required
def series_detail(request, pk: int):
    series = _series(request, pk)
    has_events = series.events.exists()
    form = SeriesForm(request.POST or None, clubs=Club.objects.filter(pk=series.club_id), locked_game=has_events,
                      initial=SeriesForm.initial_for(series))
    if request.method == "POST" and form.is_valid():
        options = form.options()
        if has_events:
            options.pop("game")
            options["games"] = [series.game, *(code for code in options["games"] if code != series.game)] \
                if set(options["games"]) - {series.game} else []
        _require(request, "change_series", policy.Change(series, options))
        with refusal(request) as attempt:
            services.series_update(series=series, by_user=request.user, via=VIA, **options)
        if attempt.done:
            messages.success(request, _("Series saved."))
            return redirect("console:series", series.pk)
    visibility = _visibility(request)
    # Every game the series takes: a mixed season lists the events of each of them.
    candidates = visibility.events().filter(club=series.club_id, game__in=series.game_codes).order_by(
        "-starts_on", "name")
    document = series_document(series, visibility=visibility)
    names = _names(request, [row["player"] for row in document["standings"]])
    games = document["games"] if len(document["games"]) > 1 else []
    standings = []
    for row in document["standings"]:
        owed = row["money"] or {}
        standings.append({
            **row, "name": names.get(row["player"], row["name"]), "shown_score": number(row["score"]),
            "move": series_move(row["trend"], row["new"]),
            "games": [_game_cell(row["per_game"].get(game), document["aggregate"]) for game in games],
            "net": money(owed.get("net", 0)), "open": money(owed.get("won_open", 0) + owed.get("lost_open", 0))})
    return render(request, "console/series.html", {
        "series": series, "form": form, "game_names": " · ".join(GAMES[code].name for code in series.game_codes),
        "game_columns": [{"code": code, "name": GAMES[code].name} for code in games],
        "money_shown": document["money_shown"], "required_events": document["required_events"],
        "attached": [e for e in candidates if e.series_id == series.pk],
        "others": [e for e in candidates if e.series_id is None],
        "elsewhere": [e for e in candidates if e.series_id not in (None, series.pk)],
        "standings": standings,
        "published": visibility.series().filter(pk=series.pk).exists()
        and policy.public().series().filter(pk=series.pk).exists(),
    }, status=_form_status(request))


def _game_cell(entry: dict | None, aggregate: str) -> str:
    """A player's points in one game of a mixed season: their sum, or their mean for ``average``."""
    if not entry or not entry["counted"]:
        return "·"
    return number(Fraction(entry["points"], entry["counted"]) if aggregate == "average" else entry["points"])


@login_required
@require_POST
def series_event(request, pk: int, event: int):
    """Attach (``attach=1``) an event of the club and game to the series, or detach it."""
    series = _series(request, pk)
    target = get_object_or_404(_visibility(request).events(), pk=event)
    attach = request.POST.get("attach") == "1"
    moves = attach or target.series_id == series.pk  # detaching an event of another series: nothing
    _require(request, "change_event", policy.Change(target, {"series": series if attach else None} if moves else {}))
    if not moves:
        return redirect("console:series", series.pk)
    with refusal(request) as attempt:
        services.event_update(event=target, by_user=request.user, via=VIA, series=series if attach else None)
    if attempt.done:
        messages.success(request, (_("%(event)s counts for the series now.") if attach
                                   else _("%(event)s no longer counts for the series.")) % {"event": target.name})
    return redirect("console:series", series.pk)


@login_required
@require_POST
def series_delete(request, pk: int):
    series = _series(request, pk, "delete_series")
    with refusal(request) as attempt:
        services.series_delete(series=series, by_user=request.user, via=VIA)
    if not attempt.done:
        return redirect("console:series", series.pk)
    messages.success(request, _("Series deleted."))
    return redirect("console:series_list")
