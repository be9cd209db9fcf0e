"""A new session costs the pool what the session is, not what the pool holds; hand submission
locks the table only and runs a bounded number of statements."""
from __future__ import annotations

import random

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.api.play import next_record
from tests.conftest import client_for


def stored(game):
    from ratings.models import Rating

    return {r.player_id: (r.mu, r.sigma, r.sessions, r.displayed, r.trend) for r in Rating.objects.filter(game=game)}


def finish_one(world, number, rng, players=None):
    """A new LuT session, played through the API to its end."""
    from tournaments.models import Round
    from tournaments.services import table_create

    event = world.events["lut"]
    round_ = Round.objects.create(event=event, number=100 + number)
    table = table_create(round_=round_, number=1, players=players or rng.sample(world.players, 4), by_user=None)
    client = client_for(world.organiser)
    session = None
    while session is None or session["status"] == "open":
        response = client.post(f"/api/v1/tables/{table.pk}/hands/", next_record("lut", rng, 4, session), format="json")
        assert response.status_code == 201, response.content
        session = response.json()["session"]
    return table.sessions.get()


def sync_queries(game):
    from ratings.services import pool_sync

    with CaptureQueriesContext(connection) as captured:
        result = pool_sync(game)
    return result, len(captured)


@pytest.mark.django_db
def test_a_new_session_reads_and_writes_only_its_players_whatever_the_pool(world):
    from ratings.models import PoolEntry, RatingHistory

    call_command("load_league", "--players", "40", "--sessions", "300", "--game", "lut", "--no-progress",
                 stdout=open("/dev/null", "w"))
    rng = random.Random("pool")
    for number in range(3):  # everyone rated once (a new player's rating is created, not updated)
        finish_one(world, 10 + number, rng, players=world.players[4 * number:4 * number + 4])
    sync_queries("lut")  # the first sync compares everything
    costs = []
    for number in range(3):
        if number == 2:  # a pool three times as large: a league loaded later (late sessions)
            call_command("load_league", "--players", "40", "--sessions", "600", "--game", "lut", "--no-progress",
                         "--club", "Second league", "--seed", "3", stdout=open("/dev/null", "w"))
            assert sync_queries("lut")[0]["pool"] > 900
        session = finish_one(world, number, rng)
        size = PoolEntry.objects.filter(game="lut").count()
        result, count = sync_queries("lut")
        assert result == {"game": "lut", "rolled_back": 0, "rated": 1, "pool": size + 1}
        assert PoolEntry.objects.get(session=session).position == size
        assert RatingHistory.objects.filter(session=session).count() == 4
        costs.append(count)
        again, _ = sync_queries("lut")
        assert again["rated"] == again["rolled_back"] == 0
    assert costs[0] == costs[1] == costs[2], costs
    incremental = stored("lut")
    call_command("recompute_ratings", "--game", "lut", "--no-progress", stdout=open("/dev/null", "w"))
    assert stored("lut") == incremental


@pytest.mark.django_db
def test_corrections_late_sessions_and_released_rounds_equal_a_recompute(world):
    """The fall-backs: each leaves the numbers of a recompute from scratch."""
    from ratings.models import PoolEntry
    from ratings.services import pool_sync
    from tournaments.models import Hand, Session
    from tournaments.results.services import hand_void, session_abandon
    from tournaments.services import round_set_results_held

    rng = random.Random("fallbacks")
    sessions = [finish_one(world, number, rng) for number in range(4)]
    pool_sync("lut")
    # A correction of the second session re-rates from there.
    hand = Hand.objects.filter(session=sessions[1]).order_by("number").first()
    hand_void(hand=hand, by_user=world.organiser, reason="misdeal")
    assert sessions[1].__class__.objects.get(pk=sessions[1].pk).status == Session.Status.FINISHED
    result = pool_sync("lut")
    assert (result["rolled_back"], result["rated"]) == (3, 3)
    # A late session: finished before the last ones, synced after them.
    late = finish_one(world, 9, rng)
    between = sessions[1].finished_at + (sessions[2].finished_at - sessions[1].finished_at) / 2
    Session.objects.filter(pk=late.pk).update(finished_at=between, rating_dirty_at=timezone.now())
    result = pool_sync("lut")
    assert (result["rolled_back"], result["rated"]) == (2, 3)
    # A held round leaves the pool, a released one comes back; an abandoned session leaves.
    held = sessions[0].table.round
    round_set_results_held(round_=held, held=True, by_user=world.organiser)
    assert pool_sync("lut")["pool"] == 4
    round_set_results_held(round_=held, held=False, by_user=world.organiser)
    assert pool_sync("lut")["pool"] == 5
    session_abandon(session=sessions[3], by_user=world.organiser, reason="left")
    assert pool_sync("lut")["pool"] == 4
    assert not PoolEntry.objects.filter(session=sessions[3]).exists()
    incremental = stored("lut")
    call_command("recompute_ratings", "--game", "lut", "--no-progress", stdout=open("/dev/null", "w"))
    assert stored("lut") == incremental


@pytest.mark.django_db
def test_a_hand_runs_a_bounded_number_of_statements(world):
    """The statements of one submission in the middle of a session (with an Idempotency-Key). On
    PostgreSQL two, without a lock or a transaction of their own: the table with its round and
    event (for the rights check) and its state (seat count, session, latest hand, the key), then
    the hand, its version, the session's totals, the players' sums and the key's receipt, stored
    only while the table's revision is the one read. Elsewhere (SQLite), in one transaction: the
    table's lock, the state, and the writes each a statement. The session's hands are never read."""
    table = world.events["mu"].rounds.get().tables.first()
    client = client_for()
    rng = random.Random("statements")
    url = f"/api/v1/tables/{table.pk}/hands/"
    session = None
    for number in range(3):
        record = next_record("mu", rng, 4, session)
        with CaptureQueriesContext(connection) as captured:
            response = client.post(url, record, format="json", HTTP_X_SCORER_TOKEN=table.scorer_token,
                                   HTTP_IDEMPOTENCY_KEY=f"hand-{number}")
        assert response.status_code == 201, response.content
        session = response.json()["session"]
    statements = [q["sql"] for q in captured
                  if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "BEGIN", "COMMIT"))]
    assert sum("games_hand" in sql and sql.startswith("SELECT") for sql in statements) == 1
    if connection.vendor == "postgresql":
        assert len(statements) == 2, "\n".join(statements)
        read, store = statements
        assert read.startswith("SELECT") and "FOR UPDATE" not in read and "t.revision" in read
        assert store.startswith('WITH t AS (UPDATE "tournaments_table" SET revision = revision + 1 WHERE id = %s '
                                'AND revision = %s RETURNING id)')
        assert 'INSERT INTO "games_idempotentsubmission"' in store  # the key's receipt
    else:
        assert sum(sql.startswith("SELECT") for sql in statements) == 2, "\n".join(statements)
        # SQLite has no data-modifying WITH: the hand (which reads the series in its RETURNING),
        # its version, the session, the round's and the event's sums (one upsert each, whatever
        # the number of players) and the key's receipt, each a statement of its own.
        assert len(statements) == 8, "\n".join(statements)
        assert sum(sql.startswith("INSERT") for sql in statements) == 3
        assert sum(sql.startswith("UPDATE") for sql in statements) == 1
        assert sum(sql.startswith("WITH") for sql in statements) == 2


@pytest.mark.django_db
def test_a_submission_reads_the_tables_latest_session_by_its_number(world):
    """The state a submission reads (on PostgreSQL without the lock, elsewhere under it) is the
    table's session with the highest number and that session's latest hand, whatever order the
    sessions were made in and however many the table has."""
    from tournaments.models import Hand, Session
    from tournaments.results import sql

    table = world.events["mu"].rounds.get().tables.first()
    assert not table.sessions.exists()
    for number in (1, 3, 2):  # the session numbered 3 is not the last one made
        session = Session.objects.create(table=table, number=number, status=Session.Status.FINISHED
                                         if number < 3 else Session.Status.OPEN, hand_count=number)
        for slot in range(1, number + 1):
            Hand.objects.create(session=session, number=slot, dealer=(slot - 1) % 4, record={}, result=None)
    latest = table.sessions.get(number=3)
    if sql.reads_unlocked():
        state = sql.read_table(table.pk)
        assert state.guard is not None and state.guard.table_id == table.pk
    else:
        with transaction.atomic():
            state = sql.table_state(sql.lock_table(table.pk))
    assert state.session.pk == latest.pk and state.session.number == 3 and state.session.hand_count == 3
    assert state.last.pk == latest.hands.get(number=3).pk
    assert state.seats == 4 and state.table.round.event.series_id is None


@pytest.mark.django_db
def test_a_hand_in_a_series_moves_its_event_and_its_series_only_in_one_round_trip(
        world, monkeypatch, django_capture_on_commit_callbacks):
    """A hand in an event of a series moves the versions of its event and of the series (its sync
    request; the series' top on the other events' room screens is a region of the series) in one
    round trip to the cache after its commit, and tells the event's groups and the series' group only:
    the season's other events are neither read nor told, however many there are."""
    from tournaments import live, services

    event, other = world.events["mu"], world.other_event
    series = services.series_create(by_user=world.club_organiser, club=world.club, name="Season", game="mu")
    third = services.event_create(club=world.club, by_user=world.club_organiser, name="third", game="mu")
    for each in (event, other, third):
        services.event_update(event=each, by_user=world.club_organiser, series=series)
    bumped, bump_all = [], live._bump_all
    monkeypatch.setattr(live, "_bump_all", lambda keys, **kwargs: bumped.append(sorted(keys)) or bump_all(keys, **kwargs))
    sent, send_all = [], live._send_all
    monkeypatch.setattr(live, "_send_all", lambda sends, **kwargs: sent.append([target for target, _, _ in sends])
                        or send_all(sends, **kwargs))
    versions = {pk: live.current_version(pk) for pk in (event.pk, other.pk, third.pk)}
    series_version = live.current_series_version(series.pk)
    table = event.rounds.get().tables.first()
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for().post(f"/api/v1/tables/{table.pk}/hands/", next_record("mu", random.Random(7), 4, None),
                                     format="json", HTTP_X_SCORER_TOKEN=table.scorer_token)
        assert response.status_code == 201, response.content
    # A scorer's hand: with a shared layer (Redis) the versions move with the process's next push
    # (``live.announce_all``, ``coalesced``), delivered here at once; elsewhere on the request.
    live._sender.flush()
    assert bumped == [sorted([live._version_key(event.pk), live._series_version_key(series.pk)])]
    assert sent == [[(live.EVENT, event.pk), (live.SERIES_KIND, series.pk)]]
    assert live.current_version(event.pk) > versions[event.pk]
    assert live.current_version(other.pk) == versions[other.pk] and live.current_version(third.pk) == versions[third.pk]
    assert live.current_series_version(series.pk) > series_version


@pytest.mark.django_db
@pytest.mark.parametrize("coalesce", [True, False])
def test_a_scorers_hand_moves_the_live_version_with_the_push_and_an_organisers_before_the_answer(
        world, monkeypatch, settings, coalesce, django_capture_on_commit_callbacks):
    """With a shared channel layer (Redis) a hand from a table's scorer token leaves its event's
    live version to the process's sender, bumped right before its message
    (``LIVE_COALESCE_SCORER_HANDS``); with the setting off, for an organiser's hand, or without a
    shared layer, the version moves before the answer."""
    from tournaments import live

    settings.LIVE_COALESCE_SCORER_HANDS = coalesce
    event = world.events["mu"]
    table = event.rounds.get().tables.first()
    bumped, bump_all = [], live._bump_all
    monkeypatch.setattr(live, "_bump_all", lambda keys, **kwargs: bumped.append(sorted(keys)) or bump_all(keys, **kwargs))
    rng, session = random.Random(11), None
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for().post(f"/api/v1/tables/{table.pk}/hands/", next_record("mu", rng, 4, session),
                                     format="json", HTTP_X_SCORER_TOKEN=table.scorer_token)
        assert response.status_code == 201, response.content
    later = coalesce and live._shared_layer() is not None
    assert bumped == ([] if later else [[live._version_key(event.pk)]])
    live._sender.flush()
    assert bumped == [[live._version_key(event.pk)]]
    bumped.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(world.organiser).post(f"/api/v1/tables/{table.pk}/hands/",
                                                    next_record("mu", rng, 4, response.json()["session"]),
                                                    format="json")
        assert response.status_code == 201, response.content
    assert bumped == [[live._version_key(event.pk)]]
    live._sender.flush()


@pytest.mark.django_db
def test_a_hands_statements_are_converted_once_per_process(world, monkeypatch):
    """psycopg turns a statement's placeholders into PostgreSQL's once and caches the result, for
    statements of at most 50 parameters and 4 KiB (``psycopg/_queries.py``); a larger one is
    converted again at every execution, which cost a hand more CPU than its engine when the
    players' round and event sums were two VALUES lists. Every statement of a submission stays
    within the cache, whatever the number of players whose sums change."""
    if connection.vendor != "postgresql":
        pytest.skip("psycopg's statement cache")
    from psycopg import _queries

    uncached = []
    for name in ("_query2pg_nocache", "_query2pg_client_nocache"):  # server- and client-side binding
        def counting(query, encoding, convert=getattr(_queries, name)):
            uncached.append(bytes(query[:60]))
            return convert(query, encoding)

        monkeypatch.setattr(_queries, name, counting)
    table = world.events["mu"].rounds.get().tables.first()
    client = client_for()
    rng = random.Random("cached")
    session = None
    for number in range(4):
        record = next_record("mu", rng, 4, session)
        response = client.post(f"/api/v1/tables/{table.pk}/hands/", record, format="json",
                               HTTP_X_SCORER_TOKEN=table.scorer_token, HTTP_IDEMPOTENCY_KEY=f"cached-{number}")
        assert response.status_code == 201, response.content
        session = response.json()["session"]
    assert uncached == []
    # The guard itself: a statement of 51 parameters is converted uncached.
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(["%s::int"] * 51), list(range(51)))
    assert len(uncached) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("lock", ["submission", "correction", "confirmation"])
def test_only_the_table_row_is_locked(world, lock):
    """While a submission (or a correction, or a confirmation) holds its table, the round, the
    event and the event's other tables are free (PostgreSQL: another connection takes their locks
    at once)."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks as PostgreSQL takes them")
    import psycopg

    from tournaments.models import Hand
    from tournaments.results import sql
    from tournaments.results.services import (
        Entry,
        _lock_hand,
        _lock_unconfirmed,
        hand_submit,
    )

    round_ = world.events["mu"].rounds.get()
    table, other = round_.tables.order_by("number")[:2]
    settings = connection.settings_dict
    waiting = None
    if lock != "submission":
        round_.event.confirm_hands = True
        round_.event.save(update_fields=["confirm_hands"])
        receipt = hand_submit(table_id=table.pk, entry=Entry(next_record("mu", random.Random(4), 4, None), seat=0)).receipt
        waiting = Hand.objects.get(pk=receipt["hand"]["id"])
        assert waiting.unconfirmed
    with transaction.atomic():
        if lock == "confirmation":
            _lock_unconfirmed(waiting)
        elif lock == "correction":
            _lock_hand(waiting)
        else:
            sql.lock_table(table.pk)
        with psycopg.connect(host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"],
                             password=settings["PASSWORD"] or None, dbname=settings["NAME"], autocommit=False) as other_connection:
            cursor = other_connection.cursor()
            for sql, pk in (('SELECT 1 FROM "tournaments_round" WHERE id = %s FOR UPDATE NOWAIT', round_.pk),
                            ('SELECT 1 FROM "tournaments_event" WHERE id = %s FOR UPDATE NOWAIT', round_.event_id),
                            ('SELECT 1 FROM "tournaments_table" WHERE id = %s FOR UPDATE NOWAIT', other.pk)):
                assert cursor.execute(sql, [pk]).fetchone() == (1,)
            with pytest.raises(psycopg.errors.LockNotAvailable):
                cursor.execute('SELECT 1 FROM "tournaments_table" WHERE id = %s FOR UPDATE NOWAIT', [table.pk])
            other_connection.rollback()
