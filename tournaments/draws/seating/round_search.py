"""One round: a tabu search over swaps of two players at different tables.

The search keeps, for every player and table, the player's cost at that table, so the change of
a swap is read off in constant time.
"""
from __future__ import annotations

import random

from .costs import RoundCosts
from .groups import table_index


def improve_round(
    costs: RoundCosts,
    start,
    rng: random.Random,
    max_swaps: int,
    lower_bound: int = 0,
    max_evaluations: int = 4_000_000,
) -> tuple[list[list[int]], int]:
    """Improve the seating ``start`` (player indices per table) by swapping two players of
    different tables, and return the best seating found with its cost.

    Only players with a positive cost at their table start a move; moving a player back to a
    table he left recently is tabu unless it beats the best cost so far; a long stall restarts
    from the best seating with a few random swaps. Stops at ``lower_bound``, after
    ``max_swaps`` swaps or after ``max_evaluations`` swaps looked at (a cap on the time a large
    round may take, still deterministic)."""
    pair, off_size, off_table = costs.pair, costs.off_size, costs.off_table
    n, tables = len(pair), len(costs.sizes)
    if tables < 2:
        return [list(g) for g in start], costs.of(start)
    table = table_index(start, n)

    def costs_at_tables(table):
        members = [[] for _ in range(tables)]
        for x in range(n):
            members[table[x]].append(x)
        # cost_at[i][t]: i's pair costs with the players at table t, plus i's off-size cost there.
        return [
            [sum(pair[x][y] for y in members[t]) + (off_size[x] if off_table[t] else 0) for t in range(tables)]
            for x in range(n)
        ], members

    cost_at, members = costs_at_tables(table)
    cost = costs.of(members)
    best_cost, best_table = cost, table[:]
    tabu_until = [[0] * tables for _ in range(n)]
    stall, stall_limit = 0, max(60, 3 * n)
    tenure = max(4, n // 4)
    iteration = 0
    evaluations = 0
    while iteration < max_swaps and best_cost > lower_bound and evaluations < max_evaluations:
        iteration += 1
        own = [cost_at[i][table[i]] for i in range(n)]
        best_delta = None
        moves = []
        for i in range(n):
            if not own[i]:
                continue
            a = table[i]
            cost_at_i, pair_i, tabu_i = cost_at[i], pair[i], tabu_until[i]
            base = own[i]
            evaluations += n
            for j in range(n):
                b = table[j]
                if b == a:
                    continue
                delta = cost_at_i[b] - base + cost_at[j][a] - own[j] - 2 * pair_i[j]
                if best_delta is not None and delta > best_delta:
                    continue
                if (tabu_i[b] > iteration or tabu_until[j][a] > iteration) and cost + delta >= best_cost:
                    continue
                if best_delta is None or delta < best_delta:
                    best_delta = delta
                    moves = [(i, j)]
                else:
                    moves.append((i, j))
        if moves:
            i, j = moves[rng.randrange(len(moves))]
            a, b = table[i], table[j]
            pair_i, pair_j = pair[i], pair[j]
            for x in range(n):
                change = pair_i[x] - pair_j[x]
                if change:
                    cost_at_x = cost_at[x]
                    cost_at_x[a] -= change
                    cost_at_x[b] += change
            table[i], table[j] = b, a
            cost += best_delta
            tabu_until[i][a] = iteration + tenure + rng.randrange(tenure)
            tabu_until[j][b] = iteration + tenure + rng.randrange(tenure)
            if cost < best_cost:
                best_cost, best_table = cost, table[:]
                stall = 0
                continue
        stall += 1
        if stall > stall_limit or not moves:
            table = best_table[:]
            for _ in range(max(2, n // 8)):
                x, y = rng.randrange(n), rng.randrange(n)
                table[x], table[y] = table[y], table[x]
            cost_at, members = costs_at_tables(table)
            cost = costs.of(members)
            stall = 0
    groups = [[] for _ in range(tables)]
    for i in range(n):
        groups[best_table[i]].append(i)
    return groups, best_cost
