"""CPU of one hand submission in-process: ``python -m bench.submission [--flush] [--hands N] [--rounds R] [--series-events E] [--versions] [--phases KIND]``.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.submission --flush

The whole Django stack (middleware, DRF, the service, its statements on the configured database)
is called through Django's test client in this one process, with DEBUG off and the benchmark's
settings (``bench.scale``: its bare DRF endpoint is the baseline). It times this process's CPU
(``time.process_time``), not the wall clock: PostgreSQL's own work, the network and the other
processes of a loaded machine are left out, so the figure moves less than ``bench.scale``'s
(which measures 32 clients through gunicorn). ``--rounds`` alternate a chunk of hand submissions
(four Mü tables whose sessions never finish: every hand changes each player's sums) and a chunk of
bare requests; it reports the median and the best chunk of each, per request, and their ratio.

With ``--series-events`` (default 10; 0: none) each round also has a chunk of hands at four tables
of the current event of a series of that many events (``bench.series.season_in_play``: the others
played, 40 players), and the ratio of their CPU to the hands outside any series. The series'
standings are refreshed after the commit by a Celery task (``tournaments/standings/outbox.py``):
with ``REDIS_URL`` a worker started here (``--pool=solo``) runs it, and its CPU per hand of the
series is reported apart; without, the task runs in this process and is counted in the hand.

``--versions`` alternates, in one run, chunks of hands from scorer tokens whose live versions move
with the web process's next push (``LIVE_COALESCE_SCORER_HANDS``, the default) and chunks whose
versions move before the answer (the setting off), and prints both and their paired difference.

``--phases hand`` (or ``series``, ``bare``) times where a request's CPU goes instead: each of
``PHASES`` (Django's handler, DRF's dispatch, the hands view and the service's steps, psycopg's
execute, model instances built, ...) is wrapped in a timer of this thread's CPU
(``time.thread_time``: the live sender's thread is left out), counted once per outermost call,
and ``--hands`` requests print the milliseconds of each per request, and on PostgreSQL those of
the server process of this connection (its statements and commits). Unlike cProfile, which
charges every Python call, it leaves the code as it runs but for one timer around each phase
(about a microsecond each).

To compare two revisions, run it in a checkout of each (``git worktree add ../old REV``), each on
a database of its own, one after the other; machines are noisy, so run each several times.
"""
from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Self

from bench.proc import cpu_seconds
from bench.scale import prepare
from bench.series import season_in_play

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.submission", description=__doc__.split("\n\n")[0])
    parser.add_argument("--flush", action="store_true", help="empty the configured database first")
    parser.add_argument("--hands", type=int, default=200, help="requests per chunk")
    parser.add_argument("--rounds", type=int, default=5, help="chunks of each kind, alternating")
    parser.add_argument("--series-events", type=int, default=10,
                        help="hands in an event of a series of this many events too (0: none)")
    parser.add_argument("--versions", action="store_true",
                        help="instead: alternate chunks of hands whose live versions move with the push "
                             "(LIVE_COALESCE_SCORER_HANDS, the default) and before the answer, paired")
    parser.add_argument("--profile", choices=["hand", "series", "bare"],
                        help="instead of timing: profile one chunk of that kind (cProfile), print the top functions")
    parser.add_argument("--phases", choices=["hand", "series", "bare"],
                        help="instead of timing: the CPU of each of PHASES per request of that kind (--hands requests)")
    args = parser.parse_args()
    if "series" in (args.profile, args.phases) and not args.series_events:
        parser.error("--profile series and --phases series need --series-events")
    prepare(flush=args.flush, allowed_hosts="testserver")
    from django.db import connection
    from django.test import Client

    from games.simulate.mu import random_record
    from ratings.management.commands.load_league import create_players
    from tournaments.models import Club, Event, Round
    from tournaments.services import table_create

    club = Club.objects.create(name="Bench club")
    people = create_players(club, 16)
    event = Event.objects.create(club=club, name="Bench submission", game="mu", published=True,
                                 mu_fixed_deals=1_000_000)
    round_ = Round.objects.create(event=event, number=1)
    tables = [table_create(round_=round_, number=n + 1, players=people[4 * n:4 * n + 4], by_user=None)
              for n in range(4)]
    rng = random.Random(17)
    records = [[json.dumps(random_record(rng, 4, dealer=dealer)) for _ in range(50)] for dealer in range(4)]
    client = Client()
    series_tables = season_in_play(events=args.series_events, tables=4, rng=rng)[1] if args.series_events else []
    worker = _worker() if args.series_events and os.environ.get("REDIS_URL") else None

    def submitter(at: list):
        sent = [0]

        def hands(count: int) -> None:
            for _ in range(count):
                number = sent[0]
                table, slot = at[number % 4], number // 4
                response = client.post(f"/api/v1/tables/{table.pk}/hands/", records[slot % 4][slot % 50],
                                       content_type="application/json", HTTP_X_SCORER_TOKEN=table.scorer_token)
                if response.status_code != 201:
                    sys.exit(f"a hand was refused: {response.status_code} {response.content[:300]!r}")
                sent[0] += 1
        return hands

    hands = submitter(tables)
    series_hands = submitter(series_tables)

    def bare(count: int) -> None:
        for number in range(count):
            response = client.post("/bench/bare/", records[0][number % 50], content_type="application/json")
            if response.status_code != 201:
                sys.exit(f"the bare endpoint answered {response.status_code}")

    def timed(run) -> float:
        started = time.process_time()
        run(args.hands)
        return (time.process_time() - started) * 1000 / args.hands

    times = {"hand submission": [], "bare DRF": []}
    worker_ms = []
    try:
        hands(40)  # connections opened, statements prepared
        bare(40)
        if series_tables:
            series_hands(40)
            times["hand in a series"] = []
        kinds = {"hand": hands, "series": series_hands, "bare": bare}
        if args.profile:
            _profile(kinds[args.profile], args.hands)
            return
        if args.phases:
            _print_phases(kinds[args.phases], args.hands)
            return
        if args.versions:
            _versions(hands, bare, args)
            return
        for _ in range(args.rounds):
            times["hand submission"].append(timed(hands))
            if series_tables:
                spent = _cpu(worker)
                times["hand in a series"].append(timed(series_hands))
                if worker is not None:
                    _wait_synced()
                    worker_ms.append((_cpu(worker) - spent) * 1000 / args.hands)
            times["bare DRF"].append(timed(bare))
    finally:
        if worker is not None:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
    median = {name: statistics.median(values) for name, values in times.items()}
    best = {name: min(values) for name, values in times.items()}
    print(f"CPU per request of this process ({args.rounds} chunks of {args.hands}, {connection.vendor}):")
    for name in times:
        print(f"  {name}: median {median[name]:.3f} ms, best {best[name]:.3f} ms")
    print(f"  hand submission / bare: median {median['hand submission'] / median['bare DRF']:.2f}x, "
          f"best {best['hand submission'] / best['bare DRF']:.2f}x "
          f"(bare / hand: {median['bare DRF'] / median['hand submission']:.1%})")
    if series_tables:
        print(f"  hand in a series of {args.series_events} events / hand outside any series: median "
              f"{median['hand in a series'] / median['hand submission']:.2f}x, "
              f"best {best['hand in a series'] / best['hand submission']:.2f}x")
        if worker_ms:
            print(f"  the worker's CPU per hand in the series (its refreshes, coalesced): median "
                  f"{statistics.median(worker_ms):.3f} ms")
        else:
            print("  (no REDIS_URL: the series' refresh ran in this process, on each hand's commit)")


def _versions(hands, bare, args) -> None:
    """Chunks of hands with the live versions moved by the sender (a scorer's hand, coalesced) and
    before the answer, taking turns (each chunk's last delivery inside its time), and bare requests:
    the CPU per hand of each and their paired difference."""
    from django.test import override_settings

    from tournaments import live

    def chunk(coalesce: bool) -> float:
        with override_settings(LIVE_COALESCE_SCORER_HANDS=coalesce):
            started = time.process_time()
            hands(args.hands)
            live._sender.flush()  # what the sender still holds, inside this chunk's time
            return (time.process_time() - started) * 1000 / args.hands

    kinds = {"with the push": [], "before the answer": []}
    bare_ms = []
    for number in range(args.rounds):
        for coalesce in ((True, False) if number % 2 == 0 else (False, True)):
            kinds["with the push" if coalesce else "before the answer"].append(chunk(coalesce))
        started = time.process_time()
        bare(args.hands)
        bare_ms.append((time.process_time() - started) * 1000 / args.hands)
    pairs = [later - sooner for later, sooner in zip(kinds["before the answer"], kinds["with the push"])]
    print(f"CPU per request of this process ({args.rounds} rounds of {args.hands}, the kinds alternating):")
    for name, values in kinds.items():
        print(f"  hands, live versions moved {name}: median {statistics.median(values):.3f} ms, "
              f"/ bare {statistics.median(values) / statistics.median(bare_ms):.2f}x")
    print(f"  bare DRF: median {statistics.median(bare_ms):.3f} ms")
    print(f"  paired, before the answer - with the push: median {statistics.median(pairs):.3f} ms a hand, "
          f"more in {sum(pair > 0 for pair in pairs)} of {len(pairs)} rounds")


def _profile(run, count: int) -> None:
    import cProfile
    import pstats

    run(count)  # warm
    profiler = cProfile.Profile(time.process_time)  # this process's CPU, not the waits
    profiler.runcall(run, count)
    profiler.dump_stats("submission.prof")  # for pstats or snakeviz
    stats = pstats.Stats(profiler).strip_dirs()
    stats.sort_stats("tottime").print_stats(40)
    stats.sort_stats("cumulative").print_stats(60)


# What ``--phases`` times, each inclusive of what it calls: (label, module, attribute path).
PHASES = (
    ("the request (Django's handler)", "django.core.handlers.base", "BaseHandler.get_response"),
    ("URL resolution", "django.urls.resolvers", "URLResolver.resolve"),
    ("DRF's dispatch", "rest_framework.views", "APIView.dispatch"),
    ("authentication, permissions, throttles", "rest_framework.views", "APIView.initial"),
    ("the hands view", "tournaments.api.hands", "TableHandsView.post"),
    ("the body read", "tournaments.results.services", "Entry.read"),
    ("the table read (one statement)", "tournaments.results.sql", "read_table"),
    ("the engine", "tournaments.results.services", "validate"),
    ("the store (one statement)", "tournaments.results.sql", "store_hand"),
    ("the announcement", "tournaments.results.services", "announce_table_results_changed"),
    ("django-csp's headers", "csp.middleware", "CSPMiddleware.process_response"),
    ("the answer rendered", "rest_framework.renderers", "JSONRenderer.render"),
    ("psycopg's execute", "psycopg", "Cursor.execute"),
    ("model instances built", "django.db.models.base", "Model.__init__"),
    ("fields prepared for a statement", "tournaments.results.sql", "_prepared_values"),
)


class Phases:
    """Timers of this thread's CPU around callables named by (label, module, attribute path),
    installed by ``with`` and removed after it. A phase's time counts from its outermost call to
    its return (a recursive one, such as URL resolution, is not counted twice), in the thread that
    installed them only (the live sender's calls are not timed); ``spent`` and ``calls`` are per
    label."""

    def __init__(self, phases) -> None:
        self.spent, self.calls, self._patches, self._thread = {}, {}, [], threading.get_ident()
        for label, module, path in phases:
            owner = importlib.import_module(module)
            *parents, name = path.split(".")
            for parent in parents:
                owner = getattr(owner, parent)
            # A class's own attribute: an inherited one fails here rather than be copied onto it.
            original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
            self._patches.append((owner, name, original, label))
            self.spent[label], self.calls[label] = 0.0, 0

    def _timed(self, original, label):
        inside = False

        @functools.wraps(original)
        def timed(*args, **kwargs):
            nonlocal inside
            if inside or threading.get_ident() != self._thread:
                return original(*args, **kwargs)
            inside = True
            started = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.spent[label] += time.thread_time() - started
                self.calls[label] += 1
                inside = False
        return timed

    def __enter__(self) -> Self:
        for owner, name, original, label in self._patches:
            setattr(owner, name, self._timed(original, label))
        return self

    def __exit__(self, *exc) -> None:
        for owner, name, original, _ in reversed(self._patches):
            setattr(owner, name, original)


def _print_phases(run, count: int) -> None:
    """``PHASES`` per request of ``run``, and on PostgreSQL the CPU of the server process of this
    connection (its statements and their commits)."""
    from django.db import connection

    backend = None
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backend = cursor.fetchone()[0]
    server = cpu_seconds(backend) if backend else 0.0
    with Phases(PHASES) as phases:
        started = time.thread_time()
        run(count)
        whole = time.thread_time() - started
    print(f"CPU of this thread per request ({count} requests): {whole * 1000 / count:.3f} ms in all, of which")
    for label, _, _ in PHASES:
        if phases.calls[label]:
            print(f"  {label}: {phases.spent[label] * 1000 / count:.3f} ms "
                  f"({phases.calls[label] / count:g} calls a request)")
    if backend:
        print(f"PostgreSQL's process of this connection: {(cpu_seconds(backend) - server) * 1000 / count:.3f} ms "
              "of CPU per request")


def _worker() -> subprocess.Popen:
    """A Celery worker (one process) for the series' refreshes, on the configured broker."""
    from stich.celery import app

    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "stich", "worker", "--pool=solo", "--loglevel=WARNING",
         "--without-gossip", "--without-mingle", "--hostname", f"bench-submission-{os.getpid()}@%h"],
        cwd=ROOT, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not app.control.ping(timeout=1.0, limit=1):
        if process.poll() is not None or time.monotonic() > deadline:
            sys.exit("the Celery worker did not start")
    return process


def _cpu(process: subprocess.Popen | None) -> float:
    """CPU seconds a process has spent (Linux /proc; 0 elsewhere or without one)."""
    return 0.0 if process is None else cpu_seconds(process.pid)


def _wait_synced(seconds: float = 60.0) -> None:
    from tournaments.models import SeriesSyncRequest

    deadline = time.monotonic() + seconds
    while SeriesSyncRequest.objects.exists():
        if time.monotonic() > deadline:
            sys.exit("the worker did not sync the series")
        time.sleep(0.02)


if __name__ == "__main__":
    main()
