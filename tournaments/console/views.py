"""Pages of the organisers' console (see the package's docstring).

Each view reads through ``policy.Visibility(request.user)`` (an object the user may not see is a
404), asks ``policy.may`` before a change (403 otherwise) under the name the API and the admin ask
for the same act, an add or an edit on the ``policy.Change`` it would write (the form's cleaned
data), and writes through a service with ``via="page"``. A refusal of a service (``DomainError``)
comes back to the page as a message; the page is shown again, nothing is changed: every service
call runs under ``refusal``, which says so.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.catalog import GAMES
from games.messages import message as engine_message
from games.rules import Code

from .. import live, policy, services
from ..draws import open_nights
from ..draws import services as draws
from ..errors import DomainError, Error, RecordRejected
from ..models import Attendance, Club, Event, Hand, Round, Seat, Table
from ..results import services as results
from ..sheet.views import game_form_context
from ..standings.display import (
    METRIC_HELP,
    METRIC_LABELS,
    METRIC_SHORT,
    TABLE_STATE_LABELS,
    final_rule,
    hands_text,
    money,
    number,
    progress_text,
)
from ..standings.selectors import (
    event_money,
    present_players,
    standings_document,
    start_numbers,
)
from ..standings.tables import tables_progress
from .forms import (
    CorrectForm,
    DistinctionForm,
    DrawForm,
    EventForm,
    OrganiserForm,
    PlanForm,
    PlayerForm,
    ReasonForm,
)

VIA = "page"


# --- access -------------------------------------------------------------------------------------

def _visibility(request) -> policy.Visibility:
    return policy.Visibility(request.user)


def _require(request, permission: str, obj) -> None:
    if not policy.may(request.user, permission, obj):
        raise PermissionDenied(_("You do not organise this."))


def _seen_event(request, pk: int) -> Event:
    return get_object_or_404(_visibility(request).events().select_related("club"), pk=pk)


def _event(request, pk: int, permission: str = "change_event") -> Event:
    event = _seen_event(request, pk)
    _require(request, permission, event)
    return event


def _new_event_in(club: Club, **data) -> policy.Change:
    return policy.Change(None, {"club": club, **data})


def _naming_organisers(event: Event) -> policy.Change:
    """The change that names the event's organisers, asked before the names are known: every
    change of them is allowed to the same people (the club's organisers), so the change to none
    stands for them all (an event without organisers is organised by its club's organisers
    only, who may name them)."""
    return policy.Change(event, {"organisers": []})


def _round(request, pk: int) -> Round:
    round_ = get_object_or_404(_visibility(request).rounds().select_related("event__club"), pk=pk)
    _require(request, "change_round", round_)
    return round_


def _organised_clubs(request):
    return _visibility(request).organised_clubs()


def _form_status(request) -> int:
    """A form shown again after a POST was refused (invalid, or the service said no): 400."""
    return 400 if request.method == "POST" else 200


def _refused_text(error: DomainError, names: list[str] | None = None) -> str:
    if isinstance(error, RecordRejected) and error.code in Code.__members__.values():
        # The engine's refusal in the reader's language, the table's players named (games/messages.py).
        return engine_message(error.code, error.path, error.params, names)
    return error.message


class Attempt:
    """What the service calls under ``refusal`` came to: ``error`` is the refusal (None: done)."""

    error: DomainError | None = None

    @property
    def done(self) -> bool:
        return self.error is None


@contextmanager
def refusal(request, names: list[str] | None = None, *,
            answered_here: Callable[[DomainError], bool] = lambda error: False) -> Iterator[Attempt]:
    """Run a view's service calls: a refusal (``DomainError``) becomes the console's message
    ("Not done: …", the engine's refusals in the reader's language with the table's ``names``)
    and the view goes on to answer as it does after a refusal (the page shown again, or the
    redirect), telling a refusal from a success by the ``Attempt``::

        with refusal(request) as attempt:
            services.event_update(...)
        if attempt.done:
            messages.success(...)

    ``answered_here``: the refusals the view answers itself (no message; ``attempt.error`` says
    which), such as a namesake to ask about or a record refused at one of its fields."""
    attempt = Attempt()
    try:
        yield attempt
    except DomainError as error:
        attempt.error = error
        if not answered_here(error):
            messages.error(request, _("Not done: %(reason)s") % {"reason": _refused_text(error, names)})


def _seat_names(request, hand: Hand) -> list[str]:
    seats = list(hand.session.table.seats.order_by("position").values_list("player_id", flat=True))
    shown = _names(request, seats)
    return [shown.get(player, "") for player in seats]


# --- names --------------------------------------------------------------------------------------

def _names(request, player_ids) -> dict:
    """Player id → the name this organiser sees, namesakes told apart (tournaments/names.py)."""
    return _visibility(request).names(set(player_ids))


# --- events -------------------------------------------------------------------------------------

@login_required
def home(request):
    visibility = _visibility(request)
    events = visibility.organised_events().select_related("club").order_by("-starts_on", "-created_at")
    clubs = [club for club in _organised_clubs(request)
             if policy.may(request.user, "add_event", _new_event_in(club))]
    return render(request, "console/home.html", {"events": events, "clubs": clubs})


@login_required
def event_new(request):
    clubs = Club.objects.filter(pk__in=[c.pk for c in _organised_clubs(request)
                                        if policy.may(request.user, "add_event", _new_event_in(c))])
    if not clubs.exists():
        raise PermissionDenied(_("You organise no club, so you cannot create events."))
    form = EventForm(request.POST or None, clubs=clubs)
    if request.method == "POST" and form.is_valid():
        club = form.cleaned_data["club"]
        _require(request, "add_event", _new_event_in(club, **form.options()))
        with refusal(request) as attempt:
            event = services.event_create(by_user=request.user, via=VIA, club=club, **form.options())
        if attempt.done:
            messages.success(request, _("Event created. It is not public yet: publish it when it is ready."))
            return redirect("console:event", event.pk)
    return render(request, "console/event_form.html", {"form": form, "event": None}, status=_form_status(request))


@login_required
def event_edit(request, pk: int):
    event = _event(request, pk)
    locked = Table.objects.filter(round__event=event).exists()
    clubs = Club.objects.filter(pk__in=[event.club_id] + [c.pk for c in _organised_clubs(request)])
    form = EventForm(request.POST or None, clubs=clubs, locked_game=locked, locked_format=event.rounds.exists(),
                     initial=EventForm.initial_for(event))
    if request.method == "POST" and form.is_valid():
        club = form.cleaned_data["club"]
        _require(request, "change_event", policy.Change(event, {"club": club, **form.options()}))
        with refusal(request) as attempt:
            services.event_update(event=event, by_user=request.user, via=VIA, club=club, **form.options())
        if attempt.done:
            messages.success(request, _("Event saved."))
            return redirect("console:event", event.pk)
    return render(request, "console/event_form.html", {"form": form, "event": event}, status=_form_status(request))


def _rules_in_words(event: Event) -> list[str]:
    confirmation = [_("A second player confirms each hand.")] if event.confirm_hands else []
    return _game_rules_in_words(event) + confirmation


def _game_rules_in_words(event: Event) -> list[str]:
    if event.game == "mu":
        if event.mu_fixed_deals:
            return [ngettext("Every game lasts %(deals)s deal.", "Every game lasts %(deals)s deals.",
                             event.mu_fixed_deals) % {"deals": event.mu_fixed_deals}]
        return [_("A game ends after the deal in which a player reaches %(score)s points.")
                % {"score": event.mu_target_score}]
    if event.game == "maumau":
        return [
            ngettext("A series has %(games)s game.", "A series has %(games)s games.", event.maumau_games_per_series)
            % {"games": event.maumau_games_per_series},
            _("Stake: %(money)s per minus point.") % {"money": money(event.maumau_stake_cents)},
        ]
    return [_("A game has as many rounds as the table has players.")]


@login_required
def event_detail(request, pk: int):
    event = _event(request, pk)
    visibility = _visibility(request)
    rounds = list(event.rounds.order_by("number").prefetch_related("tables"))
    document = standings_document(event, visibility=visibility)
    names = _names(request, [row["player"] for row in document["standings"]])
    metrics = document["metrics"]
    standings = [
        {"rank": row["rank"], "player": row["player"], "name": names.get(row["player"], row["name"]),
         "played": row["played"], "values": [number(row[name]) for name in metrics],
         "money": money(row["cents"]) if "cents" in row else None}
        for row in document["standings"]
    ]
    return render(request, "console/event.html", {
        "event": event, "game_name": GAMES[event.game].name, "rules": _rules_in_words(event),
        "rounds": [{"round": r, "tables": len(r.tables.all()), "drawn": bool(r.draft)} for r in rounds],
        "organisers": event.organisers.order_by("username"),
        "may_name_organisers": policy.may(request.user, "change_event", _naming_organisers(event)),
        "organiser_form": OrganiserForm(), "present": len(present_players(event)),
        "standings": standings, "metrics": [METRIC_LABELS.get(name, name) for name in metrics],
        # Columns as the public table heads them: a short heading on a phone, the full one wider.
        "metric_columns": [{"label": METRIC_LABELS.get(name, name), "short": METRIC_SHORT.get(name, name)}
                           for name in metrics],
        "metric_help": [METRIC_HELP[name] for name in metrics if name in METRIC_HELP],
        "held": any(r.results_held for r in rounds), "maumau": event.game == "maumau",
        "open_night": open_night_context(request, event) if event.format == Event.Format.OPEN else None,
        "final": final_context(document, names, event),
    })


def final_context(document: dict, names: dict, event: Event) -> dict | None:
    """The final stage as the console shows it: the rule in words and, once a final round has
    tables, the final ranking (the standings below are then the preliminary ones)."""
    if not event.final_size:
        return None
    final = document.get("final")
    return {
        "rule": final_rule(event),
        "metric": METRIC_LABELS.get(event_metric(event), event_metric(event)),
        "rows": [{**row, "name": names.get(row["player"], row["name"]), "final": number(row["final"]),
                  "carried": number(row["carried"]), "points": number(row["points"])}
                 for row in final["standings"]] if final else None,
    }


def event_metric(event: Event) -> str:
    return next(name for name in event.standings_metrics.split(",") if name)


def open_night_context(request, event: Event) -> dict:
    """The open club night's panel: the free players, the suggested next table first."""
    proposal = open_nights.suggestion(event)
    names = _names(request, proposal["free"])
    suggested = set(proposal["players"])
    return {
        "players": [{"id": pk, "name": names.get(pk, ""), "suggested": pk in suggested}
                    for pk in sorted(proposal["free"], key=lambda pk: (pk not in suggested, names.get(pk, "")))],
        "size": proposal["size"], "suggested": [names.get(pk, "") for pk in proposal["players"]],
    }


@login_required
@require_POST
def open_table(request, pk: int):
    """Open a table of an open club night for the ticked players (``open_nights.open_table``)."""
    event = _event(request, pk, "open_table_at_event")
    # ASCII digits only (str.isdigit() is true for "²", which int() refuses), at most an id's length.
    ids = [int(value) for value in request.POST.getlist("players") if re.fullmatch(r"[0-9]{1,18}", value)]
    players = list(_visibility(request).players().filter(pk__in=ids))
    with refusal(request) as attempt:
        table = open_nights.open_table(event=event, players=players, by_user=request.user, via=VIA)
    if not attempt.done:
        return redirect(reverse("console:event", args=[event.pk]) + "#open-night")
    messages.success(request, _("Table opened: %(names)s.") % {
        "names": ", ".join(_names(request, ids).get(pk, "") for pk in
                           table.seats.order_by("position").values_list("player_id", flat=True))})
    return redirect("console:round", table.round_id)


@login_required
@require_POST
def event_publish(request, pk: int):
    event = _event(request, pk)
    published = request.POST.get("published") == "1"
    _require(request, "change_event", policy.Change(event, {"published": published}))
    with refusal(request) as attempt:
        services.event_update(event=event, by_user=request.user, via=VIA, published=published)
    if attempt.done:
        messages.success(request, _("The event is public now.") if published else _("The event is hidden again."))
    return redirect("console:event", event.pk)


@login_required
@require_POST
def event_organiser_add(request, pk: int):
    event = _event(request, pk)
    _require(request, "change_event", _naming_organisers(event))
    form = OrganiserForm(request.POST)
    if form.is_valid():
        user = get_user_model().objects.filter(username=form.cleaned_data["username"], is_active=True).first()
        if user is None:
            messages.error(request, _("There is no account named %(name)s.") % {"name": form.cleaned_data["username"]})
        else:
            organisers = list(event.organisers.all())
            organisers = organisers + [user] if user not in organisers else organisers
            _require(request, "change_event", policy.Change(event, {"organisers": organisers}))
            with refusal(request) as attempt:
                services.event_update(event=event, by_user=request.user, via=VIA, organisers=organisers)
            if attempt.done:
                messages.success(request, _("%(name)s organises this event now.") % {"name": user.username})
    return redirect("console:event", event.pk)


# --- players and attendance ---------------------------------------------------------------------

@login_required
def players(request, pk: int):
    event = _event(request, pk)
    visibility = _visibility(request)
    clubs = _organised_clubs(request)
    if not clubs.filter(pk=event.club_id).exists():
        clubs = Club.objects.filter(pk=event.club_id)
    form = PlayerForm(request.POST or None, clubs=clubs, initial={"club": event.club_id})
    duplicate_of = None
    if request.method == "POST" and form.is_valid():
        club = form.cleaned_data["club"]
        name = form.cleaned_data["name"].strip()
        _require(request, "add_player", policy.Change(None, {
            "clubs": [club], "name": name, "initials_only": form.cleaned_data["initials_only"],
            "distinction": form.cleaned_data["distinction"].strip()}))
        with refusal(request, answered_here=lambda error: error.code is Error.SAME_NAME) as attempt:
            player = services.player_create(by_user=request.user, via=VIA, name=name, clubs=[club],
                                            initials_only=form.cleaned_data["initials_only"],
                                            same_name_ok=form.cleaned_data["confirm_duplicate"],
                                            distinction=form.cleaned_data["distinction"].strip())
            if form.cleaned_data["check_in"]:
                services.player_check_in(event=event, player=player, by_user=request.user, via=VIA)
        if attempt.error is not None and attempt.error.code is Error.SAME_NAME:
            # Ask first: the same person, or another of that name?
            duplicate_of = {"name": name, "club": club.name, "count": len(services.same_name(club, name))}
            form = PlayerForm(initial={**form.cleaned_data, "club": club.pk, "confirm_duplicate": True}, clubs=clubs)
        elif attempt.done:
            messages.success(request, _("%(name)s added.") % {"name": name})
            return redirect(f"{request.path}#player-{player.pk}")

    members = visibility.players().filter(clubs=event.club, anonymised=False).order_by("name", "id")
    query = request.GET.get("q", "").strip()
    counts = Counter(services.folded_name(p.name) for p in members)
    if query:
        members = visibility.filter_by_name(members, query)
    attendance = {a.player_id: a for a in Attendance.objects.filter(event=event)}
    numbers = start_numbers(event)
    seated_now = set(Seat.objects.filter(round__event=event).values_list("player_id", flat=True))
    members = list(members)
    shown = visibility.names(members)
    rows = []
    for player in members:
        rows.append({
            "player": player, "name": shown[player.pk], "plain_name": visibility.name(player),
            "attendance": attendance.get(player.pk), "number": numbers.get(player.pk),
            "same_name": counts[services.folded_name(player.name)], "played": player.pk in seated_now,
            "may_tell_apart": policy.may(request.user, "change_player",
                                         policy.Change(player, {"distinction": player.distinction})),
        })
    present = sum(1 for a in attendance.values() if a.present)
    return render(request, "console/players.html", {
        "event": event, "rows": rows, "form": form, "query": query, "present": present,
        "duplicate_of": duplicate_of, "club": event.club,
        "may_add": any(policy.may(request.user, "add_player", policy.Change(None, {"clubs": [club]}))
                       for club in clubs),
    }, status=_form_status(request) if duplicate_of is None else 200)


@login_required
@require_POST
def attendance(request, pk: int, player: int):
    event = _event(request, pk, "check_in_at_event")
    target = get_object_or_404(_visibility(request).players().filter(clubs=event.club), pk=player)
    with refusal(request):
        if request.POST.get("present") == "1":
            services.player_check_in(event=event, player=target, by_user=request.user, via=VIA)
        else:
            services.player_check_out(event=event, player=target, by_user=request.user, via=VIA)
    back = request.POST.get("next") or ""
    if not url_has_allowed_host_and_scheme(back, allowed_hosts=None) or not back.startswith("/"):
        back = reverse("console:players", args=[event.pk])
    return redirect(f"{back}#player-{target.pk}")


@login_required
@require_POST
def player_distinction(request, pk: int, player: int):
    """What tells a player apart from his namesakes, set from the players' list."""
    event = _event(request, pk)
    target = get_object_or_404(_visibility(request).players().filter(clubs=event.club, anonymised=False), pk=player)
    form = DistinctionForm(request.POST)
    valid = form.is_valid()
    _require(request, "change_player",
             policy.Change(target, {"distinction": form.cleaned_data.get("distinction", "").strip()}))
    if valid:
        with refusal(request) as attempt:
            services.player_update(player=target, by_user=request.user, via=VIA,
                                   distinction=form.cleaned_data["distinction"].strip())
        if attempt.done:
            messages.success(request, _("Saved: %(name)s.") % {"name": _visibility(request).names([target])[target.pk]})
    return redirect(reverse("console:players", args=[event.pk]) + f"#player-{target.pk}")


# --- rounds and draws ---------------------------------------------------------------------------

@login_required
@require_POST
def round_new(request, pk: int):
    event = _seen_event(request, pk)
    _require(request, "add_round", policy.Change(None, {"event": event}))
    stage = "final" if request.POST.get("stage") == "final" else "preliminary"
    with refusal(request) as attempt:
        round_ = services.round_create(event=event, by_user=request.user, via=VIA, stage=stage)
    if not attempt.done:
        return redirect("console:event", event.pk)
    return redirect("console:round", round_.pk)


# What each seating method optimised, as the quality report says it first.
METHOD_WORDS = {
    "varied": gettext_lazy("Seated for variety: as few pairs as possible meet again."),
    "standings": gettext_lazy("Seated by standings: table 1 has the leaders, and so on down; players level in the "
                       "standings were placed so that the fewest meet again."),
    "interval": gettext_lazy("Seated by interval: the standings dealt round the tables (1st, 5th, 9th … together "
                      "with four tables); players level in the standings were placed so that the fewest meet again."),
    "script": gettext_lazy("Seated as the event's seating script says for this round."),
}


def quality_in_words(quality: dict, *, players: int, round_number: int) -> list[str]:
    """The draw's quality report as sentences, measured against the fewest repeats possible."""
    repeated = quality.get("repeated_pairs", 0)
    bound = quality.get("repeated_pairs_lower_bound")
    context = {"count": repeated, "bound": bound, "players": players, "round": round_number}
    lines = [METHOD_WORDS[quality["method"]]] if quality.get("method") in METHOD_WORDS else []
    if repeated == 0:
        lines.append(_("Nobody meets anyone again: every pair at a table is new."))
    elif bound is not None and repeated <= bound:
        lines.append(ngettext(
            "%(count)s pair meets again — the fewest possible for %(players)s players in round %(round)s.",
            "%(count)s pairs meet again — the fewest possible for %(players)s players in round %(round)s.",
            repeated) % context)
    else:
        lines.append(ngettext(
            "%(count)s pair meets again; at least %(bound)s cannot be avoided for %(players)s players in round "
            "%(round)s, so drawing again may find fewer.",
            "%(count)s pairs meet again; at least %(bound)s cannot be avoided for %(players)s players in round "
            "%(round)s, so drawing again may find fewer.", repeated) % context)
    if quality.get("max_meetings", 0) > 2:
        lines.append(_("Some pair sits together for the %(n)s. time.") % {"n": quality["max_meetings"]})
    if quality.get("repeats_from_previous_round"):
        lines.append(ngettext("%(n)s pair sat together in the previous round too.",
                              "%(n)s pairs sat together in the previous round too.",
                              quality["repeats_from_previous_round"]) % {"n": quality["repeats_from_previous_round"]})
    if quality.get("players_off_size_more_than_once"):
        lines.append(ngettext("%(n)s player sits at an odd-sized table more than once.",
                              "%(n)s players sit at an odd-sized table more than once.",
                              quality["players_off_size_more_than_once"])
                     % {"n": quality["players_off_size_more_than_once"]})
    if quality.get("same_club_pairs"):
        lines.append(ngettext("%(n)s pair of club mates sits together.", "%(n)s pairs of club mates sit together.",
                              quality["same_club_pairs"]) % {"n": quality["same_club_pairs"]})
    return lines


def _draft_view(request, round_: Round, present: list[int]) -> dict | None:
    draft = round_.draft
    if not draft:
        return None
    seated = [p for t in draft["tables"] for p in t["players"]]
    names = _names(request, seated + list(draft["byes"]) + list(present))
    in_draw = set(draft["players"])
    return {
        "tables": [
            {"number": index + 1, "first_dealer": t["first_dealer"],
             "players": [{"id": p, "name": names.get(p, f"#{p}")} for p in t["players"]]}
            for index, t in enumerate(draft["tables"])
        ],
        "byes": [{"id": p, "name": names.get(p, f"#{p}")} for p in draft["byes"]],
        "quality": quality_in_words(draft["quality"], players=len(seated), round_number=round_.number),
        "late": [names.get(p, f"#{p}") for p in present if p not in in_draw],
        "gone": [names.get(p, f"#{p}") for p in draft["players"] if p not in set(present)],
        "planned": draft.get("planned", False), "seed": draft["seed"], "method": draft.get("method", "varied"),
    }


def board(round_: Round, names: dict) -> list[dict]:
    """The round's tables as the board shows them (``tables.tables_progress``, the read the room
    screen and the API share): their state in words, the hands entered of those due, the players'
    totals (``names``: player id → shown name). Four queries whatever the number of tables: the
    board's queries do not grow with its tables."""
    event = round_.event
    rows = tables_progress(event, [round_])
    linked = round_.tables.in_bulk()  # the tables' rows, for their links (the score sheet's token)
    return [{
        "table": linked[row.id], "state": row.state, "label": TABLE_STATE_LABELS[row.state],
        "progress": progress_text(event.game, row), "hands": row.hands,
        "seats": [{"name": names.get(seat.player, f"#{seat.player}"), "total": seat.total} for seat in row.seats],
    } for row in rows]


def render_board(round_: Round) -> str:
    """The round's board as every organiser of its event sees it (``policy.event_organisers``):
    the console's live region, rendered once per version and language for all of them
    (``tournaments.live``). It holds no form and nothing of the reader (no CSRF token, no user):
    the round page around it carries those."""
    audience = policy.event_organisers(round_.event)
    names = audience.names(list(Seat.objects.filter(round=round_).values_list("player_id", flat=True))
                           + list(round_.byes or []))
    rows = board(round_, names)
    return render_to_string("console/_board.html", {
        "board": rows, "byes": [names.get(p, f"#{p}") for p in round_.byes or []],
        "finished": sum(1 for row in rows if row["state"].done),
    })


def board_fragment(event_id: int, page: int = 0) -> str | None:
    """``settings.LIVE_ORGANISER_FRAGMENTS["board"]``: the board of round ``page`` of the event
    (None when the round is not the event's or has no tables yet)."""
    round_ = Round.objects.select_related("event__club").filter(pk=page, event=event_id).first()
    if round_ is None or not round_.tables.exists():
        return None
    return render_board(round_)


def _board(round_: Round) -> tuple[str, int | None]:
    """The board from the cache of the event's version (the organisers' audience)."""
    html, version = live.fragment(round_.event_id, "board", language=get_language(), game=round_.event.game,
                                  page=round_.pk, audience=live.ORGANISERS, render=lambda: render_board(round_))
    return mark_safe(html or ""), version  # rendered by Django's templates, escaped there


@login_required
def round_detail(request, pk: int):
    """A round: its draft (draw, swap, publish) until its tables are published, then its board,
    the live region (read from the cache of the event's version, the same for every organiser:
    ``render_board``) with the forms around it."""
    round_ = _round(request, pk)
    event = round_.event
    published = round_.tables.exists()
    if published and request.GET.get("fragment") == "board":
        html, version = _board(round_)
        response = HttpResponse(html)
        if version is not None:
            response["X-Live-Version"] = str(version)
        return response
    present = present_players(event)
    context = {
        "round": round_, "event": event, "published": published, "present": len(present),
        "hold_form": ReasonForm(), "final": round_.stage == Round.Stage.FINAL,
    }
    if published:
        context["board_html"], context["live_version"] = _board(round_)
    else:
        context["draft"] = _draft_view(request, round_, present)
        default = (context["draft"] or {}).get("method") or ("standings" if context["final"] else "varied")
        context["draw_form"] = DrawForm(initial={"method": default})
        context["has_script"] = bool(event.seating_script)
    return render(request, "console/round.html", context)


@login_required
@require_POST
def round_draw(request, pk: int):
    round_ = _round(request, pk)
    form = DrawForm(request.POST)
    method = form.cleaned_data["method"] if form.is_valid() else None
    if method is None and request.POST.get("method"):
        messages.error(request, _("Choose how to seat the round."))
        return redirect("console:round", round_.pk)
    present = present_players(round_.event)
    final = round_.stage == Round.Stage.FINAL and method != "script"
    if not present and not final:
        messages.error(request, _("Check in the players who are here first."))
        return redirect("console:players", round_.event_id)
    with refusal(request):
        draws.draw_preview(round_, by_user=request.user, via=VIA, players=None if final else present,
                           method=method)
    return redirect("console:round", round_.pk)


@login_required
@require_POST
def round_swap(request, pk: int):
    round_ = _round(request, pk)
    try:
        a, b = int(request.POST["a"]), int(request.POST["b"])
    except (KeyError, ValueError):
        messages.error(request, _("Choose two players to swap."))
        return redirect("console:round", round_.pk)
    with refusal(request):
        draws.draw_swap(round_, by_user=request.user, via=VIA, a=a, b=b)
    return redirect("console:round", round_.pk)


@login_required
@require_POST
def round_publish(request, pk: int):
    round_ = _round(request, pk)
    with refusal(request) as attempt:
        draws.draw_publish(round_, by_user=request.user, via=VIA)
    if attempt.done:
        messages.success(request, _("Round %(number)s is published: the tables can start.") % {"number": round_.number})
    return redirect("console:round", round_.pk)


@login_required
@require_POST
def round_hold(request, pk: int):
    round_ = _round(request, pk)
    held = request.POST.get("held") == "1"
    _require(request, "change_round", policy.Change(round_, {"results_held": held}))
    with refusal(request) as attempt:
        services.round_set_results_held(round_=round_, held=held, by_user=request.user, via=VIA,
                                        reason=request.POST.get("reason", "")[:2000])
    if attempt.done:
        messages.success(request, _("The results of this round are held back from the public.") if held
                         else _("The results of this round are public again."))
    return redirect("console:round", round_.pk)


@login_required
def plan(request, pk: int):
    """Plan every remaining round at once for the present players (a fixed roster)."""
    event = _seen_event(request, pk)
    _require(request, "add_round", policy.Change(None, {"event": event}))
    present = present_players(event)
    form = PlanForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with refusal(request) as attempt:
            draws.draw_plan(event, by_user=request.user, via=VIA, players=present, rounds=form.cleaned_data["rounds"])
        if attempt.done:
            messages.success(request, _("The rounds are planned. Publish each round when it starts."))
            return redirect("console:schedule", event.pk)
    return render(request, "console/plan.html", {"event": event, "form": form, "present": len(present)},
                  status=_form_status(request))


@login_required
def schedule(request, pk: int):
    """Every round of the event with its tables, drawn or published: the schedule to print."""
    event = _event(request, pk)
    rounds = []
    for round_ in event.rounds.order_by("number").prefetch_related(
        Prefetch("tables", queryset=Table.objects.order_by("number").prefetch_related(
            Prefetch("seats", queryset=Seat.objects.order_by("position"))))
    ):
        tables = [[seat.player_id for seat in table.seats.all()] for table in round_.tables.all()]
        published = bool(tables)
        if not published and round_.draft:
            tables = [t["players"] for t in round_.draft["tables"]]
        rounds.append({"round": round_, "published": published, "tables": tables})
    names = _names(request, {p for r in rounds for t in r["tables"] for p in t})
    for entry in rounds:
        entry["tables"] = [[names.get(p, f"#{p}") for p in table] for table in entry["tables"]]
    return render(request, "console/schedule.html", {"event": event, "rounds": rounds})


# --- during play --------------------------------------------------------------------------------

@login_required
def table_detail(request, pk: int):
    table = get_object_or_404(_visibility(request).tables().select_related("round__event"), pk=pk)
    _require(request, "change_table", table)
    event = table.round.event
    seats = list(table.seats.order_by("position").select_related("player"))
    names = _names(request, [seat.player_id for seat in seats])
    seats = [{"seat": seat, "name": names[seat.player_id]} for seat in seats]
    sessions = []
    for session in table.sessions.order_by("number"):
        summary = results.session_summary(session)
        hands = []
        for hand in session.hands.order_by("number"):
            hands.append({
                "hand": hand, "dealer": seats[hand.dealer]["name"] if hand.dealer < len(seats) else hand.dealer,
                "scores": hand.scores,
            })
        sessions.append({"session": session, "summary": summary, "hands": hands,
                         "count": hands_text(event.game, len(hands))})
    return render(request, "console/table.html", {
        "table": table, "event": event, "round": table.round, "seats": seats, "sessions": sessions,
        "void_form": ReasonForm(),
    })


def _hand(request, pk: int) -> Hand:
    hand = get_object_or_404(_visibility(request).hands().select_related("session__table__round__event"), pk=pk)
    _require(request, "change_hand", hand)
    return hand


@login_required
def hand_correct(request, pk: int):
    """A hand corrected through the score sheet's own form for its game, prefilled with the stored
    hand (a hand stored in full, with its cards, is corrected as its record). A refused correction
    shows the form again as entered, the engine's reason at the field its JSON Pointer names."""
    hand = _hand(request, pk)
    table = hand.session.table
    event = table.round.event
    names = _seat_names(request, hand)
    form = CorrectForm(request.POST or None)
    entered, error = hand.record, None
    if request.method == "POST":
        if form.is_valid():
            # A refused record is answered at the field its pointer names, another refusal as a message.
            with refusal(request, names, answered_here=lambda refused: isinstance(refused, RecordRejected)) as attempt:
                results.hand_correct(hand=hand, record=form.cleaned_data["record"], by_user=request.user,
                                     reason=form.cleaned_data["reason"], via=VIA)
            if isinstance(attempt.error, RecordRejected):
                entered = form.cleaned_data["record"]
                error = {"path": attempt.error.path, "message": _refused_text(attempt.error, names)}
            elif attempt.done:
                messages.success(request, _("Hand %(number)s corrected.") % {"number": hand.number})
                return redirect(reverse("console:table", args=[table.pk]) + f"#hand-{hand.pk}")
        else:
            error = {"path": "", "message": " ".join(" ".join(errors) for errors in form.errors.values())}
    summary = isinstance(entered, dict) and isinstance(entered.get("summary"), dict) and "summary" in hand.record
    context = {
        "hand": hand, "table": table, "event": event, "round": table.round, "form": form, "error": error,
        "as_form": summary, "record_text": json.dumps(entered, ensure_ascii=False, indent=1),
        "entered": entered, "seat_list": [{"number": seat + 1, "name": name} for seat, name in enumerate(names)],
        "correct_config": {"game": event.game, "players": len(names), "names": names},
    }
    context.update(game_form_context(event.game, names))
    context["correct_config"]["points"] = context["points"]
    return render(request, "console/correct.html", context, status=400 if error else 200)


@login_required
@require_POST
def hand_void(request, pk: int):
    hand = _hand(request, pk)
    form = ReasonForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Say why the hand is void."))
    else:
        with refusal(request) as attempt:
            results.hand_void(hand=hand, by_user=request.user, reason=form.cleaned_data["reason"], via=VIA)
        if attempt.done:
            messages.success(request, _("Hand %(number)s is void.") % {"number": hand.number})
    return redirect(reverse("console:table", args=[hand.session.table_id]) + f"#hand-{hand.pk}")


@login_required
def money_page(request, pk: int):
    event = _event(request, pk)
    document = event_money(event, visibility=_visibility(request))
    ids = set(document["cents"]) | {t[k] for s in document["series"] for t in s["transfers"] for k in ("from", "to")}
    names = _names(request, ids)
    tables = dict(Table.objects.filter(round__event=event).values_list("pk", "number"))
    series = [
        {"round": s["round"], "table": tables.get(s["table"]),
         "transfers": [{"id": t["id"], "payer": names.get(t["from"]), "payee": names.get(t["to"]),
                        "money": money(t["cents"]), "paid": t["paid"]} for t in s["transfers"]]}
        for s in document["series"]
    ]
    balances = sorted(((names.get(p, f"#{p}"), money(c), c) for p, c in document["cents"].items()),
                      key=lambda row: -row[2])
    return render(request, "console/money.html", {"event": event, "series": series, "balances": balances})


@login_required
@require_POST
def transfer_paid(request, pk: int):
    transfer = get_object_or_404(_visibility(request).transfers().select_related("session__table__round"), pk=pk)
    _require(request, "change_transfer", transfer)
    with refusal(request):
        results.transfer_mark_paid(transfer=transfer, by_user=request.user, via=VIA)
    return redirect(reverse("console:money", args=[transfer.session.table.round.event_id]) + f"#transfer-{transfer.pk}")


@login_required
@require_POST
def transfer_unpaid(request, pk: int):
    """Take back a "paid" tick given by mistake (audited, with the reason)."""
    transfer = get_object_or_404(_visibility(request).transfers().select_related("session__table__round"), pk=pk)
    _require(request, "change_transfer", transfer)
    with refusal(request):
        results.transfer_mark_unpaid(transfer=transfer, by_user=request.user, via=VIA,
                                     reason=request.POST.get("reason", "").strip()[:2000])
    return redirect(reverse("console:money", args=[transfer.session.table.round.event_id]) + f"#transfer-{transfer.pk}")
