"""All rounds of a fixed roster at once: the whole-schedule planner.

A schedule without repeats from ``perfect_schedule`` where one exists, otherwise (and for rounds
beyond it) rounds drawn one by one, then the whole-schedule tabu search; seats and first dealers
are balanced round by round at the end.
"""
from __future__ import annotations

import random
import time
from collections.abc import Sequence

from .costs import round_costs
from .design_labelling import design_rounds_left
from .designs import perfect_schedule
from .groups import check_round, order_by_sizes, random_groups
from .history import Draw, MeetingHistory
from .players import Player, as_rng
from .quality import quality
from .round_search import improve_round
from .schedule_search import PriorRounds, SearchLimits, improve_schedule
from .seat_order import seat_tables


def plan_schedule(
    players: Sequence[Player],
    sizes: Sequence[int],
    rounds: int,
    rng: random.Random | int | None = None,
    history: MeetingHistory | None = None,
    time_limit: float = 30.0,
    budget: int = 50_000,
    use_designs: bool = True,
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
    end. ``use_designs=False`` leaves the schedules without repeats out (the search alone, for
    comparison)."""
    generator = as_rng(rng)
    deadline = time.perf_counter() + time_limit
    base = history.copy() if history is not None else MeetingHistory()
    players = list(players)
    sizes = list(sizes)
    check_round(players, sizes)
    n = len(players)
    schedule: list[list[list[int]]] = []
    if use_designs and rounds > 0 and len(set(sizes)) == 1 and perfect_schedule(n, sizes[0]):
        if base.played:
            schedule = design_rounds_left(players, sizes, base) or []
            generator.shuffle(schedule)
        else:
            first = random_groups(n, sizes, generator)
            opened = base.copy()
            opened.add_round([[players[i] for i in g] for g in first])
            left = design_rounds_left(players, sizes, opened)
            if left:
                generator.shuffle(left)
                schedule = [first] + left
    schedule = schedule[:rounds]
    fixed_rounds = len(schedule)
    if fixed_rounds < rounds:
        prior = _prior_rounds(players, base)
        # The search is quick from most starts and slow from a few: it restarts from a fresh
        # start every few thousand swaps and keeps the best schedule found.
        restart = max(1000, 40 * n)
        best = None
        spent = 0
        while spent < budget and time.perf_counter() < deadline:
            start = _extend_schedule(players, sizes, rounds, schedule, base, generator)
            swaps = min(restart, budget - spent)
            found, cost, bound = improve_schedule(
                start, fixed_rounds, sizes, prior, generator, SearchLimits(max_swaps=swaps, deadline=deadline)
            )
            spent += swaps
            if best is None or cost < best[1]:
                best = (found, cost)
            if cost <= bound:
                break
        schedule = best[0] if best else _extend_schedule(players, sizes, rounds, schedule, base, generator)
    draws = []
    running = base.copy()
    for round_ in schedule:
        tables = seat_tables([[players[i] for i in g] for g in round_], running, generator)
        draw = Draw(tables)
        draw.quality = quality([draw], running)
        draws.append(draw)
        running.add_round(tables)
    return draws


def _prior_rounds(players: list[Player], history: MeetingHistory) -> PriorRounds:
    """The history's counts for ``players`` by index, as the schedule search reads them."""
    n = len(players)
    previous = None
    if history.last_tables:
        previous = [-1 - i for i in range(n)]
        where = {p: i for i, p in enumerate(players)}
        for t, table in enumerate(history.last_tables):
            for p in table:
                if p in where:
                    previous[where[p]] = t
    return PriorRounds(
        meetings=[[history.met(a, b) if a != b else 0 for b in players] for a in players],
        previous_table=previous,
        off_size=[history.off_size.get(p, 0) for p in players],
        best_sizes=history.best,
    )


def _extend_schedule(players, sizes, rounds, schedule, base: MeetingHistory, rng: random.Random):
    """``schedule`` (groups of indices, each round ordered like ``sizes``) grown to ``rounds``
    rounds: by its own rounds in turn when it has any, else by rounds drawn one by one."""
    n = len(players)
    fixed = [order_by_sizes(round_, sizes) for round_ in schedule]
    grown = list(fixed)
    running = base.copy()
    for round_ in grown:
        running.add_round([[players[i] for i in g] for g in round_])
    while len(grown) < rounds:
        if fixed:
            groups = fixed[(len(grown) - len(fixed)) % len(fixed)]
        else:
            costs = round_costs(players, sizes, running)
            groups, _ = improve_round(costs, random_groups(n, sizes, rng), rng, 300)
            groups = order_by_sizes(groups, sizes)
        grown.append([list(g) for g in groups])
        running.add_round([[players[i] for i in g] for g in groups])
    return grown
