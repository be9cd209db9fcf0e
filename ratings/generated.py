"""A generated league, for the benchmark (``python -m bench.ratings``) and for measuring a
recompute end to end (``manage.py load_league``).

Players with a latent true skill, spread ``spread`` times the noise (by default the rating
prior's: sigma = 2·beta); each session draws 4–6 of them, and a player's total is his skill plus
noise of one beta, rounded (so equal totals, ties, happen); sessions finish 1 to 10
minutes apart. No Django, no I/O.
"""
from __future__ import annotations

import random

from .model import BETA, MU, SIGMA, Session


def generate_league(
    *, players: int, sessions: int, seed: int, spread: float = SIGMA / BETA,
) -> tuple[list[float], list[Session]]:
    """The players' true skills (by player number) and the sessions in finish order. ``spread``:
    the standard deviation of the skills in units of the noise (beta); a club whose players are
    close together has less than the prior's 2."""
    rng = random.Random(seed)
    true_skill = [rng.gauss(MU, spread * BETA) for _ in range(players)]
    league = []
    finished_at = 1_700_000_000.0
    for _ in range(sessions):
        seated = rng.sample(range(players), rng.randint(4, 6))
        totals = [round(rng.gauss(true_skill[player], BETA)) for player in seated]
        finished_at += rng.uniform(60.0, 600.0)
        league.append(Session(seated, totals, finished_at))
    return true_skill, league
