"""``manage.py calibration_report``: how well the win chances predict who wins.

    python manage.py calibration_report --game mu [--club NAME] [--skip N]
    python manage.py calibration_report --generated [--players 500] [--sessions 20000] [--seed 7] [--skip N]
                                        [--spread 0.5 --spread 0.8 ...]

Replays the game's pool (the public, finished sessions, in the order the pool rated them, with
the pool's decay setting) from nobody rated: before each session the chances of its players are
computed from the ratings they have then (``ratings.chances``), the winner is noted, and the
session is rated. ``--club`` scores only that club's sessions (the replay still runs over the
whole pool, which is what rated them). ``--generated`` replays a league generated in memory as
``load_league`` writes it (players with known true skills, a total is skill plus noise of one
beta; ``--spread``: the skills' spread in units of that noise, 2 by default, repeatable for a
report per spread), without the database. ``--skip`` leaves the first N scored sessions out of the scores (a
league's start, when nearly everybody is new).

Prints the log-loss and Brier score of the chances, of the point estimate without sigma and of
the uniform 1/n (lower is better), and the reliability table of the chances: 10 bins by predicted
chance, the mean prediction against the observed win rate, with its standard error.
"""
from __future__ import annotations

from collections import defaultdict

from django.core.management.base import BaseCommand, CommandError

from games.catalog import GAMES
from ratings.calibration import calibrate
from ratings.generated import generate_league
from ratings.model import BETA, SIGMA
from ratings.model import Session as RatedSession
from ratings.models import PoolEntry
from ratings.services import decay_config
from tournaments.models import Club, Seat


def pool_sessions(game: str, club: Club | None = None) -> tuple[list[RatedSession], list[bool]]:
    """The pool's sessions in its order, and for each whether it is one of ``club``'s."""
    entries = list(
        PoolEntry.objects.filter(game=game).order_by("position").values_list(
            "session", "session__table", "session__totals", "finished_at", "session__table__round__event__club",
        )
    )
    players: dict[int, list[int]] = defaultdict(list)
    tables = {table for _, table, _, _, _ in entries}
    for table, player in (
        Seat.objects.filter(table__in=tables).order_by("table", "position").values_list("table", "player")
        if len(tables) < 50_000 else
        Seat.objects.filter(table__round__event__game=game).order_by("table", "position").values_list("table", "player")
    ):
        players[table].append(player)
    sessions = [
        RatedSession(players[table], totals, finished_at.timestamp()) for _, table, totals, finished_at, _ in entries
    ]
    chosen = [club is None or owner == club.pk for _, _, _, _, owner in entries]
    return sessions, chosen


class Command(BaseCommand):
    help = "Replay a pool (or a generated league) and score the win chances against two baselines."

    def add_arguments(self, parser):
        parser.add_argument("--game", choices=sorted(GAMES))
        parser.add_argument("--club", help="score only this club's sessions")
        parser.add_argument("--generated", action="store_true", help="a generated league with known skills")
        parser.add_argument("--players", type=int, default=500)
        parser.add_argument("--sessions", type=int, default=20_000)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--skip", type=int, default=0, help="leave the first N scored sessions out")
        parser.add_argument("--spread", type=float, action="append",
                            help="generated: the skills' spread in units of the noise (default 2; repeatable)")

    def handle(self, *args, game, club, generated, players, sessions, seed, skip, spread, **options):
        if generated:
            for value in spread or [SIGMA / BETA]:
                if not 0 < value <= 10:
                    raise CommandError("--spread is a positive number of noise widths (at most 10)")
                _, league = generate_league(players=players, sessions=sessions, seed=seed, spread=value)
                self.stdout.write(f"Generated league: {players} players, {sessions} sessions (seed {seed}), "
                                  f"skills spread {value:g} × the noise, totals = true skill + noise of one beta")
                self._print(calibrate(league, skip=skip), skip)
            return
        if game is None:
            raise CommandError("name the pool with --game (or use --generated)")
        owner = None
        if club is not None:
            owner = Club.objects.filter(name=club).first()
            if owner is None:
                raise CommandError(f"no club named {club!r}")
        league, chosen = pool_sessions(game, owner)
        if not league:
            raise CommandError(f"the {game} pool has no rated sessions")
        self.stdout.write(f"Pool {game}: {len(league)} sessions" + (f", scored: {club}'s" if club else ""))
        report = calibrate(league, decay=decay_config(), skip=skip, scored=chosen)
        self._print(report, skip)

    def _print(self, report, skip: int) -> None:
        if skip:
            self.stdout.write(f"(the first {skip} scored sessions left out)")
        for line in report.lines():
            self.stdout.write(line)
