"""The score sheet (by the table's private link or a player's login) and the printed table cards.

What a page shows is read through ``policy``: names as ``Visibility(user).name`` gives them (an
anonymous phone with the table's link sees the names the players agreed to show; the organiser
printing cards sees real names). Hands are only read here; the sheet's script writes through the
results API with the table's token or the player's login.
"""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Prefetch
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from games.rules import mu

from .. import policy
from ..entry import clock
from ..models import Seat, Session, Table
from ..people.identity import device_of
from ..results import services as results
from ..results.book import SessionRules, session_length
from .qr import qr_svg

SERVICE_WORKER = Path(settings.BASE_DIR) / "static" / "stich" / "sheet-sw.js"


def _table_by_token(token: str) -> Table:
    table = policy.scorer_table(token)
    if table is None:
        raise Http404("no table has this link (an organiser may have made a new one)")
    return table


def _seats(table: Table) -> list[Seat]:
    return list(table.seats.select_related("player").order_by("position"))


def money(cents: int) -> str:
    return formats.number_format(Decimal(cents) / 100, decimal_pos=2, use_l10n=True) + "\u00a0€"


def _end_reason(session: Session, rules: SessionRules) -> str:
    if session.status == Session.Status.ABANDONED:
        return _("The session was abandoned.")
    length = session_length(rules)  # how long it runs; only the words differ by game
    if length.target is not None:
        return _("Session over: %(target)s points reached.") % {"target": length.target}
    if rules.game == "mu":
        return _("Session over: %(deals)s deals played.") % {"deals": length.hands}
    if rules.game == "maumau":
        return _("Series over: %(games)s games played.") % {"games": length.hands}
    return _("Game over: every player has dealt.")


def _hand_tags(hand, game: str) -> list[tuple[str, str]]:
    tags = []
    if hand.voided:
        tags.append(("void", _("void")))
    elif hand.version > 1:
        tags.append(("corrected", _("corrected")))
    if hand.disputed:
        tags.append(("disputed", _("disputed")))
    elif hand.unconfirmed:
        tags.append(("unconfirmed", _("unconfirmed")))
    result = hand.result or {}
    if game == "mu" and result.get("outcome") == "eklat":
        tags.append(("eklat", "Eklat"))
    if game == "maumau" and result.get("ended_by_jack"):
        tags.append(("jack", _("ended with a jack")))
    return tags


def short_names(names: list[str]) -> list[str]:
    """First names where they tell the players of a table apart: a phone's columns are narrow."""
    firsts = [name.split()[0] if name.split() else name for name in names]
    return [first if firsts.count(first) == 1 else name for first, name in zip(firsts, names)]


def running_sheet(table: Table, visibility: policy.Visibility) -> dict:
    """Every hand of the table's current session with its scores and running totals, the next
    hand and its dealer, and how the session ended (with the Maumau payments)."""
    event = table.round.event
    seats = _seats(table)
    shown = visibility.names(seat.player for seat in seats)
    names = [shown[seat.player_id] for seat in seats]
    short = short_names(names)
    rules = SessionRules.for_event(event, len(seats))
    session = results.current_session(table)
    hands = list(session.hands.order_by("number")) if session else []
    totals, rows = [0] * len(seats), []
    for hand in hands:
        counted = results.counts(hand)
        scores = None if hand.voided or not hand.result else hand.result["scores"]
        if counted:
            totals = [total + score for total, score in zip(totals, scores)]
        rows.append({
            "hand": hand, "dealer": short[hand.dealer] if hand.dealer < len(names) else "?", "counted": counted,
            "cells": [(None if scores is None else scores[seat], totals[seat]) for seat in range(len(seats))],
            "tags": _hand_tags(hand, event.game),
            "entered_by": None if hand.entered_by_seat is None else names[hand.entered_by_seat],
        })
    summary = results.session_summary(session) if session else None
    if summary is None:
        upcoming = {"hand": 1, "dealer": table.first_dealer}
    else:
        upcoming = summary["next"]
    transfers = []
    if session is not None and event.game == "maumau":
        by_player = {seat.player_id: name for seat, name in zip(seats, names)}
        transfers = [
            {"payer": by_player.get(t.payer_id, "?"), "payee": by_player.get(t.payee_id, "?"), "money": money(t.cents),
             "cents": t.cents, "paid": t.paid}
            for t in session.transfers.order_by("-cents", "id")
        ]
    words = game_words(event.game)
    return {
        "event": event, "table": table, "names": names, "short_names": short, "rows": rows, "totals": totals, "session": session,
        "summary": summary, "next": upcoming,
        "next_dealer": None if not upcoming or upcoming["dealer"] is None else names[upcoming["dealer"]],
        "ended": _end_reason(session, rules) if session and session.status != Session.Status.OPEN else "",
        "transfers": transfers, "words": words,
        "next_text": words["next"] % {"number": upcoming["hand"], "name": names[upcoming["dealer"]]}
        if upcoming and upcoming["dealer"] is not None else "",
    }


def game_words(game: str) -> dict:
    """The sheet's words for one hand in the game's own terms: Maumau plays games, Mit List und
    Tücke rounds (rules/list-und-tuecke.md), Mü hands (deals)."""
    if game == "maumau":
        return {"hand": _("Game"), "enter": _("Enter game"), "who_enters": _("Who enters this game?"),
                "none": _("No game yet."), "next": _("Next: game %(number)s, dealt by %(name)s.")}
    if game == "lut":
        return {"hand": _("Round"), "enter": _("Enter round"), "who_enters": _("Who enters this round?"),
                "none": _("No round yet."), "next": _("Next: round %(number)s, dealt by %(name)s.")}
    return {"hand": _("Hand"), "enter": _("Enter hand"), "who_enters": _("Who enters this hand?"),
            "none": _("No hand yet."), "next": _("Next: hand %(number)s, dealt by %(name)s.")}


def _config(table: Table, names: list[str], *, token: str | None, running_url: str, seat: int | None) -> dict:
    """What the sheet's script needs: the game, the players, where to send, how to store."""
    event = table.round.event
    players = len(names)
    return {
        "game": event.game, "players": players, "names": names, "table": table.pk,
        "submit": reverse("table-hands", args=[table.pk]), "validate": reverse("records-validate"),
        "running": running_url, "confirm": reverse("hand-confirm", args=[0]), "dispute": reverse("hand-dispute", args=[0]),
        "token": token, "seat": seat, "confirm_hands": event.confirm_hands,
        "hand_size": mu.HAND_SIZE.get(players), "points": (mu.VARIANTS[players].points_in_play if players in mu.VARIANTS else None),
        "storage": f"stich-sheet-{table.pk}",
    }


def _texts(game: str) -> dict:
    """The sheet script's sentences, in the request's language (``%(name)s`` filled in there)."""
    hand_label = {"mu": _("Deal %(number)s"), "maumau": _("Game %(number)s"),
                  "lut": _("Round %(number)s")}.get(game, _("Hand %(number)s"))
    return {
        "hand": hand_label, "fixing": _("Fix hand %(number)s"), "deals": _("%(name)s deals"),
        "next": game_words(game)["next"],
        "waiting": _("waiting"), "sending": _("sending…"), "sent": _("sent"), "rejected": _("rejected"),
        "retrying": _("trying again"),
        "serverError": _("The server could not take the hand now (error %(status)s)."),
        "retryIn": _("Next try in %(seconds)s s (attempt %(attempt)s)."),
        "waitsFor": _("Waits until %(hand)s is through."),
        "fix": _("Fix"), "discard": _("Discard"), "offline": _("Offline: the hands stay on this phone."),
        "scores": _("Scores"), "checking": _("Checking…"),
        "checkOffline": _("Offline: the hand is checked when it is sent."),
        "paused": _("Checking paused for a moment; the hand is checked when it is sent."),
        "missing": _("Still to fill in: %(what)s"), "voidDeal": _("void deal"), "none": _("none"),
        "rest": _("rest: %(points)s"), "viceDerived": _("the only second bidder"),
        "viceTied": _("several second bidders: tap the Vize if the table knows him"),
        "missingBids": _("every bid"), "missingProvocateur": _("the provocateur"),
        "missingViceTrump": _("the Vize's trump"), "missingChefTrump": _("the Chef's trump"),
        "missingPartner": _("the partner"), "missingPoints": _("the card points"),
        "missingMinus": _("the minus points"), "notJson": _("This is not a JSON record."),
        "whoEnters": _("Tap the name of the player who enters this hand."),
        "confirmWho": _("Who confirms? Hand the phone to another player, who taps his name."),
        "disputeWho": _("Who disputes it? Say what is wrong, then tap your name."),
    }


def _mu_colours():
    """Mü's colours by code: (short label for the button, full name), in the reader's language."""
    return {
        "R": (pgettext("colour initial", "R"), _("red")),
        "Y": (pgettext("colour initial", "Y"), _("yellow")),
        "G": (pgettext("colour initial", "G"), _("green")),
        "B": (pgettext("colour initial", "B"), _("blue")),
        "K": (pgettext("colour initial", "K"), _("black")),
    }


def game_form_context(game: str, names: list[str]) -> dict:
    """What the per-game fields of a hand need (templates/sheet/_game_fields.html, read and filled
    by static/stich/sheet-forms.js): the sheet's form and the console's correction of a hand."""
    players = len(names)
    return {
        "i18n": _texts(game),
        "seats": list(enumerate(names)),
        "game": game,
        # Every bid the engine takes with this many players (games.rules.mu.max_bid).
        "bids": range(mu.max_bid(players) + 1) if game == "mu" and players in mu.VARIANTS else (),
        "mu_colours": [(c, *_mu_colours()[c]) for c in mu.COLOURS],
        "digits": list(mu.DIGITS),
        "lut_colours": [("B", _("blue")), ("G", _("green")), ("R", _("red")), ("Y", _("yellow"))],
        "suits": [("C", "♣", pgettext("card suit", "clubs")), ("S", "♠", _("spades")), ("H", "♥", _("hearts")), ("D", "♦", _("diamonds"))],
        "ranks": list("789TJQKA"),
        "points": mu.VARIANTS[players].points_in_play if players in mu.VARIANTS else None,
    }


def _render_sheet(request, table: Table, *, token: str | None, running_url: str, seat: int | None):
    visibility = policy.visibility(request.user)
    context = running_sheet(table, visibility)
    names = context["names"]
    context.update(game_form_context(table.round.event.game, names))
    context.update({
        "config": _config(table, names, token=token, running_url=running_url, seat=seat),
        "my_seat": seat,
        "clock_url": reverse("sheet:table_clock", args=[token]) if token else "",
    })
    return render(request, "sheet/sheet.html", context)


@never_cache
@require_GET
def table_sheet(request, token: str):
    """The table's score sheet by its private link: no account needed."""
    table = _table_by_token(token)
    return _render_sheet(request, table, token=token, seat=None,
                         running_url=reverse("sheet:table_running", args=[token]))


@never_cache
@require_GET
def table_clock(request, token: str):
    """The table's round clock as JSON (``clock.Reading`` with the server's now): the sheet's clock
    asks it again now and then, so a pause or an extension reaches the table."""
    table = _table_by_token(token)
    reading = clock.reading(table.round)
    return JsonResponse({**reading.as_dict(), "rule": table.round.event.clock_rule})


@never_cache
@require_GET
def table_running(request, token: str):
    """The running sheet alone: the page reloads it after every hand it sends."""
    table = _table_by_token(token)
    return render(request, "sheet/_running.html", running_sheet(table, policy.visibility(request.user)))


def _my_table(request, pk: int) -> tuple[Table, int]:
    if not request.user.is_authenticated:
        raise PermissionDenied
    table = get_object_or_404(policy.visibility(request.user).seated_tables().select_related("round__event"), pk=pk)
    return table, policy.seat_of(request.user, table)


def _login(request):
    # The site's own login page (in the reader's language), not the browsable API's.
    return redirect_to_login(request.get_full_path(), reverse("login"))


@never_cache
@require_GET
def my_table(request):
    """A logged-in player's tables whose session is still open (or not begun): straight to the
    sheet when there is one, else a list to choose from. A phone bound to a player by his personal
    code goes to his page (``/me/``)."""
    if not request.user.is_authenticated:
        if device_of(request) is not None:
            return redirect("sheet:me")
        return _login(request)
    closed = Session.objects.filter(table=OuterRef("pk"), status__in=[Session.Status.FINISHED, Session.Status.ABANDONED])
    tables = list(
        policy.visibility(request.user).seated_tables().exclude(Exists(closed))
        .select_related("round__event").order_by("-round__event__starts_on", "-round__number", "number")
    )
    if len(tables) == 1:
        return redirect("sheet:my_table_sheet", pk=tables[0].pk)
    return render(request, "sheet/my_tables.html", {"tables": tables})


@never_cache
@require_GET
def my_table_sheet(request, pk: int):
    if not request.user.is_authenticated:
        return _login(request)
    table, seat = _my_table(request, pk)
    return _render_sheet(request, table, token=None, seat=seat,
                         running_url=reverse("sheet:my_table_running", args=[pk]))


@never_cache
@require_GET
def my_table_running(request, pk: int):
    table, _seat = _my_table(request, pk)
    return render(request, "sheet/_running.html", running_sheet(table, policy.visibility(request.user)))


@require_GET
def table_cards(request, pk: int):
    """The round's table cards to print (organisers): event, round, table, the seats in order,
    who deals first and the QR code of the table's private link."""
    if not request.user.is_authenticated:
        return _login(request)
    visibility = policy.visibility(request.user)
    round_ = get_object_or_404(visibility.rounds().select_related("event"), pk=pk)
    if not policy.may(request.user, "change_round", round_):
        raise PermissionDenied
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
    cards = []
    for table in round_.tables.prefetch_related(seats).order_by("number"):
        url = request.build_absolute_uri(reverse("sheet:table", args=[table.scorer_token]))
        shown = visibility.names(seat.player for seat in table.seats.all())
        players = [shown[seat.player_id] for seat in table.seats.all()]
        cards.append({
            "table": table, "players": players, "url": url, "qr": qr_svg(url),
            "first_dealer": None if table.first_dealer is None or table.first_dealer >= len(players)
            else players[table.first_dealer],
        })
    return render(request, "sheet/cards.html", {"round": round_, "event": round_.event, "cards": cards})


@require_GET
def service_worker(request):
    """The sheet's service worker, served at the root so that its scope covers the sheet's pages:
    a reload without a connection still opens the sheet and its queued hands."""
    response = HttpResponse(SERVICE_WORKER.read_text(encoding="utf-8"), content_type="text/javascript")
    response["Cache-Control"] = "no-cache"
    return response
