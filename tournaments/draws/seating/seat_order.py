"""Seats and first dealers (objective 4): within each table, after the players are chosen."""
from __future__ import annotations

import itertools
import random
from collections import Counter

from .history import DrawTable, MeetingHistory


def seat_tables(groups, history: MeetingHistory, rng: random.Random) -> list[DrawTable]:
    """Seat order and first dealer for each table: the order with the fewest earlier turns of
    its players on those seats (all orders are tried: a table has at most six seats), then the
    player with the fewest first deals."""
    tables = []
    for group in groups:
        group = list(group)
        rng.shuffle(group)
        counts = [history.seats.get(p, Counter()) for p in group]
        best_order, best_cost = None, None
        for order in itertools.permutations(range(len(group))):
            cost = sum(counts[i][seat] for seat, i in enumerate(order))
            if best_cost is None or cost < best_cost:
                best_order, best_cost = order, cost
        seated = tuple(group[i] for i in best_order)
        deals = [history.dealers.get(p, 0) for p in seated]
        fewest = min(deals)
        candidates = [seat for seat, d in enumerate(deals) if d == fewest]
        tables.append(DrawTable(seated, candidates[rng.randrange(len(candidates))]))
    return tables
