"""``policy.acting_party``: the one resolver of who submits, confirms or disputes a hand at a table
(scorer link with a named seat, a seated player's login, an organiser's login), and the policy's
decisions on what a create or update would write (``policy.Change``)."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from tests.conftest import make_user
from tournaments import policy
from tournaments.errors import Error, Invalid, NotAllowed, NotAuthenticated
from tournaments.policy import Change, Credentials, acting_party


@pytest.fixture
def table(world):
    return world.events["mu"].rounds.get().tables.get(number=1)  # players 0-3; player 0 is player_user's


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["submit", "confirm", "dispute"])
def test_the_scorer_link_acts_for_the_seat_it_names(world, table, action):
    party = acting_party(AnonymousUser(), table, Credentials(scorer_token=table.scorer_token, seat="2"), action=action)
    assert (party.seat, party.via, party.via_scorer_token) == (2, "scorer", True)
    with pytest.raises(Invalid):
        acting_party(AnonymousUser(), table, Credentials(scorer_token=table.scorer_token, seat="two"), action=action)
    other = world.events["mu"].rounds.get().tables.get(number=2)
    with pytest.raises(NotAllowed) as refused:
        acting_party(world.organiser, table, Credentials(scorer_token=other.scorer_token, seat=1), action=action)
    assert refused.value.code is Error.BAD_SCORER_TOKEN


@pytest.mark.django_db
def test_a_submission_on_the_link_may_name_no_seat_a_confirmation_must(table):
    credentials = Credentials(scorer_token=table.scorer_token)
    assert acting_party(None, table, credentials, action="submit").seat is None
    with pytest.raises(Invalid):
        acting_party(None, table, credentials, action="confirm")


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["submit", "confirm"])
def test_a_login_acts_for_his_seat_an_organiser_for_none_others_are_refused(world, table, action):
    hand = None
    assert acting_party(world.player_user, table, Credentials(), action=action, hand=hand).seat == 0
    for organiser in (world.organiser, world.club_organiser, world.staff):
        party = acting_party(organiser, table, Credentials(), action=action, hand=hand)
        assert (party.seat, party.via, party.user) == (None, "api", organiser)
    with pytest.raises(NotAllowed):
        acting_party(world.other_organiser, table, Credentials(), action=action, hand=hand)
    with pytest.raises(NotAuthenticated):
        acting_party(AnonymousUser(), table, Credentials(), action=action, hand=hand)


@pytest.mark.django_db
def test_joining_another_club_and_naming_organisers_are_decided_on_the_data(world):
    """What the API's views asked themselves before: the policy answers on the validated data."""
    from tournaments.models import Club

    player = world.players[5]  # a member of world.club only
    foreign = Club.objects.create(name="Foreign")
    stranger = make_user("stranger")
    foreign.organisers.add(stranger)
    # The foreign club's organiser may not take over world.club's player ...
    assert not policy.may(stranger, "change_player", Change(player, {"clubs": [world.club, foreign]}))
    # ... an organiser of one of his clubs may add him to another club he organises.
    assert policy.may(world.club_organiser, "change_player", Change(player, {"clubs": [world.club, world.empty_club]}))
    assert not policy.may(world.club_organiser, "change_player", Change(player, {"clubs": [world.club, foreign]}))
    # A new player only in clubs the user organises.
    assert policy.may(world.club_organiser, "add_player", Change(None, {"clubs": [world.club]}))
    assert not policy.may(world.club_organiser, "add_player", Change(None, {"clubs": [foreign]}))
    assert not policy.may(world.club_organiser, "add_player", Change(None, {"clubs": []}))
    # An event's organiser changes it but names no organisers; the club's organiser does.
    event = world.events["mu"]
    assert policy.may(world.organiser, "change_event", Change(event, {"name": "renamed"}))
    assert not policy.may(world.organiser, "change_event", Change(event, {"organisers": [world.organiser, stranger]}))
    assert policy.may(world.club_organiser, "change_event", Change(event, {"organisers": [world.organiser, stranger]}))
    assert not policy.may(world.organiser, "change_event", Change(event, {"club": foreign}))
    # A round stays in its event, with its number.
    round_ = event.rounds.get()
    assert not policy.may(world.organiser, "change_round", Change(round_, {"number": 7}))
    assert policy.may(world.organiser, "change_round", Change(round_, {"results_held": True}))
