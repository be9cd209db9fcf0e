"""Following a schedule without repeats from the rounds already played.

The players of the history are laid on the points of ``perfect_schedule`` so that every round
played is one of its rounds; the rounds not yet played are then the continuation without a
repeat. The first round fixes the labelling; when the history does not follow it, a short
backtracking search looks for another.
"""
from __future__ import annotations

import itertools

from .designs import perfect_schedule
from .groups import table_index
from .history import MeetingHistory


def design_rounds_left(players, sizes, history: MeetingHistory):
    """The rounds of ``perfect_schedule`` not yet played (as groups of indices into
    ``players``), when every round of ``history`` seated exactly these players in tables of the
    one size and the rounds follow that schedule; None otherwise.

    The first round fixes the labelling (tables and players in a canonical order are laid on
    the schedule's first round), so a draw needs no memory beyond the history: each later round
    must be a distinct schedule round under that labelling. A history that does not follow it
    (a manual change, rounds drawn otherwise) gets a short search for another labelling."""
    if not history.played or len(set(sizes)) != 1:
        return None
    n, k = len(players), sizes[0]
    design = perfect_schedule(n, k)
    if not design or len(history.played) >= len(design):
        return None
    roster = set(players)
    for round_ in history.played:
        if len(round_) != len(sizes) or any(len(t) != k for t in round_):
            return None
        if {p for t in round_ for p in t} != roster:
            return None
    index = {p: i for i, p in enumerate(players)}
    round_of_table = {frozenset(t): c for c, round_ in enumerate(design) for t in round_}
    first = sorted((sorted(t, key=repr) for t in history.played[0]), key=lambda t: repr(t[0]))
    point_of = {p: q for table, points in zip(first, design[0]) for p, q in zip(table, sorted(points))}
    used: list = []
    for round_ in history.played:
        hit = {round_of_table.get(frozenset(point_of[p] for p in t)) for t in round_}
        if len(hit) != 1 or None in hit or hit <= set(used):
            break
        used += hit
    else:
        player_at = {q: index[p] for p, q in point_of.items()}
        return [[[player_at[q] for q in t] for t in design[c]] for c in range(len(design)) if c not in used]
    found = embed_in_design([[[index[p] for p in t] for t in round_] for round_ in history.played], design, 300)
    if found is None:
        return None
    chosen, point_by_index = found
    player_at = {q: i for i, q in enumerate(point_by_index)}
    return [[[player_at[q] for q in t] for t in design[c]] for c in range(len(design)) if c not in chosen]


def embed_in_design(rounds: list[list[list[int]]], design: list[list[list[int]]], node_limit: int = 300):
    """Design rounds ``chosen[r]`` and points ``point_of[player]`` that map every table of
    ``rounds`` (player indices 0..n-1, everybody seated in every round) onto a table of a
    distinct design round, or None when there are none (or the search gives up after
    ``node_limit`` steps).

    Backtracking with forward checking: placing a player on a point confines his tablemates of
    each round to the design table of that point, and everybody else to the other points. Two
    placed tablemates fix the design round of their history round, since in a design without
    repeats two points share a table in exactly one round."""
    n = sum(len(t) for t in design[0])
    h = len(rounds)
    full = (1 << n) - 1
    table_mask, meet = [], [[-1] * n for _ in range(n)]
    for c, round_ in enumerate(design):
        masks = [0] * n
        for table in round_:
            mask = sum(1 << p for p in table)
            for p in table:
                masks[p] = mask
                for q in table:
                    if q != p:
                        meet[p][q] = c
        table_mask.append(masks)
    where = [table_index(round_, n) for round_ in rounds]
    point_of = [-1] * n
    chosen = [-1] * h
    steps = [0]

    def narrow(domains, x, r):
        mask = table_mask[chosen[r]][point_of[x]]
        tab = where[r]
        for y in range(n):
            if point_of[y] < 0:
                domains[y] &= mask if tab[y] == tab[x] else full ^ mask
                if not domains[y]:
                    return False
        return True

    def place(x, point, domains, fixed_now):
        point_of[x] = point
        bit = 1 << point
        for y in range(n):
            if point_of[y] < 0:
                domains[y] &= ~bit
                if not domains[y]:
                    return False
        for r in range(h):
            if chosen[r] >= 0:
                if not narrow(domains, x, r):
                    return False
                continue
            tab = where[r]
            mate = next((y for y in range(n) if y != x and point_of[y] >= 0 and tab[y] == tab[x]), None)
            if mate is None:
                continue
            c = meet[point][point_of[mate]]
            if c < 0 or c in chosen:
                return False
            chosen[r] = c
            fixed_now.append(r)
            masks = table_mask[c]
            placed = [y for y in range(n) if point_of[y] >= 0]
            for y, z in itertools.combinations(placed, 2):
                if (tab[y] == tab[z]) != bool(masks[point_of[y]] >> point_of[z] & 1):
                    return False
            for y in placed:
                if not narrow(domains, y, r):
                    return False
        return True

    def search(domains):
        steps[0] += 1
        if steps[0] > node_limit:
            return False
        free = [y for y in range(n) if point_of[y] < 0]
        if not free:
            return True
        x = min(free, key=lambda y: bin(domains[y]).count("1"))
        options = domains[x]
        while options:
            bit = options & -options
            options ^= bit
            trial = domains[:]
            fixed_now: list[int] = []
            if place(x, bit.bit_length() - 1, trial, fixed_now) and search(trial):
                return True
            for r in fixed_now:
                chosen[r] = -1
            point_of[x] = -1
        return False

    found = search([full] * n)
    return (chosen, point_of) if found else None
