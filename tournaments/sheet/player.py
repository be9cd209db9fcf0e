"""A player's phone: bound by his personal code, then "your table, your seat".

- ``/p/<key>/`` is the link of his printed QR code: the page names him and binds the phone when he
  taps "This is me" (a POST: a link preview binds nothing).
- ``/me/pin/`` takes his typed PIN. Wrong codes are counted and locked out like wrong passwords
  (``tournaments/people/codes.py``): the page answers 429 meanwhile.
- ``/me/`` is his page: his open tables with his seat (the sheet opened at his seat:
  ``/me/tables/<id>/``, entering, confirming and disputing as him), links to his statistics and
  privacy pages (``stich/pages/me.py``), and his phones (``/me/phones/``), any of which he unbinds.

A code never appears in a page (but the slip it is printed on), a log or an export: the forms
post it, the views hash it.
"""
from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.throttling import BaseThrottle

from .. import policy
from ..errors import DomainError
from ..models import PlayerDevice, Table
from ..people import codes
from ..people import services as people
from ..people.identity import (
    device_of,
    forget_on_phone,
    keep_on_phone,
    login_player,
    own,
    phone_label,
    player_of,
)
from ..people.stats import open_tables
from . import views as sheet


def client_address(request) -> str:
    """The client's address as the throttles see it (``NUM_PROXIES``)."""
    return BaseThrottle().get_ident(request)


def _bound_response(request, player, how: str):
    _device, key = people.device_bind(player=player, label=phone_label(request), how=how, by_user=request.user)
    response = redirect("sheet:me")
    keep_on_phone(response, key)
    return response


def _locked(request, template: str, context: dict):
    context = {**context, "locked": True}
    return render(request, template, context, status=429)


@never_cache
@require_http_methods(["GET", "POST"])
def bind_link(request, key: str):
    """His QR code's link: names him and binds this phone on "This is me"."""
    address = client_address(request)
    if codes.locked_out(address, pin=False):
        return _locked(request, "people/bind.html", {})
    player = people.player_by_link(key)
    if player is None:
        codes.failed(address)
        raise Http404(_("This code is not valid any more: ask the organisers for a new one."))
    if request.method == "POST":
        return _bound_response(request, player, "link")
    name = policy.public().names([player])[player.pk]
    return render(request, "people/bind.html", {"name": name})


@never_cache
@sensitive_post_parameters("pin")
@require_http_methods(["GET", "POST"])
def bind_pin(request):
    """Type the PIN from the slip: binds this phone to its player."""
    address = client_address(request)
    error = ""
    if request.method == "POST":
        if codes.locked_out(address):
            return _locked(request, "people/pin.html", {})
        pin = codes.typed_pin(request.POST.get("pin", ""))
        player = people.player_by_pin(pin) if pin else None
        if player is not None:
            return _bound_response(request, player, "pin")
        if pin:  # a guess (8 digits that open nothing); a typo of another length guesses nothing
            codes.failed(address)
            if codes.locked_out(address):
                return _locked(request, "people/pin.html", {})
        error = _("This PIN is not valid. Check the slip, or ask the organisers for a new one.")
    return render(request, "people/pin.html", {"error": error}, status=400 if error else 200)


@never_cache
def home(request):
    """His page: your table, your seat; without a bound phone or a login, the PIN form."""
    player = player_of(request)
    if player is None:
        return render(request, "people/pin.html", {"error": ""})
    visibility = policy.visibility(request.user if request.user.is_authenticated else None)
    tables = []
    for table, seat in open_tables(player):
        names = visibility.names(s.player for s in table.seats.all())
        tables.append({"table": table, "event": table.round.event, "seat": seat + 1,
                       "players": [(s.position + 1, names[s.player_id], s.player_id == player.pk)
                                   for s in table.seats.all()]})
    return render(request, "people/home.html", {
        "player": player, "tables": tables, "device": device_of(request),
        "logged_in_as_him": login_player(request.user) == player,
    })


def _own_table(request, pk: int):
    player = player_of(request)
    if player is None:
        raise Http404
    for table, seat in open_tables(player):
        if table.pk == pk:
            return table, seat
    # A finished table of his: still his sheet to read.
    table = get_object_or_404(Table.objects.select_related("round__event").filter(seats__player=player), pk=pk)
    return table, table.seats.get(player=player).position


@never_cache
def table_sheet(request, pk: int):
    """The sheet opened at his seat: what he enters, confirms or disputes is his."""
    table, seat = _own_table(request, pk)
    return sheet._render_sheet(request, table, token=None, seat=seat,
                               running_url=reverse("sheet:me_table_running", args=[pk]))


@never_cache
def table_running(request, pk: int):
    table, _seat = _own_table(request, pk)
    return render(request, "sheet/_running.html", sheet.running_sheet(table, policy.visibility(request.user)))


def _own(request, permission: str):
    """His player, asked of the policy (404 when none: the pages do not say whose)."""
    player = own(request, permission)
    if player is None:
        raise Http404
    return player, device_of(request)


@never_cache
def phones(request):
    """His bound phones, this one marked; any of them unbound with a tap."""
    player, device = _own(request, "view_own_player")
    return render(request, "people/phones.html", {
        "player": player, "devices": list(player.devices.all()), "this": device.pk if device else None,
    })


@require_POST
def unbind(request, pk: int):
    """Unbind one of his phones (this one too: then it forgets him); those who may change the
    player (his clubs' organisers, staff) may unbind his phones too (the service asks)."""
    player, device = own(request, "change_own_player"), device_of(request)
    target = get_object_or_404(PlayerDevice, pk=pk)
    try:
        people.device_revoke(device=target, player=player, by_user=request.user)
    except DomainError:
        raise Http404 from None  # neither his phone nor a player of the user's clubs: not shown
    if device is not None and device.pk == target.pk:
        response = redirect("sheet:me")
        forget_on_phone(response)
        return response
    return redirect("sheet:me_phones" if player is not None and player.pk == target.player_id else "sheet:me")
