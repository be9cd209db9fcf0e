"""The organisers' side of the players' personal codes: issue them (again) and print the slips,
for a round's seated players (beside the table cards) or for one player.

Issuing is a POST and its answer is the page to print: the only page a code ever appears on
(``Cache-Control: no-store``); the service keeps their hashes only, so printing again means
issuing again, which makes the earlier slips dead (``tournaments/people/services.py``).
"""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from .. import policy
from ..models import Player, Seat
from ..people import services as people
from ..sheet.qr import qr_svg
from .views import refusal


def _slip(request, code: people.IssuedCode, name: str, place: dict | None = None) -> dict:
    url = request.build_absolute_uri(reverse("sheet:bind_link", args=[code.link_key]))
    return {"name": name, "pin": f"{code.pin[:4]} {code.pin[4:]}", "qr": qr_svg(url), "place": place,
            "pin_url": request.build_absolute_uri(reverse("sheet:bind_pin"))}


def _print(request, context: dict):
    response = render(request, "people/slips.html", context)
    response["Cache-Control"] = "no-store"
    return response


@never_cache
@login_required
@require_POST
def round_codes(request, pk: int):
    """New personal codes for every player seated in the round, one slip each with his table and
    seat, to print with the table cards."""
    visibility = policy.visibility(request.user)
    round_ = get_object_or_404(visibility.rounds().select_related("event"), pk=pk)
    if not policy.may(request.user, "change_round", round_):
        raise PermissionDenied
    seats = list(Seat.objects.filter(table__round=round_).select_related("player", "table")
                 .order_by("table__number", "position"))
    names = visibility.names(seat.player for seat in seats)
    slips = []
    for seat in seats:
        with refusal(request) as attempt:
            code = people.code_issue(player=seat.player, by_user=request.user)
        if attempt.done:
            slips.append(_slip(request, code, names[seat.player_id],
                               {"table": seat.table.number, "seat": seat.position + 1}))
    return _print(request, {"event": round_.event, "round": round_, "slips": slips})


@never_cache
@login_required
@require_POST
def player_code(request, pk: int):
    """A new personal code for one player (a lost slip: the old one is dead from now on)."""
    visibility = policy.visibility(request.user)
    player = get_object_or_404(Player.objects.prefetch_related(Prefetch("clubs")), pk=pk)
    slips = []
    with refusal(request) as attempt:
        code = people.code_issue(player=player, by_user=request.user)
    if attempt.done:
        slips.append(_slip(request, code, visibility.names([player])[player.pk]))
    else:
        raise PermissionDenied
    return _print(request, {"slips": slips})
