"""The quality report: the figures an organiser looks at for one or more rounds."""
from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping

from .history import Draw, DrawTable, MeetingHistory, as_draw_table
from .players import Player, pair_key


def _as_rounds(rounds) -> list[list[DrawTable]]:
    """A ``Draw``, a list of tables, or a list of rounds, as a list of rounds of ``DrawTable``."""
    if isinstance(rounds, Draw):
        return [list(rounds.tables)]
    rounds = list(rounds)
    if not rounds:
        return []
    first = rounds[0]
    if isinstance(first, DrawTable) or (
        isinstance(first, (list, tuple)) and (not first or not isinstance(first[0], (list, tuple, DrawTable)))
    ):
        return [[as_draw_table(t) for t in rounds]]
    return [[as_draw_table(t) for t in round_] for round_ in rounds]


def quality(rounds, history: MeetingHistory | None = None, best: Iterable[int] | None = None,
            clubs: Mapping[Player, Hashable] | None = None) -> dict:
    """How good one or more consecutive rounds are, after ``history``:

    - ``repeated_pairs``: meetings in these rounds of pairs that had met before (a pair that
      meets m times in all counts m - 1 times from scratch);
    - ``repeat_histogram``: {2: second meetings, 3: third meetings, ...};
    - ``pairs_meeting_twice`` / ``pairs_meeting_three_plus``: second / third and later meetings;
    - ``max_meetings``: the most meetings of any pair seated in these rounds, history included;
    - ``repeats_from_previous_round``: pairs seated together in a round and the one before it;
    - ``players_off_size_more_than_once``: players at an off-size table in more than one round,
      history included (``best`` or the history's best sizes);
    - ``zero_repeat_rounds``: rounds without any repeated pair;
    - ``first_deals_spread``: most minus fewest first deals among the players seated;
    - ``same_club_pairs`` (with ``clubs``): pairs of club mates at one table.
    """
    running = history.copy() if history is not None else MeetingHistory()
    if best is not None:
        running.best = tuple(best)
    histogram: Counter = Counter()
    previous_repeats = zero_rounds = club_pairs = 0
    seated_pairs: set = set()
    seated_players: set = set()
    all_rounds = _as_rounds(rounds)
    for tables in all_rounds:
        repeats = 0
        for table in tables:
            seated_players.update(table.players)
            for a, b in itertools.combinations(table.players, 2):
                pair = pair_key(a, b)
                meeting = running.meetings.get(pair, 0) + 1
                if meeting > 1:
                    histogram[meeting] += 1
                    repeats += 1
                if pair in running.last_round:
                    previous_repeats += 1
                if clubs is not None and clubs.get(a) is not None and clubs.get(a) == clubs.get(b):
                    club_pairs += 1
                seated_pairs.add(pair)
        zero_rounds += repeats == 0
        running.add_round(tables)
    deals = [running.dealers.get(p, 0) for p in seated_players]
    report = {
        "rounds": len(all_rounds),
        "repeated_pairs": sum(histogram.values()),
        "repeat_histogram": dict(sorted(histogram.items())),
        "pairs_meeting_twice": histogram.get(2, 0),
        "pairs_meeting_three_plus": sum(c for m, c in histogram.items() if m >= 3),
        "max_meetings": max((running.meetings[p] for p in seated_pairs), default=0),
        "repeats_from_previous_round": previous_repeats,
        "players_off_size_more_than_once": sum(1 for c in running.off_size.values() if c > 1),
        "zero_repeat_rounds": zero_rounds,
        "first_deals_spread": (max(deals) - min(deals)) if deals else 0,
    }
    if clubs is not None:
        report["same_club_pairs"] = club_pairs
    return report
