"""The probes mean what they say (stich/health.py): liveness (``/livez``) is the process
answering, readiness (``/readyz``) is the database reachable with every migration applied, and
neither asks Redis; ``/healthz`` still tells monitoring that the broker is down.

The real servers are asked every probe path the Kubernetes manifests name (parsed from the
rendered production overlay), with Redis unreachable: each answers 200. With the database down,
liveness still answers 200 and readiness 503; with a migration not applied, readiness is 503.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

from stich import health
from tests import processes
from tests.deploy.test_k8s import PRODUCTION, all_containers, compose

ROOT = Path(__file__).resolve().parents[2]
URL = os.environ.get("DATABASE_URL", "")
UNREACHABLE_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


def probe_paths() -> dict[str, set[str]]:
    """Every HTTP probe's path in the production overlay, by probe kind."""
    paths: dict[str, set[str]] = {}
    for doc in compose(PRODUCTION):
        for container in all_containers(doc):
            for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
                if "httpGet" in container.get(kind, {}):
                    paths.setdefault(kind, set()).add(container[kind]["httpGet"]["path"])
    return paths


def test_the_manifests_probe_readiness_and_liveness_apart_and_never_healthz():
    paths = probe_paths()
    assert paths == {"startupProbe": {"/readyz"}, "readinessProbe": {"/readyz"}, "livenessProbe": {"/livez"}}


def answer(url: str) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Host": "localhost"}), timeout=10) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(command: list[str], port: int, env: dict) -> subprocess.Popen:
    """The server in a process of its own, once ``/livez`` answers."""
    # Under pytest-xdist the test settings give each worker's processes that worker's Redis
    # (STICH_TEST_REDIS_BASE): this server must keep the Redis it is given.
    base = {key: value for key, value in os.environ.items()
            if key not in ("DJANGO_SETTINGS_MODULE", "CONN_MAX_AGE", "DB_POOL_SIZE", "PYTEST_XDIST_WORKER",
                           "STICH_TEST_REDIS_BASE", "CELERY_BROKER_URL", "CHANNEL_LAYER_URL", "CACHE_URL")}
    log = open(Path(tempfile.gettempdir()) / f"probe-server-{port}.log", "w")  # noqa: SIM115
    process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                               env={**base, "DJANGO_SETTINGS_MODULE": "stich.test_settings", "DEBUG": "0", **env})
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(Path(log.name).read_text()[-3000:])
        try:
            if answer(f"http://127.0.0.1:{port}/livez") == 200:
                return process
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    processes.stop(process)
    raise RuntimeError("the server did not answer /livez within 90 s")


SHAPES = {
    "web": ["gunicorn", "stich.wsgi:application", "--workers", "2"],
    "live": ["gunicorn", "stich.asgi:application", "-k", "uvicorn_worker.UvicornWorker", "--workers", "1"],
}


@pytest.mark.integration
@pytest.mark.skipif(not URL.startswith("postgres"), reason="a server in a second process needs the test database on PostgreSQL")
@pytest.mark.parametrize("shape", SHAPES)
def test_every_probe_path_answers_200_with_redis_down_and_readiness_follows_the_database(shape, django_db_setup, settings):
    port = free_port()
    command = [sys.executable, "-m", *SHAPES[shape], "--bind", f"127.0.0.1:{port}", "--preload", "--no-control-socket"]
    database = settings.DATABASES["default"]["NAME"]
    served = URL.rsplit("/", 1)[0] + "/" + database
    process = start(command, port, {"DATABASE_URL": served, "REDIS_URL": UNREACHABLE_REDIS})
    try:
        for path in set().union(*probe_paths().values()):
            assert answer(f"http://127.0.0.1:{port}{path}") == 200, path
        assert answer(f"http://127.0.0.1:{port}/healthz") == 503  # monitoring still sees the broker down
    finally:
        processes.stop(process, timeout=30)
    # The database unreachable: alive, not ready.
    port = free_port()
    command[command.index("--bind") + 1] = f"127.0.0.1:{port}"
    process = start(command, port, {"DATABASE_URL": "postgres://postgres@127.0.0.1:1/" + database,
                                    "REDIS_URL": UNREACHABLE_REDIS, "DB_POOL_TIMEOUT": "2"})
    try:
        assert answer(f"http://127.0.0.1:{port}/livez") == 200
        assert answer(f"http://127.0.0.1:{port}/readyz") == 503
    finally:
        processes.stop(process, timeout=30)


@pytest.fixture
def unmigrated_check(monkeypatch):
    """Each request asks the migrations again (a process remembers once it saw them applied)."""
    monkeypatch.setattr(health, "_migrated", type(health._migrated)())


@pytest.mark.django_db
def test_readiness_and_liveness_ignore_the_broker(settings, unmigrated_check):
    settings.REDIS_URL = UNREACHABLE_REDIS
    client = Client()
    assert client.get("/livez").status_code == 200
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.content
    assert ready.json() == {"status": "ok", "database": {"ok": True}, "migrations": {"ok": True}}
    assert client.get("/healthz").status_code == 503


@pytest.mark.django_db
def test_readiness_fails_while_a_migration_is_not_applied(unmigrated_check):
    with connection.cursor() as cursor:
        cursor.execute("SELECT app, name FROM django_migrations WHERE app = 'tournaments' ORDER BY id DESC LIMIT 1")
        app, name = cursor.fetchone()
        cursor.execute("DELETE FROM django_migrations WHERE app = %s AND name = %s", [app, name])
    ready = Client().get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["migrations"] == {"ok": False} and ready.json()["database"] == {"ok": True}
    assert Client().get("/livez").status_code == 200


@pytest.mark.django_db
def test_readiness_fails_while_the_database_is_down(monkeypatch, unmigrated_check):
    def refuse(*args, **kwargs):
        raise OSError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)
    assert Client().get("/readyz").status_code == 503
    assert Client().get("/livez").status_code == 200
