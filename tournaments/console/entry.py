"""The console's pages of registrations, the players' CSV import and the round's clock
(``tournaments/entry``), with the same access rules as the other console pages (``views``)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import policy
from ..entry import clock, players_csv
from ..entry import registration as registrations
from ..errors import Error
from ..models import Registration
from .forms import ClockForm, ImportForm, MatchForm
from .views import VIA, _event, _require, _round, _visibility, refusal

# --- the round's clock --------------------------------------------------------------------------


@login_required
@require_POST
def round_clock(request, pk: int):
    round_ = _round(request, pk)
    form = ClockForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Not done: give the minutes as a whole number from 1 to 1440."))
        return redirect("console:round", round_.pk)
    with refusal(request) as attempt:
        reading = clock.change(round_=round_, action=form.cleaned_data["action"], by_user=request.user,
                               minutes=form.cleaned_data["minutes"], via=VIA)
    if attempt.done:
        messages.success(request, _("The clock: %(left)s left.") % {"left": clock.minutes_seconds(reading.left)}
                         if reading.state != clock.State.OVER else _("The round's time is up."))
    return redirect("console:round", round_.pk)


# --- registrations ------------------------------------------------------------------------------

STATUS_LABELS = dict(Registration.Status.choices)


@login_required
def registrations_page(request, pk: int):
    event = _event(request, pk, "change_registration")
    visibility = _visibility(request)
    rows = list(visibility.registrations().filter(event=event).select_related("player").order_by("created_at", "pk"))
    members = visibility.players().filter(clubs=event.club, anonymised=False).order_by("name", "id")
    names = visibility.names(list(members) + [r.player for r in rows if r.player])
    listed = registrations.public_list(event)
    namesake = request.session.pop(f"registration-namesake-{event.pk}", None)
    return render(request, "console/registrations.html", {
        "event": event, "listed": listed,
        "rows": [{"registration": r, "status": STATUS_LABELS[r.status],
                  "waiting": registrations.waiting_position(r),
                  "player_name": names.get(r.player_id) if r.player_id else None,
                  "form": MatchForm(players=members, names=names, prefix=f"r{r.pk}", initial={
                      "player": r.player_id, "confirm_duplicate": namesake == r.pk}),
                  "namesake": namesake == r.pk} for r in rows],
        "member_names": names,
    })


def _registration(request, pk: int) -> Registration:
    registration = get_object_or_404(_visibility(request).registrations().select_related("event__club"), pk=pk)
    _require(request, "change_registration", registration)
    return registration


def _back(registration: Registration):
    return redirect(reverse("console:registrations", args=[registration.event_id]) + f"#registration-{registration.pk}")


@login_required
@require_POST
def registration_confirm(request, pk: int):
    registration = _registration(request, pk)
    with refusal(request) as attempt:
        registrations.confirm(registration=registration, by_user=request.user, via=VIA)
    if attempt.done:
        messages.success(request, _("%(name)s is confirmed.") % {"name": registration.name})
    return _back(registration)


@login_required
@require_POST
def registration_withdraw(request, pk: int):
    registration = _registration(request, pk)
    with refusal(request) as attempt:
        registrations.withdraw(registration=registration, by_user=request.user, via=VIA)
    if attempt.done:
        messages.success(request, _("%(name)s is withdrawn; the first on the waiting list moves up.")
                         % {"name": registration.name})
    return _back(registration)


@login_required
@require_POST
def registration_check_in(request, pk: int):
    registration = _registration(request, pk)
    _require(request, "check_in_at_event", registration.event)
    with refusal(request) as attempt:
        registrations.check_in(registration=registration, by_user=request.user, via=VIA)
    if attempt.done:
        messages.success(request, _("%(name)s is checked in.") % {"name": registration.name})
    return _back(registration)


@login_required
@require_POST
def registration_match(request, pk: int):
    registration = _registration(request, pk)
    event = registration.event
    members = _visibility(request).players().filter(clubs=event.club, anonymised=False)
    form = MatchForm(request.POST, players=members, prefix=f"r{registration.pk}")
    if not form.is_valid():
        messages.error(request, _("Not done: choose a player of the club, or a new player."))
        return _back(registration)
    player = form.cleaned_data["player"]
    if player is None:
        _require(request, "add_player", policy.Change(None, {"clubs": [event.club], "name": registration.name}))
    with refusal(request, answered_here=lambda error: error.code is Error.SAME_NAME) as attempt:
        registrations.match(registration=registration, by_user=request.user, player=player, create=player is None,
                            same_name_ok=form.cleaned_data["confirm_duplicate"], via=VIA)
    if attempt.error is not None and attempt.error.code is Error.SAME_NAME:
        # Ask first, as when a player is added by hand: the same person, or another of that name?
        request.session[f"registration-namesake-{event.pk}"] = registration.pk
        messages.warning(request, _("There is already a player named %(name)s in %(club)s. Choose him in the list, "
                                    "or create a new player anyway if this is another person.")
                         % {"name": registration.name, "club": event.club.name})
    elif attempt.done:
        messages.success(request, _("%(name)s is matched to a player.") % {"name": registration.name})
    return _back(registration)


# --- players from a CSV file --------------------------------------------------------------------


def _resolutions(request, result: players_csv.Preview) -> tuple[dict, list[int]]:
    """The namesake rows' answers in the confirm form (``line-N``: a player's id or ``new``)."""
    chosen, missing = {}, []
    for row in result.namesakes:
        value = request.POST.get(f"line-{row.number}", "")
        if value == "new":
            chosen[row.number] = players_csv.NEW_PLAYER
        elif value.isdigit() and int(value) in {p.pk for p in row.candidates}:
            chosen[row.number] = int(value)
        else:
            missing.append(row.number)
    return chosen, missing


@login_required
def players_import(request, pk: int):
    event = _event(request, pk)
    club = event.club
    _require(request, "import_players", club)
    visibility = _visibility(request)
    clubs = list(visibility.organised_clubs())
    form = ImportForm()
    context = {"event": event, "club": club, "form": form}
    text = None
    if request.method == "POST" and "file" in request.FILES:
        form = ImportForm(request.POST, request.FILES)
        context["form"] = form
        if form.is_valid():
            data = form.cleaned_data["file"].read(players_csv.MAX_BYTES + 1)
            with refusal(request) as attempt:
                text, encoding = players_csv.decode(data)
            if attempt.done:
                context["encoding"] = encoding
    elif request.method == "POST":
        text = request.POST.get("text", "")
    if text is not None:
        with refusal(request) as attempt:
            result = players_csv.preview(data=text, club=club, clubs=clubs)
        if not attempt.done:
            return render(request, "console/players_import.html", context, status=400)
        if request.POST.get("confirm") == "1":
            chosen, missing = _resolutions(request, result)
            if not missing:
                with refusal(request) as attempt:
                    outcome = players_csv.apply(data=text, club=club, clubs=clubs, by_user=request.user,
                                                resolutions=chosen, via=VIA)
                if attempt.done:
                    messages.success(request, _("Imported: %(created)s new players, %(matched)s existing ones; "
                                                "%(skipped)s rows left out.")
                                     % {"created": len(outcome.created), "matched": len(outcome.matched),
                                        "skipped": outcome.skipped})
                    return redirect("console:players", event.pk)
            else:
                messages.error(request, _("Not done: say for every namesake whether it is a new player or which one."))
        names = visibility.names({p.pk for row in result.rows for p in row.candidates}
                                 | {row.player.pk for row in result.rows if row.player})
        context.update({"preview": result, "text": text, "names": names, "rows": [
            {"row": row, "player_name": names.get(row.player.pk) if row.player else "",
             "candidates": [(p.pk, names.get(p.pk, "")) for p in row.candidates],
             "club_name": row.club.name if row.club else row.club_text} for row in result.rows],
            "counts": {fate: result.count(fate) for fate in ("new", "existing", "namesake", "error")}})
    return render(request, "console/players_import.html", context,
                  status=400 if request.method == "POST" and "preview" not in context else 200)

