"""Reads of results: session totals, event standings and Maumau money.

Each read takes the reader's ``policy.Visibility``: what he may not see (rounds whose results an
organiser holds back) is left out there, not here. Abandoned sessions never count.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Prefetch

from . import policy
from .models import Attendance, Event, Player, Seat, Session, Transfer
from .progress import SessionRules, totals
from .standings import SessionLine, StandingRow, standings


@dataclass
class SessionResult:
    session: Session
    players: list[int]  # player ids in seat order
    totals: list[int]
    hands: int


def _sessions(event: Event, visibility: policy.Visibility):
    sessions = visibility.sessions().filter(table__round__event=event).exclude(status=Session.Status.ABANDONED)
    return sessions.select_related("table__round").prefetch_related(
        Prefetch("table__seats", queryset=Seat.objects.order_by("position")), "hands"
    ).order_by("table__round__number", "table__number", "number")


def session_results(event: Event, *, visibility: policy.Visibility) -> list[SessionResult]:
    from .results import played

    results = []
    for session in _sessions(event, visibility):
        seats = [seat.player_id for seat in session.table.seats.all()]
        hands = sorted(session.hands.all(), key=lambda hand: hand.number)
        rules = SessionRules.for_event(event, len(seats))
        results.append(SessionResult(session, seats, totals(rules, [played(hand) for hand in hands]), len(hands)))
    return results


def event_standings(event: Event, *, visibility: policy.Visibility) -> list[StandingRow]:
    lines = [SessionLine(result.players, result.totals) for result in session_results(event, visibility=visibility) if result.hands]
    metrics = [name for name in event.standings_metrics.split(",") if name]
    return standings(lines, metrics)


def event_money(event: Event, *, visibility: policy.Visibility) -> dict:
    """Maumau: cents per player (the sum of the settled series) and the transfers per series."""
    from .results import maumau_settlement, session_rules

    cents: dict[int, int] = defaultdict(int)
    series = []
    for result in session_results(event, visibility=visibility):
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


def standings_document(event: Event, *, visibility: policy.Visibility) -> dict:
    """The event's standings as JSON: metrics as numbers (placement points rounded to 4 places)."""
    rows = event_standings(event, visibility=visibility)
    names = {p.pk: visibility.name(p) for p in Player.objects.filter(pk__in=[row.player for row in rows])}
    cents = event_money(event, visibility=visibility)["cents"] if event.game == "maumau" else {}
    metrics = [name for name in event.standings_metrics.split(",") if name]
    return {
        "event": event.pk,
        "metrics": metrics,
        "standings": [
            {
                "rank": row.rank, "player": row.player, "name": names.get(row.player, ""), "played": row.played,
                **{name: _number(value) for name, value in row.metrics.items()},
                **({"cents": cents.get(row.player, 0)} if event.game == "maumau" else {}),
            }
            for row in rows
        ],
    }


def _number(value):
    return value if isinstance(value, int) else round(float(value), 4)


def present_players(event: Event) -> list[int]:
    """The ids of the players present at ``event`` (organisers' data), in the order they checked
    in: the players the next draw seats."""
    return list(
        Attendance.objects.filter(event=event, present=True).order_by("checked_in_at", "player_id")
        .values_list("player_id", flat=True)
    )
