"""Registration by link: places, the waiting list moving up, the private withdrawal link, the
throttle, what the public sees, matching and check-in (services, the public page and the API)."""
from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.conftest import client_for
from tournaments import services
from tournaments.entry import registration as registrations
from tournaments.errors import Conflict, Error
from tournaments.models import Attendance, AuditEntry, Registration


@pytest.fixture
def event(world):
    event = world.other_event
    event.registration_open, event.capacity, event.place = True, 3, "Gasthaus Zur Post"
    event.save()
    return event


def statuses(event) -> dict[str, str]:
    return dict(Registration.objects.filter(event=event).values_list("name", "status"))


def test_a_registration_fills_waits_and_moves_up(event, world):
    names = ["Anna", "Ben", "Cem", "Dora", "Emil"]
    made = {name: registrations.register(event=event, name=name) for name in names}
    # Three places: the first three hold one, the others wait in the order they came.
    assert statuses(event) == {"Anna": "registered", "Ben": "registered", "Cem": "registered",
                               "Dora": "waiting", "Emil": "waiting"}
    assert [registrations.waiting_position(made[n]) for n in ("Dora", "Emil")] == [1, 2]
    registrations.confirm(registration=made["Anna"], by_user=world.other_organiser)
    registrations.withdraw(registration=made["Ben"])  # by his link
    assert statuses(event)["Dora"] == "registered" and statuses(event)["Emil"] == "waiting"
    made["Emil"].refresh_from_db()
    assert registrations.waiting_position(made["Emil"]) == 1
    # Withdrawing twice changes nothing, and moves nobody else up.
    registrations.withdraw(registration=made["Ben"])
    assert statuses(event)["Emil"] == "waiting"
    # More places: those who wait move up when the next place is given back.
    event.capacity = 4
    event.save()
    registrations.withdraw(registration=made["Cem"], by_user=world.other_organiser, via="api")
    assert statuses(event) == {"Anna": "confirmed", "Ben": "withdrawn", "Cem": "withdrawn",
                               "Dora": "registered", "Emil": "registered"}
    moved = AuditEntry.objects.filter(action="registration_moved_up").count()
    assert moved == 2
    with pytest.raises(Conflict):
        registrations.confirm(registration=made["Ben"], by_user=world.other_organiser)
    # Nobody's name or contact is in the trail.
    trail = str(list(AuditEntry.objects.filter(object_type="registration").values("before", "after", "data")))
    assert "Anna" not in trail and made["Anna"].token not in trail


def test_a_closed_event_takes_no_registration(event):
    event.registration_open = False
    event.save()
    with pytest.raises(Conflict) as refused:
        registrations.register(event=event, name="Anna")
    assert refused.value.code is Error.REGISTRATION_CLOSED


def test_the_public_page_registers_and_the_link_withdraws(event):
    client = Client()
    page = client.get(f"/events/{event.pk}/register/")
    text = page.content.decode()
    assert page.status_code == 200 and "Gasthaus Zur Post" in text and "3 of 3 free" in text
    answer = client.post(f"/events/{event.pk}/register/", {"name": "Anna Berg", "contact": "anna@example.org"})
    assert answer.status_code == 201
    registration = Registration.objects.get(event=event)
    link = re.search(r'id="withdraw-link"[^>]*>([^<]+)<', answer.content.decode()).group(1)
    assert link.endswith(f"/withdraw/{registration.token}/") and len(registration.token) >= 32
    # The token is nowhere else: not on the public page, not in the organisers' API list.
    assert registration.token not in client.get(f"/events/{event.pk}/register/").content.decode()
    organisers = client_for(event.organisers.first()).get(f"/api/v1/events/{event.pk}/registrations/")
    assert registration.token not in organisers.content.decode()
    # A guessed link withdraws nothing.
    assert client.post("/withdraw/" + "x" * 32 + "/").status_code == 404
    assert client.get(link).status_code == 200
    assert client.post(link).status_code == 200
    registration.refresh_from_db()
    assert registration.status == "withdrawn"


def test_registering_is_throttled(event, world, settings):
    from rest_framework.throttling import ScopedRateThrottle

    original = ScopedRateThrottle.THROTTLE_RATES
    ScopedRateThrottle.THROTTLE_RATES = {**original, "registration": "3/min"}
    try:
        client, pages_client = client_for(), Client()
        pages = [pages_client.post(f"/events/{event.pk}/register/", {"name": f"Page {n}"}).status_code for n in range(2)]
        api = [client.post(f"/api/v1/events/{event.pk}/registration/", {"name": f"Api {n}"}, format="json")
               for n in range(2)]
    finally:
        ScopedRateThrottle.THROTTLE_RATES = original
    # Page and API count together: three pass, the fourth is refused and stores nothing.
    assert pages == [201, 201] and api[0].status_code == 201
    assert api[1].status_code == 429 and api[1].json()["code"] == "throttled"
    assert Registration.objects.filter(event=event).count() == 3


def test_the_public_sees_only_the_names_agreed_to(event, world):
    organiser = world.other_organiser
    shown = registrations.register(event=event, name="Shown Person", contact="shown@example.org", show_name=True)
    hidden = registrations.register(event=event, name="Hidden Person", contact="hidden@example.org")
    pending = registrations.register(event=event, name="Pending Person", show_name=True)
    for registration in (shown, hidden):
        registrations.confirm(registration=registration, by_user=organiser)
    listed = registrations.public_list(event)
    assert listed.names == ["Shown Person"] and listed.unnamed == 1 and listed.confirmed == 2
    for body in (client_for().get(f"/events/{event.pk}/register/").content.decode(),
                 client_for().get(f"/api/v1/events/{event.pk}/registration/").content.decode()):
        assert "Shown Person" in body
        for secret in ("Hidden Person", "Pending Person", "shown@example.org", "hidden@example.org",
                       shown.token, hidden.token):
            assert secret not in body
    document = client_for().get(f"/api/v1/events/{event.pk}/registration/").json()
    assert (document["held"], document["free"], document["confirmed"], document["names"]) == (3, 0, 2, ["Shown Person"])
    # The organisers' list is theirs: others who see the event are refused.
    url = f"/api/v1/events/{event.pk}/registrations/"
    assert client_for().get(url).status_code == 401
    assert client_for(world.organiser).get(url).status_code == 403
    rows = client_for(organiser).get(url).json()["registrations"]
    assert {r["name"]: r["contact"] for r in rows}["Hidden Person"] == "hidden@example.org"
    assert pending.pk in [r["id"] for r in rows]


def test_matching_warns_of_namesakes_and_checks_in(event, world):
    organiser = world.other_organiser
    same = registrations.register(event=event, name="Player 03")  # a member of the club has this name
    new = registrations.register(event=event, name="Zoe Neu")
    with pytest.raises(Conflict) as refused:
        registrations.match(registration=same, by_user=world.club_organiser, create=True)
    assert refused.value.code is Error.SAME_NAME
    registrations.match(registration=same, by_user=organiser, player=world.players[3])
    registrations.match(registration=new, by_user=world.club_organiser, create=True)
    new.refresh_from_db()
    assert new.player.name == "Zoe Neu" and new.player.clubs.filter(pk=event.club_id).exists()
    with pytest.raises(Conflict):
        registrations.check_in(registration=same, by_user=organiser)  # not confirmed yet
    registrations.confirm(registration=same, by_user=organiser)
    registrations.check_in(registration=same, by_user=organiser)
    assert Attendance.objects.get(event=event, player=world.players[3]).present
    # Another player of another club cannot be matched.
    stranger = services.player_create(by_user=world.club_organiser, name="Gast", clubs=[world.empty_club])
    with pytest.raises(Exception) as not_member:
        registrations.match(registration=new, by_user=organiser, player=stranger)
    assert not_member.value.code is Error.NOT_A_MEMBER


def test_the_api_of_the_organisers(event, world):
    organiser = client_for(world.other_organiser)
    created = client_for().post(f"/api/v1/events/{event.pk}/registration/",
                                {"name": "Katrin Zimmermann", "show_name": True}, format="json")
    assert created.status_code == 201 and created.json()["status"] == "registered"
    token = created.json()["withdraw_token"]
    registration = Registration.objects.get(token=token)
    base = f"/api/v1/registrations/{registration.pk}"
    assert client_for(world.organiser).post(f"{base}/confirm/").status_code == 404  # not his event
    assert client_for().post(f"{base}/confirm/").status_code == 401
    assert organiser.post(f"{base}/confirm/").json()["status"] == "confirmed"
    assert organiser.post(f"{base}/confirm/").status_code == 200  # again: the same answer
    matched = organiser.post(f"{base}/match/", {"player": world.players[5].pk}, format="json")
    assert matched.status_code == 200 and matched.json()["player"] == world.players[5].pk
    assert organiser.post(f"{base}/match/", {}, format="json").status_code == 400
    checked = organiser.post(f"{base}/check-in/")
    assert checked.status_code == 200
    assert Attendance.objects.get(event=event, player=world.players[5]).present
    gone = client_for().post("/api/v1/registrations/withdraw/", {"token": token}, format="json")
    assert gone.status_code == 200 and gone.json()["status"] == "withdrawn"
    assert client_for().post("/api/v1/registrations/withdraw/", {"token": "y" * 40},
                             format="json").status_code == 404
    closed = world.events["mu"]
    refused = client_for().post(f"/api/v1/events/{closed.pk}/registration/", {"name": "X"}, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "registration_closed"


def test_the_console_confirms_matches_and_checks_in(event, world):
    organiser = Client()
    organiser.force_login(world.club_organiser)  # creates players of the club too
    same = registrations.register(event=event, name="Player 04", contact="p4@example.org")
    page = organiser.get(f"/console/events/{event.pk}/registrations/")
    assert page.status_code == 200 and "p4@example.org" in page.content.decode()
    assert same.token not in page.content.decode()
    stranger = Client()
    stranger.force_login(world.organiser)  # organises other events of the club, not this one
    assert stranger.get(f"/console/events/{event.pk}/registrations/").status_code == 403
    assert stranger.post(f"/console/registrations/{same.pk}/confirm/").status_code == 404
    organiser.post(f"/console/registrations/{same.pk}/confirm/")
    # Creating a player by a name the club has: asked first, nothing created.
    count = world.club.players.count()
    organiser.post(f"/console/registrations/{same.pk}/match/", {f"r{same.pk}-player": ""})
    assert world.club.players.count() == count
    assert "exists already" in organiser.get(f"/console/events/{event.pk}/registrations/").content.decode()
    organiser.post(f"/console/registrations/{same.pk}/match/", {f"r{same.pk}-player": world.players[4].pk})
    organiser.post(f"/console/registrations/{same.pk}/check-in/")
    assert Attendance.objects.get(event=event, player=world.players[4]).present
    organiser.post(f"/console/registrations/{same.pk}/withdraw/")
    same.refresh_from_db()
    assert same.status == "withdrawn"


@pytest.mark.parametrize(("carry", "kept"), [("half", "half of the preliminary points"),
                                             ("none", "none of the preliminary points")])
def test_the_public_page_states_the_final_in_the_format(event, carry, kept):
    """A championship with a final says so where the registration page gives the format."""
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert 'id="final-rule"' not in client.get(f"/events/{event.pk}/register/").content.decode()
    event.final_size, event.final_carry = 4, carry
    event.save()
    text = client.get(f"/events/{event.pk}/register/").content.decode()
    facts = re.search(r'<dl class="facts" id="event-facts">(.*?)</dl>', text, re.DOTALL).group(1)
    assert f'<span id="final-rule">The top 4 of the preliminary rounds play the final; they keep {kept}.</span>' \
        in facts
