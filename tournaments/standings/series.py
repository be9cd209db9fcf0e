"""A series' standings: a club's season ranked over its events, computed from each event's own
standings (``tournaments/standings/metrics.py``). Plain Python over plain values, as the event standings
are; ``selectors.series_document`` reads the events through the reader's visibility.

Series points per event (``Series.scoring``):

- ``placement``: an event with ``n`` ranked players gives rank ``r`` ``n − r + 1`` points; a shared
  rank is the better rank for each of its players (the event standings number them so already);
- ``table``: ``points_table[r − 1]``, 0 past its end;
- ``total``: the player's game total in the event (Mü and LuT points; Maumau minus points count
  negative, as the stored totals already do).

In a mixed series (events of several games) only ``placement`` and ``table`` score: a game's own
totals are not comparable across games. ``per_game`` adds up a player's counted points per game.

Which results count: only a player's best ``best_of`` results (all when it is None), or all but
his ``drop_worst`` worst ones (he keeps at least one); among equal results the earlier event
counts. His score: the sum of his counted points (``aggregate`` ``sum``) or their mean over his
counted events (``average``, an exact fraction), less ``absence_deduction`` per event held that
he missed (events held: those with a ranked player). The ranking: score, then event wins (rank
1), then events played; equal on all three shares the rank. A player qualifies with at least
``min_events`` events and at least ``qualify_percent`` % of the events held (rounded up: 50 % of
7 events is 4); the others follow the ranked ones without a rank (``qualified`` False).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Hashable, Sequence


@dataclass(frozen=True)
class EventResult:
    """One event of the series as its own standings rank it: ``ranks`` player → event rank,
    ``totals`` player → game total in the event."""

    event: Hashable
    ranks: dict
    totals: dict
    game: str = ""


@dataclass
class SeriesRow:
    player: Hashable
    rank: int | None
    points: int
    played: int
    wins: int
    per_event: dict = field(default_factory=dict)  # event -> {"points": int, "counted": bool}
    score: int | Fraction = 0  # what ranks: points (or their mean) less the absences' deduction
    counted: int = 0  # events counted
    absences: int = 0  # events held that he missed
    qualified: bool = True
    per_game: dict = field(default_factory=dict)  # game -> {"points": counted points, "events": played, "counted"}


def required_events(held: int, *, min_events: int = 0, qualify_percent: int = 0) -> int:
    """The events a player needs to be ranked when ``held`` events were held."""
    return max(min_events, -(-held * qualify_percent // 100))


def shown_score(score) -> int | float:
    """A score as it is shown and sent: whole for sums, a mean to two decimals (half up)."""
    if isinstance(score, Fraction) and score.denominator != 1:
        exact = Decimal(score.numerator) / Decimal(score.denominator)
        return float(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    return int(score)


def event_points(result: EventResult, *, scoring: str, points_table: Sequence[int] = ()) -> dict:
    """Series points of each player of one event."""
    if scoring == "total":
        return {player: result.totals.get(player, 0) for player in result.ranks}
    if scoring == "table":
        return {player: (points_table[rank - 1] if rank <= len(points_table) else 0)
                for player, rank in result.ranks.items()}
    if scoring == "placement":
        n = len(result.ranks)
        return {player: n - rank + 1 for player, rank in result.ranks.items()}
    raise ValueError(f"unknown scoring {scoring!r}")


def series_standings(
    results: Sequence[EventResult], *, scoring: str, points_table: Sequence[int] = (),
    best_of: int | None = None, min_events: int = 0, drop_worst: int = 0, aggregate: str = "sum",
    qualify_percent: int = 0, absence_deduction: int = 0,
) -> list[SeriesRow]:
    """Rows in ranking order: the ranked players, then those who do not qualify (rank None).
    ``results`` in the series' event order (the order that decides among equal results)."""
    rows: dict = {}
    held = 0
    for result in results:
        held += bool(result.ranks)
        points = event_points(result, scoring=scoring, points_table=points_table)
        for player, value in points.items():
            row = rows.setdefault(player, SeriesRow(player, None, 0, 0, 0))
            row.per_event[result.event] = {"points": value, "counted": False}
            row.played += 1
            row.wins += result.ranks[player] == 1
            game = row.per_game.setdefault(result.game, {"points": 0, "events": 0, "counted": 0})
            game["events"] += 1
    games = {result.event: result.game for result in results}
    needed = required_events(held, min_events=min_events, qualify_percent=qualify_percent)
    for row in rows.values():
        order = sorted(enumerate(row.per_event.items()), key=lambda item: (-item[1][1]["points"], item[0]))
        if best_of is not None:
            order = order[:best_of]
        elif drop_worst:
            order = order[:max(1, len(order) - drop_worst)]
        for _, (event, entry) in order:
            entry["counted"] = True
            row.points += entry["points"]
            row.counted += 1
            row.per_game[games[event]]["points"] += entry["points"]
            row.per_game[games[event]]["counted"] += 1
        value = Fraction(row.points, row.counted) if aggregate == "average" and row.counted else row.points
        row.absences = held - row.played
        row.score = value - absence_deduction * row.absences
        row.qualified = row.played >= needed

    def key(row: SeriesRow):
        return (-row.score, -row.wins, -row.played)

    ranked = sorted((row for row in rows.values() if row.qualified), key=lambda r: (key(r), str(r.player)))
    unranked = sorted((row for row in rows.values() if not row.qualified), key=lambda r: (key(r), str(r.player)))
    for index, row in enumerate(ranked):
        row.rank = ranked[index - 1].rank if index and key(ranked[index - 1]) == key(row) else index + 1
    return ranked + unranked


def trend(before: Sequence[SeriesRow], now: Sequence[SeriesRow]) -> dict:
    """Places gained (+) or lost (−) per ranked player since the standings ``before`` (the series
    without its latest event); None for a player who had no rank then."""
    old = {row.player: row.rank for row in before}
    return {row.player: (old[row.player] - row.rank if old.get(row.player) and row.rank else None) for row in now}


def moves(before: Sequence[SeriesRow] | None, now: Sequence[SeriesRow]) -> dict:
    """Per player of ``now``: his move since the standings ``before`` (the series without its
    latest event; None when the series has one event only): ``{"trend": places gained (+), lost
    (−) or 0, "new": bool}``. "new": ranked now and not before (a newcomer, or newly qualified);
    trend None for him and for the unranked."""
    old = {row.player: row.rank for row in before or ()}
    found = {}
    for row in now:
        was = old.get(row.player)
        found[row.player] = {"trend": was - row.rank if was and row.rank else None,
                             "new": bool(row.rank) and not was}
    return found
