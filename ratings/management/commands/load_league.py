"""``manage.py load_league``: a large generated league, to measure ``recompute_ratings`` end to end.

    python manage.py load_league --players 2000 --sessions 100000 [--game mu] [--seed 2026]
    python manage.py recompute_ratings --game mu        # timed by its progress bar

It writes one club, one event with as many rounds as needed, a table with 4–6 seated players per
session, the finished session and one hand whose result holds the session's scores (the league of
``python -m ratings.bench``: each player has a latent skill, a score is skill plus noise, so
ratings can be checked to predict). The hands carry no record: they stand for results already
validated. Refuses to run twice into the same database unless ``--replace`` drops the previous one.
"""
from __future__ import annotations

import datetime
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone
from tqdm import tqdm

from games.catalog import GAMES
from tournaments.models import Hand
from ratings.bench import generate_league
from tournaments.models import Club, Event, Membership, Player, Round, Seat, Session, Table

CLUB_NAME = "Generated league"
BATCH = 5000


class Command(BaseCommand):
    help = "Generate a large league of finished sessions (for measuring recompute_ratings)."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=2000)
        parser.add_argument("--sessions", type=int, default=100_000)
        parser.add_argument("--game", choices=sorted(GAMES), default="mu")
        parser.add_argument("--seed", type=int, default=2026)
        parser.add_argument("--replace", action="store_true", help="drop a previously generated league first")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, players, sessions, game, seed, replace, no_progress, **options):
        existing = Club.objects.filter(name=CLUB_NAME)
        if existing.exists():
            if not replace:
                raise CommandError("a generated league exists already; pass --replace to drop it")
            with transaction.atomic():
                Event.objects.filter(club__in=existing).delete()
                Player.objects.filter(clubs__in=existing).delete()
                existing.delete()
        started = time.perf_counter()
        _, league = generate_league(players=players, sessions=sessions, seed=seed)
        with transaction.atomic():
            self._write(league, players, game, no_progress)
        self.stdout.write(
            f"League written: {players} players, {sessions} sessions of {game} in "
            f"{time.perf_counter() - started:.1f} s. Now: python manage.py recompute_ratings --game {game}"
        )

    def _write(self, league, player_count, game, no_progress):
        club = Club.objects.create(name=CLUB_NAME)
        people = Player.objects.bulk_create(
            [Player(name=f"League player {number:05d}") for number in range(player_count)], batch_size=BATCH
        )
        Membership.objects.bulk_create([Membership(player=p, club=club) for p in people], batch_size=BATCH)
        event = Event.objects.create(club=club, name="Generated league", game=game, starts_on=datetime.date(2026, 1, 1), published=True)
        epoch = timezone.make_aware(datetime.datetime(2026, 1, 1))
        # Sessions go into rounds in order; a round takes sessions until a player would sit twice.
        bar = tqdm(total=len(league), desc="sessions", unit="session", disable=no_progress, file=self.stderr._out)
        round_number = 0
        index = 0
        while index < len(league):
            round_number += 1
            round_ = Round.objects.create(event=event, number=round_number)
            seated: set[int] = set()
            chunk = []
            while index < len(league) and not seated.intersection(league[index].players) and len(chunk) < BATCH:
                seated.update(league[index].players)
                chunk.append(league[index])
                index += 1
            tables = Table.objects.bulk_create(
                [Table(round=round_, number=number + 1) for number in range(len(chunk))], batch_size=BATCH
            )
            Seat.objects.bulk_create(
                [
                    Seat(table=table, round=round_, player=people[player], position=position)
                    for table, session in zip(tables, chunk)
                    for position, player in enumerate(session.players)
                ],
                batch_size=BATCH,
            )
            finished = Session.objects.bulk_create(
                [
                    Session(table=table, status=Session.Status.FINISHED, first_dealer=0,
                            finished_at=epoch + datetime.timedelta(seconds=session.finished_at - league[0].finished_at))
                    for table, session in zip(tables, chunk)
                ],
                batch_size=BATCH,
            )
            Hand.objects.bulk_create(
                [
                    Hand(session=row, number=1, dealer=0, result={"scores": list(session.totals)})
                    for row, session in zip(finished, chunk)
                ],
                batch_size=BATCH,
            )
            bar.update(len(chunk))
        bar.close()
