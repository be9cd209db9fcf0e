"""A club evening with something to protect: results at several tables, a finished Maumau series
with payments, a round held back with results, an initials-only player, another club with its own
organiser and player, and a user of every role the policy knows."""
from __future__ import annotations

import random

import pytest

from tests.api.play import next_record
from tests.conftest import make_user

SECRET_NAME = "Zacharias Quintessenz"  # an initials-only player's real name: must never leak
HELD_MARK = "held-round-secret-7f3a"  # an unknown member of every held hand's record (allowed)


def play(table, *, hands: int | None = None, seed: int = 1, mark: str | None = None, by_user=None):
    """Submit generated legal hands at ``table`` through the service (the whole session by default)."""
    from tournaments.results import services as results

    rng = random.Random(seed)
    players = table.seats.count()
    summary = None
    count = 0
    while hands is None or count < hands:
        session = results.current_session(table)
        if session is not None and session.status != "open":
            break
        record = next_record(table.round.event.game, rng, players, summary, table.first_dealer)
        if mark:
            record["note"] = mark
        summary = results.hand_submit(table_id=table.pk, entry=results.Entry(record), by_user=by_user).receipt["session"]
        count += 1
    return results.current_session(table)


@pytest.fixture(scope="module")
def _trust_kept(django_db_setup, django_db_blocker):
    """The world below, built once for a test module inside a transaction that is never
    committed: each test then runs in a savepoint within it (pytest-django's ``db``, Django's
    ``TestCase``), rolled back after the test, as ``TestCase.setUpTestData`` does. Only for a
    module that says ``ONE_WORLD = True``: every one of its tests uses ``trust`` and none commits
    (a test of the module that did not ask for the world would still see it). The matrices run
    hundreds of tests over one world; building it for each took longer than the tests themselves."""
    from django.db import transaction

    from tests.conftest import build_world

    with django_db_blocker.unblock():
        kept = transaction.atomic()
        kept.__enter__()
        try:
            yield build_trust(build_world())
        finally:
            transaction.set_rollback(True)
            kept.__exit__(None, None, None)


@pytest.fixture(scope="module", autouse=True)
def _one_world(request):
    """Builds a module's kept world before its first test's own transaction opens (a fixture of
    the module's scope is set up before the tests' own)."""
    if getattr(request.module, "ONE_WORLD", False):
        request.getfixturevalue("_trust_kept")


@pytest.fixture
def trust(request):
    """The world of the trust tests. In a module of ``ONE_WORLD``, a copy of its kept world (its
    model instances copied, as ``TestCase`` copies class-level test data); elsewhere built anew."""
    import copy

    if getattr(request.module, "ONE_WORLD", False):
        kept = request.getfixturevalue("_trust_kept")
        request.getfixturevalue("db")  # the test's savepoint, inside the kept world's transaction
        return copy.deepcopy(kept)
    return build_trust(request.getfixturevalue("world"))


def build_trust(w):
    from tournaments import services
    from tournaments.models import Club, Membership, Player

    w.stranger = make_user("stranger")
    w.outsider = make_user("outsider")  # organises another club
    w.other_club = Club.objects.create(name="Otherclub")
    w.other_club.organisers.add(w.outsider)
    w.other_player = Player.objects.create(name="Other Member")
    Membership.objects.create(player=w.other_player, club=w.other_club)
    secret = w.players[7]
    secret.name, secret.initials_only = SECRET_NAME, True
    secret.save()
    w.secret = secret
    # Results: a finished Maumau series at table 2 (payments), two Mü hands at table 2.
    maumau_table = w.events["maumau"].rounds.get().tables.get(number=2)
    w.maumau_session = play(maumau_table, seed=3)
    mu_table = w.events["mu"].rounds.get().tables.get(number=2)
    w.mu_table = mu_table
    w.mu_session = play(mu_table, hands=2, seed=4)
    w.own_table = w.events["mu"].rounds.get().tables.get(number=1)  # where player_user sits
    w.empty_table = w.events["mu"].rounds.get().tables.get(number=3)
    # A round held back, with results, in the LuT event.
    lut = w.events["lut"]
    held = services.round_create(event=lut, number=2, by_user=None)
    w.held_table = services.table_create(round_=held, players=w.players[4:8], by_user=None)
    w.held_session = play(w.held_table, seed=5, mark=HELD_MARK)
    services.round_set_results_held(round_=held, held=True, by_user=None)
    w.held_round = held
    # A hand that waits for a second player (the LuT event asks for confirmation from now on).
    from tournaments.results import services as results

    lut.confirm_hands = True
    lut.save(update_fields=["confirm_hands"])
    waiting_table = lut.rounds.get(number=1).tables.get(number=3)
    record = next_record("lut", random.Random(6), 4, None, waiting_table.first_dealer)
    receipt = results.hand_submit(table_id=waiting_table.pk, entry=results.Entry(record, seat=1)).receipt
    w.unconfirmed = waiting_table.sessions.get().hands.get(pk=receipt["hand"]["id"])
    w.empty_round = services.round_create(event=w.events["mu"], number=2, by_user=None)
    w.empty_event = services.event_create(by_user=None, club=w.club, name="empty cup", game="mu", published=True,
                                          organisers=[w.organiser])
    return w
