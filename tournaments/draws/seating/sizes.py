"""Table sizes: the mix of table sizes for a number of present players, and byes when no mix
seats everybody.

``table_sizes`` finds the mix with the smallest ``mix_key`` exactly, by a dynamic programme over
the number of players for every set of sizes the mix may use; ``plan_byes`` gives as few byes as
possible when no mix exists (7 players of Mit List und Tücke).
"""
from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from games.catalog import GAMES

from .players import Player, as_rng


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


def _narrowed_rule(game: str | SizeRule, fixed: int | Iterable[int] | None = None) -> SizeRule:
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
    rule = _narrowed_rule(game, fixed)
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
    They go to the players with the fewest byes so far (``bye_counts``, e.g.
    ``MeetingHistory.byes``); ties go to a random choice when ``rng`` is given, otherwise to the
    players latest in ``present`` (pass ``present`` in standings order to give byes to the
    lowest ranked, as Swiss events do). How a bye scores is the event's rule, not the draw's.
    """
    rule = _narrowed_rule(game, fixed)
    present = list(present)
    counts = bye_counts or {}
    for byes_needed in range(len(present) + 1):
        mix = _best_mix(rule, len(present) - byes_needed)
        if mix is not None:
            break
    if byes_needed == 0:
        return [], list(mix)
    if rng is not None:
        generator = as_rng(rng)
        tie = {p: generator.random() for p in present}
        order = sorted(present, key=lambda p: (counts.get(p, 0), tie[p]))
    else:
        position = {p: i for i, p in enumerate(present)}
        order = sorted(present, key=lambda p: (counts.get(p, 0), -position[p]))
    return order[:byes_needed], list(mix)


def uniform_sizes(game: str | SizeRule, players: int) -> list[int] | None:
    """Tables of one size for ``players`` (a final's top N, a multiple of a size the game
    allows): a best size when one divides ``players``, else the largest allowed size that does;
    None when no allowed size divides it."""
    rule = _narrowed_rule(game)
    fits = [size for size in rule.allowed if players > 0 and players % size == 0]
    if not fits:
        return None
    size = max(fits, key=lambda s: (s in rule.best, s))
    return [size] * (players // size)
