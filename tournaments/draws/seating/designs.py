"""Schedules without repeats from finite geometry: rounds in which no pair meets twice.

A round is a partition of the points into tables. Over GF(p)^e (p prime), the cosets of a
subspace U with p^d points partition the space into tables of p^d, and two points share a table
exactly when their difference lies in U. Subspaces that meet only in 0 therefore give rounds in
which no pair meets twice: all lines through 0 for tables of p (AG(2,p) gives p+1 rounds for p²
players: 25 players in tables of 5 play 6 rounds), a spread of planes of GF(2)^e for tables of 4
(16 players: 5 rounds, the affine plane of order 4). A doubling gives twice the rounds for twice
the players (32 players in tables of 4: 10 rounds, the most there can be).
"""
from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence


def _prime_power(k: int) -> tuple[int, int] | None:
    for p in range(2, k + 1):
        if k % p == 0:
            d = 0
            while k % p == 0:
                k //= p
                d += 1
            return (p, d) if k == 1 else None
    return None


def _exponent(n: int, p: int) -> int | None:
    e = 0
    while n > 1 and n % p == 0:
        n //= p
        e += 1
    return e if n == 1 else None


def _cosets(n: int, subspace: Sequence[int], add) -> list[list[int]]:
    seen = [False] * n
    tables = []
    for x in range(n):
        if not seen[x]:
            table = sorted(add(x, u) for u in subspace)
            for y in table:
                seen[y] = True
            tables.append(table)
    return tables


def _gf2_line_spreads(e: int, avoid=frozenset(), node_limit: int = 200_000):
    """Sets of 2-dimensional subspaces {0, a, b, a^b} of GF(2)^e meeting only in 0, as triples
    (a, b, a^b): a complete spread ((2^e - 1) / 3 of them) for even e, (2^e - 5) / 3 (the most
    there are) for odd e. Yields each set found within ``node_limit`` search steps; triples in
    ``avoid`` (as frozensets) are not used."""
    points = (1 << e) - 1
    target = points // 3 if e % 2 == 0 else (points - 4) // 3
    holes = points - 3 * target
    covered = [False] * (points + 1)
    chosen: list[tuple[int, int, int]] = []
    steps = [0]

    def search(start: int, holes_left: int):
        steps[0] += 1
        if steps[0] > node_limit:
            return
        if len(chosen) == target:
            yield list(chosen)
            return
        x = start
        while x <= points and covered[x]:
            x += 1
        if x > points:
            return
        covered[x] = True
        for y in range(x + 1, points + 1):
            z = x ^ y
            if covered[y] or covered[z] or z < y:
                continue
            line = (x, y, z)
            if frozenset(line) in avoid:
                continue
            covered[y] = covered[z] = True
            chosen.append(line)
            yield from search(x + 1, holes_left)
            chosen.pop()
            covered[y] = covered[z] = False
        if holes_left:
            yield from search(x + 1, holes_left - 1)
        covered[x] = False

    yield from search(1, holes)


def _greedy_gf2_spread(e: int) -> list[tuple[int, int, int]]:
    """A maximal (not always largest) set of 2-dimensional subspaces of GF(2)^e meeting only
    in 0, taken greedily."""
    covered = {0}
    spread = []
    for x in range(1, 1 << e):
        for y in range(x + 1, 1 << e):
            if x not in covered and y not in covered and x ^ y not in covered:
                spread.append((x, y, x ^ y))
                covered.update((x, y, x ^ y))
    return spread


def _affine_schedule(n: int, k: int) -> list[list[list[int]]]:
    """Rounds of tables of ``k`` for ``n`` = p^e players with no pair meeting twice, or []."""
    power = _prime_power(k)
    if power is None:
        return []
    p, d = power
    e = _exponent(n, p)
    if e is None or e <= d:
        return []
    if d == 1:
        digits = [[(x // p**i) % p for i in range(e)] for x in range(n)]
        weights = [p**i for i in range(e)]

        def add(x, y):
            return sum(((a + b) % p) * w for a, b, w in zip(digits[x], digits[y], weights))

        rounds = []
        for v in range(1, n):
            leading = next(c for c in reversed(digits[v]) if c)
            if leading != 1:
                continue
            line = [sum(((c * a) % p) * w for a, w in zip(digits[v], weights)) for c in range(p)]
            rounds.append(_cosets(n, line, add))
        return rounds
    if p == 2 and d == 2:
        spread = next(_gf2_line_spreads(e, node_limit=20_000), None) or _greedy_gf2_spread(e)
        return [_cosets(n, (0, a, b, c), lambda x, y: x ^ y) for a, b, c in spread]
    return []


def _solve_signs(rounds: list[list[list[int]]]) -> dict | None:
    """For a design in which every pair of points lies in exactly two blocks, a bit s(B, g) for
    each block B and point g in it, such that s(B,g)+s(B,h) differs from s(B',g)+s(B',h) for the
    two blocks B, B' through g and h; None when the GF(2) linear system has no solution."""
    blocks = [tuple(block) for round_ in rounds for block in round_]
    variable = {}
    for b, block in enumerate(blocks):
        for g in block:
            variable[(b, g)] = len(variable)
    through: dict[tuple[int, int], list[int]] = {}
    for b, block in enumerate(blocks):
        for g, h in itertools.combinations(sorted(block), 2):
            through.setdefault((g, h), []).append(b)
    pivots: dict[int, tuple[int, int]] = {}
    for (g, h), pair_blocks in through.items():
        if len(pair_blocks) != 2:
            return None
        b1, b2 = pair_blocks
        row = 0
        for b in (b1, b2):
            row ^= (1 << variable[(b, g)]) ^ (1 << variable[(b, h)])
        rhs = 1
        while row:
            top = row.bit_length() - 1
            if top not in pivots:
                pivots[top] = (row, rhs)
                break
            prow, prhs = pivots[top]
            row ^= prow
            rhs ^= prhs
        else:
            if rhs:
                return None
    value = 0
    for top in sorted(pivots):
        row, rhs = pivots[top]
        if (bin(row & value).count("1") & 1) ^ rhs:
            value |= 1 << top
    return {key: (value >> v) & 1 for key, v in variable.items()}


def _doubled_schedule(n: int, k: int, rng: random.Random, attempts: int = 60) -> list[list[list[int]]]:
    """Twice as many rounds for twice the players (32 players in tables of 4: 10 rounds, the
    most possible). The players form m = n/2 couples that never meet; two schedules of the m
    couples in which every pair of couples meets exactly once, with no table in common, give
    each pair of couples two meetings, and each table of couples splits into two tables of
    players by one bit per couple. The bits come from a GF(2) linear system that makes the two
    meetings of two couples cover the four pairs of players between them exactly once."""
    if n % 2:
        return []
    m = n // 2
    base = _affine_schedule(m, k)
    if not base or len(base) * (k - 1) != m - 1:
        return []
    base_blocks = {frozenset(b) for round_ in base for b in round_}
    seconds = []
    power = _prime_power(k)
    if power == (2, 2):
        e = _exponent(m, 2)
        lines = {frozenset(t) - {0} for round_ in base for t in round_ if 0 in t}
        for spread in itertools.islice(_gf2_line_spreads(e, avoid=lines), attempts):
            seconds.append([_cosets(m, (0, a, b, c), lambda x, y: x ^ y) for a, b, c in spread])
    for _ in range(attempts):
        relabel = list(range(m))
        rng.shuffle(relabel)
        seconds.append([[sorted(relabel[x] for x in t) for t in round_] for round_ in base])
    for second in seconds:
        if base_blocks & {frozenset(b) for round_ in second for b in round_}:
            continue
        signs = _solve_signs(base + second)
        if signs is None:
            continue
        schedule, b = [], 0
        for round_ in base + second:
            tables = []
            for block in round_:
                tables.append([2 * g + signs[(b, g)] for g in block])
                tables.append([2 * g + 1 - signs[(b, g)] for g in block])
                b += 1
            schedule.append(tables)
        if _max_meetings(schedule) <= 1:
            return schedule
    return []


def _max_meetings(schedule) -> int:
    counts = Counter()
    for round_ in schedule:
        for table in round_:
            counts.update(itertools.combinations(sorted(table), 2))
    return max(counts.values(), default=0)


_DESIGNS: dict[tuple[int, int], list] = {}


def perfect_schedule(n: int, k: int) -> list[list[list[int]]]:
    """The longest schedule these constructions give for ``n`` players (points 0..n-1) in
    tables of ``k`` with no pair meeting twice, or [] when none applies. Always the same
    schedule for the same (n, k) (cached; do not change it)."""
    if (n, k) not in _DESIGNS:
        candidates = [_affine_schedule(n, k), _doubled_schedule(n, k, random.Random(0))] if n > k else [[]]
        _DESIGNS[(n, k)] = max(candidates, key=len)
    return _DESIGNS[(n, k)]
