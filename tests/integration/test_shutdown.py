"""A worker stopped as Kubernetes and compose stop it (SIGTERM) in the middle of a task loses
nothing: Celery's warm shutdown takes no new task, finishes the running one (acknowledged late,
after its transaction committed) and exits; a task queued meanwhile waits in the broker for the
next worker. (A worker killed outright, SIGKILL at the end of the grace period, has its task
delivered again: tests/integration/test_ratings_worker.py.)"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from django.core.management import call_command
from django.db import connection

from tests.integration.conftest import ROOT, _worker_env
from tests.integration.test_ratings_worker import (
    assert_same,
    from_scratch,
    inserts_held,
    pool_in_step,
    ratings_of,
    wait_for,
    waiting_for_a_lock,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.live_worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL and live workers (CI)"),
]


def start_worker(queue: str, log_name: str):
    """A worker as the deployments run it (prefork, the settings' visibility timeout of an hour,
    so that nothing here is redelivered by the timeout)."""
    env = _worker_env(connection.settings_dict["NAME"])
    env.pop("CELERY_VISIBILITY_TIMEOUT", None)
    log = open(ROOT / log_name, "w")  # noqa: SIM115 - closed by the caller
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "stich", "worker", "--concurrency=1", "--loglevel=INFO",
         "--queues", queue, "--hostname", f"{queue}-{time.monotonic_ns()}@%h", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    return process, log


def test_sigterm_mid_task_finishes_the_task_and_leaves_the_queue_to_the_next_worker(db, live_worker):
    from ratings.models import PoolEntry
    from ratings.tasks import pool_sync
    from stich.celery import app
    from tournaments.tasks import ping

    app.control.purge()
    sessions = 200
    call_command("load_league", "--players", "60", "--sessions", str(sessions), "--game", "mu", "--no-progress",
                 stdout=open(os.devnull, "w"))  # noqa: SIM115
    queue = "shutdown-test"
    victim, victim_log = start_worker(queue, "celery-test-shutdown-victim.log")
    try:
        with inserts_held(PoolEntry) as holder:
            result = pool_sync.apply_async(args=["mu"], queue=queue)
            wait_for(lambda: waiting_for_a_lock(holder), timeout=120, what="the victim's task")
            victim.send_signal(signal.SIGTERM)  # what the kubelet sends first
            time.sleep(2)
            later = ping.apply_async(args=["after the SIGTERM"], queue=queue)
            time.sleep(2)
            assert victim.poll() is None, "the worker left its running task"
        # The lock released: the task completes, is acknowledged, and the worker exits cleanly.
        assert result.get(timeout=120)["rated"] == sessions
        assert victim.wait(timeout=60) == 0
    finally:
        if victim.poll() is None:
            victim.kill()
        victim_log.close()
    assert pool_in_step("mu")
    assert_same(ratings_of("mu"), from_scratch("mu"))
    assert PoolEntry.objects.filter(game="mu").count() == sessions
    # The task queued after the SIGTERM was not taken by the stopping worker: the next one runs it.
    assert not later.ready()
    successor, successor_log = start_worker(queue, "celery-test-shutdown-successor.log")
    try:
        assert later.get(timeout=120)["echo"] == "after the SIGTERM"
    finally:
        successor.send_signal(signal.SIGTERM)
        successor.wait(timeout=60)
        successor_log.close()
