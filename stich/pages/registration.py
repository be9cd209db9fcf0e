"""The public registration page of an event, and the private withdrawal page
(``tournaments/entry/registration.py``).

Anyone registers, without an account, while the event takes registrations; the page shows the
event's date, place, game, format and places, and the names of the confirmed who agreed to be
listed — nothing else of anyone. Registering and withdrawing are throttled per client address, by
the API's throttle (scope ``registration``, ``REGISTRATION_THROTTLE``). The answer to a
registration shows the private withdrawal link once; it is in no other page.
"""
from __future__ import annotations

from django import forms
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache

from games.catalog import GAMES
from games.throttling import SlidingRateThrottle
from tournaments import policy
from tournaments.entry import registration as registrations
from tournaments.errors import DomainError, NotFound
from tournaments.models import Event
from tournaments.standings.display import final_rule


class RegisterForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=registrations.NAME_MAX)
    contact = forms.CharField(label=_("Contact (optional)"), max_length=registrations.CONTACT_MAX, required=False,
                              help_text=_("An e-mail address or a phone number: seen by the organisers only."))
    show_name = forms.BooleanField(label=_("Show my name on the public list"), required=False,
                                   help_text=_("Unticked, the public page counts you without your name."))


class _Scope:
    """What the throttle reads of a view: its scope."""

    throttle_scope = "registration"


def throttled(request) -> int | None:
    """Seconds to wait when this client registered or withdrew too often (None: go ahead)."""
    throttle = SlidingRateThrottle()
    if throttle.allow_request(request, _Scope()):
        return None
    return int(throttle.wait() or 1)


def _event(request, pk: int) -> Event:
    return get_object_or_404(policy.Visibility(request.user).events().select_related("club"), pk=pk)


def _context(event: Event, form) -> dict:
    return {"event": event, "form": form, "game_name": GAMES[event.game].name,
            "format_name": Event.Format(event.format).label, "final_rule": final_rule(event), "listed": registrations.public_list(event)}


@never_cache
def register(request, pk: int):
    event = _event(request, pk)
    form = RegisterForm(request.POST or None)
    status = 200
    if request.method == "POST":
        wait = throttled(request)
        if wait is not None:
            form.add_error(None, _("Too many registrations from here: try again in %(seconds)s seconds.")
                           % {"seconds": wait})
            return render(request, "pages/register.html", _context(event, form), status=429)
        if form.is_valid():
            try:
                registration = registrations.register(event=event, by_user=request.user, via="page",
                                                      **form.cleaned_data)
            except DomainError as error:
                form.add_error(None, _("Registration is closed.") if error.code == "registration_closed" else error.message)
            else:
                link = request.build_absolute_uri(reverse("pages:withdraw", args=[registration.token]))
                return render(request, "pages/registered.html", {
                    "event": event, "registration": registration, "withdraw_link": link,
                    "waiting": registrations.waiting_position(registration)}, status=201)
        status = 400
    return render(request, "pages/register.html", _context(event, form), status=status)


@never_cache
def withdraw(request, token: str):
    try:
        registration = registrations.by_token(token)
    except NotFound:
        return render(request, "pages/withdraw.html", {"registration": None}, status=404)
    done = False
    if request.method == "POST":
        wait = throttled(request)
        if wait is not None:
            return render(request, "pages/withdraw.html", {"registration": registration, "wait": wait}, status=429)
        registration = registrations.withdraw(registration=registration, by_user=request.user, via="page")
        done = True
    return render(request, "pages/withdraw.html", {"registration": registration, "event": registration.event,
                                                   "done": done})
