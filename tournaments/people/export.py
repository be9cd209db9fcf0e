"""The export of a player's own data (GDPR Art. 15 and 20): everything the service keeps about him
and nothing about anyone else, as JSON. ``ratings.people.player_export`` adds his ratings.

About him: his player record and account name, his clubs, his personal code's issue date (never
the code), his phones, his check-ins, every session he sat in (any event, held rounds and
unpublished events too: they are his results) with his seat, his total and place, and of each
hand his own part (his score, whether he dealt, Mü: whether he was Chef, Vize or partner and the
outcome; Maumau: his minus points; Mit List und Tücke: his stacks); his Maumau payments (the
amount and whether he paid or received it: not to whom); his statistics; the audit rows about him
(what was changed, when, how) and the confirmations and disputes he made from his phone. Left
out: other players' names, ids, seats and scores, the hand records (they hold everyone's cards),
who the organisers were.
"""
from __future__ import annotations

from django.db.models import Prefetch, Q
from django.utils import timezone

from .. import policy
from ..audit import plain
from ..models import (
    Attendance,
    AuditEntry,
    Hand,
    Membership,
    Player,
    PlayerCode,
    PlayerDevice,
    Seat,
    Session,
    Transfer,
)
from . import stats

FORMAT = "stich-player-export/1"


def _hand_part(game: str, seat: int, hand: Hand) -> dict:
    part = {"number": hand.number, "dealt": hand.dealer == seat, "counted": not hand.voided and
            hand.result is not None and not hand.unconfirmed, "voided": hand.voided, "version": hand.version,
            "entered_by_me": hand.entered_by_seat == seat, "confirmed_by_me": hand.confirmed_by_seat == seat}
    result = hand.result or {}
    if result:
        part["score"] = result["scores"][seat]
        if game == "mu":
            part.update({"chef": result.get("chef") == seat, "vice": result.get("vice") == seat,
                         "partner": result.get("partner") == seat, "outcome": result.get("outcome")})
        elif game == "maumau":
            part["minus"] = result["minus"][seat]
        elif result.get("stacks"):
            part["stacks"] = result["stacks"][seat]
    return part


def _sessions(player: Player) -> list[dict]:
    sessions = (Session.objects.filter(table__seats__player=player).select_related("table__round__event")
                .prefetch_related(Prefetch("table__seats", queryset=Seat.objects.order_by("position")),
                                  Prefetch("hands", queryset=Hand.objects.order_by("number")))
                .order_by("started_at", "pk"))
    found = []
    for session in sessions:
        players = [seat.player_id for seat in session.table.seats.all()]
        seat = players.index(player.pk)
        event = session.table.round.event
        totals = list(session.totals) or [0] * len(players)
        finished = session.status == Session.Status.FINISHED
        found.append({
            "event": {"id": event.pk, "name": event.name, "game": event.game, "starts_on": plain(event.starts_on)},
            "round": session.table.round.number, "table": session.table.number, "seat": seat + 1,
            "session": session.number, "status": session.status, "started_at": plain(session.started_at),
            "finished_at": plain(session.finished_at), "players": len(players), "total": totals[seat],
            "place": 1 + sum(total > totals[seat] for total in totals) if finished else None,
            "hands": [_hand_part(event.game, seat, hand) for hand in session.hands.all()],
        })
    return found


def _audit(player: Player) -> list[dict]:
    rows = AuditEntry.objects.filter(
        Q(object_type="player", object_id=player.pk) | Q(action__in=["hand_confirmed", "hand_disputed"],
                                                          data__player=player.pk)).order_by("created_at", "id")
    found = []
    for row in rows:
        entry = {"action": row.action, "at": plain(row.created_at), "via": row.via}
        if row.object_type == "player":
            entry.update({"before": row.before, "after": row.after})
        else:  # his confirmation or dispute: the hand, his seat and his reason (not the others' scores)
            hand = Hand.objects.select_related("session__table__round").filter(pk=row.object_id).first()
            entry.update({"event": row.event_id, "seat": (row.data.get("seat") or 0) + 1, "reason": row.reason,
                          "hand": None if hand is None else {
                              "round": hand.session.table.round.number, "table": hand.session.table.number,
                              "session": hand.session.number, "number": hand.number}})
        found.append(entry)
    return found


def player_export(player: Player) -> dict:
    """His data as one JSON document (``FORMAT``); ratings are added by ``ratings.people``."""
    code = PlayerCode.objects.filter(player=player).first()
    transfers = Transfer.objects.filter(Q(payer=player) | Q(payee=player)).select_related("session__table__round")
    return {
        "format": FORMAT,
        "exported_at": plain(timezone.now()),
        "player": {
            "id": player.pk, "name": player.name, "initials_only": player.initials_only,
            "shown_name": player.shown_name, "told_apart_by": player.distinction, "deleted": player.anonymised,
            "created_at": plain(player.created_at), "account": player.user.get_username() if player.user else None,
        },
        "clubs": [{"name": m.club.name, "joined_at": plain(m.joined_at)}
                  for m in Membership.objects.filter(player=player).select_related("club").order_by("joined_at")],
        "personal_code": None if code is None else {"issued_at": plain(code.issued_at)},
        "phones": [{"label": d.label, "bound_at": plain(d.bound_at), "unbound_at": plain(d.revoked_at)}
                   for d in PlayerDevice.objects.filter(player=player).order_by("bound_at", "id")],
        "check_ins": [{"event": a.event.name, "present": a.present, "checked_in_at": plain(a.checked_in_at),
                       "left_at": plain(a.checked_out_at)}
                      for a in Attendance.objects.filter(player=player).select_related("event").order_by("pk")],
        "sessions": _sessions(player),
        "payments": [{"event": t.session.table.round.event_id, "round": t.session.table.round.number,
                      "table": t.session.table.number, "cents": t.cents,
                      "direction": "paid" if t.payer_id == player.pk else "received", "settled": t.paid,
                      "settled_at": plain(t.paid_at)} for t in transfers.order_by("pk")],
        "statistics": stats.game_stats(player, policy.Visibility(player.user) if player.user else policy.public()),
        "audit": _audit(player),
    }
