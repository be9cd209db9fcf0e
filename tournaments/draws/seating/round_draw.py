"""One round drawn on its own: the draw an organiser previews before each round.

With a history that follows a schedule without repeats, the next round is one of that schedule's
unplayed rounds; otherwise a random start is improved by the one-round tabu search.
"""
from __future__ import annotations

import random
from collections.abc import Hashable, Iterable, Mapping, Sequence

from .costs import rank_positions, round_costs
from .design_labelling import design_rounds_left
from .groups import check_round, random_groups
from .history import Draw, MeetingHistory
from .players import Player, as_rng
from .quality import quality
from .round_search import improve_round
from .seat_order import seat_tables


def draw_round(
    players: Sequence[Player],
    sizes: Sequence[int],
    history: MeetingHistory | None = None,
    rng: random.Random | int | None = None,
    clubs: Mapping[Player, Hashable] | None = None,
    separate_clubs: bool = False,
    standings: Sequence[Player] | Mapping[Player, object] | None = None,
    budget: int = 5000,
    byes: Iterable[Player] = (),
    continue_schedule: bool = True,
) -> Draw:
    """Draw one round: ``players`` at tables of ``sizes`` (in that order), given ``history``.

    A random first seating (or, with ``standings``, consecutive groups by rank) is improved by
    a tabu search of at most ``budget`` swaps that stops early at the best possible cost. The
    objectives and their weights are in the package's docstring: repeats first (previous round
    heaviest), then off-size rotation, then clubs apart (``separate_clubs``, meant for the early
    rounds; ``clubs`` maps a player to his club) and similar standings together (``standings``,
    best first, or a mapping to sortable values; meant for later rounds), then seats and first
    dealers.
    ``byes`` are only recorded in the draw.

    With a fixed roster at tables of one size, the first round fixes a labelling of a schedule
    without repeats (``perfect_schedule``; 16 players in 4s: 5 rounds, 32 in 4s: 10) and, while
    the history follows it, each later round is one of its unplayed rounds (the one best on the
    lower levels) instead of a search; ``continue_schedule=False`` always searches."""
    generator = as_rng(rng)
    history = history if history is not None else MeetingHistory()
    players = list(players)
    sizes = list(sizes)
    check_round(players, sizes)
    rank = rank_positions(standings)
    costs = round_costs(players, sizes, history, clubs, separate_clubs, standings)
    left = design_rounds_left(players, sizes, history) if continue_schedule and not rank else None
    if left:
        # The history follows a schedule without repeats: its next round costs nothing at
        # level 1 and keeps the later rounds free of repeats too; take the unplayed round that
        # is best on the lower levels.
        round_costs_left = [costs.of(groups) for groups in left]
        fewest = min(round_costs_left)
        options = [groups for groups, cost in zip(left, round_costs_left) if cost == fewest]
        groups = options[generator.randrange(len(options))]
    else:
        start = random_groups(len(players), sizes, generator)
        if rank:
            order = sorted((i for g in start for i in g), key=lambda i: rank.get(players[i], len(players)))
            start = [order[sum(sizes[:t]):sum(sizes[:t + 1])] for t in range(len(sizes))]
        groups, _ = improve_round(costs, start, generator, budget, costs.lower_bound())
    tables = seat_tables([[players[i] for i in g] for g in groups], history, generator)
    draw = Draw(tables, list(byes))
    draw.quality = quality([draw], history, clubs=clubs)
    return draw
