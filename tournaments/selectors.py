"""Reads of results: session totals, event standings and Maumau money.

``public=True`` leaves out what the public may not see yet: rounds whose results an organiser holds
back. Abandoned sessions never count.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Prefetch

from .models import Event, Seat, Session, Transfer
from .progress import SessionRules, totals
from .standings import SessionLine, StandingRow, standings


@dataclass
class SessionResult:
    session: Session
    players: list[int]  # player ids in seat order
    totals: list[int]
    hands: int


def _sessions(event: Event, *, public: bool):
    sessions = Session.objects.filter(table__round__event=event).exclude(status=Session.Status.ABANDONED)
    if public:
        sessions = sessions.filter(table__round__results_held=False)
    return sessions.select_related("table__round").prefetch_related(
        Prefetch("table__seats", queryset=Seat.objects.order_by("position")), "hands"
    ).order_by("table__round__number", "table__number", "number")


def session_results(event: Event, *, public: bool = True) -> list[SessionResult]:
    from games.services import played

    results = []
    for session in _sessions(event, public=public):
        seats = [seat.player_id for seat in session.table.seats.all()]
        hands = sorted(session.hands.all(), key=lambda hand: hand.number)
        rules = SessionRules.for_event(event, len(seats))
        results.append(SessionResult(session, seats, totals(rules, [played(hand) for hand in hands]), len(hands)))
    return results


def event_standings(event: Event, *, public: bool = True) -> list[StandingRow]:
    lines = [SessionLine(result.players, result.totals) for result in session_results(event, public=public) if result.hands]
    metrics = [name for name in event.standings_metrics.split(",") if name]
    return standings(lines, metrics)


def event_money(event: Event, *, public: bool = True) -> dict:
    """Maumau: cents per player (the sum of the settled series) and the transfers per series."""
    from games.services import maumau_settlement, session_rules

    cents: dict[int, int] = defaultdict(int)
    series = []
    for result in session_results(event, public=public):
        session = result.session
        if session.status != Session.Status.FINISHED:
            continue
        settlement = maumau_settlement(session_rules(session), sorted(session.hands.all(), key=lambda h: h.number))
        for seat, net in enumerate(settlement["nets"]):
            cents[result.players[seat]] += net
        transfers = Transfer.objects.filter(session=session).order_by("-cents", "id")
        series.append({
            "session": session.pk, "table": session.table_id, "round": session.table.round.number,
            "nets": dict(zip(result.players, settlement["nets"])),
            "transfers": [
                {"id": t.pk, "from": t.payer_id, "to": t.payee_id, "cents": t.cents, "paid": t.paid}
                for t in transfers
            ],
        })
    return {"cents": dict(cents), "series": series}
