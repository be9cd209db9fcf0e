"""Event standings over plain data: each metric is a small named class (Tabbycat style).

Raw totals are not comparable across tables (a Mü table of 3 has 36 points in play, a table of
Mit List und Tücke of 6 plays six rounds, of 4 four), so the default ranks by placement points per
session first, then by the game's total, then by sessions won. An event lists its metrics by name
in ``standings_metrics``; a player's rank is shared with everyone equal on all of them.

A session still under way counts with its points so far in the total (the live standings follow
the tables) but not as played, won or placed: only a finished session has a result. Everyone
seated at a session with a hand is listed (played 0 until his first session is over).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Hashable, Sequence

from ..results.book import PLACEMENT_SCALE, placements


@dataclass(frozen=True)
class SessionLine:
    """One session as standings see it: who sat where, their session totals, whether it is over."""

    players: Sequence[Hashable]
    totals: Sequence[int]
    finished: bool = True


def _finished(lines: Sequence[SessionLine]) -> list[SessionLine]:
    return [line for line in lines if line.finished]


class Metric:
    name = ""
    label = ""

    def values(self, lines: Sequence[SessionLine]) -> dict:
        raise NotImplementedError


METRICS: dict[str, type[Metric]] = {}


def metric(cls: type[Metric]) -> type[Metric]:
    METRICS[cls.name] = cls
    return cls


@metric
class Placement(Metric):
    """Placement points per session: 1st at a table 1, last 0, linear between, ties sharing."""

    name, label = "placement", "Placement points"

    def values(self, lines):
        result = defaultdict(Fraction)
        for line in _finished(lines):
            for player, points in zip(line.players, placements(line.totals)):
                result[player] += points
        return result


@metric
class Total(Metric):
    """The sum of the engine's scores (higher is better in every game; Maumau: minus negated)."""

    name, label = "total", "Total"

    def values(self, lines):
        result = defaultdict(int)
        for line in lines:
            for player, total in zip(line.players, line.totals):
                result[player] += total
        return result


@metric
class Wins(Metric):
    """Sessions won: the highest total at the table, shared first places included."""

    name, label = "wins", "Wins"

    def values(self, lines):
        result = defaultdict(int)
        for line in _finished(lines):
            best = max(line.totals)
            for player, total in zip(line.players, line.totals):
                result[player] += total == best
        return result


@metric
class AveragePlacement(Metric):
    """Placement points per session played: fair when players played different numbers."""

    name, label = "average_placement", "Placement per session"

    def values(self, lines):
        points, played = Placement().values(lines), Played().values(lines)
        return {player: points[player] / played[player] for player in played if played[player]}


@metric
class Played(Metric):
    name, label = "played", "Sessions"

    def values(self, lines):
        """Sessions finished."""
        result = defaultdict(int)
        for line in _finished(lines):
            for player in line.players:
                result[player] += 1
        return result


@dataclass(frozen=True)
class Sums:
    """A player's sums over the sessions that count (``tournaments/standings/sums.py`` keeps them per
    round): every metric follows from them. ``placement`` is in units of
    ``results.book.PLACEMENT_SCALE`` (an exact integer), so that ranking compares integers.
    ``seated``: sessions with a hand, finished or not; ``played``: finished ones."""

    seated: int
    played: int
    placement: int
    total: int
    wins: int


# Each metric from the sums: the value people see, and the key that ranks (the same order, and
# equal exactly when the values are equal; integers where the value is a fraction of a constant).
_VALUES = {
    "placement": lambda s: Fraction(s.placement, PLACEMENT_SCALE),
    "total": lambda s: s.total,
    "wins": lambda s: s.wins,
    "average_placement": lambda s: Fraction(s.placement, PLACEMENT_SCALE * s.played) if s.played else Fraction(0),
    "played": lambda s: s.played,
}
_KEYS = {
    **_VALUES,
    "placement": lambda s: s.placement,
    "average_placement": lambda s: Fraction(s.placement, s.played) if s.played else Fraction(0),
}


def sums_of(lines: Sequence[SessionLine]) -> dict:
    """Each player's ``Sums`` over ``lines``."""
    points, totals, wins, played = (Placement().values(lines), Total().values(lines), Wins().values(lines),
                                    Played().values(lines))
    seated: dict = defaultdict(int)
    for line in lines:
        for player in line.players:
            seated[player] += 1
    scaled = {player: points.get(player, 0) * PLACEMENT_SCALE for player in seated}
    if any(Fraction(value).denominator != 1 for value in scaled.values()):
        raise ValueError("placement points that are not a multiple of 1/PLACEMENT_SCALE")
    return {player: Sums(seated[player], played.get(player, 0), int(scaled[player]), totals.get(player, 0),
                         wins.get(player, 0)) for player in seated}


@dataclass
class StandingRow:
    player: Hashable
    rank: int
    played: int
    metrics: dict = field(default_factory=dict)


def standings(lines: Sequence[SessionLine], metric_names: Sequence[str]) -> list[StandingRow]:
    """Rows best first; equal on every metric means an equal (shared) rank."""
    return ranked(sums_of(lines), metric_names)


def metric_values(sums: Sums, metric_names: Sequence[str]) -> dict:
    """The values people see of one player's metrics, as ``ranked`` fills them in."""
    return {name: _VALUES[name](sums) for name in metric_names if name in METRICS}


def ranked(sums: dict, metric_names: Sequence[str], *, values: bool = True) -> list[StandingRow]:
    """Rows best first from each player's ``Sums`` (players seated at a session with a hand); equal on every metric
    means an equal (shared) rank, numbered over all players (a page of them keeps these ranks).
    ``values=False``: ranks only (``metrics`` left empty), as a series reads its events."""
    names = [name for name in metric_names if name in METRICS]
    keys = [_KEYS[name] for name in names]
    ranking = {player: tuple(key(s) for key in keys) for player, s in sums.items() if s.seated}
    players = sorted(ranking, key=lambda p: (tuple(-value for value in ranking[p]), str(p)))
    rows: list[StandingRow] = []
    previous = None
    for index, player in enumerate(players):
        key = ranking[player]
        rank = rows[-1].rank if rows and key == previous else index + 1
        shown = metric_values(sums[player], names) if values else {}
        rows.append(StandingRow(player, rank, sums[player].played, shown))
        previous = key
    return rows
