"""A submission reads only the table's state and the latest hand (tournaments/results/sql.py): its
receipt, the session it keeps and the rows it writes equal what a computation over every hand
and the ORM give, through voids, corrections and second-player confirmation."""
from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api.play import next_record


def fresh_table(world, game: str, *, confirm: bool, number: int):
    from tournaments.models import Event, Round
    from tournaments.services import table_create

    event = Event.objects.create(club=world.club, name=f"Kept {game} {number}", game=game, published=True,
                                 confirm_hands=confirm, mu_target_score=120)
    round_ = Round.objects.create(event=event, number=1)
    return table_create(round_=round_, number=1, players=world.players[:4], by_user=None)


def check_stored(hand_id: int, record: dict, *, seat, by_user) -> None:
    from tournaments.models import Hand

    hand = Hand.objects.get(pk=hand_id)
    version = hand.versions.get()
    assert (hand.record, hand.dealer, hand.version, hand.voided, hand.disputed) == (record, record["dealer"], 1, False, False)
    assert hand.entered_by_seat == seat and hand.confirmed_at is None and hand.confirmed_by_id is None
    assert timezone.now() - timedelta(minutes=1) < hand.created_at <= hand.updated_at <= timezone.now()
    assert (version.version, version.record, version.result, version.dealer, version.voided) == (
        1, record, hand.result, hand.dealer, False)
    assert version.created_by_id == (by_user.pk if by_user else None) and version.via_scorer_token is (by_user is None)


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["mu", "maumau", "lut"])
@pytest.mark.parametrize("confirm", [False, True])
def test_receipts_and_kept_sessions_equal_a_computation_over_every_hand(world, game, confirm):
    from tournaments.models import Session
    from tournaments.policy import Credentials
    from tournaments.results import services as results

    rng = random.Random(f"submission-{game}-{confirm}")
    for number in range(3):
        table = fresh_table(world, game, confirm=confirm, number=number)
        summary = None
        while summary is None or summary["status"] == "open":
            seat = rng.randrange(4) if confirm else None
            by_user = world.club_organiser if rng.random() < 0.3 and not confirm else None
            record = next_record(game, rng, 4, summary and {"next": summary["next"]}, table.first_dealer)
            # The club's organiser logged in, or the table's scorer link with the seat named on its device.
            credentials = Credentials() if by_user else Credentials(scorer_token=table.scorer_token, seat=seat)
            submission = results.hand_submit(table_id=table.pk, entry=results.Entry(record, credentials=credentials),
                                             by_user=by_user,
                                             idempotency_key=f"{number}-{rng.random()}" if rng.random() < 0.5 else None)
            summary = submission.receipt["session"]
            session = Session.objects.get(pk=summary["id"])
            assert summary == results.session_summary(session), "the receipt equals a computation over every hand"
            hands = list(session.hands.order_by("number"))
            rules = results.session_rules(session)
            assert (session.totals, session.hand_count) == (results.session_totals(rules, hands), len(hands))
            check_stored(submission.receipt["hand"]["id"], record, seat=seat, by_user=by_user)
            hand = hands[-1]
            if confirm and hand.unconfirmed and rng.random() < 0.6:
                results.hand_confirm(hand=hand, seat=(seat + 1) % 4)
            elif rng.random() < 0.08:
                results.hand_void(hand=hand, by_user=world.organiser, reason="misdeal")
            elif rng.random() < 0.08 and len(hands) > 1:
                earlier = hands[-2]
                results.hand_correct(hand=earlier, record=earlier.record, by_user=world.organiser, reason="retyped")
            session.refresh_from_db()
            summary = results.session_summary(session)
        assert session.status == Session.Status.FINISHED


@pytest.mark.django_db
def test_a_hand_writes_no_index_that_another_index_already_leads_with():
    """Every index of the hand's and its version's tables is written with every hand: none repeats
    the leading columns of another (a foreign key's own index beside the unique constraint that
    starts with it), and the indexes of the users who confirmed or entered a hand hold only the
    rows that have one (migration 0023; on SQLite and PostgreSQL alike)."""
    from django.db import connection

    from tournaments.models import Hand, HandVersion

    for model, user_column in ((Hand, "confirmed_by_id"), (HandVersion, "created_by_id")):
        with connection.cursor() as cursor:
            found = connection.introspection.get_constraints(cursor, model._meta.db_table)
        indexes = {name: tuple(info["columns"]) for name, info in found.items()
                   if info["index"] and not info["primary_key"]}
        plain = {name: columns for name, columns in indexes.items()
                 if name not in {index.name for index in model._meta.indexes if index.condition is not None}}
        for name, columns in plain.items():
            longer = [other for other, its in indexes.items() if other != name and its[:len(columns)] == columns
                      and len(its) > len(columns)]
            assert not longer, f"{name} {columns} repeats the start of {longer}"
        partial = [index for index in model._meta.indexes if index.fields == [user_column.removesuffix("_id")]]
        assert len(partial) == 1 and partial[0].condition is not None
        assert [columns for columns in indexes.values() if columns == (user_column,)] == [(user_column,)]
