"""``python -m bench.series``: a series' standings for a season of 50 events against 5.

    DATABASE_URL=postgres://... python -m bench.series [--events 50] [--repeats 30]

Writes, inside one transaction that is rolled back at the end (the database is left as it was),
a club of ``--players`` players and a series of ``--events`` evenings of Mü, each of 3 rounds at
tables of 4 with a finished session per table; then reads the series' standings document
(``selectors.series_document``, what ``GET /api/v1/series/{id}/standings/`` answers) with the
public's visibility, first with its first 5 events attached, then with all of them, and prints
the p50 time of ``--repeats`` reads in-process and the queries of one read. The ratio is measured
in one run: machines are noisy.
"""
from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import time


class _Rollback(Exception):
    pass


def _season(events: int, players: int, rng: random.Random):
    from tournaments.models import Club, Event, Membership, Player, Round, Seat, Series, Session, Table

    club = Club.objects.create(name=f"Series bench {rng.randrange(10**9)}")
    roster = Player.objects.bulk_create(Player(name=f"Bench player {i}", shown_name=f"Bench player {i}")
                                        for i in range(players))
    Membership.objects.bulk_create(Membership(player=p, club=club) for p in roster)
    series = Series.objects.create(club=club, name="Jahreswertung", game="mu", best_of=max(1, events * 2 // 3),
                                   min_events=max(1, events // 3))
    day = datetime.date(2026, 1, 7)
    evenings = Event.objects.bulk_create(
        Event(club=club, name=f"Abend {i + 1}", game="mu", published=True, starts_on=day + datetime.timedelta(weeks=i))
        for i in range(events))
    for event in evenings:
        present = rng.sample(roster, k=players - players % 4 - 4 * rng.randrange(3))
        rounds = Round.objects.bulk_create(Round(event=event, number=n + 1) for n in range(3))
        for round_ in rounds:
            rng.shuffle(present)
            groups = [present[i:i + 4] for i in range(0, len(present), 4)]
            tables = Table.objects.bulk_create(Table(round=round_, number=i + 1) for i in range(len(groups)))
            Seat.objects.bulk_create(Seat(table=t, round=round_, player=p, position=k)
                                     for t, group in zip(tables, groups) for k, p in enumerate(group))
            Session.objects.bulk_create(Session(table=t, status="finished", hand_count=12,
                                                totals=[rng.randrange(0, 300, 5) for _ in range(4)]) for t in tables)
    return series, evenings


def _measure(series, repeats: int) -> tuple[float, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments import policy
    from tournaments.selectors import series_document

    visibility = policy.public()
    with CaptureQueriesContext(connection) as queries:
        series_document(series, visibility=visibility)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        series_document(series, visibility=visibility)
        times.append(time.perf_counter() - started)
    return statistics.median(times), len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.series", description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--few", type=int, default=5)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stich.settings")
    import django

    django.setup()
    from django.db import connection, transaction

    from tournaments.models import Event

    rng = random.Random(24)
    try:
        with transaction.atomic():
            series, evenings = _season(args.events, args.players, rng)
            Event.objects.filter(pk__in=[e.pk for e in evenings[:args.few]]).update(series=series)
            few, few_queries = _measure(series, args.repeats)
            Event.objects.filter(pk__in=[e.pk for e in evenings]).update(series=series)
            many, many_queries = _measure(series, args.repeats)
            raise _Rollback
    except _Rollback:
        pass
    print(f"series standings ({connection.vendor}, {args.players} players, 3 rounds of tables of 4 per event, "
          f"p50 of {args.repeats} in-process reads)")
    print(f"{'events':>8} {'p50 ms':>9} {'queries':>8}")
    print(f"{args.few:>8} {few * 1000:>9.1f} {few_queries:>8}")
    print(f"{args.events:>8} {many * 1000:>9.1f} {many_queries:>8}")
    print(f"ratio {args.events} / {args.few} events: time {many / few:.2f}x, queries {many_queries}/{few_queries}")


if __name__ == "__main__":
    main()
