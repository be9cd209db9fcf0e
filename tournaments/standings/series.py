"""A series' standings: a club's season ranked over its events, computed from each event's own
standings (``tournaments/standings/metrics.py``). Plain Python over plain values, as the event standings
are; ``selectors.series_document`` reads the events through the reader's visibility.

Series points per event (``Series.scoring``):

- ``placement``: an event with ``n`` ranked players gives rank ``r`` ``n − r + 1`` points; a shared
  rank is the better rank for each of its players (the event standings number them so already);
- ``table``: ``points_table[r − 1]``, 0 past its end;
- ``total``: the player's game total in the event (Mü and LuT points; Maumau minus points count
  negative, as the stored totals already do).

Only a player's best ``best_of`` results count (all when it is None); among equal results the
earlier event counts. The ranking: counted points, then event wins (rank 1), then events played;
equal on all three shares the rank. Players with fewer than ``min_events`` events follow the
ranked ones without a rank.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Sequence


@dataclass(frozen=True)
class EventResult:
    """One event of the series as its own standings rank it: ``ranks`` player → event rank,
    ``totals`` player → game total in the event."""

    event: Hashable
    ranks: dict
    totals: dict


@dataclass
class SeriesRow:
    player: Hashable
    rank: int | None
    points: int
    played: int
    wins: int
    per_event: dict = field(default_factory=dict)  # event -> {"points": int, "counted": bool}


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
    best_of: int | None = None, min_events: int = 0,
) -> list[SeriesRow]:
    """Rows in ranking order: the ranked players, then those below ``min_events`` (rank None).
    ``results`` in the series' event order (the order that decides among equal results)."""
    rows: dict = {}
    for result in results:
        points = event_points(result, scoring=scoring, points_table=points_table)
        for player, value in points.items():
            row = rows.setdefault(player, SeriesRow(player, None, 0, 0, 0))
            row.per_event[result.event] = {"points": value, "counted": False}
            row.played += 1
            row.wins += result.ranks[player] == 1
    for row in rows.values():
        order = sorted(enumerate(row.per_event.values()), key=lambda item: (-item[1]["points"], item[0]))
        for _, entry in order[:best_of] if best_of is not None else order:
            entry["counted"] = True
            row.points += entry["points"]

    def key(row: SeriesRow):
        return (-row.points, -row.wins, -row.played)

    ranked = sorted((row for row in rows.values() if row.played >= min_events), key=lambda r: (key(r), str(r.player)))
    unranked = sorted((row for row in rows.values() if row.played < min_events), key=lambda r: (key(r), str(r.player)))
    for index, row in enumerate(ranked):
        row.rank = ranked[index - 1].rank if index and key(ranked[index - 1]) == key(row) else index + 1
    return ranked + unranked


def trend(before: Sequence[SeriesRow], now: Sequence[SeriesRow]) -> dict:
    """Places gained (+) or lost (−) per ranked player since the standings ``before`` (the series
    without its latest event); None for a player who had no rank then."""
    old = {row.player: row.rank for row in before}
    return {row.player: (old[row.player] - row.rank if old.get(row.player) and row.rank else None) for row in now}
