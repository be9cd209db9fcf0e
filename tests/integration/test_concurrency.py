"""Concurrent and repeated submissions do not duplicate (PostgreSQL: real row locks)."""
from __future__ import annotations

import random
import threading

import pytest
from django.db import connection

from tests.api.play import next_record
from tests.conftest import client_for

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL's row locks (CI)"),
]

THREADS = 20


def race(requests):
    """Run the callables at once (a barrier releases them together); return their responses."""
    barrier = threading.Barrier(len(requests))
    responses = [None] * len(requests)

    def run(index, request):
        from django.db import connections

        try:
            barrier.wait()
            responses[index] = request()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, r)) for i, r in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return responses


@pytest.mark.parametrize("before", [0, 2])
def test_twenty_retries_with_one_idempotency_key_store_one_hand(world, before):
    """The session's first hand (stored under the table's lock) and one in its middle (read
    without the lock, stored under the revision's guard)."""
    from tournaments.models import Hand

    table = world.events["lut"].rounds.get().tables.first()
    url = f"/api/v1/tables/{table.pk}/hands/"
    rng, session = random.Random(1), None
    for _ in range(before):
        session = client_for(world.organiser).post(url, next_record("lut", rng, 4, session, table.first_dealer),
                                                   format="json").json()["session"]
    record = next_record("lut", rng, 4, session, table.first_dealer)

    def submit():
        return client_for(world.organiser).post(url, record, format="json", HTTP_IDEMPOTENCY_KEY="same-key")

    responses = race([submit] * THREADS)
    assert {r.status_code for r in responses} == {201}
    assert len({r.content for r in responses}) == 1
    assert Hand.objects.filter(session__table=table).count() == before + 1
    assert responses[0].json()["hand"]["number"] == before + 1


def test_twenty_different_records_for_the_same_hand_store_exactly_one(world):
    from tournaments.models import Hand

    table = world.events["mu"].rounds.get().tables.first()
    client = client_for(world.organiser)
    url = f"/api/v1/tables/{table.pk}/hands/"
    rng = random.Random(2)
    first = next_record("mu", rng, 4, None)
    session = client.post(url, first, format="json").json()["session"]
    records = [next_record("mu", rng, 4, session) for _ in range(THREADS)]

    responses = race([lambda r=r: client_for(world.organiser).post(url + "?hand=2", r, format="json") for r in records])
    codes = sorted(r.status_code for r in responses)
    assert codes == [201] + [409] * (THREADS - 1)
    numbers = list(Hand.objects.filter(session__table=table).order_by("number").values_list("number", flat=True))
    assert numbers == [1, 2]  # no gaps, no duplicates
    # The next hand still continues the stored one.
    after = client.post(url, next_record("mu", rng, 4, client.get(url).json()["session"]), format="json")
    assert after.status_code == 201 and after.json()["hand"]["number"] == 3


def test_a_submission_that_waited_for_the_lock_continues_the_hand_stored_meanwhile(world, monkeypatch):
    """A submission waiting for the table's lock reads the table's state after it has the lock:
    it sees the hand stored meanwhile, so it is stored as the hand after it (no 409, no stale
    slot, dealer or totals). The first submission here takes the lock (as a session's first or
    last hand does); the second reads without it, finds its record refused by the state it read
    (its dealer is the next hand's), and is judged again under the lock."""
    from tournaments.models import Session
    from tournaments.results import services as results
    from tournaments.results import sql

    table = world.events["mu"].rounds.get().tables.first()
    client = client_for(world.organiser)
    url = f"/api/v1/tables/{table.pk}/hands/"
    rng = random.Random(3)
    summary = client.post(url, next_record("mu", rng, 4, None), format="json").json()["session"]
    first = next_record("mu", rng, 4, summary)
    # The record after ``first``: Mü's deal moves one seat on (rules/mu.md §7).
    second = next_record("mu", rng, 4, {"next": {"dealer": (first["dealer"] + 1) % 4, "direction": None}})

    stored, release = threading.Event(), threading.Event()
    holder = []
    original = sql.store_hand

    def store_and_hold(*args, **kwargs):
        original(*args, **kwargs)
        if threading.current_thread() in holder:  # the first submission keeps its lock a while
            stored.set()
            release.wait(30)

    monkeypatch.setattr(sql, "store_hand", store_and_hold)
    unlocked = sql.reads_unlocked
    monkeypatch.setattr(sql, "reads_unlocked", lambda: threading.current_thread() not in holder and unlocked())
    answers = {}

    def submit(name, record):
        from django.db import connections

        try:
            answers[name] = client_for(world.organiser).post(url, record, format="json")
        finally:
            connections.close_all()

    first_thread = threading.Thread(target=submit, args=("first", first))
    holder.append(first_thread)
    first_thread.start()
    assert stored.wait(30)
    second_thread = threading.Thread(target=submit, args=("second", second))
    second_thread.start()
    second_thread.join(1.0)  # it waits for the lock
    assert second_thread.is_alive()
    release.set()
    first_thread.join(30)
    second_thread.join(30)
    assert answers["first"].status_code == 201, answers["first"].content
    assert answers["second"].status_code == 201, answers["second"].content
    assert [answers[name].json()["hand"]["number"] for name in ("first", "second")] == [2, 3]
    session = Session.objects.get(table=table)
    assert session.hand_count == 3
    assert session.totals == results.session_summary(session)["totals"]


def test_a_submission_read_before_another_write_is_stored_after_it_under_the_lock(world, monkeypatch):
    """A submission reads the table without its lock; when a write takes the lock and commits
    before the submission's storing statement (here a correction of the hand before, which changes
    the totals but not the slot), that statement stores nothing (the table's revision moved) and
    the submission is made again under the lock: stored as the next hand, on the corrected totals,
    with no id or row of the first attempt left behind."""
    from tournaments.models import Hand, Session, Table
    from tournaments.results import services as results
    from tournaments.results import sql

    table = world.events["mu"].rounds.get().tables.first()
    organiser = client_for(world.organiser)
    url = f"/api/v1/tables/{table.pk}/hands/"
    rng = random.Random(5)
    first = next_record("mu", rng, 4, None)
    summary = organiser.post(url, first, format="json").json()["session"]
    second = next_record("mu", rng, 4, summary)
    replacement = next_record("mu", random.Random(6), 4, {"next": {"dealer": first["dealer"], "direction": None}})
    hand = Hand.objects.get(session__table=table, number=1)
    revision = Table.objects.get(pk=table.pk).revision

    read, corrected = threading.Event(), threading.Event()
    reads = {"unlocked": 0, "locked": 0}
    original_read, original_lock = sql.read_table, sql.lock_table

    def read_then_wait(*args, **kwargs):
        state = original_read(*args, **kwargs)
        reads["unlocked"] += 1
        read.set()
        corrected.wait(30)
        return state

    def lock(*args, **kwargs):
        if threading.current_thread().name == "submission":
            reads["locked"] += 1
        return original_lock(*args, **kwargs)

    answers = {}

    def submit():
        from django.db import connections

        monkeypatch.setattr(sql, "read_table", read_then_wait)
        try:
            answers["second"] = client_for(world.organiser).post(url, second, format="json")
        finally:
            connections.close_all()

    monkeypatch.setattr(sql, "lock_table", lock)
    thread = threading.Thread(target=submit, name="submission")
    thread.start()
    assert read.wait(30)
    monkeypatch.setattr(sql, "read_table", original_read)
    response = organiser.post(f"/api/v1/hands/{hand.pk}/correct/", {"record": replacement, "reason": "wrong sheet"},
                              format="json")
    assert response.status_code == 200, response.content
    corrected.set()
    thread.join(30)
    assert answers["second"].status_code == 201, answers["second"].content
    assert reads == {"unlocked": 1, "locked": 1}
    receipt = answers["second"].json()
    assert receipt["hand"]["number"] == 2
    session = Session.objects.get(table=table)
    assert session.hand_count == 2 and Hand.objects.filter(session=session).count() == 2
    assert session.totals == results.session_summary(session)["totals"] == receipt["session"]["totals"]
    assert Hand.objects.get(session=session, number=1).version == 2
    # The correction and the stored hand each counted the revision on; the refused statement did not.
    assert Table.objects.get(pk=table.pk).revision == revision + 2


def test_submissions_corrections_and_voids_at_once_leave_every_sum_equal_to_a_recomputation(world):
    """Two devices of a table submit the next hands (each without ``?hand``, so whichever is
    second is judged again and stored after the other or refused) while an organiser corrects and
    voids earlier hands, in rounds released together: hand numbers stay gapless, and the session's
    kept totals and the players' round and event sums equal a computation over every hand."""
    from tournaments.models import Event, Hand, Session
    from tournaments.results import services as results
    from tournaments.standings import sums

    table = world.events["mu"].rounds.get().tables.first()
    event_id = table.round.event_id
    # A game of many deals: every hand here is in the middle of the session.
    Event.objects.filter(pk=event_id).update(mu_fixed_deals=1000)
    url = f"/api/v1/tables/{table.pk}/hands/"
    rng = random.Random(7)
    organiser = client_for(world.organiser)
    summary = organiser.post(url, next_record("mu", rng, 4, None), format="json").json()["session"]
    for step in range(8):
        records = [next_record("mu", rng, 4, summary) for _ in range(2)]
        hands = list(Hand.objects.filter(session__table=table).order_by("number"))
        if step % 3 == 2:
            standing = [hand for hand in hands if not hand.voided]
            target = standing[rng.randrange(len(standing))]

            def change(target=target):
                return client_for(world.organiser).post(f"/api/v1/hands/{target.pk}/void/", {"reason": "misdeal"},
                                                        format="json")
        else:
            target = hands[rng.randrange(len(hands))]
            replacement = next_record("mu", rng, 4, {"next": {"dealer": target.dealer, "direction": None}})

            def change(target=target, replacement=replacement):
                return client_for(world.organiser).post(f"/api/v1/hands/{target.pk}/correct/",
                                                        {"record": replacement, "reason": "wrong sheet"}, format="json")
        responses = race([lambda r=r: client_for(world.organiser).post(url, r, format="json") for r in records]
                         + [change])
        submitted = sorted(r.status_code for r in responses[:2])
        # The two records are for the same slot: one is stored, the other is refused by the
        # hand stored before it (its dealer: 422).
        assert submitted == [201, 422], [r.content for r in responses[:2]]
        assert responses[2].status_code == 200, responses[2].content
        summary = organiser.get(url).json()["session"]

    session = Session.objects.get(table=table)
    numbers = list(Hand.objects.filter(session=session).order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, 10))
    assert session.hand_count == 9
    assert session.totals == results.session_summary(session)["totals"]
    kept = {(row.round_id, row.player_id): tuple(getattr(row, name) for name in sums.FIELDS)
            for row in sums.RoundStanding.objects.filter(event_id=event_id)}
    computed = {(round_id, player): values for (event, round_id, player), values in sums.recompute([event_id]).items()}
    assert {key: value for key, value in kept.items() if any(value)} == {
        key: value for key, value in computed.items() if any(value)}
