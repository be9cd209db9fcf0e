"""A live Celery worker on the real broker, for the tests that prove a task went through Redis.

Skipped unless ``REDIS_URL`` is set (CI sets it). The worker is started once per test session,
uses the test database, and is stopped at the end.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _suffix() -> str:
    """The pytest-xdist worker's name (``-gw0``), so that two workers' Celery logs stay apart."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return f"-{worker}" if worker else ""


def _worker_env(database_name: str | None) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "stich.settings", "DEBUG": "1"}
    url = os.environ.get("DATABASE_URL", "")
    if database_name and url.startswith("postgres"):
        env["DATABASE_URL"] = url.rsplit("/", 1)[0] + "/" + database_name
    return env


@pytest.fixture(scope="session")
def live_worker(django_db_setup, django_db_blocker):
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: a live worker runs on the real broker (CI sets it)")
    from django.db import connection

    from stich.celery import app

    log = open(ROOT / f"celery-test-worker{_suffix()}.log", "w")  # noqa: SIM115 - closed at teardown
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "stich", "worker", "--pool=solo", "--loglevel=INFO",
         "--hostname", f"test-worker-{os.getpid()}@%h", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=_worker_env(connection.settings_dict["NAME"]), stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the Celery worker exited early; see {log.name}")
        if app.control.ping(timeout=1.0, limit=1):  # back with the first answer, not after 1 s
            break
    else:
        process.kill()
        raise RuntimeError("the Celery worker did not answer within 60 s")
    yield process
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()
