"""``python -m bench.scale``: the service at a club's first evenings and after years of history.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.scale [--flush] [--quick]

Loads into the configured database (empty, or emptied with ``--flush``), in one run:

- **small**: a generated league of 1,000 finished sessions with 2,000 hands (100 of Mü, the pool
  measured, and 900 of Mit List und Tücke), a real Mü evening played hand by hand through the
  services (3 rounds of 8 tables), and 2,000 players;
- **large**: the same plus 114,000 Mü sessions with about 200,000 hands (``--large-sessions``;
  ``--quick`` loads 10,000).

At each scale a gunicorn of the project (DEBUG off, ``--workers``, persistent connections) serves
the reads of issue 17's table, timed over HTTP (p50 of ``--repeats``) and counted in queries
in-process, and, with ``REDIS_URL``, a live Celery worker rates finished sessions: the time from
the response to a session's last hand to its pool entry (p95 of ``--sessions-timed``). Without
``REDIS_URL`` the sync runs in-process and that time is the sync's. At the large scale, 32 clients
(``--clients``) each submit hands to a table of their own for ``--duration`` seconds, against a
bare DRF endpoint of the same server (the kinds of requests take turns in ``--chunks`` chunks);
last, the web workers' peak memory.

With ``--series-events N`` the throughput run also has the 32 clients submit to the tables of the
current event of a series of N events (``bench.series.season_in_play``: N - 1 played evenings)
and compares their hands/s with the hands outside any series; with ``REDIS_URL`` the live worker
refreshes the series' kept standings after the commits (tournaments/standings/outbox.py), and a
sampler times, every 0.2 s, how long after the newest hand's sync request (written in its
transaction) the worker has synced it: the standings' visibility after a commit (p50, p95).

Ratios are measured in one run: machines are noisy.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.proc import PROC, cpu_seconds, stat
from bench.scale import prepare

ROOT = Path(__file__).resolve().parents[2]
CLUB = "Bench club"
PLAYERS = 2000


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--flush", action="store_true", help="empty the configured database first")
    parser.add_argument("--quick", action="store_true", help="a large scale of 10,000 sessions, shorter runs")
    parser.add_argument("--large-sessions", type=int, default=114_000)
    parser.add_argument("--repeats", type=int, default=30, help="requests per read and scale")
    parser.add_argument("--sessions-timed", type=int, default=20, choices=range(1, 42), metavar="1-41",
                        help="finished sessions timed per scale")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per throughput run")
    parser.add_argument("--chunks", type=int, default=3,
                        help="each throughput run in this many chunks, the kinds taking turns (bare, dry run, "
                             "hands, hands in a series, again): a slower or faster spell of the machine falls on "
                             "every kind, not on one")
    parser.add_argument("--warmup", type=float, default=2.0,
                        help="throughput: seconds of each kind, untimed, before the rounds (0: none)")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers (deploy/compose.yaml: 3)")
    parser.add_argument("--series-events", type=int, default=0,
                        help="throughput: also hands in an event of a series of this many events")
    parser.add_argument("--throughput-only", action="store_true",
                        help="only hand submission against the bare endpoint, on an otherwise empty database")
    parser.add_argument("--wrk", action="store_true",
                        help="throughput: wrk sends the requests (-t and -c: --clients; a connection, a thread and a "
                             "table per client), not this process's threads")
    args = parser.parse_args()
    if args.wrk and shutil.which("wrk") is None:
        parser.error("--wrk: no wrk on PATH")
    if args.quick:
        args.large_sessions, args.repeats, args.sessions_timed, args.duration = 10_000, 15, 10, 8.0

    os.environ["DRY_RUN_THROTTLE"] = "1000000/s"  # the dry run's throughput, not its limit
    prepare(flush=args.flush)

    bench = Bench(args)
    rows = {}
    if args.throughput_only:
        try:
            bench.load_players()
            bench.start()
            throughput = bench.throughput()
            rss = bench.server.peak_rss_mib()
        finally:
            bench.stop()
        report_throughput(throughput, rss, bench)
        return
    try:
        bench.load_small()
        rows["small"] = bench.measure("small")
        bench.load_large()
        rows["large"] = bench.measure("large")
        throughput = bench.throughput()
        rss = bench.server.peak_rss_mib()
    finally:
        bench.stop()
    report(rows, throughput, rss, bench)


def _spent(after, before) -> float:
    """CPU-seconds spent between two readings of ``cpu()``. Per process for PostgreSQL (its
    backends come and go: a Celery task's connection closes after the task): each process alive at
    the end counts what it spent since the first reading, or since it started. A total over the
    processes would subtract the whole earlier CPU of a backend that exited meanwhile (the series'
    hands showed 0.2 ms of PostgreSQL against 0.6 ms outside a series so); a backend that started
    and exited between the readings is not counted."""
    if isinstance(after, dict):
        before = before or {}
        return sum(spent - before.get(key, 0.0) for key, spent in after.items())
    return after - (before or 0.0)


def _merged(runs: list[dict]) -> dict:
    """The figures of one kind's chunks together: requests per second of their time, the latencies'
    p50 and p99, the CPU per request of each process."""
    elapsed = sum(run["elapsed"] for run in runs)
    cpu: dict[str, float] = {}
    for run in runs:
        for name, spent in run["cpu_s"].items():
            cpu[name] = cpu.get(name, 0.0) + spent
    if runs and "latencies" not in runs[0]:
        # wrk's chunks: its own percentiles per chunk; the p50 is their median, the p99 their
        # largest (never lower than the merged one).
        requests = sum(run["requests"] for run in runs)
        return {"per_second": requests / elapsed, "p50": statistics.median(run["p50"] for run in runs),
                "p99": max(run["p99"] for run in runs), "errors": sum(run["errors"] for run in runs),
                "requests": requests, "cpu_ms": {name: spent * 1000 / requests for name, spent in cpu.items()}}
    every = sorted(t for run in runs for t in run["latencies"])
    return {"per_second": len(every) / elapsed, "p50": every[len(every) // 2],
            "p99": every[min(len(every) - 1, int(0.99 * len(every)))], "errors": sum(run["errors"] for run in runs),
            "requests": len(every), "cpu_ms": {name: spent * 1000 / len(every) for name, spent in cpu.items()}}


def _rate(run: dict) -> float:
    """One chunk's requests per second."""
    return (run["requests"] if "requests" in run else len(run["latencies"])) / run["elapsed"]


def _paired(chunks: dict[str, list[dict]]) -> dict[str, list[float]]:
    """The ratios of each round's chunks, which ran back to back (a spell of a slower or faster
    machine moves both sides of a pair): hand submission / bare and, with a series, hands in the
    series / hands outside."""
    rounds = [dict(zip(chunks, one)) for one in zip(*chunks.values())]  # kind -> its chunk of the round
    paired = {"hands / bare": [_rate(one["hands"]) / _rate(one["bare"]) for one in rounds]}
    if "series hands" in chunks:
        paired["series / outside"] = [_rate(one["series hands"]) / _rate(one["hands"]) for one in rounds]
    return paired


def _settled(series_id: int, seconds: float = 30.0) -> None:
    """Wait (up to ``seconds``) until the worker has settled the series' sync requests."""
    from django.db import connection

    from tournaments.models import SeriesSyncRequest

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and SeriesSyncRequest.objects.filter(series_id=series_id).exists():
        time.sleep(0.05)
    connection.close()


class Bench:
    def __init__(self, args) -> None:
        self.args = args
        self.rng = random.Random(17)
        self.server: Server | None = None
        self.worker: subprocess.Popen | None = None
        self.hands = {"small": 0, "large": 0}
        self.sessions = {"small": 0, "large": 0}
        self.pool = {}

    # --- loading -------------------------------------------------------------------------------

    def load_players(self) -> None:
        from ratings.management.commands.load_league import create_players
        from tournaments.models import Club

        self.club = Club.objects.create(name=CLUB)
        self.people = create_players(self.club, PLAYERS)

    def load_small(self) -> None:
        from ratings.generated import generate_league
        from ratings.management.commands.load_league import write_league
        from ratings.services import pool_sync
        from tournaments.models import Event

        self.load_players()
        _, mu = generate_league(players=PLAYERS, sessions=100, seed=1)
        _, lut = generate_league(players=PLAYERS, sessions=900, seed=2)
        write_league(mu, people=self.people, club=self.club, game="mu", name="Mü history", hands_of=lambda i: 2)
        write_league(lut, people=self.people, club=self.club, game="lut", name="LuT history", hands_of=lambda i: 2)
        self.evening = Event.objects.create(club=self.club, name="Bench evening", game="mu", published=True,
                                            mu_fixed_deals=6)
        self.timed = Event.objects.create(club=self.club, name="Bench timed sessions", game="mu", published=True,
                                          mu_fixed_deals=6)
        self.play_evening()
        for game in ("mu", "lut"):
            pool_sync(game)
        analyse()

    def play_evening(self) -> None:
        """Three rounds of eight tables, every hand through ``results.hand_submit``."""
        from ratings.management.commands.load_league import create_players
        from tournaments.models import Round
        from tournaments.results.services import Entry, hand_submit
        from tournaments.services import table_create

        # Players of this evening only: the player page read shows the same at both scales.
        players = create_players(self.club, 32, prefix="Evening player")
        for number in range(1, 4):
            round_ = Round.objects.create(event=self.evening, number=number)
            order = players[:]
            self.rng.shuffle(order)
            for index in range(8):
                table = table_create(round_=round_, number=index + 1, players=order[4 * index:4 * index + 4], by_user=None)
                for hand in range(6):
                    hand_submit(table_id=table.pk, entry=Entry(mu_record(self.rng, hand % 4)))
        self.player = players[0]

    def load_large(self) -> None:
        from ratings.generated import generate_league
        from ratings.management.commands.load_league import write_league
        from ratings.services import pool_sync

        self.stop()
        started = time.perf_counter()
        _, mu = generate_league(players=PLAYERS, sessions=self.args.large_sessions, seed=3)
        # About 200,000 hands over 115,000 sessions: two hands for three sessions of four.
        write_league(mu, people=self.people, club=self.club, game="mu", name="Mü years", hands_of=lambda i: 1 if i % 4 == 0 else 2)
        print(f"large league written in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        started = time.perf_counter()
        pool_sync("mu")
        print(f"large pool rated in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        analyse()

    # --- measuring -----------------------------------------------------------------------------

    def measure(self, scale: str) -> dict:
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext

        from ratings.models import PoolEntry
        from tournaments.models import Hand, Session

        self.hands[scale] = Hand.objects.count()
        self.sessions[scale] = Session.objects.count()
        self.pool[scale] = PoolEntry.objects.filter(game="mu").count()
        self.start()
        reads = {
            "standings": f"/api/v1/events/{self.evening.pk}/standings/",
            "event page": f"/events/{self.evening.pk}/",
            "player page": f"/players/{self.player.pk}/",
            "leaderboard API": "/api/v1/ratings/leaderboard/?game=mu",
            "leaderboard page": "/leaderboard/mu/",
        }
        result = {}
        client = Client()
        for name, url in reads.items():
            times = []
            for _ in range(self.args.repeats):
                started = time.perf_counter()
                status, _ = self.server.request("GET", url)
                times.append(time.perf_counter() - started)
                assert status == 200, (url, status)
            with CaptureQueriesContext(connection) as captured:
                assert client.get(url).status_code == 200
            result[name] = (statistics.median(times), len(captured))
        result["finished session → pool (p95)"] = (self.rating_latency(scale), None)
        return result

    def rating_latency(self, scale: str) -> float:
        """From the response to a session's last hand to the session's pool entry."""
        from ratings.models import PoolEntry
        from ratings.services import pool_sync
        from tournaments.models import Round, Session
        from tournaments.services import table_create

        round_ = Round.objects.create(event=self.timed, number=len(self.pool))
        if self.worker is not None:
            # The worker's first task loads the compiled rater (ratings/league.py); time the steady state.
            from ratings.tasks import pool_sync as task

            task.delay("mu").get(timeout=300)
        times = []
        for number in range(self.args.sessions_timed):
            seated = self.people[4 * number:4 * number + 4]  # once per round
            table = table_create(round_=round_, number=number + 1, players=seated, by_user=None)
            for hand in range(6):
                status, body = self.server.request("POST", f"/api/v1/tables/{table.pk}/hands/", mu_record(self.rng, hand % 4),
                                                   {"X-Scorer-Token": table.scorer_token})
                assert status == 201, body
            finished = time.perf_counter()
            session = Session.objects.get(table=table)
            if self.worker is None:
                pool_sync("mu")
            while not PoolEntry.objects.filter(session=session).exists():
                time.sleep(0.002)
                if time.perf_counter() - finished > 120:
                    raise RuntimeError("no pool entry after 120 s: is the worker running?")
            times.append(time.perf_counter() - finished)
        times.sort()
        return times[max(0, round(0.95 * len(times)) - 1)]

    def throughput(self) -> dict:
        """Hand submissions against the bare endpoint: ``--clients`` threads, a table each."""
        from tournaments.models import Event, Round
        from tournaments.services import table_create

        event = Event.objects.create(club=self.club, name="Bench throughput", game="mu", published=True,
                                     mu_fixed_deals=1_000_000)
        round_ = Round.objects.create(event=event, number=1)
        players = self.people[200:200 + 4 * self.args.clients]
        tables = [table_create(round_=round_, number=n + 1, players=players[4 * n:4 * n + 4], by_user=None)
                  for n in range(self.args.clients)]
        records = [[mu_record(self.rng, dealer) for _ in range(50)] for dealer in range(4)]
        kinds = {
            "bare": (lambda client, n: ("/bench/bare/", records[n % 4][n % 50], {}), 201),
            # The engine's dry run (validation only, nothing stored; its rate raised in main(), its
            # throttle still reads and writes the cache): a request that judges a record, no database.
            "dry run": (lambda client, n: ("/api/v1/records/validate", records[n % 4][n % 50], {}), 200),
            "hands": (lambda client, n: (f"/api/v1/tables/{tables[client].pk}/hands/", records[n % 4][n % 50],
                                         {"X-Scorer-Token": tables[client].scorer_token}), 201),
        }
        tables_of = {"hands": tables}
        sampler = series = None
        if self.args.series_events:
            from bench.series import season_in_play

            series, at = season_in_play(events=self.args.series_events, tables=self.args.clients, rng=self.rng)
            sampler = Visibility(series.pk) if self.worker is not None else None
            tables_of["series hands"] = at
            kinds["series hands"] = (lambda client, n: (f"/api/v1/tables/{at[client].pk}/hands/",
                                                        records[n % 4][n % 50],
                                                        {"X-Scorer-Token": at[client].scorer_token}), 201)
        # The kinds take turns, a chunk each (``--chunks``), so that a spell of a slower machine
        # falls on all of them; a table's hands go on where its previous chunk stopped.
        counters = {kind: [0] * self.args.clients for kind in kinds}
        chunks: dict[str, list[dict]] = {kind: [] for kind in kinds}

        def chunk(kind: str, duration: float, sampled: bool = True) -> dict:
            next_request, ok = kinds[kind]
            run = self.load(next_request, ok=ok, counters=counters[kind], duration=duration,
                            sampler=sampler if sampled and kind == "series hands" else None)
            if self.args.wrk and kind in tables_of:
                # wrk ends with requests in flight, which the server still stores: each
                # table's next hand is what its current session counts.
                time.sleep(1.0)
                counters[kind][:] = _hand_counts(tables_of[kind])
            if kind == "series hands":
                _settled(series.pk)  # the chunk's last sync does not run into the next kind's
            return run

        if self.args.warmup > 0:
            # Each kind once, untimed: the workers' first requests (lazy imports, connections,
            # statements prepared) would otherwise fall on the first round, on the bare request
            # most (it runs first, and warms the code that every kind runs after it).
            for kind in kinds:
                chunk(kind, self.args.warmup, sampled=False)
        for _ in range(self.args.chunks):
            for kind in kinds:
                chunks[kind].append(chunk(kind, self.args.duration / self.args.chunks))
        answer = {kind: _merged(runs) for kind, runs in chunks.items()}
        answer["rounds"] = _paired(chunks)
        if sampler is not None:
            answer["series visible"] = sampler.figures()
        return answer

    def load(self, next_request, *, ok: int, counters: list[int], duration: float, sampler=None) -> dict:
        """``--clients`` threads sending ``next_request(client, n)`` for ``duration`` seconds;
        ``counters``: each client's count of answered requests, where its ``n`` goes on from (kept
        across chunks)."""
        if self.args.wrk:
            return self.load_wrk(next_request, ok=ok, counters=counters, duration=duration, sampler=sampler)
        deadline = time.perf_counter() + duration
        latencies: list[list[float]] = [[] for _ in range(self.args.clients)]
        errors = [0] * self.args.clients

        def client(index: int) -> None:
            number = counters[index]
            while time.perf_counter() < deadline:
                url, body, headers = next_request(index, number)
                started = time.perf_counter()
                try:
                    status, _ = self.server.request("POST", url, body, headers)
                except OSError:
                    status = 0
                latencies[index].append(time.perf_counter() - started)
                if status == ok:
                    number += 1
                else:
                    errors[index] += 1
            counters[index] = number

        cpu_before = self.cpu()
        started = time.perf_counter()
        threads = [threading.Thread(target=client, args=(index,)) for index in range(self.args.clients)]
        if sampler is not None:
            threads.append(threading.Thread(target=sampler.run, args=(deadline,)))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        cpu = {name: _spent(spent, cpu_before.get(name)) for name, spent in self.cpu().items()}
        return {"elapsed": elapsed, "latencies": [t for client_times in latencies for t in client_times],
                "errors": sum(errors), "cpu_s": cpu}

    def load_wrk(self, next_request, *, ok: int, counters: list[int], duration: float, sampler=None) -> dict:
        """The same requests sent by wrk (``--wrk``): a thread and a connection per client, each
        sending its client's ``next_request(client, n)``, ``n`` counting its answers with status
        ``ok`` (the requests repeat every 100: ``mu_record``'s bodies by dealer and number). wrk's
        CPU is counted with this process's as the clients'."""
        bodies = [[next_request(client, counters[client] + step) for step in range(100)]
                  for client in range(self.args.clients)]
        cpu_before = self.cpu()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        sampling = None
        if sampler is not None:
            sampling = threading.Thread(target=sampler.run, args=(started + duration,))
            sampling.start()
        clients = str(self.args.clients)
        with tempfile.TemporaryDirectory() as folder:
            script, summary = Path(folder) / "requests.lua", Path(folder) / "summary.txt"
            script.write_text(_wrk_script(bodies, ok, str(summary)))
            ran = subprocess.run(["wrk", "-t", clients, "-c", clients, "-d", f"{max(1, round(duration))}s",
                                  "-s", str(script), f"http://127.0.0.1:{self.server.port}/"],
                                 check=False, capture_output=True, text=True)
            if ran.returncode:
                raise RuntimeError(f"wrk failed: {ran.stderr or ran.stdout}")
            figures = dict(line.split() for line in summary.read_text().splitlines())
        elapsed = time.perf_counter() - started
        if sampling is not None:
            sampling.join()
        spent = resource.getrusage(resource.RUSAGE_CHILDREN)
        wrk_cpu = spent.ru_utime + spent.ru_stime - children.ru_utime - children.ru_stime
        cpu = {name: _spent(value, cpu_before.get(name)) for name, value in self.cpu().items()}
        cpu["clients"] = cpu.get("clients", 0.0) + wrk_cpu
        for client in range(self.args.clients):
            counters[client] += int(figures[f"n{client + 1}"])  # its answers with status ``ok``
        return {"elapsed": elapsed, "requests": int(figures["requests"]), "errors": int(figures["errors"]),
                "p50": float(figures["p50"]) / 1e6, "p99": float(figures["p99"]) / 1e6, "cpu_s": cpu}

    def cpu(self) -> dict:
        """CPU seconds spent so far by the web workers, PostgreSQL's and Redis' processes on this
        machine (per process: see ``_spent``) and this process (the clients), from /proc (Linux; empty elsewhere)."""
        if not (PROC / "self" / "stat").exists():
            return {}
        postgres, redis_server = {}, {}
        for entry in PROC.iterdir():
            if entry.name.isdigit():
                try:
                    comm = (entry / "comm").read_text().strip()
                    if comm in ("postgres", "postmaster", "redis-server"):
                        found = stat(entry.name)
                        if found is not None:
                            (redis_server if comm == "redis-server" else postgres)[entry.name, found[0]] = found[1]
                except OSError:
                    pass
        times = os.times()
        return {"web workers": sum(cpu_seconds(pid) for pid in self.server.workers()), "PostgreSQL": postgres,
                "Redis": redis_server, "clients": times.user + times.system,
                **({"Celery worker": cpu_seconds(self.worker.pid)} if self.worker is not None else {})}

    # --- processes -----------------------------------------------------------------------------

    def start(self) -> None:
        self.server = Server(self.args.workers)
        if os.environ.get("REDIS_URL"):
            self.worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "stich", "worker", "--pool=solo", "--loglevel=WARNING",
                 "--without-gossip", "--without-mingle", "--hostname", f"bench-{os.getpid()}@%h"],
                cwd=ROOT, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            time.sleep(4.0)  # the worker connects to the broker
        self.server.wait()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self.worker is not None:
            self.worker.send_signal(signal.SIGTERM)
            self.worker.wait(timeout=60)
            self.worker = None


def _hand_counts(tables) -> list[int]:
    """Each table's next hand as its client counts them: its current session's hands."""
    from tournaments.models import Session

    counts = dict(Session.objects.filter(table__in=tables).order_by("table_id", "number")
                  .values_list("table_id", "hand_count"))
    return [counts.get(table.pk, 0) for table in tables]


def _lua(text: str) -> str:
    return "[==[" + text + "]==]"


def _wrk_script(bodies: list[list[tuple]], ok: int, summary: str) -> str:
    """wrk's script: thread ``i`` sends ``bodies[i][n % 100]`` (path, body, headers), ``n`` counting
    its answers with status ``ok``; at the end the requests, the other answers, each thread's ``n``
    and the latencies' p50 and p99 (microseconds) are written to ``summary``."""
    rows = []
    for client in bodies:
        rows.append("{" + ",".join(
            "{" + _lua(url) + "," + _lua(json.dumps(body)) + ",{"
            + ",".join(f"[ {_lua(name)} ]={_lua(value)}" for name, value in {"Content-Type": "application/json",
                                                                         **headers}.items()) + "}}"
            for url, body, headers in client) + "}")
    return f"""local requests_of = {{{",".join(rows)}}}
local threads = {{}}
function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end
function init(args)
  n = 0
  errors = 0
  mine = requests_of[id]
end
function request()
  local r = mine[(n % 100) + 1]
  return wrk.format("POST", r[1], r[3], r[2])
end
function response(status, headers, body)
  if status == {ok} then n = n + 1 else errors = errors + 1 end
end
function done(summary, latency, requests)
  local out = io.open({_lua(summary)}, "w")
  local errors = 0
  for i, thread in ipairs(threads) do
    errors = errors + thread:get("errors")
    out:write("n" .. i .. " " .. thread:get("n") .. "\\n")
  end
  out:write("requests " .. summary.requests .. "\\n")
  out:write("errors " .. (errors + summary.errors.connect + summary.errors.read + summary.errors.write
                          + summary.errors.timeout) .. "\\n")
  out:write("p50 " .. latency:percentile(50) .. "\\n")
  out:write("p99 " .. latency:percentile(99) .. "\\n")
  out:close()
end
"""


class Visibility:
    """How long after a hand's commit its series' kept standings are synced: every ``every``
    seconds, the newest sync request of the series (written in the newest hand's transaction, at
    its statement's time) is followed until the worker has settled it."""

    def __init__(self, series_id: int, every: float = 0.2) -> None:
        self.series_id, self.every, self.delays, self.left = series_id, every, [], 0

    def run(self, deadline: float) -> None:
        from django.db import connection
        from django.utils import timezone

        from tournaments.models import SeriesSyncRequest

        try:
            while time.perf_counter() < deadline:
                time.sleep(self.every)
                newest = (SeriesSyncRequest.objects.filter(series_id=self.series_id).order_by("-pk")
                          .values_list("pk", "requested_at").first())
                if newest is None:
                    continue  # synced already: nothing pending to follow
                while SeriesSyncRequest.objects.filter(pk=newest[0]).exists():
                    # A light poll: the load is what is measured. The sampler shares the machine
                    # with the service (a query every 25 ms cost 2 % of its CPU, only in the series'
                    # run); each delay is read up to this much late.
                    time.sleep(0.1)
                    if time.perf_counter() > deadline + 60:
                        self.left += 1
                        return
                self.delays.append((timezone.now() - newest[1]).total_seconds())
        finally:
            connection.close()

    def figures(self) -> dict:
        delays = sorted(self.delays)
        if not delays:
            return {"samples": 0, "left": self.left}
        return {"samples": len(delays), "left": self.left, "p50": delays[len(delays) // 2],
                "p95": delays[min(len(delays) - 1, int(0.95 * len(delays)))], "max": delays[-1]}


class Server:
    """gunicorn from this environment on a free loopback port, DEBUG off."""

    def __init__(self, workers: int) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "stich.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--workers", str(workers), "--backlog", "2048", "--log-level", "warning"],
            cwd=ROOT, env=os.environ.copy(),
        )
        self.peak = {}

    def wait(self) -> None:
        for _ in range(300):
            try:
                if self.request("GET", "/healthz")[0] in (200, 503):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("gunicorn did not start")

    def request(self, method: str, url: str, body=None, headers: dict | None = None) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            payload = None if body is None else json.dumps(body)
            connection.request(method, url, payload, {"Content-Type": "application/json", **(headers or {})})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def workers(self) -> list[int]:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []

    def peak_rss_mib(self) -> float | None:
        """The largest peak resident size (VmHWM) of the web workers, in MiB (Linux)."""
        peaks = []
        for pid in self.workers():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peaks.append(int(line.split()[1]) / 1024)
        return max(peaks) if peaks else None

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


def analyse() -> None:
    """Fresh planner statistics after a bulk load, as autovacuum would gather them soon after."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def mu_record(rng: random.Random, dealer: int) -> dict:
    from games.simulate.mu import random_record

    return random_record(rng, 4, dealer=dealer)


def report(rows: dict, throughput: dict, rss: float | None, bench: Bench) -> None:
    small, large = rows["small"], rows["large"]
    print(f"\nscales: small {bench.hands['small']:,} hands / {bench.sessions['small']:,} sessions (Mü pool "
          f"{bench.pool['small']:,}); large {bench.hands['large']:,} hands / {bench.sessions['large']:,} sessions "
          f"(Mü pool {bench.pool['large']:,}); gunicorn --workers {bench.args.workers}, DEBUG off; "
          f"{'live Celery worker' if os.environ.get('REDIS_URL') else 'in-process sync'}\n")
    print("| what (p50 unless said) | small | large | ratio | queries small / large |")
    print("|---|---|---|---|---|")
    for name in small:
        (a, qa), (b, qb) = small[name], large[name]
        queries = f"{qa} / {qb}" if qa is not None else ""
        print(f"| {name} | {a * 1000:.1f} ms | {b * 1000:.1f} ms | {b / a:.2f}× | {queries} |")
    report_throughput(throughput, rss, bench, "large scale")


def report_throughput(throughput: dict, rss: float | None, bench: Bench, scale: str = "no history") -> None:
    bare, hands = throughput["bare"], throughput["hands"]
    print(f"\nhand submission, {bench.args.clients} clients, {bench.args.duration:.0f} s each ({scale}; gunicorn "
          f"--workers {bench.args.workers}):")
    for name, run in (("bare DRF", bare), ("dry run (engine, throttle)", throughput["dry run"]), ("hand submission", hands)):
        print(f"  {name}: {run['per_second']:.0f} req/s, p50 {run['p50'] * 1000:.0f} ms, p99 {run['p99'] * 1000:.0f} ms, "
              f"{run['errors']} errors of {run['requests']}")
        if run["cpu_ms"]:
            print("    CPU per request: " + ", ".join(f"{who} {ms:.2f} ms" for who, ms in run["cpu_ms"].items()))
    if "series hands" in throughput:
        run = throughput["series hands"]
        print(f"  hand in an event of a series of {bench.args.series_events} events: {run['per_second']:.0f} req/s, "
              f"p50 {run['p50'] * 1000:.0f} ms, p99 {run['p99'] * 1000:.0f} ms, {run['errors']} errors of {run['requests']}")
        if run["cpu_ms"]:
            print("    CPU per request: " + ", ".join(f"{who} {ms:.2f} ms" for who, ms in run["cpu_ms"].items()))
    print(f"  dry run / bare: {throughput['dry run']['per_second'] / bare['per_second'] * 100:.0f} %")
    rounds = throughput.get("rounds", {})
    # One decimal: the target (issue 37: at least 33 %) is near, and a rounded 33 % may be 32.5.
    print(f"  hand submission / bare: {hands['per_second'] / bare['per_second'] * 100:.1f} %"
          + _per_round(rounds.get("hands / bare"), "{:.1%}"))
    web = "web workers"
    if hands["cpu_ms"].get(web) and bare["cpu_ms"].get(web):
        print(f"  web CPU per hand / per bare request: {hands['cpu_ms'][web] / bare['cpu_ms'][web]:.2f}x")
    if "series hands" in throughput:
        print(f"  hands in a series / hands outside any series: "
              f"{throughput['series hands']['per_second'] / hands['per_second']:.2f}x"
              + _per_round(rounds.get("series / outside"), "{:.2f}x"))
        seen = throughput.get("series visible")
        if seen and seen["samples"]:
            print(f"  series standings synced after the hand's commit: p50 {seen['p50'] * 1000:.0f} ms, "
                  f"p95 {seen['p95'] * 1000:.0f} ms, max {seen['max'] * 1000:.0f} ms ({seen['samples']} samples, "
                  f"{seen['left']} not synced)")
        elif seen is None:
            print("  (no REDIS_URL: no worker, the series' refresh ran in the web workers on each commit)")
    print(f"web worker peak RSS: {rss:.0f} MiB" if rss else "web worker peak RSS: unknown (not Linux)")


def _per_round(ratios: list[float] | None, shape: str) -> str:
    """`` (per round: a, b, c; median m)``: each round's chunks back to back, paired."""
    if not ratios:
        return ""
    return (f" (per round: {', '.join(shape.format(ratio) for ratio in ratios)}; "
            f"median {shape.format(statistics.median(ratios))})")


if __name__ == "__main__":
    main()
