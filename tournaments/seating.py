"""The seating draw: who sits where in a round, as plain Python over plain players.

No database and no Django here: players are any hashable values (usually ids), the history is
built from the tables of earlier rounds, and a draw is a list of tables in seat order with the
first dealer. The service that creates a round's tables turns a draw into ``Table`` and ``Seat``
rows.

The pieces, in the order an organiser meets them:

- ``table_sizes(game, players)`` picks the mix of table sizes for a number of present players
  (``GAME_SIZES`` says what each game allows and likes best; ``mix_key`` is the criterion);
  ``plan_byes`` gives byes when no mix seats everyone (7 players of Mit List und Tücke).
- ``History`` keeps the earlier rounds and counts: pair meetings, the previous round's pairs,
  rounds at an off-size table, seats, first deals and byes.
- ``draw_round`` draws one round: a random start, then a tabu search over swaps of two players.
  With a fixed roster at tables of one size it continues a schedule without repeats instead,
  as long as the history follows one (``perfect_schedule``).
- ``plan_rounds`` plans all rounds of a fixed roster at once: a schedule without repeats from
  finite geometry where one exists (affine planes and spaces over GF(p), spreads of GF(2)^e, and
  a doubling that gives 32 players 10 rounds in tables of 4), otherwise (and for rounds beyond
  it) a tabu search over the whole schedule.
- ``quality`` reports the fields an organiser looks at: repeated pairs, the most meetings of any
  pair, repeats from the previous round, players at an off-size table more than once.

Objectives, in strict priority (each level outweighs everything below it):

1. pairs that have already sat together meet again as rarely as possible; a pair that meets for
   the (m+1)-th time costs m·(m+3) (4, 10, 18, ...: one third meeting weighs more than two second
   meetings, three second meetings more than one third), and three times that when the pair sat
   together in the previous round, so a repeat from the previous round weighs most;
2. nobody sits at an off-size table (a size not among the game's best) more often than needed:
   a player who already sat off-size c times costs c for another such seat (this minimises the
   sum of squares of the final counts, so the off-size seats rotate);
3. optionally, members of one club apart (each pair of club mates at a table costs one) and, when
   a ranking is given, players of similar standing together (the rank distance of each pair);
4. seats and first dealers balanced over the rounds: after the search, each table's seat order
   is the one with the fewest earlier turns of its players on those seats, and the first dealer
   is the player with the fewest first deals so far.

Everything is deterministic for a given ``random.Random`` (or integer seed); only
``plan_rounds``' wall-clock limit can cut a search short on a slow machine.
"""
from __future__ import annotations

import itertools
import random
import time
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from games.catalog import GAMES

__all__ = [
    "GAME_SIZES",
    "Draw",
    "History",
    "SizeRule",
    "Table",
    "draw_round",
    "mix_key",
    "perfect_schedule",
    "plan_byes",
    "plan_rounds",
    "quality",
    "repeat_cost",
    "table_sizes",
]

Player = Hashable


# --------------------------------------------------------------------------------------------
# Table sizes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SizeRule:
    """The table sizes a game allows, the ones it plays best at, and whether all tables of a
    round should have one size (``uniform``)."""

    allowed: tuple[int, ...]
    best: tuple[int, ...]
    uniform: bool = False

    def distance(self, size: int) -> int:
        """How far a table of ``size`` is from the nearest best size (0 for a best size)."""
        return min(abs(size - b) for b in self.best)


def _allowed(code: str) -> tuple[int, ...]:
    return tuple(range(GAMES[code].min_players, GAMES[code].max_players + 1))


GAME_SIZES: dict[str, SizeRule] = {
    # Mü: 3–6 players (../shared/rules/mu.md), best with 4 or 5.
    "mu": SizeRule(allowed=_allowed("mu"), best=(4, 5)),
    # Maumau: 2–6 players (../shared/rules/maumau.md), best with 4.
    "maumau": SizeRule(allowed=_allowed("maumau"), best=(4,)),
    # Mit List und Tücke: 4–6 players, best with 4; a game has as many rounds as players
    # (../shared/rules/list-und-tuecke.md), so one size for all tables keeps the tables in step.
    "lut": SizeRule(allowed=_allowed("lut"), best=(4,), uniform=True),
}


def _rule(game: str | SizeRule, fixed: int | Iterable[int] | None = None) -> SizeRule:
    """The game's rule, narrowed to the sizes an event fixed (a size or a collection of sizes).
    Closeness is still measured against the game's best sizes."""
    rule = game if isinstance(game, SizeRule) else GAME_SIZES[game]
    if fixed is None:
        return rule
    sizes = (fixed,) if isinstance(fixed, int) else tuple(fixed)
    bad = sorted(set(sizes) - set(rule.allowed))
    if not sizes or bad:
        raise ValueError(f"table sizes {bad or '()'} are not allowed; allowed are {rule.allowed}")
    return SizeRule(allowed=tuple(sorted(set(sizes))), best=rule.best, uniform=rule.uniform)


def mix_key(rule: SizeRule, sizes: Sequence[int]) -> tuple:
    """The criterion ``table_sizes`` minimises, in priority order:

    1. for a uniform game, the spread (largest minus smallest size; 0 = one size for all);
    2. the largest distance of any table from the best sizes (Maumau: 3s and 5s before 2s or 6s);
    3. the number of players at off-size tables;
    4. the sum over players of their table's distance from the best sizes;
    5. the number of tables (fewer, larger tables first: 20 Mü players sit at four tables of 5);
    6. remaining ties: more tables of the larger sizes.
    """
    counts = Counter(sizes)
    spread = max(sizes) - min(sizes) if rule.uniform and sizes else 0
    return (
        spread,
        max((rule.distance(s) for s in sizes), default=0),
        sum(s for s in sizes if rule.distance(s)),
        sum(s * rule.distance(s) for s in sizes),
        len(sizes),
        tuple(-counts[s] for s in sorted(rule.allowed, reverse=True)),
    )


_SIZE_CACHE: dict[tuple[SizeRule, int], tuple[int, ...] | None] = {}


def _best_mix(rule: SizeRule, players: int) -> tuple[int, ...] | None:
    """The mix with the smallest ``mix_key``, or None when no mix seats exactly ``players``.

    Exact: for every set of sizes that the mix uses (each at least once), the first two parts
    of the key are fixed, and the rest is additive over tables, so a dynamic programme over the
    number of players finds the best mix with exactly those sizes."""
    cache_key = (rule, players)
    if cache_key in _SIZE_CACHE:
        return _SIZE_CACHE[cache_key]
    if players == 0:
        return ()
    order = sorted(rule.allowed, reverse=True)
    best: tuple | None = None
    for used in range(1, len(order) + 1):
        for subset in itertools.combinations(order, used):
            rest = players - sum(subset)
            if rest < 0:
                continue
            # table[m] = (additive key, counts) for the best way to seat m more players
            table: list[tuple | None] = [None] * (rest + 1)
            table[0] = ((0, 0, 0), (0,) * len(order))
            for m in range(1, rest + 1):
                choice = None
                for size in subset:
                    if size > m or table[m - size] is None:
                        continue
                    (off, dev, count), counts = table[m - size]
                    dist = rule.distance(size)
                    index = order.index(size)
                    grown = counts[:index] + (counts[index] - 1,) + counts[index + 1:]
                    candidate = ((off + (size if dist else 0), dev + size * dist, count + 1), grown)
                    if choice is None or candidate < choice:
                        choice = candidate
                table[m] = choice
            if table[rest] is None:
                continue
            counts = table[rest][1]
            sizes = [s for s, c in zip(order, counts) for _ in range(-c)] + list(subset)
            sizes.sort(reverse=True)
            key = mix_key(rule, sizes)
            if best is None or key < best[0]:
                best = (key, tuple(sizes))
    result = best[1] if best else None
    _SIZE_CACHE[cache_key] = result
    return result


def table_sizes(game: str | SizeRule, players: int, fixed: int | Iterable[int] | None = None) -> list[int]:
    """The table sizes (largest first) for ``players`` present players of ``game``.

    ``fixed`` narrows the sizes to those the event fixed. The mix minimises ``mix_key``. Raises
    ``ValueError`` when no mix seats everybody; ``plan_byes`` then says who sits out."""
    rule = _rule(game, fixed)
    mix = _best_mix(rule, players) if players >= 0 else None
    if mix is None:
        raise ValueError(f"no mix of tables of {rule.allowed} seats exactly {players} players")
    return list(mix)


def plan_byes(
    game: str | SizeRule,
    present: Sequence[Player],
    bye_counts: Mapping[Player, int] | None = None,
    rng: random.Random | int | None = None,
    fixed: int | Iterable[int] | None = None,
) -> tuple[list[Player], list[int]]:
    """Who sits out this round, and the table sizes for everybody else.

    Byes are given only when no mix seats all present players, and then as few as possible.
    They go to the players with the fewest byes so far (``bye_counts``, e.g. ``History.byes``);
    ties go to a random choice when ``rng`` is given, otherwise to the players latest in
    ``present`` (pass ``present`` in standings order to give byes to the lowest ranked, as Swiss
    events do). How a bye scores is the event's rule, not the draw's.
    """
    rule = _rule(game, fixed)
    present = list(present)
    counts = bye_counts or {}
    for byes_needed in range(len(present) + 1):
        mix = _best_mix(rule, len(present) - byes_needed)
        if mix is not None:
            break
    if byes_needed == 0:
        return [], list(mix)
    if rng is not None:
        generator = _as_rng(rng)
        tie = {p: generator.random() for p in present}
        order = sorted(present, key=lambda p: (counts.get(p, 0), tie[p]))
    else:
        position = {p: i for i, p in enumerate(present)}
        order = sorted(present, key=lambda p: (counts.get(p, 0), -position[p]))
    return order[:byes_needed], list(mix)


# --------------------------------------------------------------------------------------------
# Tables, draws, history
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """Players in seat order (seat 0, 1, ... clockwise) and the seat of the first dealer."""

    players: tuple
    dealer: int = 0

    def __iter__(self):
        return iter(self.players)

    def __len__(self) -> int:
        return len(self.players)

    @property
    def first_dealer(self) -> Player:
        return self.players[self.dealer]


@dataclass
class Draw:
    """One round: its tables, the players with a bye, and ``quality`` against the history the
    round was drawn on."""

    tables: list[Table]
    byes: list = field(default_factory=list)
    quality: dict = field(default_factory=dict)

    def __iter__(self):
        return iter(self.tables)

    def __len__(self) -> int:
        return len(self.tables)


def _pair(a: Player, b: Player) -> frozenset:
    return frozenset((a, b))


def _as_table(table) -> Table:
    """A ``Table``, or a plain sequence of players read as seat order with the first dealer on
    seat 0."""
    return table if isinstance(table, Table) else Table(tuple(table), 0)


@dataclass
class History:
    """What earlier rounds did: the tables of each round (``played``, seat order) and counts.
    ``best`` holds the game's best table sizes (used to count rounds at an off-size table; empty
    means no size is off)."""

    best: tuple[int, ...] = ()
    meetings: Counter = field(default_factory=Counter)
    last_round: set = field(default_factory=set)
    last_tables: list = field(default_factory=list)
    off_size: Counter = field(default_factory=Counter)
    seats: dict = field(default_factory=dict)
    dealers: Counter = field(default_factory=Counter)
    byes: Counter = field(default_factory=Counter)
    played: list = field(default_factory=list)

    @classmethod
    def from_rounds(
        cls,
        rounds: Iterable,
        game: str | None = None,
        best: Iterable[int] | None = None,
        byes: Iterable[Iterable[Player]] | None = None,
    ) -> History:
        """Build the history from earlier rounds, oldest first. A round is a ``Draw`` or a list
        of tables; a table is a ``Table`` or a list of players in seat order (first dealer on
        seat 0). ``game`` (or ``best``) sets the best sizes; ``byes`` lists each round's byes."""
        chosen = tuple(best) if best is not None else (GAME_SIZES[game].best if game else ())
        history = cls(best=chosen)
        bye_rounds = list(byes) if byes is not None else []
        for index, round_tables in enumerate(rounds):
            round_byes = bye_rounds[index] if index < len(bye_rounds) else ()
            if isinstance(round_tables, Draw):
                round_byes = list(round_byes) + list(round_tables.byes)
            history.add_round(round_tables, round_byes)
        return history

    def add_round(self, tables: Iterable, byes: Iterable[Player] = ()) -> None:
        """Count one more round (a ``Draw`` or a list of tables)."""
        pairs = set()
        tables = [_as_table(raw) for raw in tables]
        for table in tables:
            for seat, player in enumerate(table.players):
                self.seats.setdefault(player, Counter())[seat] += 1
                if self.best and len(table) not in self.best:
                    self.off_size[player] += 1
            self.dealers[table.first_dealer] += 1
            for a, b in itertools.combinations(table.players, 2):
                pairs.add(_pair(a, b))
        for pair in pairs:
            self.meetings[pair] += 1
        self.last_round = pairs
        self.last_tables = [table.players for table in tables]
        for player in byes:
            self.byes[player] += 1
        self.played.append([table.players for table in tables])

    @property
    def rounds(self) -> int:
        return len(self.played)

    def met(self, a: Player, b: Player) -> int:
        """How often ``a`` and ``b`` have sat at one table."""
        return self.meetings.get(_pair(a, b), 0)

    def copy(self) -> History:
        return History(
            best=self.best,
            meetings=Counter(self.meetings),
            last_round=set(self.last_round),
            last_tables=list(self.last_tables),
            off_size=Counter(self.off_size),
            seats={p: Counter(c) for p, c in self.seats.items()},
            dealers=Counter(self.dealers),
            byes=Counter(self.byes),
            played=list(self.played),
        )


def _as_rng(rng: random.Random | int | None) -> random.Random:
    if isinstance(rng, random.Random):
        return rng
    return random.Random(rng)


# --------------------------------------------------------------------------------------------
# Costs
# --------------------------------------------------------------------------------------------


def repeat_cost(meetings: int, last_round: bool = False) -> int:
    """Objective 1 for seating a pair that has met ``meetings`` times (0 for a first meeting)."""
    cost = meetings * (meetings + 3)
    return 3 * cost if last_round else cost


def _rank_of(standings) -> dict:
    """Standings as dense rank positions: a sequence is read best first; a mapping gives each
    player a sortable value (equal values share a position)."""
    if standings is None:
        return {}
    if isinstance(standings, Mapping):
        values = sorted(set(standings.values()))
        position = {v: i for i, v in enumerate(values)}
        return {p: position[v] for p, v in standings.items()}
    return {p: i for i, p in enumerate(standings)}


def _round_costs(players, sizes, history, clubs=None, separate_clubs=False, standings=None):
    """Integer pair costs ``W`` and off-size penalties ``P`` (per player) for one round, with the
    objectives' strict priority built into the weights: each level's unit exceeds the largest
    total that the levels below it can reach in one round."""
    n = len(players)
    seated_pairs = sum(k * (k - 1) // 2 for k in sizes)
    rank = _rank_of(standings)
    rank_span = (max(rank.values()) + 1) if rank else 0
    use_clubs = bool(separate_clubs and clubs)
    club_unit = seated_pairs * rank_span + 1
    level3_max = seated_pairs * (club_unit if use_clubs else 0) + seated_pairs * rank_span
    off_unit = level3_max + 1
    off_counts = [history.off_size.get(p, 0) for p in players]
    off_seats = sum(k for k in sizes if history.best and k not in history.best)
    repeat_unit = off_unit * max(off_counts, default=0) * off_seats + level3_max + 1
    W = [[0] * n for _ in range(n)]
    meetings, last = history.meetings, history.last_round
    for i in range(n):
        a = players[i]
        Wi = W[i]
        club_a = clubs.get(a) if use_clubs else None
        rank_a = rank.get(a)
        for j in range(i + 1, n):
            b = players[j]
            cost = 0
            if meetings:
                pair = _pair(a, b)
                m = meetings.get(pair, 0)
                if m:
                    cost = repeat_unit * repeat_cost(m, pair in last)
            if club_a is not None and clubs.get(b) == club_a:
                cost += club_unit
            if rank_a is not None and rank.get(b) is not None:
                cost += abs(rank_a - rank[b])
            Wi[j] = cost
            W[j][i] = cost
    P = [off_unit * c for c in off_counts]
    return W, P


def _table_of(round_, n: int) -> list[int]:
    """For each of ``n`` players, the index of his table in ``round_`` (a list of groups)."""
    tab = [0] * n
    for t, group in enumerate(round_):
        for i in group:
            tab[i] = t
    return tab


def _tabu_round(sizes, W, P, off, rng, start, max_iters, lower_bound=0, max_evaluations=4_000_000):
    """Improve the assignment ``start`` (player indices per table) by swapping two players of
    different tables. ``W`` are pair costs, ``P[i]`` player i's cost at an off-size table
    (``off[t]``). Only players with a positive cost at their table start a move; moving a player
    back to a table he left recently is tabu unless it beats the best cost so far; a long stall
    restarts from the best assignment with a few random swaps. Stops at ``lower_bound``, after
    ``max_iters`` swaps or after ``max_evaluations`` swaps looked at (a cap on the time a large
    round may take, still deterministic). Returns (groups, cost)."""
    n, T = len(W), len(sizes)
    if T < 2:
        return [list(g) for g in start], _assignment_cost(start, W, P, off)
    tab = _table_of(start, n)

    def local_sums(tab):
        members = [[] for _ in range(T)]
        for x in range(n):
            members[tab[x]].append(x)
        # S[i][t]: i's pair costs with the players at table t, plus i's off-size cost there.
        return [
            [sum(W[x][y] for y in members[t]) + (P[x] if off[t] else 0) for t in range(T)]
            for x in range(n)
        ], members

    S, members = local_sums(tab)
    cost = _assignment_cost(members, W, P, off)
    best_cost, best_tab = cost, tab[:]
    tabu = [[0] * T for _ in range(n)]
    stall, stall_limit = 0, max(60, 3 * n)
    tenure = max(4, n // 4)
    iteration = 0
    evaluations = 0
    while iteration < max_iters and best_cost > lower_bound and evaluations < max_evaluations:
        iteration += 1
        own = [S[i][tab[i]] for i in range(n)]
        best_delta = None
        moves = []
        for i in range(n):
            if not own[i]:
                continue
            a = tab[i]
            Si, Wi, tabu_i = S[i], W[i], tabu[i]
            base = own[i]
            evaluations += n
            for j in range(n):
                b = tab[j]
                if b == a:
                    continue
                delta = Si[b] - base + S[j][a] - own[j] - 2 * Wi[j]
                if best_delta is not None and delta > best_delta:
                    continue
                if (tabu_i[b] > iteration or tabu[j][a] > iteration) and cost + delta >= best_cost:
                    continue
                if best_delta is None or delta < best_delta:
                    best_delta = delta
                    moves = [(i, j)]
                else:
                    moves.append((i, j))
        if moves:
            i, j = moves[rng.randrange(len(moves))]
            a, b = tab[i], tab[j]
            Wi, Wj = W[i], W[j]
            for x in range(n):
                change = Wi[x] - Wj[x]
                if change:
                    Sx = S[x]
                    Sx[a] -= change
                    Sx[b] += change
            tab[i], tab[j] = b, a
            cost += best_delta
            tabu[i][a] = iteration + tenure + rng.randrange(tenure)
            tabu[j][b] = iteration + tenure + rng.randrange(tenure)
            if cost < best_cost:
                best_cost, best_tab = cost, tab[:]
                stall = 0
                continue
        stall += 1
        if stall > stall_limit or not moves:
            tab = best_tab[:]
            for _ in range(max(2, n // 8)):
                x, y = rng.randrange(n), rng.randrange(n)
                tab[x], tab[y] = tab[y], tab[x]
            S, members = local_sums(tab)
            cost = _assignment_cost(members, W, P, off)
            stall = 0
    groups = [[] for _ in range(T)]
    for i in range(n):
        groups[best_tab[i]].append(i)
    return groups, best_cost


def _assignment_cost(groups, W, P, off) -> int:
    cost = 0
    for t, group in enumerate(groups):
        for x, y in itertools.combinations(group, 2):
            cost += W[x][y]
        if off[t]:
            cost += sum(P[x] for x in group)
    return cost


def _off_lower_bound(P, off_seats: int) -> int:
    return sum(sorted(P)[:off_seats])


def _seat_round(groups, history: History, rng: random.Random) -> list[Table]:
    """Seat order and first dealer for each table (objective 4): the order with the fewest
    earlier turns of its players on those seats, then the player with the fewest first deals."""
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
        tables.append(Table(seated, candidates[rng.randrange(len(candidates))]))
    return tables


def _check_round(players, sizes) -> None:
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    if sum(sizes) != len(players) or any(k < 1 for k in sizes):
        raise ValueError(f"table sizes {list(sizes)} do not seat {len(players)} players")


def draw_round(
    players: Sequence[Player],
    sizes: Sequence[int],
    history: History | None = None,
    rng: random.Random | int | None = None,
    clubs: Mapping[Player, Hashable] | None = None,
    separate_clubs: bool = False,
    standings: Sequence[Player] | Mapping[Player, object] | None = None,
    budget: int = 5000,
    byes: Iterable[Player] = (),
    continue_schedule: bool = True,
) -> Draw:
    """Draw one round: ``players`` at tables of ``sizes`` (in that order), given ``history``.

    A random first assignment (or, with ``standings``, consecutive groups by rank) is improved by
    a tabu search of at most ``budget`` swaps that stops early at the best possible cost. The
    objectives and their weights are in the module's docstring: repeats first (previous round
    heaviest), then off-size rotation, then clubs apart (``separate_clubs``, meant for the early
    rounds; ``clubs`` maps a player to his club) and similar standings together (``standings``,
    best first, or a mapping to sortable values; meant for later rounds), then seats and first
    dealers.
    ``byes`` are only recorded in the draw.

    With a fixed roster at tables of one size, the first round fixes a labelling of a schedule
    without repeats (``perfect_schedule``; 16 players in 4s: 5 rounds, 32 in 4s: 10) and, while
    the history follows it, each later round is one of its unplayed rounds (the one best on the
    lower levels) instead of a search; ``continue_schedule=False`` always searches."""
    generator = _as_rng(rng)
    history = history if history is not None else History()
    players = list(players)
    sizes = list(sizes)
    _check_round(players, sizes)
    rank = _rank_of(standings)
    W, P = _round_costs(players, sizes, history, clubs, separate_clubs, standings)
    off = [bool(history.best) and k not in history.best for k in sizes]
    left = _design_rounds_left(players, sizes, history) if continue_schedule and not rank else None
    if left:
        # The history follows a schedule without repeats: its next round costs nothing at
        # level 1 and keeps the later rounds free of repeats too; take the unplayed round that
        # is best on the lower levels.
        costs = [_assignment_cost(groups, W, P, off) for groups in left]
        fewest = min(costs)
        options = [groups for groups, cost in zip(left, costs) if cost == fewest]
        groups = options[generator.randrange(len(options))]
    else:
        start = _random_start(len(players), sizes, generator)
        if rank:
            order = sorted((i for g in start for i in g), key=lambda i: rank.get(players[i], len(players)))
            start = [order[sum(sizes[:t]):sum(sizes[:t + 1])] for t in range(len(sizes))]
        bound = _off_lower_bound(P, sum(k for k, o in zip(sizes, off) if o))
        groups, _ = _tabu_round(sizes, W, P, off, generator, start, budget, bound)
    tables = _seat_round([[players[i] for i in g] for g in groups], history, generator)
    draw = Draw(tables, list(byes))
    draw.quality = quality([draw], history, clubs=clubs)
    return draw


# --------------------------------------------------------------------------------------------
# Schedules without repeats: finite geometries
# --------------------------------------------------------------------------------------------
# A round is a partition of the points into tables. Over GF(p)^e (p prime), the cosets of a
# subspace U with p^d points partition the space into tables of p^d, and two points share a
# table exactly when their difference lies in U. Subspaces that meet only in 0 therefore give
# rounds in which no pair meets twice: all lines through 0 for tables of p (AG(2,p) gives p+1
# rounds for p² players: 25 players in tables of 5 play 6 rounds), a spread of planes of
# GF(2)^e for tables of 4 (16 players: 5 rounds, the affine plane of order 4).


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


def _design_rounds_left(players, sizes, history: History):
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
    found = _embed([[[index[p] for p in t] for t in round_] for round_ in history.played], design, 300)
    if found is None:
        return None
    chosen, point_by_index = found
    player_at = {q: i for i, q in enumerate(point_by_index)}
    return [[[player_at[q] for q in t] for t in design[c]] for c in range(len(design)) if c not in chosen]


def _embed(rounds: list[list[list[int]]], design: list[list[list[int]]], node_limit: int = 300):
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
    where = [_table_of(round_, n) for round_ in rounds]
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


# --------------------------------------------------------------------------------------------
# Whole schedules: tabu search over the free rounds
# --------------------------------------------------------------------------------------------


def _choose2(c: int) -> int:
    return c * (c - 1) // 2


def _balanced_lower_bound(total: int, slots: int) -> int:
    """The least sum of C(c, 2) over ``slots`` counts adding up to ``total``."""
    if slots <= 0:
        return 0
    q, r = divmod(total, slots)
    return (slots - r) * _choose2(q) + r * _choose2(q + 1)


def _improve_schedule(n, schedule, free_from, sizes, M0, previous, off0, best_sizes, rng, max_iters, deadline):
    """Tabu search over swaps of two players inside the rounds ``schedule[free_from:]`` (groups
    of player indices; earlier rounds stay as they are).

    The cost, in strict priority: the sum over pairs of C(meetings, 2) (history included) plus
    twice the number of pairs seated together in two consecutive rounds; then the sum over
    players of C(off-size rounds, 2). With a fixed number of meetings in all, the first sum is
    least when every pair meets q or q+1 times, so the moves are aimed at the defects: a pair
    meeting more than q+1 times or together in consecutive rounds is split up (one of the two
    swaps with anybody at another table), a pair meeting fewer than q times is brought together
    (one of the two swaps with a tablemate of the other), a player off-size too often swaps with
    a player at a best-size table. The best non-tabu move is taken even when it costs; a long
    stall shakes the best schedule with a few random swaps. ``previous[i]`` is player i's table
    in the round before the schedule (distinct negative values for players without one)."""
    R = len(schedule)
    T = len(sizes)
    free = list(range(free_from, R))
    if not free or T < 2:
        return schedule, 0, 0
    tabs = [_table_of(round_, n) for round_ in schedule]
    members = [[list(g) for g in round_] for round_ in schedule]
    M = [row[:] for row in M0]
    off = [bool(best_sizes) and k not in best_sizes for k in sizes]
    off_count = off0[:]
    for r, round_ in enumerate(schedule):
        for t, group in enumerate(round_):
            for x, y in itertools.combinations(group, 2):
                M[x][y] += 1
                M[y][x] += 1
            if r >= free_from and off[t]:
                for x in group:
                    off_count[x] += 1
    pair_slots = n * (n - 1) // 2
    pair_total = sum(M[x][y] for x in range(n) for y in range(x + 1, n))
    low = pair_total // pair_slots
    off_total = sum(off_count)
    off_high = -(-off_total // n)
    # one unit of the first level outweighs the largest possible off-size sum
    unit = n * (max(off0, default=0) + R) ** 2 + 1
    adjacent = []
    for r in range(R):
        tabs_next = []
        if r > 0:
            tabs_next.append(tabs[r - 1])
        elif previous is not None:
            tabs_next.append(previous)
        if r + 1 < R:
            tabs_next.append(tabs[r + 1])
        adjacent.append(tabs_next)

    def total_cost():
        pairs = sum(_choose2(M[x][y]) for x in range(n) for y in range(x + 1, n))
        consecutive = 0
        for r in range(R):
            before = tabs[r - 1] if r > 0 else previous
            if before is None or r < free_from:
                continue
            for group in members[r]:
                consecutive += sum(1 for x, y in itertools.combinations(group, 2) if before[x] == before[y])
        return unit * (pairs + 2 * consecutive) + sum(_choose2(c) for c in off_count)

    def delta_of(r, i, j):
        tab = tabs[r]
        a, b = tab[i], tab[j]
        Mi, Mj = M[i], M[j]
        pairs = consecutive = 0
        near = adjacent[r]
        for x in members[r][a]:
            if x != i:
                pairs += Mj[x] - Mi[x] + 1
                for t in near:
                    consecutive += (t[x] == t[j]) - (t[x] == t[i])
        for y in members[r][b]:
            if y != j:
                pairs += Mi[y] - Mj[y] + 1
                for t in near:
                    consecutive += (t[y] == t[i]) - (t[y] == t[j])
        delta = unit * (pairs + 2 * consecutive)
        if off[a] != off[b]:
            step = 1 if off[b] else -1
            delta += _choose2(off_count[i] + step) - _choose2(off_count[i])
            delta += _choose2(off_count[j] - step) - _choose2(off_count[j])
        return delta

    def candidate_moves():
        moves = set()
        for r in free:
            tab = tabs[r]
            rows = members[r]
            near = adjacent[r]
            for a, group in enumerate(rows):
                for x, y in itertools.combinations(group, 2):
                    if M[x][y] > low + 1 or any(t[x] == t[y] for t in near):
                        for p in (x, y):
                            for j in range(n):
                                if tab[j] != a:
                                    moves.add((r, p, j) if p < j else (r, j, p))
                if off[a]:
                    for x in group:
                        if off_count[x] > off_high:
                            for j in range(n):
                                if not off[tab[j]]:
                                    moves.add((r, x, j) if x < j else (r, j, x))
        if low:
            for x in range(n):
                Mx = M[x]
                for y in range(x + 1, n):
                    if Mx[y] < low:
                        for r in free:
                            tab = tabs[r]
                            for p, q in ((x, y), (y, x)):
                                for z in members[r][tab[p]]:
                                    if z != p and tab[q] != tab[p]:
                                        moves.add((r, q, z) if q < z else (r, z, q))
        return moves

    cost = total_cost()
    bound = unit * _balanced_lower_bound(pair_total, pair_slots) + _balanced_lower_bound(off_total, n)
    best_cost, best = cost, [tab[:] for tab in tabs]
    tabu: dict = {}
    stall, stall_limit = 0, 100 + 5 * n
    iteration = 0
    while iteration < max_iters and best_cost > bound and time.perf_counter() < deadline:
        iteration += 1
        best_delta, chosen = None, []
        for r, i, j in sorted(candidate_moves()):
            delta = delta_of(r, i, j)
            if best_delta is not None and delta > best_delta:
                continue
            tab = tabs[r]
            if (tabu.get((r, i, tab[j]), 0) > iteration or tabu.get((r, j, tab[i]), 0) > iteration) and (
                cost + delta >= best_cost
            ):
                continue
            if best_delta is None or delta < best_delta:
                best_delta, chosen = delta, [(r, i, j)]
            else:
                chosen.append((r, i, j))
        if not chosen:
            stall = stall_limit + 1
        else:
            chosen.sort()
            r, i, j = chosen[rng.randrange(len(chosen))]
            tab = tabs[r]
            tenure = 4 + rng.randrange(8)
            tabu[(r, i, tab[i])] = iteration + tenure
            tabu[(r, j, tab[j])] = iteration + tenure
            _swap(r, i, j, tabs, members, M, off_count, off)
            cost += best_delta
            if cost < best_cost:
                best_cost, best = cost, [tab[:] for tab in tabs]
                stall = 0
                continue
            stall += 1
        if stall > stall_limit:
            _restore(best, tabs, members, M, off_count, off, free_from, n)
            for _ in range(2 + rng.randrange(3)):
                r = free[rng.randrange(len(free))]
                i, j = rng.randrange(n), rng.randrange(n)
                if tabs[r][i] != tabs[r][j]:
                    _swap(r, i, j, tabs, members, M, off_count, off)
            cost = total_cost()
            stall = 0
    return [[[i for i in range(n) if best[r][i] == t] for t in range(T)] for r in range(R)], best_cost, bound


def _restore(best, tabs, members, M, off_count, off, free_from, n) -> None:
    """Bring the free rounds back to ``best`` by swaps (keeping the counts in step)."""
    for r in range(free_from, len(tabs)):
        tab = tabs[r]
        for i in range(n):
            if tab[i] != best[r][i]:
                j = next(j for j in members[r][best[r][i]] if best[r][j] != tab[j])
                _swap(r, i, j, tabs, members, M, off_count, off)


def _swap(r, i, j, tabs, members, M, off_count, off) -> None:
    tab = tabs[r]
    a, b = tab[i], tab[j]
    for x in members[r][a]:
        if x != i:
            M[i][x] -= 1
            M[x][i] -= 1
            M[j][x] += 1
            M[x][j] += 1
    for y in members[r][b]:
        if y != j:
            M[j][y] -= 1
            M[y][j] -= 1
            M[i][y] += 1
            M[y][i] += 1
    members[r][a].remove(i)
    members[r][a].append(j)
    members[r][b].remove(j)
    members[r][b].append(i)
    tab[i], tab[j] = b, a
    if off[a] != off[b]:
        step = 1 if off[b] else -1
        off_count[i] += step
        off_count[j] -= step


def plan_rounds(
    players: Sequence[Player],
    sizes: Sequence[int],
    rounds: int,
    rng: random.Random | int | None = None,
    history: History | None = None,
    time_limit: float = 30.0,
    budget: int = 50_000,
) -> list[Draw]:
    """Plan ``rounds`` rounds of a fixed roster at once, each at tables of ``sizes``.

    With equal sizes, a schedule without repeated pairs from ``perfect_schedule`` is used where
    one exists (16 players in tables of 4: 5 rounds; 25 in 5s: 6; 32 in 4s: 10): a random first
    round (or the history's rounds, when they follow such a schedule) fixes where each player
    sits in it. Rounds beyond it start from its rounds repeated in turn; every other case starts
    from rounds drawn one by one. A tabu search over the whole schedule (at most ``budget``
    swaps and ``time_limit`` seconds, restarting from a fresh start every few thousand swaps)
    then spreads the meetings as evenly as possible, avoids repeats from one round to the next
    and rotates the off-size seats. Seats and first dealers are balanced round by round at the
    end."""
    generator = _as_rng(rng)
    deadline = time.perf_counter() + time_limit
    base = history.copy() if history is not None else History()
    players = list(players)
    sizes = list(sizes)
    _check_round(players, sizes)
    n = len(players)
    schedule: list[list[list[int]]] = []
    if rounds > 0 and len(set(sizes)) == 1 and perfect_schedule(n, sizes[0]):
        if base.played:
            schedule = _design_rounds_left(players, sizes, base) or []
            generator.shuffle(schedule)
        else:
            first = _random_start(n, sizes, generator)
            opened = base.copy()
            opened.add_round([[players[i] for i in g] for g in first])
            left = _design_rounds_left(players, sizes, opened)
            if left:
                generator.shuffle(left)
                schedule = [first] + left
    schedule = schedule[:rounds]
    free_from = len(schedule)
    if free_from < rounds:
        M0 = [[base.met(a, b) if a != b else 0 for b in players] for a in players]
        previous = None
        if base.last_tables:
            previous = [-1 - i for i in range(n)]
            where = {p: i for i, p in enumerate(players)}
            for t, table in enumerate(base.last_tables):
                for p in table:
                    if p in where:
                        previous[where[p]] = t
        off0 = [base.off_size.get(p, 0) for p in players]
        # The search is quick from most starts and slow from a few: it restarts from a fresh
        # start every few thousand swaps and keeps the best schedule found.
        restart = max(1000, 40 * n)
        best = None
        spent = 0
        while spent < budget and time.perf_counter() < deadline:
            start = _extend(players, sizes, rounds, schedule, base, generator)
            iterations = min(restart, budget - spent)
            found, cost, bound = _improve_schedule(
                n, start, free_from, sizes, M0, previous, off0, base.best, generator, iterations, deadline
            )
            spent += iterations
            if best is None or cost < best[1]:
                best = (found, cost)
            if cost <= bound:
                break
        schedule = best[0] if best else _extend(players, sizes, rounds, schedule, base, generator)
    draws = []
    running = base.copy()
    for round_ in schedule:
        tables = _seat_round([[players[i] for i in g] for g in round_], running, generator)
        draw = Draw(tables)
        draw.quality = quality([draw], running)
        draws.append(draw)
        running.add_round(tables)
    return draws


def _extend(players, sizes, rounds, schedule, base: History, rng: random.Random):
    """``schedule`` (groups of indices, each round ordered like ``sizes``) grown to ``rounds``
    rounds: by its own rounds in turn when it has any, else by rounds drawn one by one."""
    n = len(players)
    fixed = [_fit(round_, sizes) for round_ in schedule]
    grown = list(fixed)
    running = base.copy()
    for round_ in grown:
        running.add_round([[players[i] for i in g] for g in round_])
    while len(grown) < rounds:
        if fixed:
            groups = fixed[(len(grown) - len(fixed)) % len(fixed)]
        else:
            W, P = _round_costs(players, sizes, running)
            off = [bool(running.best) and k not in running.best for k in sizes]
            groups, _ = _tabu_round(sizes, W, P, off, rng, _random_start(n, sizes, rng), 300)
            groups = _fit(groups, sizes)
        grown.append([list(g) for g in groups])
        running.add_round([[players[i] for i in g] for g in groups])
    return grown


def _random_start(n: int, sizes: Sequence[int], rng: random.Random) -> list[list[int]]:
    order = list(range(n))
    rng.shuffle(order)
    start, position = [], 0
    for k in sizes:
        start.append(order[position:position + k])
        position += k
    return start


def _fit(groups, sizes):
    """Order ``groups`` so that group t has ``sizes[t]`` players."""
    remaining = list(groups)
    ordered = []
    for k in sizes:
        group = next(g for g in remaining if len(g) == k)
        remaining.remove(group)
        ordered.append(group)
    return ordered


# --------------------------------------------------------------------------------------------
# Quality
# --------------------------------------------------------------------------------------------


def _as_rounds(rounds) -> list[list[Table]]:
    """A ``Draw``, a list of tables, or a list of rounds, as a list of rounds of ``Table``."""
    if isinstance(rounds, Draw):
        return [list(rounds.tables)]
    rounds = list(rounds)
    if not rounds:
        return []
    first = rounds[0]
    if isinstance(first, Table) or (
        isinstance(first, (list, tuple)) and (not first or not isinstance(first[0], (list, tuple, Table)))
    ):
        return [[_as_table(t) for t in rounds]]
    return [[_as_table(t) for t in round_] for round_ in rounds]


def quality(rounds, history: History | None = None, best: Iterable[int] | None = None,
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
    running = history.copy() if history is not None else History()
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
                pair = _pair(a, b)
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
