"""``python -m bench.rehearsal``: the service as a federation runs it, on one machine, under
load and failure, bounded in time. Everything listens on 127.0.0.1 only, on free ports.

    DATABASE_URL=postgres://.../NAME python -m bench.rehearsal [--tables 100] [--duration 60]
        [--interval 10] [--screens 200] [--json FILE]

The defaults are the issue's championship: 100 tables of four, a hand every 10 s per table (about
20 times a real evening's pace) for 60 s, 200 room screens.

It creates the database ``NAME_rehearsal`` (dropped first if it exists, and afterwards) and
starts: nginx (Debian's package, with ``deploy/nginx/``'s rules) in front of two gunicorn web
servers (WSGI, ``--web-workers`` each) and one live server (ASGI), two Celery workers, beat, and a
Redis server of its own on a free port (so that restarting it disturbs nobody). ``--tables``
scorers submit the hands of a Mü championship through nginx, each to its table's session and
round after round (six deals a session), one hand every ``--interval`` seconds, every submission
with an ``Idempotency-Key`` that is sent again after a failure until the hand is accepted.
Meanwhile one web server and one worker are killed (SIGKILL, the whole process group) and started
again, and Redis is killed and started again.

Afterwards it checks: every accepted hand stored exactly once and none lost (each session's hands
numbered 1..n, n the hands its scorer saw accepted), every session's stored totals and the
standings served equal a recomputation from the hands, the ratings the workers kept equal
``recompute_ratings``, no answer a 5xx other than the documented 503, and PostgreSQL's
connections for the database stayed under the limit the serving shapes give. It reports hands/s,
hands per CPU-second of the whole service (= hands/s per core; web, live, workers, beat, nginx,
Redis, the PostgreSQL backends; the restarted processes' start-up included, it is part of a
kill's cost), CPU per hand per component and the projection for 500 tables, the p50/p99 of a
submission (first attempt to acceptance, retries included) and of single attempts, the HTTP
statuses seen (5xx by status) and the time of each phase; exit status 1 when a check fails.
``--json FILE`` writes the report as JSON.

``--screens`` room screens listen on the event's live channel (WebSockets through nginx to the
live server) all along and do what ``static/stich/live.js`` does: each asks for the screen
fragment (``?push=screen&lang=en``), puts the fragment a message carries in place, and fetches
the screen's fragment (``?fragment=screen&v=``, answered from the version's cache) when a message
carries none; the push delay is, per accepted hand and screen, the time from the hand's answer to
the screen's next painted fragment (announcements are coalesced per 0.1 s, so a message that a
slightly earlier hand caused may count: the figure leans low under load); fragments applied and
fetches are counted; every screen must hear of the last hand (a fragment after it, or a fetch after
reconnecting), and the channel layer must report no error when all screens close at once.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP_NAME = "stich-rehearsal"
DEALS = 6
SCREEN_WAIT = 20.0  # seconds the screens get, after the load, to hear of its last change
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def descendants(pid: int) -> list[int]:
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*") if Path(f"/proc/{current}/task").exists() else []:
            try:
                queue += [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                pass
    return found


class Process:
    """A server started in a process group of its own, so that a kill takes all its processes."""

    def __init__(self, name: str, command: list[str], env: dict, log_dir: Path, component: str):
        self.name, self.command, self.env, self.component = name, command, env, component
        self.log = log_dir / f"{name}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def terminate(self) -> None:
        if self.process and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def stop(self, deadline: float) -> None:
        """After ``terminate``: wait until ``deadline`` (time.monotonic()), then kill."""
        if self.process and self.process.poll() is None:
            try:
                self.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.kill()

    def pids(self) -> list[int]:
        return descendants(self.process.pid) if self.process and self.process.poll() is None else []


class Screens:
    """``count`` room screens: WebSocket clients of the event's live channel through nginx, on an
    event loop of their own, doing what a room screen's script does (static/stich/live.js): each
    notes when a message arrives (the page would fetch its regions then); a screen whose socket
    closes connects again after a pause that doubles (with a random part), and once open again
    fetches the event at once (what changed meanwhile was told to nobody), which counts as hearing
    of every change made before the fetch was sent."""

    def __init__(self, count: int, port: int, event_id: int):
        self.count, self.port, self.event_id = count, port, event_id
        self.url = f"ws://127.0.0.1:{port}/ws/events/{event_id}/?lang=en&push=screen"
        self.applied = 0  # fragments a message carried, put in place
        self.fetched = 0  # fragments fetched (a message without one, or a socket open again)
        self.shown: list[str] = [""] * count  # each screen's region, as live.js replaces it
        self.arrivals: list[list[float]] = [[] for _ in range(count)]  # messages, and fetches after reopening
        self.connected = [False] * count
        self.opened: list[list[float]] = [[] for _ in range(count)]  # when each screen's socket opened
        self.reconnects = 0
        self.refetch_failures = 0
        self.loop = None
        self.stopping = None

    def start(self) -> None:
        import asyncio

        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="screens", daemon=True).start()
        self.stopping = asyncio.run_coroutine_threadsafe(self._make_event(), self.loop).result()
        self.tasks = [asyncio.run_coroutine_threadsafe(self._screen(index), self.loop) for index in range(self.count)]
        deadline = time.monotonic() + 60
        while not all(self.connected) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not all(self.connected):
            raise RuntimeError(f"{self.connected.count(False)} room screens could not connect")

    async def _make_event(self):
        import asyncio

        return asyncio.Event()

    def _fetch(self, index: int = 0, version: int | None = None) -> bool:
        """The screen's fragment as live.js fetches it (from the cache of the event's version)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request("GET", f"/events/{self.event_id}/screen/?fragment=screen"
                               + (f"&v={version}" if version else ""), headers={"Accept-Language": "en"})
            response = connection.getresponse()
            body = response.read()
            if response.status == 200:
                self.shown[index] = body.decode()
                self.fetched += 1
            return response.status == 200
        except OSError:
            return False
        finally:
            connection.close()

    async def _screen(self, index: int) -> None:
        import asyncio

        import websockets

        pause = 0.5
        while not self.stopping.is_set():
            try:
                async with websockets.connect(self.url, origin="http://127.0.0.1", open_timeout=30) as socket_:
                    self.connected[index] = True
                    self.opened[index].append(time.perf_counter())
                    pause = 0.5
                    if len(self.opened[index]) > 1:  # open again: fetch what changed meanwhile
                        sent = time.perf_counter()
                        if await asyncio.to_thread(self._fetch, index):
                            self.arrivals[index].append(sent)
                        else:
                            self.refetch_failures += 1
                    while not self.stopping.is_set():
                        try:
                            text = await asyncio.wait_for(socket_.recv(), timeout=0.5)
                        except asyncio.TimeoutError:
                            continue
                        message = json.loads(text)
                        fragment = (message.get("fragments") or {}).get("screen")
                        if fragment is not None:  # live.js: the region's HTML replaced, no request
                            self.shown[index] = fragment
                            self.applied += 1
                        elif not await asyncio.to_thread(self._fetch, index, message.get("version")):
                            self.refetch_failures += 1
                            continue
                        self.arrivals[index].append(time.perf_counter())
            except Exception:  # noqa: BLE001 - dropped or refused: connect again
                if self.stopping.is_set():
                    return
                self.reconnects += 1
                await asyncio.sleep(pause * random.uniform(0.5, 1.5))
                pause = min(pause * 2, 8.0)

    def stop(self) -> None:
        """All screens close their sockets at once (a room's network gone)."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.stopping.set)
            for task in self.tasks:
                try:
                    task.result(timeout=10)
                except Exception:  # noqa: BLE001 - a screen that did not end in time is left behind
                    pass
            self.loop.call_soon_threadsafe(self.loop.stop)

    def delays(self, accepted_at: list[float]) -> list[float]:
        """Per accepted hand and screen: from the hand's answer to the screen's next message."""
        import bisect

        found = []
        for arrivals in self.arrivals:
            arrivals = sorted(arrivals)
            for at in accepted_at:
                index = bisect.bisect_left(arrivals, at)
                if index < len(arrivals):
                    found.append(arrivals[index] - at)
        return sorted(found)

    def saw_the_last_change(self, last: float) -> int:
        return sum(1 for arrivals in self.arrivals if arrivals and max(arrivals) >= last)

    def wait_for_the_last_change(self, last: float, timeout: float) -> float:
        """Wait until every screen heard of the change sent at ``last`` (at most ``timeout`` s);
        returns the seconds waited."""
        started = time.perf_counter()
        while self.saw_the_last_change(last) < self.count and time.perf_counter() - started < timeout:
            time.sleep(0.1)
        return time.perf_counter() - started

    def missed(self, last: float) -> list[str]:
        """The screens without a message after ``last``: their last message, seconds before it."""
        return [f"screen {index}: " + (f"last message {last - max(arrivals):.1f} s before" if arrivals else "no message")
                + f", socket opened {len(self.opened[index])} times"
                for index, arrivals in enumerate(self.arrivals) if not arrivals or max(arrivals) < last]


class Rehearsal:
    def __init__(self, args) -> None:
        self.args = args
        base = os.environ["DATABASE_URL"]
        if not base.startswith("postgres"):
            raise SystemExit("the rehearsal needs PostgreSQL: DATABASE_URL=postgres://...")
        for program in ("nginx", "redis-server"):
            if shutil.which(program) is None:
                raise SystemExit(f"{program} is not installed (Debian: apt-get install nginx-light redis-server)")
        self.admin_url = base
        self.database = base.rsplit("/", 1)[1].split("?")[0] + "_rehearsal"
        self.url = base.rsplit("/", 1)[0] + "/" + self.database
        self.dir = Path(tempfile.mkdtemp(prefix="stich-rehearsal-"))
        self.redis_port, self.nginx_port = free_port(), free_port()
        self.web_ports = [free_port(), free_port()]
        self.live_port = free_port()
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "CONN_MAX_AGE", "DB_POOL_SIZE")},
            "DJANGO_SETTINGS_MODULE": "stich.settings", "DEBUG": "0", "SECRET_KEY": "rehearsal-only-" + uuid.uuid4().hex,
            "ALLOWED_HOSTS": "127.0.0.1,localhost", "DATABASE_URL": self.url,
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0", "NUM_PROXIES": "1", "PGAPPNAME": APP_NAME,
            "RATINGS_CATCH_UP_SECONDS": "2", "CELERY_VISIBILITY_TIMEOUT": "10", "LOG_LEVEL": "WARNING",
        }
        self.processes: dict[str, Process] = {}
        self.cpu: dict[tuple[str, int], float] = {}  # last seen CPU seconds per (component, pid)
        self.peak_connections = 0
        self.peak_redis_clients = 0
        self.events: list[str] = []
        self.web_kills: list[tuple[float, float]] = []  # (seconds into the load) a web server's kill began, ended
        self.halt = threading.Event()

    # --- set-up ---------------------------------------------------------------------------------

    def create_database(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{self.database}"')
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env, check=True)
        os.environ.update({key: self.env[key] for key in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "SECRET_KEY")})
        os.environ["REDIS_URL"] = self.env["REDIS_URL"]
        import django

        django.setup()

    def create_championship(self) -> list[list]:
        """Rounds of ``--tables`` tables of four; returns per scorer its tables, round by round."""
        from ratings.management.commands.load_league import create_players
        from tournaments.models import Club, Event, Round
        from tournaments.services import table_create

        club = Club.objects.create(name="Rehearsal federation")
        players = create_players(club, 4 * self.args.tables, prefix="Rehearsal player")
        event = Event.objects.create(club=club, name="Rehearsal championship", game="mu", published=True,
                                     mu_fixed_deals=DEALS)
        rounds = int(self.args.duration / (DEALS * self.args.interval)) + 2
        rng = random.Random(27)
        chains: list[list] = [[] for _ in range(self.args.tables)]
        for number in range(1, rounds + 1):
            round_ = Round.objects.create(event=event, number=number)
            order = players[:]
            rng.shuffle(order)
            for index in range(self.args.tables):
                chains[index].append(table_create(round_=round_, number=index + 1,
                                                  players=order[4 * index:4 * index + 4], by_user=None))
        self.event = event
        return chains

    def nginx_config(self) -> Path:
        (self.dir / "nginx").mkdir()
        web = "\n".join(f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=2s;" for port in self.web_ports)
        rules = ROOT / "deploy" / "nginx"
        config = f"""
daemon off;
worker_processes 1;
pid {self.dir}/nginx/nginx.pid;
error_log {self.dir}/nginx/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {self.dir}/nginx/body;
    proxy_temp_path {self.dir}/nginx/proxy;
    fastcgi_temp_path {self.dir}/nginx/fastcgi;
    uwsgi_temp_path {self.dir}/nginx/uwsgi;
    scgi_temp_path {self.dir}/nginx/scgi;
    upstream stich_web {{
{web}
    }}
    upstream stich_live {{ server 127.0.0.1:{self.live_port}; }}
    include {rules}/stich-http.conf;
    server {{
        listen 127.0.0.1:{self.nginx_port};
        include {rules}/stich-locations.conf;
    }}
}}
"""
        path = self.dir / "nginx.conf"
        path.write_text(config)
        return path

    def start(self) -> None:
        python = sys.executable
        # --preload: the application is loaded before the port is opened, so a restarted server
        # takes no connection it cannot answer yet (nginx would wait on it, not try the other).
        gunicorn = [python, "-m", "gunicorn", "--log-level", "warning", "--graceful-timeout", "5", "--preload"]
        celery = [python, "-m", "celery", "-A", "stich"]
        servers = {
            # Persistent as compose's: the live pages' group memberships survive its restart.
            "redis": (["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
                       "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.dir)], "redis"),
            "web1": ([*gunicorn, "stich.wsgi:application", "--bind", f"127.0.0.1:{self.web_ports[0]}",
                      "--workers", str(self.args.web_workers)], "web"),
            "web2": ([*gunicorn, "stich.wsgi:application", "--bind", f"127.0.0.1:{self.web_ports[1]}",
                      "--workers", str(self.args.web_workers)], "web"),
            "live": ([*gunicorn, "stich.asgi:application", "-k", "stich.workers.UvicornWorker",  # deploy's
                      "--bind", f"127.0.0.1:{self.live_port}", "--workers", "1"], "live"),
            "worker1": ([*celery, "worker", "--concurrency=1", "-n", "rehearsal1@%h", "--loglevel=WARNING",
                         "--without-gossip", "--without-mingle"], "workers"),
            "worker2": ([*celery, "worker", "--concurrency=1", "-n", "rehearsal2@%h", "--loglevel=WARNING",
                         "--without-gossip", "--without-mingle"], "workers"),
            "beat": ([*celery, "beat", "--loglevel=WARNING", "--schedule", str(self.dir / "beat-schedule")], "beat"),
            "nginx": (["nginx", "-c", str(self.nginx_config()), "-p", str(self.dir / "nginx")], "nginx"),
        }
        for name, (command, component) in servers.items():
            self.processes[name] = Process(name, command, self.env, self.dir, component)
        self.processes["redis"].start()
        self.wait_for_port(self.redis_port)
        for name in ("web1", "web2", "live", "worker1", "worker2", "beat", "nginx"):
            self.processes[name].start()
        for port in [*self.web_ports, self.live_port, self.nginx_port]:
            self.wait_for_port(port)
        # Each web worker's first requests build what it keeps (URLs, serializers): not the load's.
        # Not measured either: a request that finds a server still starting (its port open, its
        # workers not yet answering) is sent again, for up to a minute.
        deadline = time.monotonic() + 60
        for _ in range(4 * self.args.web_workers):
            while True:
                connection = http.client.HTTPConnection("127.0.0.1", self.nginx_port, timeout=60)
                try:
                    connection.request("GET", f"/api/v1/events/{self.event.pk}/")
                    connection.getresponse().read()
                    break
                except (OSError, http.client.HTTPException) as error:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the servers did not answer within a minute; logs in {self.dir}") from error
                    print(f"rehearsal: a warm-up request failed ({error!r}); sent again", file=sys.stderr)
                    time.sleep(0.5)
                finally:
                    connection.close()
        # A worker's first task loads the compiled rater: warm both before the clock starts.
        from stich.celery import app

        deadline = time.monotonic() + 60
        while len(app.control.ping(timeout=1.0, limit=2) or []) < 2:  # back when both answered
            if time.monotonic() > deadline:
                raise RuntimeError(f"the workers did not answer; see {self.dir}")

    def wait_for_port(self, port: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"nothing listens on {port} after {timeout} s; logs in {self.dir}")

    # --- measuring ------------------------------------------------------------------------------

    def live_log_errors(self) -> int:
        """The live server's failures so far: a channel layer out of connections, or a socket's
        consumer that died with an exception."""
        text = (self.dir / "live.log").read_text(errors="replace") if (self.dir / "live.log").exists() else ""
        return sum(text.count(marker) for marker in ("MaxConnectionsError", "Too many connections",
                                                     "Exception in ASGI application"))

    def sample(self) -> None:
        """Every 50 ms: PostgreSQL connections to the database and the CPU of every process."""
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            while not self.halt.is_set():
                self.sample_once(conn)
                time.sleep(0.05)

    def sample_redis(self) -> None:
        """Twice a second: the clients connected to Redis (every process's)."""
        import redis

        client = redis.Redis(port=self.redis_port, socket_timeout=1, socket_connect_timeout=1)
        while not self.halt.wait(0.5):
            try:
                clients = client.info("clients")["connected_clients"] - 1  # not this one
            except redis.RedisError:
                continue  # restarting
            self.peak_redis_clients = max(self.peak_redis_clients, clients)

    def sample_once(self, conn) -> None:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND application_name = %s",
                            [self.database, APP_NAME]).fetchall()
        self.peak_connections = max(self.peak_connections, len(rows))
        for (pid,) in rows:
            self.record_cpu("postgres", pid)
        for process in list(self.processes.values()):
            for pid in process.pids():
                self.record_cpu(process.component, pid)

    def record_cpu(self, component: str, pid: int) -> None:
        spent = cpu_seconds(pid)
        if spent is not None:
            self.cpu[(component, pid)] = spent

    def chaos(self, started: float) -> None:
        plan = [(0.25, "kill web1", self.kill_and_restart, "web1"),
                (0.45, "kill worker1", self.kill_and_restart, "worker1")]
        if self.args.restart_redis:
            plan.append((0.65, "restart redis", self.kill_and_restart, "redis"))
        for fraction, label, action, name in plan:
            while time.perf_counter() - started < fraction * self.args.duration:
                if self.halt.wait(0.05):
                    return
            at = time.perf_counter() - started
            action(name)
            if name.startswith("web"):
                self.web_kills.append((at, time.perf_counter() - started))
            self.events.append(f"{at:.1f} s: {label} (SIGKILL, started again)")

    def kill_and_restart(self, name: str) -> None:
        process = self.processes[name]
        for pid in process.pids():
            self.record_cpu(process.component, pid)
        process.kill()
        process.start()

    # --- load -----------------------------------------------------------------------------------

    def request(self, path: str, body: dict, headers: dict) -> int:
        connection = http.client.HTTPConnection("127.0.0.1", self.nginx_port, timeout=30)
        try:
            connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **headers})
            response = connection.getresponse()
            response.read()
            return response.status
        except (OSError, http.client.HTTPException):
            # No answer, or a broken one: the scorer sends the hand again with the same key.
            return 0
        finally:
            connection.close()

    def load(self, chains: list[list]) -> dict:
        from games.simulate.mu import random_record

        deadline = time.perf_counter() + self.args.duration
        give_up = deadline + 90
        accepted = {}  # table id -> hands accepted
        latencies: list[float] = []  # per accepted hand, first attempt to acceptance
        accepted_at: list[float] = []  # when each accepted hand's answer came
        accepted_sent: list[float] = []  # when the attempt that stored it was sent
        attempts: list[float] = []  # per HTTP attempt
        slowest: list[tuple[float, float, int]] = []  # (seconds into the run, seconds taken, status)
        unanswered: list[tuple[float, float]] = []  # attempts with no answer: (sent, done), seconds into the run
        statuses: Counter = Counter()
        retried = [0]
        lock = threading.Lock()

        def scorer(index: int) -> None:
            rng = random.Random(index)
            time.sleep(rng.uniform(0, self.args.interval))  # tables do not play in step
            for table in chains[index]:
                accepted[table.pk] = 0
                for deal in range(DEALS):
                    if time.perf_counter() > deadline:
                        return
                    record = random_record(rng, 4, dealer=deal % 4)
                    headers = {"X-Scorer-Token": table.scorer_token, "Idempotency-Key": uuid.uuid4().hex}
                    first = time.perf_counter()
                    while True:
                        sent = time.perf_counter()
                        status = self.request(f"/api/v1/tables/{table.pk}/hands/", record, headers)
                        with lock:
                            attempts.append(time.perf_counter() - sent)
                            statuses[status] += 1
                            slowest.append((sent - started, attempts[-1], status))
                            if status == 0:
                                unanswered.append((sent - started, sent - started + attempts[-1]))
                        if status in (200, 201):
                            break
                        if status not in (0, 502, 503, 504) or time.perf_counter() > give_up:
                            raise RuntimeError(f"table {table.pk} hand {deal + 1}: HTTP {status}")
                        with lock:
                            retried[0] += 1
                        time.sleep(0.2)
                    with lock:
                        latencies.append(time.perf_counter() - first)
                        accepted_at.append(time.perf_counter())
                        accepted_sent.append(sent)
                    accepted[table.pk] += 1
                    pause = self.args.interval - (time.perf_counter() - first)
                    if pause > 0:
                        time.sleep(pause)

        failures: list[str] = []

        def run(index: int) -> None:
            try:
                scorer(index)
            except Exception as error:  # noqa: BLE001 - reported as a failed check
                failures.append(str(error))

        started = time.perf_counter()
        chaos = threading.Thread(target=self.chaos, args=(started,), daemon=True)
        chaos.start()
        threads = [threading.Thread(target=run, args=(index,)) for index in range(self.args.tables)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        chaos.join(5)
        latencies.sort()
        attempts.sort()
        accepted_at.sort()
        return {"accepted": accepted, "elapsed": elapsed, "latencies": latencies, "attempts": attempts,
                "slowest": sorted(slowest, key=lambda item: -item[1])[:5], "accepted_at": accepted_at, "last_sent": max(accepted_sent, default=0.0),
                "statuses": dict(statuses), "retried": retried[0], "failures": failures, "unanswered": unanswered}

    # --- checks ---------------------------------------------------------------------------------

    def wait_for_ratings(self, timeout: float = 120) -> float:
        from ratings.models import PoolEntry, PoolSyncRequest
        from tournaments.models import Session

        started = time.monotonic()
        while time.monotonic() - started < timeout:
            finished = Session.objects.filter(table__round__event=self.event, status="finished")
            if (not PoolSyncRequest.objects.exists() and not finished.filter(rating_dirty_at__isnull=False).exists()
                    and PoolEntry.objects.filter(session__in=finished).count() == finished.count()):
                return time.monotonic() - started
            time.sleep(0.5)
        raise RuntimeError(f"the ratings did not catch up within {timeout} s")

    def check(self, load: dict) -> dict:
        from ratings.models import Rating
        from ratings.services import pool_sync
        from tournaments.models import Hand, Session
        from tournaments.results.services import session_rules, session_totals

        lost = duplicated = gaps = 0
        stored_total = 0
        differing = []  # (table, hands its scorer saw accepted, hands stored): where a check failed
        for table_id, count in load["accepted"].items():
            numbers = sorted(Hand.objects.filter(session__table_id=table_id).values_list("number", flat=True))
            stored_total += len(numbers)
            if len(numbers) != count:
                differing.append((table_id, count, len(numbers)))
            lost += max(0, count - len(numbers))
            duplicated += max(0, len(numbers) - count)
            gaps += numbers != list(range(1, len(numbers) + 1))
        totals_wrong = 0
        sessions = Session.objects.filter(table__round__event=self.event).select_related("table__round__event")
        for session in sessions:
            hands = list(session.hands.order_by("number"))
            if session.totals != session_totals(session_rules(session), hands) or session.hand_count != len(hands):
                totals_wrong += 1
        # The standings the pages serve (from the sessions' kept totals) equal those of totals
        # recomputed from the stored hands.
        import dataclasses

        from django.contrib.auth.models import AnonymousUser

        from tournaments import policy
        from tournaments.models import Session
        from tournaments.standings import sums as aggregates
        from tournaments.standings.metrics import SessionLine, standings
        from tournaments.standings.selectors import event_standings, session_results

        visibility = policy.Visibility(AnonymousUser())
        results = session_results(self.event, visibility=visibility)
        recomputed_results = []
        for result in results:
            hands = list(result.session.hands.order_by("number"))
            recomputed_results.append(dataclasses.replace(
                result, totals=list(session_totals(session_rules(result.session), hands)), hands=len(hands)))
        # The standings as served (from the round sums kept with each hand) against the standings
        # computed from the recomputed sessions, and the kept sums against their recomputation.
        lines = [SessionLine(r.players, r.totals, r.session.status == Session.Status.FINISHED)
                 for r in recomputed_results if r.hands]
        metrics = [name for name in self.event.standings_metrics.split(",") if name]
        standings_equal = (event_standings(self.event, visibility=visibility) == standings(lines, metrics)
                           and aggregates.stored([self.event.pk]) == aggregates.recompute([self.event.pk]))
        fields = ("player_id", "mu", "sigma", "sessions", "displayed", "trend")
        kept = sorted(Rating.objects.filter(game="mu").values_list(*fields))
        pool_sync("mu", from_scratch=True)
        recomputed = sorted(Rating.objects.filter(game="mu").values_list(*fields))
        return {"accepted": sum(load["accepted"].values()), "stored": stored_total, "differing": differing, "lost": lost,
                "duplicated": duplicated, "tables_with_gaps": gaps, "sessions": sessions.count(),
                "sessions_with_wrong_totals": totals_wrong, "standings_equal_recompute": standings_equal,
                "ratings": len(kept),
                "ratings_equal_recompute": kept == recomputed}

    # --- the run --------------------------------------------------------------------------------

    def run(self) -> dict:
        clock = time.perf_counter()
        phases = {}

        def phase(name: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            phases[name] = round(now - clock, 1)
            clock = now

        self.create_database()
        phase("database")
        chains = self.create_championship()
        phase("championship")
        self.start()
        phase("servers")
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            self.sample_once(conn)  # the servers' start-up is not the load's: CPU counted from here
        self.screens = Screens(self.args.screens, self.nginx_port, self.event.pk)
        self.screens.start()
        phase("screens")
        cpu_before = dict(self.cpu)
        sampler = threading.Thread(target=self.sample, daemon=True)
        sampler.start()
        threading.Thread(target=self.sample_redis, daemon=True).start()
        load = self.load(chains)
        phase("load")
        catch_up = self.wait_for_ratings()
        last = load["last_sent"]
        waited = self.screens.wait_for_the_last_change(last, timeout=SCREEN_WAIT)
        saw_last = self.screens.saw_the_last_change(last)
        missed = self.screens.missed(last)
        push = self.screens.delays(load["accepted_at"])
        # Every screen closes at once (a room's network gone): each socket leaves its group, a
        # burst of commands on the live server's channel layer.
        log_before = self.live_log_errors()
        self.screens.stop()
        time.sleep(3)
        disconnect_errors = self.live_log_errors() - log_before
        self.halt.set()
        sampler.join(5)
        phase("screens_and_ratings")
        checks = self.check(load)
        phase("checks")
        cpu = Counter()
        for (component, pid), spent in self.cpu.items():
            cpu[component] += spent - cpu_before.get((component, pid), 0.0)
        hands = checks["accepted"]
        service_cpu = sum(cpu.values())
        limit = (2 * self.args.web_workers) + 1 * 4 + 2 * 1 + 1  # web, live pool, workers, this process
        # An attempt in flight on a web server when it was killed may get no answer, or half of
        # one (the process died between the response's header and its body, which nginx had begun
        # to pass on): the scorer sends it again with its key. At most one per worker of the killed
        # server (a sync worker serves one request at a time); any other attempt without an answer
        # counts as a server error.
        cut = sum(1 for sent, done in load["unanswered"]
                  if any(sent <= kill_end and done >= kill_start for kill_start, kill_end in self.web_kills))
        statuses = Counter(load["statuses"])
        statuses[0] -= cut
        server_errors = {str(code): n for code, n in sorted(statuses.items()) if (code >= 500 or code == 0) and n}
        bad = {code: n for code, n in server_errors.items() if code != "503"}  # 503: the documented one
        live_errors = self.live_log_errors()
        per_hand_cpu = {name: spent / hands for name, spent in cpu.items()} if hands else {}
        rate_500 = 500 / self.args.interval  # hands/s of 500 tables at this run's pace

        def pct(values, q):
            return values[min(len(values) - 1, int(q * len(values)))] * 1000 if values else 0.0

        # What the screens cost: every CPU-second of the live server, and of nginx and Redis (which
        # also carry the hands: an upper bound), over the fragments the screens painted.
        painted = self.screens.applied + self.screens.fetched
        screen_cpu = sum(cpu.get(name, 0.0) for name in ("live", "nginx", "redis"))
        per_screen_change_ms = 1000 * screen_cpu / painted if painted else None
        hand_cpu_ms = 1000 * sum(spent for name, spent in per_hand_cpu.items() if name not in ("live",))
        # A federation evening: 500 clubs of 6 tables, a hand per table every 200 s, a room screen
        # and 10 phones per club (each change of a club's event reaches its 11 screens).
        clubs, club_tables, pace, club_screens = 500, 6, 200.0, 11
        hands_per_s = clubs * club_tables / pace
        federation = {
            "clubs": clubs, "tables_per_club": club_tables, "hand_every_s": pace, "screens_per_club": club_screens,
            "hands_per_s": round(hands_per_s, 1),
            "cores_hands": round(hands_per_s * hand_cpu_ms / 1000, 2),
            "cores_screens": round(hands_per_s * club_screens * (per_screen_change_ms or 0) / 1000, 2),
        }
        federation["cores_total"] = round(federation["cores_hands"] + federation["cores_screens"], 2)
        report = {
            "tables": self.args.tables,
            "cpu_ms_per_screen_per_change": round(per_screen_change_ms, 3) if per_screen_change_ms else None,
            "projection_federation_evening": federation, "duration_s": round(load["elapsed"], 1), "cores": os.cpu_count(),
            "hands_per_s": round(hands / load["elapsed"], 1),
            # Hands per CPU-second of the whole service = hands/s per core it keeps busy.
            "hands_per_s_per_core": round(hands / service_cpu, 1) if service_cpu else None,
            "cpu_ms_per_hand": {name: round(spent * 1000, 2) for name, spent in sorted(per_hand_cpu.items())},
            "projection_500_tables": {
                "hands_per_s": round(rate_500, 1),
                "cores": {name: round(spent * rate_500, 2) for name, spent in sorted(per_hand_cpu.items())},
                "cores_total": round(sum(per_hand_cpu.values()) * rate_500, 2),
                "screens_note": f"live's share measured at {self.args.screens} screens; it grows with the screens",
            },
            "submission_ms": {"p50": round(pct(load["latencies"], 0.5), 1), "p99": round(pct(load["latencies"], 0.99), 1)},
            "attempt_ms": {"p50": round(pct(load["attempts"], 0.5), 1), "p99": round(pct(load["attempts"], 0.99), 1)},
            "statuses": {str(code): n for code, n in sorted(load["statuses"].items())}, "retries": load["retried"],
            "server_errors_by_status": server_errors,  # 0: no answer at all (the connection failed)
            "answers_cut_by_kills": cut,  # no answer, in flight on the web server killed then
            "ratings_caught_up_s": round(catch_up, 1),
            "screens": {"clients": self.args.screens, "push_delay_ms": {"p50": round(pct(push, 0.5), 1),
                        "p95": round(pct(push, 0.95), 1)},
                        "saw_the_last_change": saw_last, "waited_for_the_last_change_s": round(waited, 1),
                        "reconnects": self.screens.reconnects, "refetch_failures": self.screens.refetch_failures,
                        "fragments_applied": self.screens.applied, "fragments_fetched": self.screens.fetched,
                        "missed": missed[:10],
                        "layer_errors_on_mass_disconnect": disconnect_errors,
                        "live_server_errors": live_errors},
            "connections": {"peak": self.peak_connections, "limit": limit,
                            "redis_peak": self.peak_redis_clients},
            "slowest_attempts": [f"{at:.1f} s: {taken * 1000:.0f} ms, HTTP {status}" for at, taken, status in load["slowest"]],
            "events": self.events, "checks": checks, "failures": load["failures"], "phases_s": phases,
        }
        report["ok"] = (not load["failures"] and checks["lost"] == 0 and checks["duplicated"] == 0
                        and checks["tables_with_gaps"] == 0 and checks["sessions_with_wrong_totals"] == 0
                        and checks["standings_equal_recompute"]
                        and checks["ratings_equal_recompute"] and not bad and self.peak_connections <= limit
                        and cut <= self.args.web_workers * len(self.web_kills)
                        and len(self.events) == 2 + self.args.restart_redis
                        and saw_last == self.args.screens and disconnect_errors == 0)
        return report

    def stop(self) -> None:
        self.halt.set()
        for process in self.processes.values():  # all at once: each one's shutdown is its own
            process.terminate()
        deadline = time.monotonic() + 10
        for process in self.processes.values():
            process.stop(deadline)
        from django.db import connections

        connections.close_all()
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
        if not self.args.keep_logs:
            shutil.rmtree(self.dir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.rehearsal", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100, help="tables of four playing at once")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--interval", type=float, default=10.0,
                        help="seconds between a table's hands (10: about 20 times a real evening's pace)")
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn workers per web server")
    parser.add_argument("--screens", type=int, default=200, help="room screens (WebSocket clients) of the event")
    parser.add_argument("--restart-redis", action=argparse.BooleanOptionalAction, default=True,
                        help="restart Redis during the load")
    parser.add_argument("--json", type=Path, help="write the report here as JSON")
    parser.add_argument("--keep-logs", action="store_true", help="keep the servers' logs (their directory is printed)")
    args = parser.parse_args()
    rehearsal = Rehearsal(args)
    print(f"rehearsal: logs in {rehearsal.dir}", file=sys.stderr)
    try:
        report = rehearsal.run()
    finally:
        rehearsal.stop()
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)
    sys.exit(0 if report["ok"] else 1)


if __name__ == "__main__":
    main()
