"""Event standings over plain data: each metric is a small named class (Tabbycat style).

Raw totals are not comparable across tables (a Mü table of 3 has 36 points in play, a table of
Mit List und Tücke of 6 plays six rounds, of 4 four), so the default ranks by placement points per
session first, then by the game's total, then by sessions won. An event lists its metrics by name
in ``standings_metrics``; a player's rank is shared with everyone equal on all of them.

A session still under way counts with its points so far in the total (the live standings follow
the tables) but not as played, won or placed: only a finished session has a result.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Hashable, Sequence

from .progress import placements


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
    """Sessions finished."""

    name, label = "played", "Sessions"

    def values(self, lines):
        result = defaultdict(int)
        for line in _finished(lines):
            for player in line.players:
                result[player] += 1
        return result


@dataclass
class StandingRow:
    player: Hashable
    rank: int
    played: int
    metrics: dict = field(default_factory=dict)


def standings(lines: Sequence[SessionLine], metric_names: Sequence[str]) -> list[StandingRow]:
    """Rows best first; equal on every metric means an equal (shared) rank. Everyone seated in a
    session is listed, also with none finished yet (played 0)."""
    metrics = [METRICS[name]() for name in metric_names]
    played = Played().values(lines)
    values = {m.name: m.values(lines) for m in metrics}
    seated = dict.fromkeys(player for line in lines for player in line.players)
    players = sorted(seated, key=lambda p: (tuple(-values[m.name].get(p, 0) for m in metrics), str(p)))
    rows: list[StandingRow] = []
    for index, player in enumerate(players):
        key = tuple(values[m.name].get(player, 0) for m in metrics)
        if rows and key == tuple(rows[-1].metrics[m.name] for m in metrics):
            rank = rows[-1].rank
        else:
            rank = index + 1
        rows.append(StandingRow(player, rank, played.get(player, 0), {m.name: values[m.name].get(player, 0) for m in metrics}))
    return rows
