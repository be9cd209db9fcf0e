"""The console's and the sheet's page writes × every role, generated from the URL configuration
(the API's are in test_role_matrix.py). A page answers a refused write with a redirect to the
login, 403 or 404 and changes nothing; the owner's write changes the database. A page route that
is neither a known write nor a known read fails the test."""
from __future__ import annotations

import json
import random

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.api.play import next_record

from .test_role_matrix import database_state

pytestmark = pytest.mark.django_db
ONE_WORLD = True  # every test here reads the one world of tests/trust/conftest.py, in its own savepoint

ROLES = ["anonymous", "stranger", "player_elsewhere", "other_club_organiser", "other_event_organiser"]
# Pages that only show (a POST to them writes nothing): checked for "nothing changed" all the same.
READS = {"console:home", "console:series_list", "console:event", "console:schedule", "console:money", "console:round", "console:table",
         "sheet:table", "sheet:table_running", "sheet:my_table", "sheet:my_table_sheet", "sheet:my_table_running",
         "sheet:cards", "sheet:service_worker", "sheet:table_clock", "console:registrations",
         # A player's phone: binding needs his code (the POST below brings none); his pages.
         "sheet:bind_pin", "sheet:bind_link", "sheet:me", "sheet:me_phones", "sheet:me_table", "sheet:me_table_running"}


def page_routes() -> set[str]:
    found = set()

    def walk(patterns, namespace=""):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, entry.namespace or namespace)
            elif isinstance(entry, URLPattern) and namespace in ("console", "sheet"):
                found.add(f"{namespace}:{entry.name}")

    walk(get_resolver().url_patterns)
    return found


def cases(w) -> dict:
    """URL name → (url, form data, owner, preparation)."""
    from tournaments import services
    from tournaments.draws import services as draws

    mu = w.events["mu"]
    round1 = mu.rounds.get(number=1)
    hand = w.mu_session.hands.order_by("number").first()
    transfer = w.maumau_session.transfers.first()
    record = next_record("mu", random.Random(31), 4, None, hand.dealer)

    def present(event):
        for player in w.players[:8]:
            services.player_check_in(event=event, player=player, by_user=w.organiser)

    def drawn():
        present(mu)
        draws.draw_preview(w.empty_round, by_user=w.organiser, players=[p.pk for p in w.players[:8]], seed=1)

    event_form = {"club": w.club.pk, "name": "Cup", "game": "mu", "mu_target_score": 200,
                  "maumau_games_per_series": 8, "maumau_stake_cents": 10, "metric_1": "placement"}
    from tests.trust.test_role_matrix import _series_and_open_night

    series, night = _series_and_open_night(w)
    # A phone bound to a player whose user is the owner of the unbinding (not a role above).
    from tests.conftest import make_user
    from tournaments.models import Player
    from tournaments.people import services as people

    phone_owner = make_user("phone_owner")
    Player.objects.filter(pk=w.players[5].pk).update(user=phone_owner)
    phone = people.device_bind(player=Player.objects.get(pk=w.players[5].pk), label="a phone")[0]
    series_form = {"club": w.club.pk, "name": "Winterpokal", "game": "mu", "scoring": "placement", "min_events": "1"}
    from .test_role_matrix import _registrations

    registration, arrived = _registrations(w)
    return {
        "console:registration_confirm": (f"/console/registrations/{registration.pk}/confirm/", {}, w.organiser, None),
        "console:registration_withdraw": (f"/console/registrations/{registration.pk}/withdraw/", {}, w.organiser,
                                          None),
        "console:registration_match": (f"/console/registrations/{registration.pk}/match/",
                                       {f"r{registration.pk}-player": w.players[5].pk}, w.organiser, None),
        "console:registration_check_in": (f"/console/registrations/{arrived.pk}/check-in/", {}, w.organiser, None),
        "console:round_clock": (f"/console/rounds/{round1.pk}/clock/", {"action": "set", "minutes": "30"},
                                w.organiser, None),
        "console:players_import": (f"/console/events/{mu.pk}/players/import/",
                                   {"text": "Name\nNeu Importiert\n", "confirm": "1"}, w.club_organiser, None),
        "console:series_new": ("/console/series/new/", series_form, w.club_organiser, None),
        "console:series": (f"/console/series/{series.pk}/", series_form, w.club_organiser, None),
        "console:series_event": (f"/console/series/{series.pk}/events/{mu.pk}/", {"attach": "1"}, w.club_organiser,
                                 None),
        "console:series_delete": (f"/console/series/{series.pk}/delete/", {}, w.club_organiser, None),
        "console:open_table": (f"/console/events/{night.pk}/open-table/",
                               {"players": [p.pk for p in w.players[:4]]}, w.club_organiser, None),
        "console:event_new": ("/console/events/new/", event_form, w.club_organiser, None),
        "console:event_edit": (f"/console/events/{mu.pk}/edit/", {**event_form, "name": "Renamed"}, w.organiser, None),
        "console:event_publish": (f"/console/events/{mu.pk}/publish/", {"published": "0"}, w.organiser, None),
        "console:event_organiser_add": (f"/console/events/{mu.pk}/organisers/", {"username": "stranger"},
                                        w.club_organiser, None),
        "console:players": (f"/console/events/{mu.pk}/players/", {"name": "Neu", "club": w.club.pk},
                            w.club_organiser, None),
        "console:attendance": (f"/console/events/{mu.pk}/players/{w.players[3].pk}/attendance/", {"present": "1"},
                               w.organiser, None),
        "console:round_new": (f"/console/events/{mu.pk}/rounds/new/", {}, w.organiser, None),
        "console:plan": (f"/console/events/{w.empty_event.pk}/plan/", {"rounds": 2}, w.organiser,
                         lambda: present(w.empty_event)),
        "console:round_draw": (f"/console/rounds/{w.empty_round.pk}/draw/", {}, w.organiser, lambda: present(mu)),
        "console:round_swap": (f"/console/rounds/{w.empty_round.pk}/swap/",
                               {"a": w.players[0].pk, "b": w.players[1].pk}, w.organiser, drawn),
        "console:round_publish": (f"/console/rounds/{w.empty_round.pk}/publish/", {}, w.organiser, drawn),
        "console:round_hold": (f"/console/rounds/{round1.pk}/hold/", {"held": "1", "reason": "later"},
                               w.organiser, None),
        "console:hand_correct": (f"/console/hands/{hand.pk}/correct/",
                                 {"record": json.dumps(record), "reason": "typo"}, w.organiser, None),
        "console:hand_void": (f"/console/hands/{hand.pk}/void/", {"reason": "misdeal"}, w.organiser, None),
        "console:transfer_paid": (f"/console/transfers/{transfer.pk}/paid/", {}, w.organiser, None),
        "console:transfer_unpaid": (f"/console/transfers/{transfer.pk}/unpaid/", {"reason": "not paid after all"},
                                    w.organiser, lambda: _paid(transfer, w.organiser)),
        "console:player_distinction": (f"/console/events/{mu.pk}/players/{w.players[3].pk}/distinction/",
                                       {"distinction": "junior"}, w.club_organiser, None),
        "console:seating_script": (f"/console/events/{mu.pk}/seating-script/", {"text": "1, 1, 1, 2, 3, 4"},
                                   w.organiser, lambda: present(mu)),
        "console:seating_script_remove": (f"/console/events/{mu.pk}/seating-script/remove/", {}, w.organiser,
                                          lambda: (present(mu), draws.seating_script_set(
                                              mu, text="1, 1, 1, 2, 3, 4", by_user=w.organiser))),
        "console:round_codes": (f"/console/rounds/{round1.pk}/player-codes/", {}, w.club_organiser, None),
        "console:player_code": (f"/console/players/{w.players[3].pk}/code/", {}, w.club_organiser, None),
        "sheet:me_unbind": (f"/me/phones/{phone.pk}/unbind/", {}, phone_owner, None),
    }


def _paid(transfer, by_user):
    from tournaments.results import services as results

    results.transfer_mark_paid(transfer=transfer, by_user=by_user)


def client(w, role: str, owner=None) -> Client:
    users = {"anonymous": None, "stranger": w.stranger, "player_elsewhere": w.player_user,
             "other_club_organiser": w.outsider, "other_event_organiser": w.other_organiser, "owner": owner,
             "staff": w.staff}
    browser = Client()
    if users[role] is not None:
        browser.force_login(users[role])
    return browser


def test_every_page_route_is_a_known_write_or_read(trust):
    unknown = page_routes() - set(cases(trust)) - READS
    assert not unknown, f"page routes without a case: {sorted(unknown)}"


@pytest.mark.parametrize("name", sorted(set(__import__("tests.trust.test_page_matrix", fromlist=["READS"]).READS)
                                        | {"console:event_new", "console:event_edit", "console:event_publish",
                                           "console:event_organiser_add", "console:players", "console:attendance",
                                           "console:round_new", "console:plan", "console:round_draw",
                                           "console:round_swap", "console:round_publish", "console:round_hold",
                                           "console:hand_correct", "console:hand_void", "console:transfer_paid",
                                           "console:transfer_unpaid", "console:player_distinction",
                                           "console:series_new", "console:series", "console:series_event",
                                           "console:series_delete", "console:open_table",
                                           "console:seating_script", "console:seating_script_remove",
                                           "console:round_codes", "console:player_code", "sheet:me_unbind",
                                           "console:registration_confirm", "console:registration_withdraw",
                                           "console:registration_match", "console:registration_check_in",
                                           "console:round_clock", "console:players_import"}))
@pytest.mark.parametrize("role", ROLES + ["owner", "staff"])
def test_only_the_owner_writes_through_the_pages(trust, name, role):
    table = cases(trust)
    if name in READS:
        if role in ("owner", "staff"):
            return
        url = _read_url(trust, name)
        before = database_state()
        response = client(trust, role).post(url, {"name": "x", "reason": "x", "present": "1"})
        assert response.status_code < 500, (name, role, response.status_code)
        assert database_state() == before
        return
    url, data, owner, prepare = table[name]
    if prepare:
        prepare()
    before = database_state()
    response = client(trust, role, owner).post(url, data)
    if role in ("owner", "staff"):
        assert response.status_code in (200, 302), (name, role, response.status_code)
        assert database_state() != before, f"{name}: the owner's write changed nothing"
    else:
        assert response.status_code in (302, 400, 403, 404), (name, role, response.status_code)
        if response.status_code == 302:
            assert response.url.startswith("/accounts/login/"), (name, role, response.url)
        assert database_state() == before, f"{name}: {role}'s refused write changed the database"


def _read_url(w, name: str) -> str:
    mu = w.events["mu"]
    return {
        "console:home": "/console/", "console:series_list": "/console/series/", "console:event": f"/console/events/{mu.pk}/",
        "console:schedule": f"/console/events/{mu.pk}/schedule/", "console:money": f"/console/events/{mu.pk}/money/",
        "console:round": f"/console/rounds/{mu.rounds.get(number=1).pk}/",
        "console:table": f"/console/tables/{w.mu_table.pk}/",
        "sheet:table": "/t/not-a-token/", "sheet:table_running": "/t/not-a-token/running/",
        "sheet:table_clock": "/t/not-a-token/clock/",
        "console:registrations": f"/console/events/{mu.pk}/registrations/",
        "sheet:my_table": "/my-table/", "sheet:my_table_sheet": f"/my-table/{w.mu_table.pk}/",
        "sheet:my_table_running": f"/my-table/{w.mu_table.pk}/running/",
        "sheet:cards": f"/rounds/{mu.rounds.get(number=1).pk}/cards/", "sheet:service_worker": "/sheet-sw.js",
        "sheet:bind_pin": "/me/pin/", "sheet:bind_link": "/p/not-a-key/", "sheet:me": "/me/",
        "sheet:me_phones": "/me/phones/", "sheet:me_table": f"/me/tables/{w.mu_table.pk}/",
        "sheet:me_table_running": f"/me/tables/{w.mu_table.pk}/running/",
    }[name]
