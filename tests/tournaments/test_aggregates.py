"""The kept round sums (``tournaments/standings/sums.py``) stay equal to a computation from the
sessions through random submissions, corrections, voids, confirmations and abandonments; the
standings read from them equal the standings computed from every session, for the public (held
rounds left out) and for organisers."""
from __future__ import annotations

import random

import pytest

from tests.api.play import next_record

pytestmark = pytest.mark.django_db


def _legal_record(game, rng, players, hand):
    """Another legal record for a stored hand's slot: same dealer (and Maumau direction)."""
    record = hand.record or {}
    session = {"next": {"dealer": hand.dealer, "direction": record.get("direction") or 1}}
    return next_record(game, rng, players, session)


def _reference_standings(event, visibility):
    """The standings as computed before the sums were kept: over every session's stored totals
    (a session still open counts as seated, not as played)."""
    from tournaments.models import Session
    from tournaments.standings.metrics import SessionLine, standings
    from tournaments.standings.selectors import session_results

    lines = [SessionLine(r.players, r.totals, r.session.status == Session.Status.FINISHED)
             for r in session_results(event, visibility=visibility) if r.hands]
    return standings(lines, [name for name in event.standings_metrics.split(",") if name])


@pytest.mark.parametrize("game,seed", [("mu", 1), ("maumau", 2), ("lut", 3), ("mu", 4)])
def test_sums_equal_a_recomputation_after_random_submits_corrections_voids_and_abandons(world, game, seed):
    from tournaments import policy
    from tournaments.errors import DomainError
    from tournaments.models import Hand, Round, Session
    from tournaments.results.services import (
        Entry,
        hand_confirm,
        hand_correct,
        hand_submit,
        hand_void,
        session_abandon,
    )
    from tournaments.services import round_set_results_held, table_create
    from tournaments.standings import sums as aggregates
    from tournaments.standings.selectors import event_money, event_standings

    rng = random.Random(seed)
    event = world.events[game]
    event.mu_fixed_deals, event.maumau_games_per_series = 5, 3
    event.confirm_hands = seed == 4  # seats' entries wait for a confirmation
    event.save()
    held = Round.objects.create(event=event, number=2)
    for index in range(2):
        table_create(round_=held, number=index + 1, players=world.players[4 * index + 2:4 * index + 6], by_user=None)
    round_set_results_held(round_=held, held=True, by_user=world.organiser)
    tables = [table for round_ in event.rounds.order_by("number") for table in round_.tables.order_by("number")]
    for table in held.tables.all():  # the held round has results
        hand_submit(table_id=table.pk, entry=Entry(next_record(game, rng, 4, None, table.first_dealer)),
                    by_user=world.organiser)
    ids = [event.pk]
    for step in range(70):
        action = rng.random()
        try:
            if action < 0.6:
                table = rng.choice(tables)
                session = table.sessions.order_by("-number").first()
                if session is not None and session.status != Session.Status.OPEN:
                    continue
                answer = None if session is None else {"next": _next(session)}
                record = next_record(game, rng, table.seats.count(), answer, table.first_dealer)
                seat = rng.randrange(table.seats.count()) if event.confirm_hands else None
                hand_submit(table_id=table.pk, entry=Entry(record, seat=seat))
            else:
                hands = list(Hand.objects.filter(session__table__round__event=event, session__status__in=["open", "finished"]))
                if not hands:
                    continue
                hand = rng.choice(hands)
                if action < 0.75:
                    players = hand.session.table.seats.count()
                    hand_correct(hand=hand, record=_legal_record(game, rng, players, hand), by_user=world.organiser,
                                 reason="typo")
                elif action < 0.87:
                    hand_void(hand=hand, by_user=world.organiser, reason="misdeal")
                elif action < 0.95 and hand.unconfirmed:
                    hand_confirm(hand=hand, seat=((hand.entered_by_seat or 0) + 1) % hand.session.table.seats.count())
                elif action >= 0.97:
                    session_abandon(session=hand.session, by_user=world.organiser, reason="left")
        except DomainError:
            continue  # a refused write changes nothing (a correction that no longer fits its slot)
        assert aggregates.stored(ids) == aggregates.recompute(ids), f"step {step}"
    assert Hand.objects.filter(session__table__round__event=event).count() >= 10
    for visibility in (policy.public(), policy.visibility(world.organiser)):
        assert event_standings(event, visibility=visibility) == _reference_standings(event, visibility)
    public, organisers = event_standings(event, visibility=policy.public()), event_standings(
        event, visibility=policy.visibility(world.organiser))
    assert sum(row.played for row in public) < sum(row.played for row in organisers)  # the held round
    if game == "maumau":
        from tournaments.standings.selectors import standings_document

        document = standings_document(event, visibility=policy.public())
        cents = event_money(event, visibility=policy.public())["cents"]
        assert {row["player"]: row["cents"] for row in document["standings"]} == {
            row["player"]: cents.get(row["player"], 0) for row in document["standings"]}


def _next(session):
    from tournaments.results.services import session_summary

    return session_summary(session)["next"]


def test_rebuild_equals_the_sums_kept_by_the_services(world):
    """The backfill's computation (migration 0013) and the services' increments agree."""
    from tests.api.play import play_session
    from tests.conftest import client_for
    from tournaments.standings import sums as aggregates

    rng = random.Random("rebuild")
    event = world.events["lut"]
    client = client_for(world.organiser)
    for table in event.rounds.get().tables.all():
        play_session(client, table, "lut", rng)
    kept = aggregates.stored([event.pk])
    assert kept and kept == aggregates.recompute([event.pk])
    aggregates.rebuild([event.pk])
    assert aggregates.stored([event.pk]) == kept


def test_placement_points_are_kept_exactly_for_every_table_size_and_tie():
    from fractions import Fraction

    from tournaments.results.book import (
        FIELDS,
        PLACEMENT_SCALE,
        contribution,
        placements,
    )

    rng = random.Random(5)
    for _ in range(500):
        seats = rng.randint(2, 6)
        totals = [rng.choice([0, 10, 20]) for _ in range(seats)]
        added = contribution(players=list(range(seats)), totals=totals, status="finished", hand_count=3, game="mu",
                             stake_cents=0)
        assert [Fraction(added[seat][FIELDS.index("placement")], PLACEMENT_SCALE) for seat in range(seats)] == placements(totals)
