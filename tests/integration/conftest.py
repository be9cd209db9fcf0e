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
from amqp.exceptions import ChannelError

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
def _live_worker_process(django_db_setup, django_db_blocker):
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
        answers = app.control.ping(timeout=1.0, limit=1)  # back with the first answer, not after 1 s
        if answers:
            process.node = next(iter(answers[0]))  # its name, for worker_idle
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


def worker_idle(app, node: str, seconds: float = 60.0) -> bool:
    """Wait until the broker's default queue is empty and the worker ``node`` holds no task (running,
    reserved or scheduled by a countdown); True once that was seen twice in a row, False after
    ``seconds``."""
    deadline = time.monotonic() + seconds
    quiet = 0
    while time.monotonic() < deadline:
        with app.connection_for_read() as conn:
            try:
                queued = conn.default_channel.queue_declare(app.conf.task_default_queue, passive=True).message_count
            except ChannelError:  # Redis holds no list for an empty queue
                queued = 0
        inspect = app.control.inspect(destination=[node], timeout=2.0, limit=1)  # back with its answer
        held = [inspect.active(), inspect.reserved(), inspect.scheduled()]
        busy = queued or any(tasks for replies in held for tasks in (replies or {}).values())
        quiet = 0 if busy else quiet + 1
        if quiet >= 2:
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def live_worker(_live_worker_process):
    """The session's live worker; at the end of the test it is left idle before the test database is
    flushed: a task still running then (a sync, a push, a rating scheduled by the test's last
    commits) would hold locks that the flush's TRUNCATE waits for or deadlocks on."""
    from stich.celery import app

    yield _live_worker_process
    assert worker_idle(app, _live_worker_process.node), "the live worker did not become idle within 60 s"
