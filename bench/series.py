"""``python -m bench.series``: standings that read as fast for a long season and a big event as
for small ones (issue 24), before and after the kept round sums, in one run.

    DATABASE_URL=postgres://... python -m bench.series [--events 50] [--event-sessions 15000]

**Series.** Writes, inside one transaction that is rolled back at the end, a club of
``--players`` players and ``--few`` + ``--events`` evenings of Mü, each of 3 rounds at tables of
4 with a finished session per table (and their sums, ``aggregates.rebuild``), the first ``--few``
attached to one series and the others to a second one of the same scoring (and their kept public
standings, ``series_standings.refresh``); then reads each series' standings document
(``selectors.series_document``, what ``GET /api/v1/series/{id}/standings/`` answers) with the
public's visibility, the two series' reads interleaved so that both meet the same load: the p50
of ``--repeats`` in-process reads of each and the queries of one read, today's and before (every
session and seat scanned, as the series were read before the sums were kept:
``_scan_series_results``).

**A big event.** Writes (committed, deleted at the end) a league run as one event: ``--event-
sessions`` finished sessions at tables of 4 over rounds of ``--event-players`` players, and brings
the planner's statistics up to date (``ANALYZE``, as autovacuum does shortly after). A separate
process (``--serve``: the project's settings with DEBUG off, every request through Django's whole
stack with its test client) times the standings API (p50 of ``--event-repeats``), the event page,
the CSV (streamed: read chunk by chunk) and reports its peak resident memory (``getrusage``).
Another separate process times the standings as they were read before (every session and seat:
``_scan_standings``) and its own peak memory. Ratios are measured in one run: machines are noisy.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict


class _Rollback(Exception):
    pass


def _season(events: int, players: int, rng: random.Random):
    from tournaments.models import (
        Club,
        Event,
        Membership,
        Player,
        Round,
        Seat,
        Series,
        Session,
        Table,
    )

    club = Club.objects.create(name=f"Series bench {rng.randrange(10**9)}")
    roster = Player.objects.bulk_create(Player(name=f"Bench player {i}", shown_name=f"Bench player {i}")
                                        for i in range(players))
    Membership.objects.bulk_create(Membership(player=p, club=club) for p in roster)
    series = Series.objects.create(club=club, name="Jahreswertung", game="mu", best_of=max(1, events * 2 // 3),
                                   min_events=max(1, events // 3))  # the scoring of both series
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
    from tournaments.standings.series_standings import rebuild

    rebuild([event.pk for event in evenings])  # sessions written around the services: their sums
    return series, evenings


def season_in_play(*, events: int, tables: int, rng: random.Random):
    """A series of ``events`` evenings of Mü, committed: ``events`` - 1 played ones (3 rounds of
    finished sessions, as ``_season`` writes them, their sums and kept standings) and the current
    one, published, whose round has ``tables`` tables of 4 whose sessions never finish (every hand
    changes each player's sums and the series' standings). Returns the series and the tables;
    used by ``bench.submission`` and ``bench.scale`` to time hands in an event of a series."""
    from django.db import transaction

    with transaction.atomic():
        return _season_in_play(events, tables, rng)


def _season_in_play(events: int, tables: int, rng: random.Random):
    from tournaments.models import Event, Player, Round
    from tournaments.services import table_create
    from tournaments.standings.series_standings import refresh

    players = max(40, 4 * tables)
    series, evenings = _season(events - 1, players, rng)
    Event.objects.filter(pk__in=[e.pk for e in evenings]).update(series=series)
    current = Event.objects.create(club=series.club, series=series, name=f"Abend {events}", game="mu", published=True,
                                   starts_on=evenings[-1].starts_on + datetime.timedelta(weeks=1),
                                   mu_fixed_deals=1_000_000)
    refresh([series.pk])  # attached around the services: the kept public standings
    round_ = Round.objects.create(event=current, number=1)
    roster = list(Player.objects.filter(membership__club=series.club).order_by("pk"))
    return series, [table_create(round_=round_, number=n + 1, players=roster[4 * n:4 * n + 4], by_user=None)
                    for n in range(tables)]


def _scan_series_results(series, *, visibility):
    """The series' event results as they were read before the round sums were kept: every
    session and seat of its events (the reference of "before")."""
    from tournaments.models import Seat, Session
    from tournaments.standings.metrics import SessionLine, standings
    from tournaments.standings.series import EventResult
    from tournaments.standings.series_standings import series_events

    events = series_events(series, visibility=visibility)
    ids = [event.pk for event in events]
    sessions = (visibility.sessions().filter(table__round__event__in=ids, hand_count__gt=0)
                .exclude(status=Session.Status.ABANDONED)
                .order_by("table__round__number", "table__number", "number")
                .values_list("table_id", "table__round__event_id", "totals"))
    seats = defaultdict(list)
    for table_id, player_id in (Seat.objects.filter(table__round__event__in=ids).order_by("table_id", "position")
                                .values_list("table_id", "player_id")):
        seats[table_id].append(player_id)
    lines = defaultdict(list)
    for table_id, event_id, totals in sessions:
        lines[event_id].append(SessionLine(seats[table_id], list(totals) or [0] * len(seats[table_id])))
    results = []
    for event in events:
        totals = defaultdict(int)
        for line in lines[event.pk]:
            for player, total in zip(line.players, line.totals):
                totals[player] += total
        metrics = [name for name in event.standings_metrics.split(",") if name]
        ranks = {row.player: row.rank for row in standings(lines[event.pk], metrics)}
        results.append(EventResult(event.pk, ranks, dict(totals)))
    return events, results


def _scan_series_document(series, *, visibility) -> dict:
    from tournaments.standings.series_standings import series_rows

    events, results = _scan_series_results(series, visibility=visibility)
    rows = series_rows(series, results)
    names = visibility.names([row.player for row in rows])
    return {"events": [event.pk for event in events],
            "standings": [{"rank": row.rank, "player": row.player, "name": names.get(row.player, ""),
                           "points": row.points} for row in rows]}


def _measure(pair, repeats: int, read=None) -> list[tuple[float, int]]:
    """(p50, queries of one read) of each series of ``pair``, their reads interleaved (few, many,
    few, many, ...) so that both see the same load of a busy machine."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments import policy
    from tournaments.standings.series_standings import series_document

    read = read or series_document
    visibility = policy.public()
    queries = []
    for series in pair:
        with CaptureQueriesContext(connection) as captured:
            read(series, visibility=visibility)
        queries.append(len(captured))
    times = [[] for _ in pair]
    for _ in range(repeats):
        for index, series in enumerate(pair):
            started = time.perf_counter()
            read(series, visibility=visibility)
            times[index].append(time.perf_counter() - started)
    return [(statistics.median(found), count) for found, count in zip(times, queries)]


# --- a big event --------------------------------------------------------------------------------

def _big_event(sessions: int, players: int, rng: random.Random):
    """A league run as one event: rounds of all ``players`` at tables of 4, ``sessions`` finished
    sessions in all (committed; ``_delete`` removes them)."""
    from django.db import transaction

    from tournaments.models import (
        Club,
        Event,
        Membership,
        Player,
        Round,
        Seat,
        Session,
        Table,
    )
    from tournaments.standings.series_standings import rebuild

    players -= players % 4
    with transaction.atomic():
        club = Club.objects.create(name=f"Big event bench {rng.randrange(10**9)}")
        roster = Player.objects.bulk_create(Player(name=f"League player {i}", shown_name=f"League player {i}")
                                            for i in range(players))
        Membership.objects.bulk_create(Membership(player=p, club=club) for p in roster)
        event = Event.objects.create(club=club, name="League", game="mu", published=True,
                                     starts_on=datetime.date(2026, 1, 7))
        left, number = sessions, 0
        while left > 0:
            number += 1
            round_ = Round.objects.create(event=event, number=number)
            rng.shuffle(roster)
            groups = [roster[i:i + 4] for i in range(0, min(players, 4 * left), 4)]
            tables = Table.objects.bulk_create(Table(round=round_, number=i + 1) for i in range(len(groups)))
            Seat.objects.bulk_create(Seat(table=t, round=round_, player=p, position=k)
                                     for t, group in zip(tables, groups) for k, p in enumerate(group))
            Session.objects.bulk_create(Session(table=t, status="finished", hand_count=12,
                                                totals=[rng.randrange(0, 300, 5) for _ in range(4)]) for t in tables)
            left -= len(tables)
        rebuild([event.pk])
    return event


def _delete(event) -> None:
    from django.db import transaction

    from tournaments.models import Club, Player

    with transaction.atomic():
        club = Club.objects.get(pk=event.club_id)
        ids = list(club.players.values_list("pk", flat=True))
        event.delete()
        club.delete()
        Player.objects.filter(pk__in=ids).delete()


def _scan_standings(event, *, visibility) -> dict:
    """The event's standings as they were read before the round sums were kept: every session
    with its seats, all rows and names at once (the reference of "before")."""
    from tournaments.models import Player
    from tournaments.standings.metrics import SessionLine, standings
    from tournaments.standings.selectors import session_results

    results = session_results(event, visibility=visibility)
    lines = [SessionLine(result.players, result.totals) for result in results if result.hands]
    rows = standings(lines, [name for name in event.standings_metrics.split(",") if name])
    names = visibility.names(Player.objects.filter(pk__in=[row.player for row in rows]))
    return {"event": event.pk, "standings": [{"rank": row.rank, "player": row.player, "name": names.get(row.player)}
                                             for row in rows]}


def _timed(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def serve(event_id: int, repeats: int, before: bool) -> dict:
    """In this (separate) process: the big event's reads through the whole stack, timed, and
    this process's peak memory. ``before``: only the standings read as before the sums."""
    from django.http import StreamingHttpResponse
    from django.test import Client

    from tournaments import policy
    from tournaments.models import Event

    figures = {}
    if before:
        event = Event.objects.get(pk=event_id)
        figures["standings_before_ms"] = 1000 * _timed(lambda: _scan_standings(event, visibility=policy.public()),
                                                       max(1, repeats // 5))
    else:
        client = Client()

        def get(url: str) -> None:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            if isinstance(response, StreamingHttpResponse):
                figures["csv_streamed"] = True
                figures["csv_bytes"] = sum(len(chunk) for chunk in response.streaming_content)
            else:
                figures.setdefault("sizes", {})[url] = len(response.content)

        for name, url in (("api_ms", f"/api/v1/events/{event_id}/standings/"), ("page_ms", f"/events/{event_id}/"),
                          ("csv_ms", f"/api/v1/events/{event_id}/standings.csv")):
            get(url)  # warm
            figures[name] = 1000 * _timed(lambda: get(url), repeats)
    figures["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


def _database_url() -> str:
    """This process's database as a URL, for the serving process (the one a test runs in, too)."""
    from django.db import connection

    settings = connection.settings_dict
    if connection.vendor != "postgresql":
        return f"sqlite:///{settings['NAME']}"
    auth = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    return f"postgres://{auth}@{settings['HOST'] or 'localhost'}:{settings['PORT'] or 5432}/{settings['NAME']}"


def _serve_in_a_process(event_id: int, repeats: int, before: bool) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench.scale.settings", "DEBUG": "0",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-not-secret"), "ALLOWED_HOSTS": "testserver",
           "DATABASE_URL": _database_url()}
    command = [sys.executable, "-m", "bench.series", "--serve", str(event_id), "--event-repeats", str(repeats)]
    out = subprocess.run(command + (["--before"] if before else []), env=env, check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.series", description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--few", type=int, default=5)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--event-sessions", type=int, default=15_000, help="the big event's sessions (0: none)")
    parser.add_argument("--event-players", type=int, default=600)
    parser.add_argument("--event-repeats", type=int, default=15)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--before", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stich.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    import django

    django.setup()
    if args.serve is not None:
        print(json.dumps(serve(args.serve, args.event_repeats, args.before)))
        return {}
    from django.core.management import call_command
    from django.db import connection, transaction

    from tournaments.models import Event, Series
    from tournaments.standings.series_standings import refresh

    call_command("migrate", verbosity=0)
    rng = random.Random(24)
    figures = {}
    try:
        with transaction.atomic():
            few, evenings = _season(args.few + args.events, args.players, rng)
            many = Series.objects.create(club=few.club, name="Jahreswertung 2", game="mu", best_of=few.best_of,
                                         min_events=few.min_events)
            Event.objects.filter(pk__in=[e.pk for e in evenings[:args.few]]).update(series=few)
            Event.objects.filter(pk__in=[e.pk for e in evenings[args.few:]]).update(series=many)
            refresh([few.pk, many.pk])  # attached around the services: the kept public standings
            figures["few"], figures["many"] = _measure((few, many), args.repeats)
            figures["few_before"], figures["many_before"] = _measure((few, many), args.repeats,
                                                                     _scan_series_document)
            raise _Rollback
    except _Rollback:
        pass
    print(f"series standings ({connection.vendor}, {args.players} players, 3 rounds of tables of 4 per event, "
          f"p50 of {args.repeats} in-process reads of each series, interleaved)")
    print(f"{'events':>8} {'p50 ms':>9} {'queries':>8} {'before ms':>10} {'queries':>8}")
    for label, count in (("few", args.few), ("many", args.events)):
        (now, queries), (then, queries_then) = figures[label], figures[f"{label}_before"]
        print(f"{count:>8} {now * 1000:>9.1f} {queries:>8} {then * 1000:>10.1f} {queries_then:>8}")
    figures["ratio"] = figures["many"][0] / figures["few"][0]
    figures["ratio_before"] = figures["many_before"][0] / figures["few_before"][0]
    print(f"ratio {args.events} / {args.few} events: time {figures['ratio']:.2f}x (before {figures['ratio_before']:.2f}x), "
          f"queries {figures['many'][1]}/{figures['few'][1]}")
    if args.event_sessions:
        started = time.perf_counter()
        event = _big_event(args.event_sessions, args.event_players, rng)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:  # the planner's statistics, as autovacuum keeps them
                cursor.execute("ANALYZE")
        print(f"\nbig event: {args.event_sessions} sessions, {args.event_players} players, tables of 4 "
              f"(written in {time.perf_counter() - started:.0f} s); each read in a separate process, DEBUG off")
        try:
            figures["event"] = now = _serve_in_a_process(event.pk, args.event_repeats, before=False)
            figures["event_before"] = then = _serve_in_a_process(event.pk, args.event_repeats, before=True)
        finally:
            _delete(event)
        print(f"standings API p50 {now['api_ms']:.1f} ms (before: {then['standings_before_ms']:.0f} ms for the "
              f"standings alone, in-process)")
        print(f"event page p50 {now['page_ms']:.1f} ms")
        print(f"standings CSV p50 {now['csv_ms']:.1f} ms, streamed: {now.get('csv_streamed', False)}, "
              f"{now.get('csv_bytes', 0)} bytes")
        print(f"peak RSS of the serving process {now['peak_rss_mib']:.0f} MiB "
              f"(before: {then['peak_rss_mib']:.0f} MiB for the standings alone)")
    return figures


if __name__ == "__main__":
    main()
