"""The series' outbox (tournaments/standings/outbox.py): a change that moves a series' public
standings writes its sync request in its own transaction, readers compute while one is pending,
queueing the task after the commit never fails the write and is coalesced per series, a sync
settles only the requests it saw, and beat's catch-up syncs the series left behind."""
from __future__ import annotations

import logging
import random
import time

import pytest
from kombu.exceptions import OperationalError

from tests.api.play import next_record
from tests.series.test_kept_series import _computed, _kept, _next

pytestmark = pytest.mark.django_db


@pytest.fixture
def series(world, django_capture_on_commit_callbacks):
    """A series of the Mü event, synced (no request pending)."""
    from tournaments.models import Event
    from tournaments.services import event_update, series_create

    created = series_create(by_user=world.club_organiser, club=world.club, name="S", game="mu", min_events=1)
    with django_capture_on_commit_callbacks(execute=True):
        event_update(event=Event.objects.get(pk=world.events["mu"].pk), by_user=world.club_organiser, series=created)
    assert _requests(created) == 0
    return created


def _hand(world, number: int = 0, seed: int | None = None) -> None:
    from tournaments.models import Table
    from tournaments.results.services import Entry, hand_submit

    table = Table.objects.filter(round__event=world.events["mu"]).order_by("number")[number]
    session = table.sessions.order_by("-number").first()
    answer = None if session is None or not session.hands.exists() else {"next": _next(session)}
    hand_submit(table_id=table.pk, entry=Entry(next_record("mu", random.Random(number if seed is None else seed), 4, answer, table.first_dealer)),
                by_user=world.organiser)


def _requests(series) -> int:
    from tournaments.models import SeriesSyncRequest

    return SeriesSyncRequest.objects.filter(series_id=series.pk).count()


@pytest.fixture
def broker_down(monkeypatch):
    """Tasks go to a broker (not run in-process), and publishing fails as with Redis unreachable."""
    from stich.celery import app
    from tournaments.tasks import series_sync

    def refuse(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(series_sync, "apply_async", refuse)
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False
    yield
    app.conf.task_always_eager = eager


def test_a_hand_writes_the_request_and_readers_compute_until_the_sync(world, series, django_capture_on_commit_callbacks):
    from tournaments import policy
    from tournaments.standings.series_standings import series_document

    with django_capture_on_commit_callbacks() as callbacks:
        _hand(world)
    assert _requests(series) == 1
    assert _kept(series) is None  # the kept rows (none yet for this hand) are not read
    document = series_document(series, visibility=policy.public())
    assert [(row["player"], row["points"]) for row in document["standings"]] == [
        (row[0], row[2]) for row in _computed(series)] and len(document["standings"]) == 4
    for callback in callbacks:
        callback()
    assert _requests(series) == 0
    assert _kept(series) == _computed(series)


def test_a_hand_is_stored_and_answered_when_the_sync_cannot_be_queued(world, series, broker_down, caplog,
                                                                      django_capture_on_commit_callbacks):
    from tournaments.tasks import series_catch_up

    with caplog.at_level(logging.WARNING, logger="tournaments.tasks"), \
            django_capture_on_commit_callbacks(execute=True):
        _hand(world)
    assert f"could not queue series {series.pk}'s sync" in caplog.text
    assert _requests(series) == 1 and _kept(series) is None
    assert series_catch_up.apply().get() == {series.pk: 1}
    assert _requests(series) == 0 and _kept(series) == _computed(series)
    assert series_catch_up.apply().get() == {}


def test_the_syncs_of_a_busy_series_are_coalesced(world, series, monkeypatch, django_capture_on_commit_callbacks):
    """A process that queued a series' sync (to start after ``SYNC_DELAY_SECONDS``) queues none for
    the hands it commits meanwhile; the task's one refresh settles all their requests."""
    from stich.celery import app
    from tournaments import tasks
    from tournaments.tasks import series_sync

    queued = []
    monkeypatch.setattr(series_sync, "apply_async", lambda args, **kwargs: queued.append((args, kwargs["countdown"])))
    monkeypatch.setattr(tasks, "_queued", {})
    monkeypatch.setattr(tasks, "_shared", [None])  # this process's marks only (Redis's: the integration run)
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False
    try:
        with django_capture_on_commit_callbacks(execute=True):
            for number in range(3):
                _hand(world, number % 2, seed=number)
        assert queued == [([series.pk], tasks.SYNC_DELAY_SECONDS)] and _requests(series) == 3
        assert series_sync.run(series.pk) == 3  # one refresh for the three
        assert _requests(series) == 0 and _kept(series) == _computed(series)
        # Without Redis there is no mark, so no chain: each process queues its own syncs.
        assert queued == [([series.pk], tasks.SYNC_DELAY_SECONDS)]
        assert series_sync.run(series.pk) == 0  # a task finding nothing left queues nothing
        assert len(queued) == 1
        tasks._queued[series.pk] = 0.0  # the time has passed: the next hand queues a task again
        with django_capture_on_commit_callbacks(execute=True):
            _hand(world, 1, seed=7)
        assert _requests(series) == 1 and len(queued) == 2
    finally:
        app.conf.task_always_eager = eager


def test_other_processes_queue_no_sync_while_a_chain_of_syncs_holds_the_mark(world, series, monkeypatch, settings,
                                                                            django_capture_on_commit_callbacks):
    """With Redis, the process that queues a series' sync marks the series; the hands committed
    elsewhere queue nothing while the mark is there, however long the queue makes the sync wait. A
    sync that saw requests keeps the mark and queues the next one; one that saw none deletes it,
    and the next hand queues a sync again."""
    import redis

    from stich.celery import app
    from tournaments import tasks
    from tournaments.tasks import series_sync

    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set")
    marks = redis.Redis.from_url(settings.REDIS_URL)
    queued = []
    monkeypatch.setattr(series_sync, "apply_async", lambda args, **kwargs: queued.append(args))
    monkeypatch.setattr(tasks, "_queued", {})
    monkeypatch.setattr(tasks, "_shared", [])
    marks.delete(tasks._mark_key(series.pk))
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False
    try:
        with django_capture_on_commit_callbacks(execute=True):
            _hand(world, 0, seed=1)
        assert queued == [[series.pk]] and marks.exists(tasks._mark_key(series.pk))
        # Other processes (this one's memory cleared), later than its own shortcut lasts: the
        # mark says a chain of syncs will see their requests.
        for number in range(3):
            tasks._queued.clear()
            with django_capture_on_commit_callbacks(execute=True):
                _hand(world, number % 2, seed=10 + number)
            assert 0 < tasks._queued[series.pk] - time.monotonic() <= tasks.SYNC_DELAY_SECONDS / 2
        assert queued == [[series.pk]] and _requests(series) == 4
        assert series_sync.run(series.pk) == 4  # the one sync sees every request
        assert queued == [[series.pk]] * 2 and marks.exists(tasks._mark_key(series.pk))  # and queued the next
        tasks._queued.clear()
        with django_capture_on_commit_callbacks(execute=True):
            _hand(world, 1, seed=7)
        assert _requests(series) == 1 and len(queued) == 2  # the chain's next sync will see it
        assert series_sync.run(series.pk) == 1 and len(queued) == 3
        assert series_sync.run(series.pk) == 0 and len(queued) == 3  # nothing left: the chain ends
        assert not marks.exists(tasks._mark_key(series.pk))
        tasks._queued.clear()
        with django_capture_on_commit_callbacks(execute=True):
            _hand(world, 0, seed=8)
        assert _requests(series) == 1 and len(queued) == 4  # a new chain
    finally:
        app.conf.task_always_eager = eager
        marks.delete(tasks._mark_key(series.pk))


def test_a_sync_that_ends_its_chain_queues_what_was_committed_before_the_mark_went(world, series, monkeypatch):
    """A commit that found the mark after the last sync of a chain read the requests (none) and
    before it deleted the mark queued nothing: that sync reads the requests again after deleting it
    and queues a sync for them."""
    from stich.celery import app
    from tournaments import tasks
    from tournaments.standings import outbox
    from tournaments.tasks import series_sync

    queued = []
    monkeypatch.setattr(series_sync, "apply_async", lambda args, **kwargs: queued.append((args, kwargs["countdown"])))
    monkeypatch.setattr(tasks, "_shared", [None])  # no Redis: every claim succeeds
    release = tasks._release

    def commit_then_release(series_id):
        outbox.request_sync([series_id])  # committed while the mark was still there
        release(series_id)

    monkeypatch.setattr(tasks, "_release", commit_then_release)
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False
    try:
        assert series_sync.run(series.pk) == 0
        assert queued == [([series.pk], tasks.SYNC_DELAY_SECONDS)] and _requests(series) == 1
    finally:
        app.conf.task_always_eager = eager


def test_a_sync_settles_only_the_requests_it_saw(world, series, monkeypatch):
    """A request committed while a sync runs (its change unseen by that sync) stays for the next."""
    from tournaments.models import SeriesSyncRequest
    from tournaments.standings import outbox, series_standings

    outbox.request_sync([series.pk])
    seen = SeriesSyncRequest.objects.filter(series_id=series.pk).values_list("pk", flat=True)
    seen = set(seen)
    original = series_standings.recompute

    def recompute_while_another_change_commits(found):
        original(found)
        outbox.request_sync([found.pk])  # arrives after the sync read what to do

    monkeypatch.setattr(series_standings, "recompute", recompute_while_another_change_commits)
    assert outbox.sync(series.pk) == len(seen)
    left = set(SeriesSyncRequest.objects.filter(series_id=series.pk).values_list("pk", flat=True))
    assert len(left) == 1 and not left & seen
    assert outbox.series_behind() == [series.pk]
    assert _kept(series) is None  # pending: computed, not read


def test_a_rolled_back_change_leaves_no_request(world, series, broker_down):
    from django.db import transaction

    from tournaments.services import round_set_results_held

    before = _requests(series)
    with pytest.raises(RuntimeError), transaction.atomic():
        round_set_results_held(round_=world.events["mu"].rounds.get(), held=True, by_user=world.organiser)
        assert _requests(series) == before + 1
        raise RuntimeError("the caller's transaction fails after the change")
    assert _requests(series) == before


def test_celery_beat_schedules_the_series_catch_up(settings):
    from stich.celery import app

    entry = app.conf.beat_schedule["series-catch-up"]
    assert entry["task"] == "tournaments.series_catch_up"
    assert entry["schedule"] == settings.SERIES_CATCH_UP_SECONDS
    assert "tournaments.series_catch_up" in app.tasks and "tournaments.series_sync" in app.tasks
