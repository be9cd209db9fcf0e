"""The public's kept series standings (``tournaments/standings/series_standings.py``) and the kept per-event sums
stay equal to a computation from the events' round sums after random sequences of every write
that moves them: hands submitted, corrected, voided, confirmed, sessions abandoned, rounds held
and released, events published and unpublished, attached, detached and re-ranked, the series'
scoring changed. The series' rows are a projection synced after the commit
(``tournaments/standings/outbox.py``): until the sync the public's answer is computed (never the
rows a pending request will replace), after it the kept rows equal the computation. A change
written around the services is noticed (the kept rows are not read)."""
from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.play import next_record

pytestmark = pytest.mark.django_db


def _computed(series):
    """The public's series standings computed from the events' sums (not the kept rows)."""
    from tournaments import policy
    from tournaments.standings.series_standings import ranked_rows, series_results

    _, results = series_results(series, visibility=policy.public())
    return [(row.player, row.rank, row.points, row.played, row.wins,
             {str(event): entry for event, entry in row.per_event.items()}, extra)
            for row, extra in ranked_rows(series, results)]


def _kept(series):
    from tournaments import policy
    from tournaments.standings.series_standings import kept_rows, series_event_keys

    return kept_rows(series, series_event_keys(series, visibility=policy.public()))


def _next(session):
    last = session.hands.order_by("-number").first()
    record = last.record or {}
    return {"dealer": (last.dealer + 1) % session.table.seats.count(), "direction": record.get("direction") or 1}


def _evening(world, event, rng):
    from tournaments.services import round_create, table_create

    round_ = round_create(event=event, by_user=None)
    players = rng.sample(world.players, 8)
    for number in range(2):
        table_create(round_=round_, number=number + 1, players=players[4 * number:4 * number + 4], by_user=None)


def _pending(series) -> bool:
    from tournaments.models import SeriesSyncRequest

    return SeriesSyncRequest.objects.filter(series_id=series.pk).exists()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kept_series_standings_equal_a_recomputation_after_random_writes(world, seed,
                                                                          django_capture_on_commit_callbacks):
    from tournaments import policy
    from tournaments.errors import DomainError
    from tournaments.models import Event, Hand, Round, Session, Table
    from tournaments.results.services import (
        Entry,
        hand_confirm,
        hand_correct,
        hand_submit,
        hand_void,
        session_abandon,
    )
    from tournaments.services import (
        event_create,
        event_update,
        round_set_results_held,
        series_create,
        series_update,
    )
    from tournaments.standings import sums as aggregates
    from tournaments.standings.series_standings import series_document

    rng = random.Random(seed)
    organiser = world.club_organiser
    series = series_create(by_user=organiser, club=world.club, name="Jahreswertung", game="mu", min_events=1)
    first = world.events["mu"]
    first.mu_fixed_deals = 4
    first.confirm_hands = seed == 2
    first.save()
    events = [first, world.other_event]
    events.append(event_create(by_user=organiser, club=world.club, name="third", game="mu", mu_fixed_deals=4,
                               published=False))
    for event in events[1:]:
        Event.objects.filter(pk=event.pk).update(mu_fixed_deals=4)
        _evening(world, event, rng)
    _evening(world, first, rng)
    with django_capture_on_commit_callbacks(execute=True):
        for event in events:
            event_update(event=Event.objects.get(pk=event.pk), by_user=organiser, series=series)
    ids = [event.pk for event in events]
    used, with_standings, while_pending = set(), 0, 0
    for step in range(200):
        action = rng.random()
        series.refresh_from_db()
        with django_capture_on_commit_callbacks() as synced_on_commit:  # run below, after the checks
            try:
                if action < 0.55:
                    table = rng.choice(list(Table.objects.filter(round__event__in=ids)))
                    session = table.sessions.order_by("-number").first()
                    if session is not None and session.status != Session.Status.OPEN:
                        continue
                    answer = None if session is None or not session.hands.exists() else {"next": _next(session)}
                    record = next_record("mu", rng, table.seats.count(), answer, table.first_dealer)
                    event = table.round.event
                    seat = rng.randrange(table.seats.count()) if event.confirm_hands else None
                    hand_submit(table_id=table.pk, entry=Entry(record, seat=seat))
                    used.add("submit")
                elif action < 0.72:
                    hands = list(Hand.objects.filter(session__table__round__event__in=ids,
                                                     session__status__in=["open", "finished"]))
                    if not hands:
                        continue
                    hand = rng.choice(hands)
                    kind = rng.random()
                    if kind < 0.4:
                        players = hand.session.table.seats.count()
                        session = {"next": {"dealer": hand.dealer, "direction": 1}}
                        hand_correct(hand=hand, record=next_record("mu", rng, players, session), by_user=organiser,
                                     reason="typo")
                        used.add("correct")
                    elif kind < 0.7:
                        hand_void(hand=hand, by_user=organiser, reason="misdeal")
                        used.add("void")
                    elif kind < 0.85 and hand.unconfirmed:
                        hand_confirm(hand=hand, seat=((hand.entered_by_seat or 0) + 1) % hand.session.table.seats.count())
                        used.add("confirm")
                    elif kind >= 0.85:
                        session_abandon(session=hand.session, by_user=organiser, reason="left")
                        used.add("abandon")
                elif action < 0.79:
                    round_ = rng.choice(list(Round.objects.filter(event__in=ids)))
                    round_set_results_held(round_=round_, held=not round_.results_held, by_user=organiser)
                    used.add("hold")
                elif action < 0.85:
                    event = Event.objects.get(pk=rng.choice(ids))
                    event_update(event=event, by_user=organiser, published=not event.published)
                    used.add("publish")
                elif action < 0.90:
                    event = Event.objects.get(pk=rng.choice(ids))
                    event_update(event=event, by_user=organiser, series=None if event.series_id else series)
                    used.add("attach")
                elif action < 0.94:
                    event = Event.objects.get(pk=rng.choice(ids))
                    metrics = rng.choice(["placement,total,wins", "wins,total", "total", "average_placement,wins"])
                    event_update(event=event, by_user=organiser, standings_metrics=metrics)
                    used.add("metrics")
                else:
                    scoring = rng.choice(["placement", "table", "total"])
                    series_update(series=series, by_user=organiser, scoring=scoring,
                                  points_table=[10, 6, 4, 3, 2, 1] if scoring == "table" else [],
                                  best_of=rng.choice([None, 1, 2]), min_events=rng.choice([1, 2]))
                    used.add("scoring")
            except DomainError:
                continue  # a refused write changes nothing
        series.refresh_from_db()
        # Committed, not synced yet: the public's answer is computed while a request is pending.
        public = series_document(series, visibility=policy.public())
        assert [(row["player"], row["rank"], row["points"]) for row in public["standings"]] == [
            row[:3] for row in _computed(series)], f"step {step}, before the sync"
        if _pending(series):
            while_pending += 1
            assert _kept(series) is None, f"step {step}: the kept rows are read while a sync is pending"
        for callback in synced_on_commit:  # the commit's callbacks: the series' sync among them
            callback()
        assert not _pending(series), f"step {step}: the sync settled the requests"
        kept = _kept(series)
        assert kept is not None, f"step {step}: the kept rows no longer match the series"
        assert kept == _computed(series), f"step {step}"
        with_standings += bool(kept)
        assert aggregates.stored_per_event(ids) == aggregates.per_event(aggregates.recompute(ids)), f"step {step}"
        public = series_document(series, visibility=policy.public())
        assert [(row["player"], row["rank"], row["points"]) for row in public["standings"]] == [
            row[:3] for row in _computed(series)]
    assert {"submit", "correct", "void", "abandon", "hold", "publish", "attach", "metrics", "scoring"} <= used
    assert Hand.objects.filter(session__table__round__event__in=ids).count() >= 15
    assert with_standings >= 30, "most steps have series standings to compare"
    assert while_pending >= 30, "most steps left a sync request until the commit's sync"


def test_a_change_written_around_the_services_is_not_read_from_the_kept_rows(world, django_capture_on_commit_callbacks):
    from tournaments import policy
    from tournaments.models import Event, Round, Series
    from tournaments.results.services import Entry, hand_submit
    from tournaments.services import event_update, series_create
    from tournaments.standings import series_standings
    from tournaments.standings.series_standings import series_document

    rng = random.Random(7)
    series = series_create(by_user=world.club_organiser, club=world.club, name="S", game="mu", min_events=1)
    event = world.events["mu"]
    with django_capture_on_commit_callbacks(execute=True):  # each write synced on its commit
        event_update(event=event, by_user=world.club_organiser, series=series)
        for table in Round.objects.get(event=event).tables.all():
            hand_submit(table_id=table.pk, entry=Entry(next_record("mu", rng, 4, None, table.first_dealer)),
                        by_user=world.organiser)
    assert _kept(series) is not None and _kept(series) == _computed(series)

    Event.objects.filter(pk=event.pk).update(standings_metrics="total")  # around the services
    assert _kept(series) is None
    Series.objects.filter(pk=series.pk).update(scoring="total")
    Event.objects.filter(pk=event.pk).update(standings_metrics="placement,total,wins")
    assert _kept(series) is None
    document = series_document(Series.objects.get(pk=series.pk), visibility=policy.public())
    assert [(row["player"], row["points"]) for row in document["standings"]] == [
        row[:1] + row[2:3] for row in _computed(Series.objects.get(pk=series.pk))]
    Round.objects.filter(event=event).update(results_held=True)
    assert _kept(series) is None
    series_standings.rebuild([event.pk])  # what data written around the services calls: kept again
    assert _kept(series) == _computed(series) == []


def test_the_public_series_read_takes_as_many_queries_for_many_events_as_for_few(
        world, django_capture_on_commit_callbacks):
    """The kept read: the same queries with 1 and with 3 events attached (and no session read);
    the computed read (a sync pending) too."""
    from tournaments import policy
    from tournaments.models import Event
    from tournaments.results.services import Entry, hand_submit
    from tournaments.services import event_create, event_update, series_create
    from tournaments.standings.series_standings import series_document

    rng = random.Random(3)
    organiser = world.club_organiser
    series = series_create(by_user=organiser, club=world.club, name="S", game="mu", min_events=1)
    events = [world.events["mu"]] + [event_create(by_user=organiser, club=world.club, name=f"e{i}", game="mu",
                                                  published=True) for i in range(2)]
    for event in events[1:]:
        _evening(world, event, rng)
    for event in events:
        for table in event.rounds.get().tables.all():
            hand_submit(table_id=table.pk, entry=Entry(next_record("mu", rng, 4, None, table.first_dealer)),
                        by_user=world.organiser)
    with django_capture_on_commit_callbacks() as sync:
        event_update(event=Event.objects.get(pk=events[0].pk), by_user=organiser, series=series)
    with CaptureQueriesContext(connection) as one_computed:
        series_document(series, visibility=policy.public())  # the sync pending: computed
    for callback in sync:
        callback()
    with CaptureQueriesContext(connection) as one:
        few = series_document(series, visibility=policy.public())
    with django_capture_on_commit_callbacks() as sync:
        for event in events[1:]:
            event_update(event=Event.objects.get(pk=event.pk), by_user=organiser, series=series)
    with CaptureQueriesContext(connection) as three_computed:
        computed = series_document(series, visibility=policy.public())
    for callback in sync:
        callback()
    with CaptureQueriesContext(connection) as three:
        many = series_document(series, visibility=policy.public())
    assert len(few["events"]) == 1 and len(many["events"]) == 3
    assert len(three) == len(one)
    assert len(three_computed) == len(one_computed) and computed == many
    assert not any("tournaments_session" in query["sql"] or "tournaments_roundstanding" in query["sql"]
                   for query in three.captured_queries)
    assert [row["player"] for row in many["standings"]] == [row[0] for row in _computed(series)]
