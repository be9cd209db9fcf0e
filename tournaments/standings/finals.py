"""The final stage of an event: who qualifies, and the final ranking (pure Python over ``Sums``).

An event with a final stage (``Event.final_size``: N) plays preliminary rounds, then one or more
final rounds (``Round.stage == "final"``) for the top N of the preliminary standings.

- **Who qualifies** (``qualifiers``): the first N of the preliminary ranking, ranked by the
  event's metrics in their order (``metrics.ranked``); players level on every metric at the
  cut are told apart by their number in the event (the lower start number goes through).
- **The final ranking** (``final_ranking``): each finalist's points are the value of the
  event's first metric over the final sessions plus the carry-over of his preliminary value
  of that metric: none (0), half (1/2) or all (1) of it, chosen by the organiser. Half is kept
  exactly (a fraction: half of 7 total points is 3.5, half of 2.5 placement points 1.25; shown
  rounded to 4 decimals, as every placement value, never rounded before ranking). Ties on points are broken
  by the event's other metrics over the final sessions, then by the preliminary ranking (the
  better qualifier first), so no two finalists share a final rank.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .metrics import _KEYS, _VALUES, METRICS, StandingRow, Sums

CARRY_OVER = {"none": Fraction(0), "half": Fraction(1, 2), "all": Fraction(1)}

NO_SUMS = Sums(0, 0, 0, 0, 0)


@dataclass(frozen=True)
class FinalRow:
    player: Hashable
    rank: int
    played: int           # final sessions finished
    final: object         # the first metric's value over the final sessions
    carried: Fraction     # the carry-over of the preliminary value
    points: Fraction      # final + carried: what ranks
    preliminary_rank: int


def qualifiers(rows: Sequence[StandingRow], size: int, start_numbers: Mapping[Hashable, int]) -> list[Hashable]:
    """The top ``size`` of the preliminary ranking ``rows`` (best first, ranks shared by players
    level on every metric); a tie at the cut goes to the lower start number (players without
    one after those with one, then by id)."""
    never = 10**9
    order = sorted(rows, key=lambda row: (row.rank, start_numbers.get(row.player, never), str(row.player)))
    return [row.player for row in order[:size]]


def final_ranking(finalists: Sequence[Hashable], preliminary: Mapping[Hashable, Sums],
                  preliminary_ranks: Mapping[Hashable, int], final: Mapping[Hashable, Sums],
                  metric_names: Sequence[str], carry: str) -> list[FinalRow]:
    """The finalists ranked by final points plus carry-over (see the module's docstring).
    ``finalists`` in qualifying order (it breaks the last ties); ``preliminary`` / ``final``:
    each player's sums over the preliminary and the final rounds."""
    names = [name for name in metric_names if name in METRICS]
    first, others = names[0], names[1:]
    share = CARRY_OVER[carry]
    order = {player: index for index, player in enumerate(finalists)}
    entries = []
    for player in finalists:
        in_final = final.get(player, NO_SUMS)
        value = Fraction(_VALUES[first](in_final))
        carried = share * Fraction(_VALUES[first](preliminary.get(player, NO_SUMS)))
        key = (value + carried, *(_KEYS[name](in_final) for name in others))
        entries.append((key, order[player], player, in_final, value, carried))
    entries.sort(key=lambda e: (tuple(-k for k in e[0]), e[1]))
    return [FinalRow(player, rank, in_final.played, _VALUES[first](in_final), carried, key[0],
                     preliminary_ranks.get(player, 0))
            for rank, (key, _, player, in_final, value, carried) in enumerate(entries, start=1)]
