"""What the room screen shows besides the standings and the round's progress (that one is
``tables.round_progress``, shared with the console's board and the API): the change of every
player's rank since the previous round, and the latest finished sessions with their winners.

Both read the event's session results as the reader sees them (the screen is public): a round
whose results are held back is missing from both standings the change compares and from the
latest results, so the change since the last round never reveals a held round.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..models import Event, Session
from .metrics import SessionLine, StandingRow, standings
from .selectors import SessionResult
from .series import trend


def _standings(event: Event, results: list[SessionResult]) -> list[StandingRow]:
    """The standings over ``results`` (some of an event's rounds), by the event's metrics."""
    lines = [SessionLine(result.players, result.totals, result.session.status == Session.Status.FINISHED)
             for result in results if result.hands]
    return standings(lines, [name for name in event.standings_metrics.split(",") if name])


def standings_moves(event: Event, results: list[SessionResult]) -> tuple[int | None, dict]:
    """The change of each player's rank since the standings after the previous round: places
    gained (+) or lost (−), 0 for the same rank, None for a player who had no rank then.

    ``results``: the event's session results as the reader sees them (``session_results``), so a
    held round counts in neither standings. The latest round is the latest one with a hand in
    them; the standings before it are those of the rounds before it. Ranks are the standings'
    own, shared ranks included (two players tied on 2nd who stay tied have moved 0).
    Returns (the previous round's number, the moves); (None, {}) while no earlier round has
    results to compare with."""
    counted = [result for result in results if result.hands]
    if not counted:
        return None, {}
    latest = max(result.session.table.round.number for result in counted)
    before = [result for result in counted if result.session.table.round.number < latest]
    if not before:
        return None, {}
    previous = max(result.session.table.round.number for result in before)
    return previous, trend(_standings(event, before), _standings(event, counted))


@dataclass
class FinishedSession:
    round_number: int
    table_number: int
    players: list[int]
    totals: list[int]
    winners: list[int]  # the players with the highest total (shared first places included)


def latest_results(results: list[SessionResult], *, limit: int = 3) -> list[FinishedSession]:
    """The ``limit`` sessions finished last, latest first, with their winners."""
    finished = [result for result in results if result.session.status == Session.Status.FINISHED and result.hands]
    finished.sort(key=lambda result: (result.session.finished_at is not None, result.session.finished_at,
                                      result.session.pk), reverse=True)
    shown = []
    for result in finished[:limit]:
        best = max(result.totals)
        shown.append(FinishedSession(
            result.session.table.round.number, result.session.table.number, list(result.players),
            list(result.totals), [p for p, total in zip(result.players, result.totals) if total == best]))
    return shown
