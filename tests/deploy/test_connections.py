"""PostgreSQL connections stay under each serving shape's limit under parallel load.

A server is started in a second process on the test database (gunicorn with uvicorn workers for
ASGI, gunicorn's sync workers for WSGI), 4 rounds of 40 parallel GETs that query the database are
fired at it, and PostgreSQL's ``pg_stat_activity`` is sampled meanwhile for the server's
connections (marked by their application name). The ASGI shape once held a connection per request
thread (34 for one process after 4 x 20 GETs); now each process draws from a pool of
``DB_POOL_SIZE``.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests import processes

ROOT = Path(__file__).resolve().parents[2]
LOGS = Path(tempfile.gettempdir())
URL = os.environ.get("DATABASE_URL", "")

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not URL.startswith("postgres"), reason="counts PostgreSQL connections (DATABASE_URL)"),
]

PATHS = ["/healthz", "/api/v1/events/", "/api/v1/clubs/", "/api/v1/players/"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(command: list[str], database: str, app_name: str, extra_env: dict, port: int) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items() if key not in ("DJANGO_SETTINGS_MODULE", "CONN_MAX_AGE", "DB_POOL_SIZE")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "stich.test_settings",
        "DATABASE_URL": URL.rsplit("/", 1)[0] + "/" + database,
        "PGAPPNAME": app_name,  # libpq's default application_name: marks the server's connections
        "DEBUG": "0",
        **extra_env,
    })
    log = open(LOGS / f"server-{port}.log", "w")  # noqa: SIM115
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError((LOGS / f"server-{port}.log").read_text()[-3000:])
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).read()
            return process
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not answer /healthz within 60 s")


class Sampler(threading.Thread):
    """Counts the server's connections to the test database every 10 ms; keeps the peak."""

    def __init__(self, database: str, app_name: str):
        super().__init__(daemon=True)
        self.database, self.app_name = database, app_name
        self.peak = 0
        self.halt = threading.Event()

    def run(self):
        import psycopg

        with psycopg.connect(URL, autocommit=True) as conn:
            while not self.halt.is_set():
                (count,) = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = %s",
                    [self.database, self.app_name],
                ).fetchone()
                self.peak = max(self.peak, count)
                time.sleep(0.01)


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def peak_under_load(command, database, extra_env, port, rounds=4, parallel=40) -> tuple[int, list[int]]:
    app_name = f"stich-shape-{port}"
    process = start_server(command, database, app_name, extra_env, port)
    sampler = Sampler(database, app_name)
    sampler.start()
    try:
        statuses = []
        with ThreadPoolExecutor(parallel) as pool:
            for _ in range(rounds):
                urls = [f"http://127.0.0.1:{port}{PATHS[i % len(PATHS)]}" for i in range(parallel)]
                statuses += list(pool.map(get, urls))
        time.sleep(0.1)
    finally:
        sampler.halt.set()
        sampler.join()
        processes.stop(process, timeout=20)
    print(f"{' '.join(command[2:4])} {extra_env}: peak {sampler.peak} connections, statuses {sorted(set(statuses))}")
    return sampler.peak, statuses


@pytest.fixture
def database(django_db_setup, settings):
    return settings.DATABASES["default"]["NAME"]


def test_asgi_processes_draw_from_a_bounded_pool(database):
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "stich.asgi:application", "-k", "uvicorn_worker.UvicornWorker",
               "--bind", f"127.0.0.1:{port}", "--workers", "2"]
    peak, statuses = peak_under_load(command, database, {"DB_POOL_SIZE": "3"}, port)
    assert all(status < 500 for status in statuses), sorted(set(statuses))
    assert statuses.count(200) >= len(statuses) // 2
    assert 1 <= peak <= 2 * 3, peak


def test_asgi_default_pool_is_four_per_process_and_persistent_connections_are_off(database):
    """Under ASGI a CONN_MAX_AGE from the environment is ignored: the pool keeps the connections."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "stich.asgi:application", "-k", "uvicorn_worker.UvicornWorker",
               "--bind", f"127.0.0.1:{port}", "--workers", "1"]
    peak, statuses = peak_under_load(command, database, {"CONN_MAX_AGE": "60"}, port)
    assert all(status < 500 for status in statuses), sorted(set(statuses))
    assert 1 <= peak <= 4, peak


def test_wsgi_workers_keep_one_connection_each(database):
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "stich.wsgi:application", "--bind", f"127.0.0.1:{port}",
               "--workers", "2"]
    peak, statuses = peak_under_load(command, database, {}, port, rounds=2, parallel=20)
    assert all(status < 500 for status in statuses), sorted(set(statuses))
    assert 1 <= peak <= 2, peak


def test_without_a_pool_asgi_connections_follow_the_parallel_requests(database):
    """The tests above can fail: with the pool off (``DB_POOL_SIZE=0``, a connection per request),
    one ASGI process holds about as many connections as requests run in parallel."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "stich.asgi:application", "-k", "uvicorn_worker.UvicornWorker",
               "--bind", f"127.0.0.1:{port}", "--workers", "1"]
    peak, statuses = peak_under_load(command, database, {"DB_POOL_SIZE": "0"}, port, rounds=2)
    assert all(status < 500 for status in statuses), sorted(set(statuses))
    assert peak > 8, peak


def test_the_pool_checks_by_polling_and_replaces_a_connection_the_server_closed(database, django_db_blocker):
    """The pool hands out a connection after polling its socket (no round trip when nothing
    happened); one the server terminated meanwhile is replaced, not handed to a request."""
    import psycopg
    from django.db import connection

    from stich.db.postgresql.base import DatabaseWrapper, check_pooled

    settings_dict = {**connection.settings_dict, "CONN_MAX_AGE": 0,
                     "OPTIONS": {**connection.settings_dict["OPTIONS"], "pool": {"min_size": 1, "max_size": 1}}}
    wrapper = DatabaseWrapper(settings_dict, alias="pool-check")
    try:
        with django_db_blocker.unblock():
            assert wrapper.pool._check is check_pooled
            with wrapper.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                (first,) = cursor.fetchone()
            wrapper.close()  # back to the pool
            with psycopg.connect(URL, autocommit=True) as admin:
                # Waits until the server process has gone (its last message sent).
                admin.execute("SELECT pg_terminate_backend(%s, 10000)", [first])
            with wrapper.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                (second,) = cursor.fetchone()
            assert second != first
            wrapper.close()
    finally:
        wrapper.close_pool()
