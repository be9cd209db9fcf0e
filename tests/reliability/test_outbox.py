"""The ratings' outbox (ratings/outbox.py): a result change writes its pool's sync request in its
own transaction; queueing the task after the commit never fails the write; a sync settles only
the requests it saw; the periodic catch-up syncs the pools left behind."""
from __future__ import annotations

import logging
import random

import pytest
from kombu.exceptions import OperationalError

from tests.api.play import play_session
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker_down(monkeypatch):
    """Tasks go to a broker (not run in-process), and publishing fails as with Redis unreachable."""
    from ratings.tasks import pool_sync
    from stich.celery import app

    def refuse(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(pool_sync, "apply_async", refuse)
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False
    yield
    app.conf.task_always_eager = eager


def requests() -> dict:
    from ratings.models import PoolSyncRequest

    return {game: PoolSyncRequest.objects.filter(game=game).count() for game in ("mu", "maumau", "lut")}


def test_a_finished_session_is_stored_and_answered_when_its_task_cannot_be_queued(
    world, broker_down, caplog, django_capture_on_commit_callbacks,
):
    from ratings.models import PoolEntry
    from ratings.tasks import catch_up

    table = world.events["lut"].rounds.get().tables.first()
    with caplog.at_level(logging.WARNING, logger="ratings.receivers"), django_capture_on_commit_callbacks(execute=True):
        _, _, session = play_session(client_for(world.organiser), table, "lut", random.Random(2))
    assert session["status"] == "finished"
    assert "could not queue the lut pool's sync" in caplog.text
    assert requests() == {"mu": 0, "maumau": 0, "lut": 1}
    assert not PoolEntry.objects.exists()

    assert catch_up.apply().get() == {"lut": 1}
    assert PoolEntry.objects.filter(game="lut").count() == 1
    assert requests()["lut"] == 0
    assert catch_up.apply().get() == {}  # nothing left behind: nothing to do


def test_holding_back_a_round_requests_a_sync_in_its_transaction(world, broker_down):
    from tournaments.services import round_set_results_held

    round_ = world.events["maumau"].rounds.get()
    round_set_results_held(round_=round_, held=True, by_user=world.organiser)
    assert requests()["maumau"] == 1


def test_a_rolled_back_change_leaves_no_request(world, broker_down):
    from django.db import transaction

    from tournaments.services import round_set_results_held

    round_ = world.events["mu"].rounds.get()
    with pytest.raises(RuntimeError), transaction.atomic():
        round_set_results_held(round_=round_, held=True, by_user=world.organiser)
        raise RuntimeError("the caller's transaction fails after the change")
    assert requests()["mu"] == 0


def test_a_sync_settles_only_the_requests_it_saw(world, monkeypatch):
    """A request committed while a sync runs (its result unseen by that sync) stays for the next."""
    from ratings import outbox, services
    from ratings.models import PoolSyncRequest

    outbox.request_sync("mu")
    seen = PoolSyncRequest.objects.get()
    original = services.pool_sync

    def sync_while_another_change_commits(game, **kwargs):
        answer = original(game, **kwargs)
        outbox.request_sync(game)  # arrives after the sync read what to do
        return answer

    monkeypatch.setattr(services, "pool_sync", sync_while_another_change_commits)
    assert outbox.sync("mu")["requests"] == 1
    left = list(PoolSyncRequest.objects.all())
    assert len(left) == 1 and left[0].pk != seen.pk
    assert outbox.games_behind() == ["mu"]


def test_with_tasks_run_in_process_a_failing_sync_still_raises(world, monkeypatch, django_capture_on_commit_callbacks):
    """In-process (no broker), a failure is a bug in the sync and must not be logged away."""
    from ratings import services
    from tournaments.services import round_set_results_held

    def broken(game, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(services, "pool_sync", broken)
    with pytest.raises(ZeroDivisionError), django_capture_on_commit_callbacks(execute=True):
        round_set_results_held(round_=world.events["lut"].rounds.get(), held=True, by_user=world.organiser)


def test_celery_beat_schedules_the_catch_up(settings):
    from stich.celery import app

    entry = app.conf.beat_schedule["ratings-catch-up"]
    assert entry["task"] == "ratings.catch_up"
    assert entry["schedule"] == settings.RATINGS_CATCH_UP_SECONDS
    assert "ratings.catch_up" in app.tasks
