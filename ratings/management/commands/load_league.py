"""``manage.py load_league``: a large generated league, to measure ``recompute_ratings`` end to end.

    python manage.py load_league --players 2000 --sessions 100000 [--game mu] [--seed 2026] [--club NAME]
    python manage.py recompute_ratings --game mu        # timed by its progress bar

It writes one club, one event with as many rounds as needed, a table with 4–6 seated players per
session, the finished session and one hand whose result holds the session's scores (the league of
``python -m bench.ratings``: each player has a latent skill, a score is skill plus noise, so
ratings can be checked to predict). The hands carry no record: they stand for results already
validated. The sessions keep their totals as ``tournaments.results.services`` keeps them.

The league ends before now (its last session finished a minute ago, the others as far apart as the
generator spaced them), so a service loaded with it behaves like one with real history: a session
finished afterwards is the newest of its pool. Its sessions are marked for the pool as finished
sessions are, so the next sync (or ``recompute_ratings``) rates them.

Results are never deleted (hands and sessions are protected), so a league is not replaced: the
command refuses a club name that exists; ``--club`` names another one.
"""
from __future__ import annotations

import datetime
import time
from typing import Callable, Sequence

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone
from tqdm import tqdm

from games.catalog import GAMES
from ratings.generated import generate_league
from ratings.model import Session as RatedSession
from tournaments.models import (
    Club,
    Event,
    Hand,
    Membership,
    Player,
    Round,
    Seat,
    Session,
    Table,
)
from tournaments.standings import series_standings

CLUB_NAME = "Generated league"
BATCH = 5000


class Command(BaseCommand):
    help = "Generate a large league of finished sessions (for measuring recompute_ratings)."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=2000)
        parser.add_argument("--sessions", type=int, default=100_000)
        parser.add_argument("--game", choices=sorted(GAMES), default="mu")
        parser.add_argument("--seed", type=int, default=2026)
        parser.add_argument("--club", default=CLUB_NAME, help="the new club's name (one that does not exist)")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, players, sessions, game, seed, club, no_progress, **options):
        if Club.objects.filter(name=club).exists():
            raise CommandError(f"a club named {club!r} exists already; results are never deleted, so pass --club "
                               "with a new name to load another league")
        started = time.perf_counter()
        _, league = generate_league(players=players, sessions=sessions, seed=seed)
        with transaction.atomic():
            owner = Club.objects.create(name=club)
            people = create_players(owner, players)
            bar = tqdm(total=len(league), desc="sessions", unit="session", disable=no_progress, file=self.stderr._out)
            write_league(league, people=people, club=owner, game=game, progress=bar.update)
            bar.close()
        self.stdout.write(
            f"League written: {players} players, {sessions} sessions of {game} in "
            f"{time.perf_counter() - started:.1f} s. Now: python manage.py recompute_ratings --game {game}"
        )


def create_players(club: Club, count: int, prefix: str = "League player") -> list[Player]:
    people = Player.objects.bulk_create(
        [Player(name=f"{prefix} {number:05d}") for number in range(count)], batch_size=BATCH
    )
    Membership.objects.bulk_create([Membership(player=p, club=club) for p in people], batch_size=BATCH)
    return people


def write_league(
    league: Sequence[RatedSession], *, people: Sequence[Player], club: Club, game: str, name: str = "Generated league",
    end: datetime.datetime | None = None, hands_of: Callable[[int], int] = lambda index: 1,
    progress: Callable[[int], None] | None = None,
) -> Event:
    """Write ``league`` (players as indices into ``people``) as one published event of ``club``.

    The last session finishes at ``end`` (default: a minute ago), the others as far before it as
    the league spaces them. Session ``i`` gets ``hands_of(i)`` hands whose scores add up to its
    totals.
    """
    marked = timezone.now()  # for the ratings pool, as tournaments.results.services marks a finished session
    end = end or marked - datetime.timedelta(minutes=1)
    last = league[-1].finished_at
    event = Event.objects.create(club=club, name=name, game=game, starts_on=timezone.localdate(
        end - datetime.timedelta(seconds=last - league[0].finished_at)), published=True)
    # Sessions go into rounds in order; a round takes sessions until a player would sit twice.
    round_number = 0
    index = 0
    while index < len(league):
        round_number += 1
        round_ = Round.objects.create(event=event, number=round_number)
        seated: set[int] = set()
        first = index
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
        counts = [hands_of(first + offset) for offset in range(len(chunk))]
        finished = Session.objects.bulk_create(
            [
                Session(table=table, status=Session.Status.FINISHED, first_dealer=0,
                        finished_at=end - datetime.timedelta(seconds=last - session.finished_at),
                        totals=list(session.totals), hand_count=count, rating_dirty_at=marked)
                for table, session, count in zip(tables, chunk, counts)
            ],
            batch_size=BATCH,
        )
        Hand.objects.bulk_create(
            [
                Hand(session=row, number=number, dealer=(number - 1) % len(session.players),
                     result={"scores": scores})
                for row, session, count in zip(finished, chunk, counts)
                for number, scores in enumerate(_split(session.totals, count), start=1)
            ],
            batch_size=BATCH,
        )
        if progress:
            progress(len(chunk))
    series_standings.rebuild([event.pk])  # sessions written around the services: their standings sums
    return event


def _split(totals: Sequence[int], count: int) -> list[list[int]]:
    """``count`` hands' scores that add up to ``totals``."""
    parts = [[total // count for total in totals] for _ in range(count - 1)]
    return parts + [[total - (count - 1) * (total // count) for total in totals]]
