"""``python -m bench.event_page``: the public event page's CPU and queries for a club evening of
150 sessions, warm and cold, for an event of three times its rounds and history, and with the
shared cache (Redis) unreachable (issue 37).

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.event_page [--rounds 5] [--tables 30]
        [--history 2] [--factor 3] [--repeats 200] [--chunk 20] [--json FILE]

Writes (committed, deleted at the end) two clubs of ``4 × --tables`` players of Mü. The first
plays ``--history`` earlier evenings, then the measured event: ``--rounds`` rounds of ``--tables``
tables of 4, a finished session of 12 hands per table (5 × 30: 150 sessions). The second plays
``--factor`` times the rounds in its event and ``--factor`` times the earlier evenings. The
sessions' kept sums are rebuilt (``series_standings.rebuild``) and the pool of Mü rated
(``ratings.services.pool_sync``, which also fits the chances' scale), so every table has its
chances; then the planner's statistics are brought up to date (``ANALYZE``, as autovacuum does).

A separate process (the project's settings with DEBUG off, every request through Django's whole
stack with its test client, anonymous, in English, accepting gzip as a browser does: the page is
sent compressed) measures for each event:

- the page ``/events/{id}/`` **warm** (the steady state: many readers of one version, its
  standings and rounds read from the cache of the event's version),
- the page **cold** (the first request after a change: the event's version bumped before each
  request, so both regions are rendered; the bump itself is not timed),
- the event's standings API ``/api/v1/events/{id}/standings/``, for comparison,

each as the process's CPU per request (``time.process_time`` over ``--repeats`` requests in chunks
of ``--chunk``: the median of the chunks' means) and the queries of one request. A second process
does the same with the cache pointed at a closed port (``REDIS_URL`` and ``CACHE_URL``
``redis://127.0.0.1:1/0``): every page must answer 200 (the regions are rendered without the cache
and the chances computed). The figures of both events and both processes come from one run.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid

UNREACHABLE = "redis://127.0.0.1:1/0"  # nothing listens there: every connection is refused


def _club(label: str, rounds: int, tables: int, history: int, rng: random.Random):
    """A club of ``4 × tables`` players, ``history`` earlier evenings and the measured event (the
    latest), each of ``rounds`` rounds of ``tables`` tables of 4 with a finished session apiece,
    the tables published before their sessions finished. Returns the event."""
    from django.utils import timezone

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

    # Named apart from any left by an interrupted run (namesakes would cost the names a query more).
    tag = uuid.uuid4().hex[:8]
    club = Club.objects.create(name=f"Event page bench {label} {tag}")
    roster = Player.objects.bulk_create(Player(name=f"{label} {tag} {i}", shown_name=f"{label} {tag} {i}")
                                        for i in range(4 * tables))
    Membership.objects.bulk_create(Membership(player=p, club=club) for p in roster)
    now = timezone.now()
    event = None
    for evening in range(history + 1):
        start = now - datetime.timedelta(days=history + 1 - evening)
        event = Event.objects.create(club=club, name=f"{label} evening {evening + 1}", game="mu", published=True,
                                     starts_on=start.date())
        for number in range(1, rounds + 1):
            round_ = Round.objects.create(event=event, number=number)
            published = start + datetime.timedelta(minutes=40 * number)
            rng.shuffle(roster)
            made = Table.objects.bulk_create(Table(round=round_, number=i + 1) for i in range(tables))
            Table.objects.filter(round=round_).update(created_at=published)
            Seat.objects.bulk_create(Seat(table=t, round=round_, player=p, position=k)
                                     for t in made for k, p in enumerate(roster[4 * (t.number - 1):4 * t.number]))
            Session.objects.bulk_create(
                Session(table=t, status="finished", hand_count=12, rating_dirty_at=now,
                        finished_at=published + datetime.timedelta(minutes=30, seconds=rng.randrange(600)),
                        totals=[rng.randrange(0, 300, 5) for _ in range(4)]) for t in made)
    return event


def _write(rounds: int, tables: int, history: int, factor: int, rng: random.Random):
    """Both clubs, their sums and the Mü pool rated (committed). Returns (event, big event)."""
    from django.db import connection, transaction

    from ratings.services import pool_sync
    from tournaments.standings.series_standings import rebuild

    with transaction.atomic():
        event = _club("Evening", rounds, tables, history, rng)
        big = _club("Long", rounds * factor, tables, history * factor, rng)
        rebuild([pk for club in (event.club_id, big.club_id)
                 for pk in type(event).objects.filter(club=club).values_list("pk", flat=True)])
    pool_sync("mu")  # the sessions were marked as the results' writer marks them; the scale is fitted on commit
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # the planner's statistics, as autovacuum keeps them
            cursor.execute("ANALYZE")
    return event, big


def _delete(events) -> None:
    from django.db import transaction

    from ratings.services import pool_sync
    from tournaments.models import Club, Event, Player

    with transaction.atomic():
        for event in events:
            club = Club.objects.get(pk=event.club_id)
            ids = list(club.players.values_list("pk", flat=True))
            Event.objects.filter(club=club).delete()
            club.delete()
            Player.objects.filter(pk__in=ids).delete()
    pool_sync("mu")  # the pool in step again (its entries of these sessions went with them)


# --- the measuring process ----------------------------------------------------------------------

def _cpu_ms(request, repeats: int, chunk: int, before=None) -> float:
    """The process's CPU per ``request()`` in ms: the median over chunks of ``chunk`` requests of
    their mean; ``before()`` (untimed) runs before each request."""
    means = []
    for _ in range(max(1, repeats // chunk)):
        spent = 0.0
        for _ in range(chunk):
            if before is not None:
                before()
            started = time.process_time()
            request()
            spent += time.process_time() - started
        means.append(spent / chunk)
    return 1000 * statistics.median(means)


def serve(event_ids: list[int], repeats: int, chunk: int) -> dict:
    """In this (separate) process: each event's page warm and cold and its standings API, CPU per
    request and the queries of one."""
    from django.db import connection
    from django.test import Client

    from tournaments import live

    client = Client(HTTP_ACCEPT_LANGUAGE="en", HTTP_ACCEPT_ENCODING="gzip, deflate, br")  # as a browser asks
    statuses: dict[str, int] = {}

    def get(url: str):
        def request():
            response = client.get(url)
            statuses[url] = response.status_code
            if response.status_code != 200:
                raise AssertionError(f"{url} answered {response.status_code}")
            return response
        return request

    def queries(request, before=None) -> int:
        # Counted as they are executed (a request's start empties the log CaptureQueriesContext reads).
        if before is not None:
            before()
        count = []

        def counted(execute, sql, params, many, context):
            count.append(sql)
            return execute(sql, params, many, context)
        with connection.execute_wrapper(counted):
            request()
        return len(count)

    found = {}
    for event_id in event_ids:
        page, api = get(f"/events/{event_id}/"), get(f"/api/v1/events/{event_id}/standings/")
        bump = (lambda event_id=event_id: live.bump_version(event_id))
        figures = {"bytes": len(page().content)}  # the first request fills the cache (and Django's warm-ups)
        api()
        figures["warm_queries"] = queries(page)
        figures["warm_ms"] = _cpu_ms(page, repeats, chunk)
        figures["cold_queries"] = queries(page, bump)
        figures["cold_ms"] = _cpu_ms(page, max(chunk, repeats // 4), chunk, bump)
        figures["api_queries"] = queries(api)
        figures["api_ms"] = _cpu_ms(api, max(chunk, repeats // 4), chunk)
        found[str(event_id)] = figures
    return {"events": found, "statuses": statuses, "cache": live.current_version(event_ids[0]) is not None}


def _database_url() -> str:
    from bench.series import _database_url

    return _database_url()


def _serve_in_a_process(event_ids: list[int], repeats: int, chunk: int, *, unreachable: bool) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench.scale.settings", "DEBUG": "0",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-not-secret"), "ALLOWED_HOSTS": "testserver",
           "DATABASE_URL": _database_url()}
    if unreachable:
        env.update(REDIS_URL=UNREACHABLE, CACHE_URL=UNREACHABLE, CHANNEL_LAYER_URL=UNREACHABLE)
        env.pop("CELERY_BROKER_URL", None)
    command = [sys.executable, "-m", "bench.event_page", "--serve", ",".join(map(str, event_ids)),
               "--repeats", str(repeats), "--chunk", str(chunk)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"the measuring process failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.event_page", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tables", type=int, default=30, help="tables of 4 per round")
    parser.add_argument("--history", type=int, default=2, help="the club's earlier evenings")
    parser.add_argument("--factor", type=int, default=3, help="the second event's rounds and history, times")
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--chunk", type=int, default=20)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stich.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    import django

    django.setup()
    if args.serve is not None:
        print(json.dumps(serve([int(pk) for pk in args.serve.split(",")], args.repeats, args.chunk)))
        return {}
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    event, big = _write(args.rounds, args.tables, args.history, args.factor, random.Random(37))
    written = time.perf_counter() - started
    try:
        up = _serve_in_a_process([event.pk, big.pk], args.repeats, args.chunk, unreachable=False)
        down = _serve_in_a_process([event.pk, big.pk], max(args.chunk, args.repeats // 4), args.chunk,
                                   unreachable=True)
    finally:
        _delete([event, big])
    sessions = args.rounds * args.tables
    figures = {
        "vendor": connection.vendor, "load": os.getloadavg(), "sessions": sessions, "written_s": written,
        "event": up["events"][str(event.pk)], "big": up["events"][str(big.pk)], "cache": up["cache"],
        "down": down["events"][str(event.pk)], "big_down": down["events"][str(big.pk)],
        "down_statuses": down["statuses"], "down_cache": down["cache"],
    }
    history = f"{args.history} and {args.history * args.factor} earlier evenings"
    print(f"event page ({connection.vendor}, tables of 4, {args.tables} a round; {history}; written in {written:.0f} s; "
          f"CPU per request of the serving process, DEBUG off, median of chunks of {args.chunk}; "
          f"load average {' '.join(f'{x:.2f}' for x in figures['load'])})")
    print(f"{'event':>22} {'warm ms':>8} {'q':>3} {'cold ms':>8} {'q':>3} {'API ms':>8} {'q':>3}")
    rows = ((f"{args.rounds} rounds, {sessions} sess.", "event", "down"),
            (f"{args.rounds * args.factor} rounds, {sessions * args.factor} sess.", "big", "big_down"))
    for label, key, _ in rows:
        entry = figures[key]
        print(f"{label:>22} {entry['warm_ms']:>8.1f} {entry['warm_queries']:>3} {entry['cold_ms']:>8.1f} "
              f"{entry['cold_queries']:>3} {entry['api_ms']:>8.1f} {entry['api_queries']:>3}")
    print(f"cache unreachable ({UNREACHABLE}): every page rendered without it")
    for label, _, key in rows:
        entry = figures[key]
        print(f"{label:>22} {entry['warm_ms']:>8.1f} {entry['warm_queries']:>3} {'':>8} {'':>3} "
              f"{entry['api_ms']:>8.1f} {entry['api_queries']:>3}")
    print(f"statuses with the cache unreachable: {sorted(set(figures['down_statuses'].values()))}")
    figures["queries_constant"] = (figures["big"]["warm_queries"] == figures["event"]["warm_queries"]
                                   and figures["big"]["cold_queries"] == figures["event"]["cold_queries"])
    print(f"ratio {args.factor}x rounds and history: cold {figures['big']['cold_ms'] / figures['event']['cold_ms']:.2f}x, "
          f"queries warm {figures['big']['warm_queries']}/{figures['event']['warm_queries']}, "
          f"cold {figures['big']['cold_queries']}/{figures['event']['cold_queries']}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=2)
    return figures


if __name__ == "__main__":
    main()
