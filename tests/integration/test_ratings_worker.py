"""Ratings kept by live Celery workers on PostgreSQL and Redis (CI): incremental, corrected,
idempotent under redelivery, and intact when a worker is killed in the middle of a task."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from contextlib import contextmanager

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from tests.api.play import next_record, play_session
from tests.conftest import client_for
from tests.integration.conftest import ROOT, _worker_env, worker_idle

pytestmark = [
    pytest.mark.integration,
    pytest.mark.live_worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL and live workers (CI)"),
]


def wait_for(predicate, timeout: float = 90.0, what: str = "the workers"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not get there within {timeout:.0f} s")


def pool_in_step(game: str) -> bool:
    from ratings.models import PoolEntry
    from ratings.services import rated_sessions

    wanted = [(s.session_id, s.fingerprint) for s in rated_sessions(game)]
    applied = list(PoolEntry.objects.filter(game=game).order_by("position").values_list("session_id", "fingerprint"))
    return bool(wanted) and applied == wanted


def ratings_of(game: str) -> dict:
    from ratings.models import Rating

    return {r.player_id: (r.mu, r.sigma, r.sessions) for r in Rating.objects.filter(game=game)}


def from_scratch(game: str) -> dict:
    """What the sequence of rated sessions gives, computed here without the database's pool."""
    from ratings.model import Session, rate_many
    from ratings.services import rated_sessions

    sessions = rated_sessions(game)
    state = rate_many({}, [Session(s.players, s.totals) for s in sessions])
    played = {}
    for s in sessions:
        for player in s.players:
            played[player] = played.get(player, 0) + 1
    return {player: (mu, sigma, played[player]) for player, (mu, sigma) in state.items()}


def assert_same(ours: dict, expected: dict, tolerance: float = 1e-9):
    assert ours.keys() == expected.keys()
    for player, (mu, sigma, sessions) in expected.items():
        assert abs(ours[player][0] - mu) < tolerance and abs(ours[player][1] - sigma) < tolerance
        assert ours[player][2] == sessions


def test_sessions_through_the_api_are_rated_by_the_worker_and_corrections_recompute(world, live_worker):
    from tournaments.models import Hand

    client = client_for(world.organiser)
    rng = random.Random(11)
    for table in world.events["lut"].rounds.get().tables.all():
        _, _, session = play_session(client, table, "lut", rng)
        assert session["status"] == "finished"
    wait_for(lambda: pool_in_step("lut"), what="the rating of three finished sessions")
    board = client_for().get("/api/v1/ratings/leaderboard/", {"game": "lut"}).json()
    assert board["count"] == 12
    incremental = ratings_of("lut")
    assert_same(incremental, from_scratch("lut"))

    # Correct the first hand of the first session: the pool is recomputed from that session on.
    hand = Hand.objects.filter(session__table__round__event=world.events["lut"]).order_by("session__finished_at", "number").first()
    players = hand.session.table.seats.count()
    replacement = next_record("lut", rng, players, {"next": {"dealer": hand.dealer, "direction": 1}})
    response = client.post(f"/api/v1/hands/{hand.pk}/correct/", {"record": replacement, "reason": "wrong sheet"}, format="json")
    assert response.status_code == 200, response.content
    wait_for(lambda: pool_in_step("lut") and ratings_of("lut") != incremental, what="the recompute after a correction")
    corrected = ratings_of("lut")
    assert_same(corrected, from_scratch("lut"))
    call_command("recompute_ratings", "--game", "lut", "--no-progress", stdout=open(os.devnull, "w"))
    assert ratings_of("lut") == corrected

    # A task delivered twice (here: queued twice more) changes nothing.
    from ratings.tasks import pool_sync

    first, second = pool_sync.delay("lut"), pool_sync.delay("lut")
    assert first.get(timeout=60)["rated"] == 0 and second.get(timeout=60)["rated"] == 0
    assert ratings_of("lut") == corrected


def _start_worker(queue: str, log_name: str):
    env = _worker_env(connection.settings_dict["NAME"])
    env["CELERY_VISIBILITY_TIMEOUT"] = "3"  # this test's own configuration: redeliver after 3 s
    log = open(ROOT / log_name, "w")  # noqa: SIM115 - closed by the caller
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "stich", "worker", "--pool=solo", "--loglevel=INFO",
         "--queues", queue, "--hostname", f"{queue}-{time.monotonic_ns()}@%h", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    return process, log


@contextmanager
def inserts_held(model):
    """Another connection holds ``model``'s table in EXCLUSIVE mode until the block ends: reads go
    on, a writer waits for the table, in the middle of its transaction."""
    params = connection.settings_dict
    with psycopg.connect(dbname=params["NAME"], user=params["USER"], password=params["PASSWORD"] or None,
                         host=params["HOST"] or None, port=params["PORT"] or None) as holder:
        holder.execute(f'LOCK TABLE "{model._meta.db_table}" IN EXCLUSIVE MODE')
        yield holder
        holder.rollback()


def waiting_for_a_lock(holder) -> bool:
    """Whether a backend waits for a lock that the holder's connection has (asked on this process's
    own connection: a transaction sees one snapshot of ``pg_stat_activity``)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                       " AND %s = ANY(pg_blocking_pids(pid))", [holder.info.backend_pid])
        return cursor.fetchone()[0] > 0


def test_a_worker_killed_mid_task_leaves_the_same_ratings(db, live_worker):
    from ratings.models import PoolEntry, RatingHistory
    from ratings.tasks import pool_sync
    from stich.celery import app

    # Tasks an earlier test left queued (beat's catch-ups in test_reliability) must not sync this
    # pool behind the victim's back: the queue emptied and the shared worker idle first.
    app.control.purge()
    assert worker_idle(app, live_worker.node, seconds=120), "the shared worker did not become idle"
    # The victim is killed while it waits for the held table, whatever the league's size: 1,500
    # sessions (4 to 6 players each) still make a history of more than one batch of writes
    # (ratings.services._insert) and more than one batch of marks to clear.
    sessions = 1500
    call_command("load_league", "--players", "300", "--sessions", str(sessions), "--game", "mu", "--no-progress",
                 stdout=open(os.devnull, "w"))
    queue = "ratings-kill-test"
    victim, victim_log = _start_worker(queue, "celery-test-victim.log")
    try:
        # The pool's entries are held: the victim rates the league, writes its history and then waits
        # for the entries' table, inside its transaction. It is killed there, whatever the speed of
        # the machine (no league size to guess).
        with inserts_held(PoolEntry) as holder:
            # A queue of its own: only the victim, then its successor, consume this delivery.
            result = pool_sync.apply_async(args=["mu"], queue=queue)
            wait_for(lambda: waiting_for_a_lock(holder), timeout=120, what="the victim's writes")
            assert victim.poll() is None
            victim.send_signal(signal.SIGKILL)
            victim.wait(timeout=30)
        # Killed mid-task: its transaction never committed.
        assert PoolEntry.objects.filter(game="mu").count() == 0
        assert RatingHistory.objects.filter(game="mu").count() == 0
        successor, successor_log = _start_worker(queue, "celery-test-successor.log")
        try:
            answer = result.get(timeout=180)
            assert answer["rated"] == sessions
        finally:
            successor.send_signal(signal.SIGTERM)
            successor.wait(timeout=60)
            successor_log.close()
    finally:
        if victim.poll() is None:
            victim.kill()
        victim_log.close()
    assert pool_in_step("mu")
    assert_same(ratings_of("mu"), from_scratch("mu"))
