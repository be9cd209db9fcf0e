"""The public's kept series standings stay right when hands are written while the event is
attached and detached, published and unpublished and its round held and released at the same
time (PostgreSQL: real row locks; tournaments/standings/series_standings.py): once the live worker
has synced the series (tournaments/standings/outbox.py), its kept rows equal a recomputation. A
hand's write takes no lock of the series."""
from __future__ import annotations

import random
import threading
import time

import pytest
from django.db import connection

from tests.api.play import next_record
from tests.integration.test_concurrency import race

pytestmark = [
    pytest.mark.integration,
    pytest.mark.live_worker,  # the series' syncs run in the live worker, after each commit
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL's row locks (CI)"),
]

HANDS = 6
TOGGLES = 6


def _synced(series, seconds: float = 60.0) -> None:
    """Wait until the worker has settled every sync request of ``series``."""
    from tournaments.models import SeriesSyncRequest

    deadline = time.monotonic() + seconds
    while SeriesSyncRequest.objects.filter(series_id=series.pk).exists():
        assert time.monotonic() < deadline, "the worker did not sync the series"
        time.sleep(0.05)


def test_hands_written_while_the_event_moves_in_and_out_of_its_series_are_kept(world, live_worker):
    from tests.series.test_kept_series import _computed, _kept, _next
    from tournaments.models import Event, Round, Series, Table
    from tournaments.results.services import Entry, hand_submit
    from tournaments.services import event_update, round_set_results_held, series_create

    organiser = world.club_organiser
    event = world.events["mu"]
    Event.objects.filter(pk=event.pk).update(mu_fixed_deals=HANDS + 2)
    series = series_create(by_user=organiser, club=world.club, name="S", game="mu", min_events=1)
    event_update(event=Event.objects.get(pk=event.pk), by_user=organiser, series=series)
    tables = list(Table.objects.filter(round__event=event).order_by("number"))

    def hands(table_id: int, seed: int):
        def run():
            rng = random.Random(seed)
            for _ in range(HANDS):
                table = Table.objects.get(pk=table_id)
                session = table.sessions.order_by("-number").first()
                answer = None if session is None or not session.hands.exists() else {"next": _next(session)}
                hand_submit(table_id=table_id, entry=Entry(next_record("mu", rng, 4, answer, table.first_dealer)),
                            by_user=world.organiser)
            return "hands"
        return run

    def toggle_series():
        for _ in range(TOGGLES):
            current = Event.objects.get(pk=event.pk)
            event_update(event=current, by_user=organiser, series=None if current.series_id else series)
        return "series"

    def toggle_published():
        for _ in range(TOGGLES):
            current = Event.objects.get(pk=event.pk)
            event_update(event=current, by_user=organiser, published=not current.published)
        return "published"

    def toggle_held():
        for _ in range(TOGGLES):
            round_ = Round.objects.get(event=event)
            round_set_results_held(round_=round_, held=not round_.results_held, by_user=organiser)
        return "held"

    done = race([hands(table.pk, index) for index, table in enumerate(tables)]
                + [toggle_series, toggle_published, toggle_held])
    assert None not in done, "a writer failed (see the thread's exception above)"
    assert sorted(done) == sorted(["hands"] * len(tables) + ["series", "published", "held"])
    # An even number of toggles: attached, published and released again, as at the start; the
    # kept rows are those the last of the writes left, and must equal the recomputation.
    current = Event.objects.get(pk=event.pk)
    assert current.series_id == series.pk and current.published
    assert not Round.objects.get(event=event).results_held
    series = Series.objects.get(pk=series.pk)
    _synced(series)
    assert _kept(series) is not None
    assert _kept(series) == _computed(series) and len(_computed(series)) == 12


def test_a_hand_in_an_event_of_a_series_does_not_wait_for_the_series_row(world, live_worker):
    """The series' row locked by someone else (as a sync or a change of the series holds it): a
    hand of one of its events is stored without waiting, and the series is synced afterwards."""
    from django.db import connections

    from tests.series.test_kept_series import _computed, _kept
    from tournaments.models import Event, Series, Table
    from tournaments.results.services import Entry, hand_submit
    from tournaments.services import event_update, series_create

    organiser = world.club_organiser
    event = world.events["mu"]
    series = series_create(by_user=organiser, club=world.club, name="S", game="mu", min_events=1)
    event_update(event=Event.objects.get(pk=event.pk), by_user=organiser, series=series)
    table = Table.objects.filter(round__event=event).order_by("number").first()
    locked, release, took = threading.Event(), threading.Event(), []

    def hold_the_series_row():
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute("BEGIN")
                cursor.execute("SELECT id FROM tournaments_series WHERE id = %s FOR UPDATE", [series.pk])
                locked.set()
                release.wait(30)
                cursor.execute("ROLLBACK")
        finally:
            connections["default"].close()

    holder = threading.Thread(target=hold_the_series_row)
    holder.start()
    try:
        assert locked.wait(10)
        started = time.monotonic()
        hand_submit(table_id=table.pk, entry=Entry(next_record("mu", random.Random(5), 4, None, table.first_dealer)),
                    by_user=world.organiser)
        took.append(time.monotonic() - started)
    finally:
        release.set()
        holder.join(30)
    assert took[0] < 3.0, f"the hand waited {took[0]:.1f} s for the series' row"
    series = Series.objects.get(pk=series.pk)
    _synced(series)
    assert _kept(series) == _computed(series) and len(_computed(series)) == 4
