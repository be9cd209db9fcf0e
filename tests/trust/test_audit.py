"""One test per audit action: the action done as a user would (over the API, or in the admin),
and its row — who, what, when, why, before and after. An action without a case fails here."""
from __future__ import annotations

import random

import pytest
from django.test import Client

from tests.api.play import next_record
from tests.conftest import client_for

pytestmark = pytest.mark.django_db
ONE_WORLD = True  # every test here acts on the one world of tests/trust/conftest.py, in its own savepoint


def _api(user):
    return client_for(user)


def _admin(w):
    browser = Client()
    browser.force_login(w.staff.__class__.objects.create_superuser("root", password="pw-root"))
    return browser


def _page(user):
    browser = Client()
    browser.force_login(user)
    return browser


def _import(w):
    from tournaments import policy
    from tournaments.results.exchange import export_text, import_lines

    text = export_text(w.events["mu"], visibility=policy.Visibility(w.organiser))
    return import_lines(text.splitlines(), by_user=w.staff, via="command")


# action → (do it, who acted, the object's model, the reason given or None, channel)
def cases(w):
    mu = w.events["mu"]
    round1 = mu.rounds.get(number=1)
    hand = w.mu_session.hands.order_by("number").first()
    from tournaments.draws import services as draws

    def series():
        from tournaments.models import Series

        return Series.objects.create(club=w.club, name="Cup", game="mu")

    drawn = [p.pk for p in w.players[:12]]  # nobody is checked in at the event: the draw names its players

    def preview():
        return _api(w.organiser).post(f"/api/v1/rounds/{w.empty_round.pk}/draw/", {"seed": 2, "players": drawn},
                                      format="json")

    def swap():
        draws.draw_preview(w.empty_round, by_user=w.organiser, seed=2, players=drawn)
        return _api(w.organiser).post(f"/api/v1/rounds/{w.empty_round.pk}/draw/swap/",
                                      {"a": w.players[0].pk, "b": w.players[1].pk}, format="json")

    def publish():
        draws.draw_preview(w.empty_round, by_user=w.organiser, seed=2, players=drawn)
        return _api(w.organiser).post(f"/api/v1/rounds/{w.empty_round.pk}/draw/publish/")

    def release():
        return _admin(w).post("/admin/tournaments/round/",
                              {"action": "release_results", "_selected_action": [w.held_round.pk]})

    def left():
        from tournaments.models import Membership

        Membership.objects.create(player=w.players[3], club=w.empty_club)
        return _api(w.club_organiser).patch(f"/api/v1/players/{w.players[3].pk}/", {"clubs": [w.club.pk]},
                                            format="json")

    def check_out():
        from tournaments import services

        services.player_check_in(event=mu, player=w.players[4], by_user=w.organiser)
        return _page(w.organiser).post(f"/console/events/{mu.pk}/players/{w.players[4].pk}/attendance/",
                                       {"present": "0"})

    def plan():
        from tournaments import services

        for player in w.players[:8]:
            services.player_check_in(event=w.empty_event, player=player, by_user=w.organiser)
        return _page(w.organiser).post(f"/console/events/{w.empty_event.pk}/plan/", {"rounds": 2})

    def script_set():
        from tournaments import services

        for player in w.players[:4]:
            services.player_check_in(event=w.empty_event, player=player, by_user=w.organiser)
        return _page(w.organiser).post(f"/console/events/{w.empty_event.pk}/seating-script/",
                                       {"text": "1, 1, 1, 2, 3, 4"})

    def script_removed():
        script_set()
        return _api(w.organiser).delete(f"/api/v1/events/{w.empty_event.pk}/seating-script/")

    def registration(name="Anna Neu", capacity=None):
        from tournaments.entry import registration as registrations

        mu.registration_open, mu.capacity = True, capacity
        mu.save(update_fields=["registration_open", "capacity"])
        return registrations.register(event=mu, name=name)

    def moved_up():
        first = registration("Erste", capacity=1)
        registration("Zweite", capacity=1)  # waits
        return _api(w.organiser).post(f"/api/v1/registrations/{first.pk}/withdraw/")

    def registered():
        registration("Erste")
        return _api(w.organiser).post(f"/api/v1/events/{mu.pk}/registration/", {"name": "Bea"}, format="json")

    replacement = next_record("mu", random.Random(21), 4, None, hand.dealer)
    return {
        "seating_script_set": (script_set, "organiser", "event", None, "page"),
        "seating_script_removed": (script_removed, "organiser", "event", None, "api"),
        "clock_changed": (lambda: _api(w.organiser).post(f"/api/v1/rounds/{round1.pk}/clock/",
                                                         {"action": "set", "minutes": 40}, format="json"),
                          "organiser", "round", None, "api"),
        "players_imported": (lambda: _api(w.club_organiser).post(
            f"/api/v1/clubs/{w.club.pk}/players/import/", {"csv": "Name\nNeu Importiert\n", "confirm": True},
            format="json"), "club_organiser", "club", None, "api"),
        "registration_created": (registered, "organiser", "registration", None, "api"),
        "registration_confirmed": (lambda: _page(w.organiser).post(
            f"/console/registrations/{registration().pk}/confirm/"), "organiser", "registration", None, "page"),
        "registration_matched": (lambda: _api(w.organiser).post(
            f"/api/v1/registrations/{registration().pk}/match/", {"player": w.players[5].pk}, format="json"),
            "organiser", "registration", None, "api"),
        "registration_withdrawn": (lambda: _api(w.organiser).post(
            f"/api/v1/registrations/{registration().pk}/withdraw/"), "organiser", "registration", None, "api"),
        "registration_moved_up": (moved_up, "organiser", "registration", None, "api"),
        "club_created": (lambda: _api(w.staff).post("/api/v1/clubs/", {"name": "Neuer Club"}, format="json"),
                         "staff", "club", None, "api"),
        "club_changed": (lambda: _admin(w).post(f"/admin/tournaments/club/{w.club.pk}/change/",
                                                {"name": "Testclub", "city": "Bonn", "organisers": [w.club_organiser.pk]}),
                         "root", "club", None, "admin"),
        "club_deleted": (lambda: _api(w.staff).delete(f"/api/v1/clubs/{w.empty_club.pk}/"), "staff", "club", None, "api"),
        "player_created": (lambda: _api(w.club_organiser).post("/api/v1/players/", {"name": "Neu", "clubs": [w.club.pk]},
                                                               format="json"), "club_organiser", "player", None, "api"),
        "player_changed": (lambda: _api(w.club_organiser).patch(f"/api/v1/players/{w.players[2].pk}/",
                                                                {"initials_only": True}, format="json"),
                           "club_organiser", "player", None, "api"),
        "player_joined_club": (lambda: _api(w.club_organiser).patch(
            f"/api/v1/players/{w.players[2].pk}/", {"clubs": [w.club.pk, w.empty_club.pk]}, format="json"),
            "club_organiser", "player", None, "api"),
        "player_left_club": (left, "club_organiser", "player", None, "api"),
        "player_checked_in": (lambda: _page(w.organiser).post(
            f"/console/events/{mu.pk}/players/{w.players[4].pk}/attendance/", {"present": "1"}),
            "organiser", "player", None, "page"),
        "player_checked_out": (check_out, "organiser", "player", None, "page"),
        "draw_planned": (plan, "organiser", "event", None, "page"),
        "player_anonymised": (lambda: _admin(w).post(f"/admin/tournaments/player/{w.players[11].pk}/delete/",
                                                     {"post": "yes"}), "root", "player", None, "admin"),
        "event_created": (lambda: _api(w.club_organiser).post("/api/v1/events/", {"club": w.club.pk, "name": "Cup",
                                                                                  "game": "lut"}, format="json"),
                          "club_organiser", "event", None, "api"),
        "event_changed": (lambda: _api(w.organiser).patch(f"/api/v1/events/{mu.pk}/", {"published": False},
                                                          format="json"), "organiser", "event", None, "api"),
        "event_deleted": (lambda: _api(w.organiser).delete(f"/api/v1/events/{w.empty_event.pk}/"),
                          "organiser", "event", None, "api"),
        "event_imported": (lambda: _import(w), "staff", "event", None, "command"),
        "round_created": (lambda: _api(w.organiser).post("/api/v1/rounds/", {"event": mu.pk}, format="json"),
                          "organiser", "round", None, "api"),
        "round_deleted": (lambda: _api(w.organiser).delete(f"/api/v1/rounds/{w.empty_round.pk}/"),
                          "organiser", "round", None, "api"),
        "round_held": (lambda: _api(w.organiser).patch(f"/api/v1/rounds/{round1.pk}/", {"results_held": True},
                                                       format="json"), "organiser", "round", None, "api"),
        "round_released": (release, "root", "round", None, "admin"),
        "table_created": (lambda: _api(w.organiser).post(
            "/api/v1/tables/", {"round": w.empty_round.pk, "players": [p.pk for p in w.players[:4]]}, format="json"),
            "organiser", "table", None, "api"),
        "table_changed": (lambda: _api(w.organiser).patch(f"/api/v1/tables/{w.empty_table.pk}/",
                                                          {"players": [p.pk for p in reversed(w.players[8:12])]},
                                                          format="json"), "organiser", "table", None, "api"),
        "table_deleted": (lambda: _api(w.organiser).delete(f"/api/v1/tables/{w.empty_table.pk}/"),
                          "organiser", "table", None, "api"),
        "scorer_link_rotated": (lambda: _admin(w).post("/admin/tournaments/table/", {
            "action": "rotate_scorer_link", "_selected_action": [w.empty_table.pk]}), "root", "table", None, "admin"),
        "draw_previewed": (preview, "organiser", "round", None, "api"),
        "draw_swapped": (swap, "organiser", "round", None, "api"),
        "draw_published": (publish, "organiser", "round", None, "api"),
        "hand_corrected": (lambda: _api(w.organiser).post(f"/api/v1/hands/{hand.pk}/correct/",
                                                          {"record": replacement, "reason": "typo"}, format="json"),
                           "organiser", "hand", "typo", "api"),
        "hand_voided": (lambda: _api(w.organiser).post(f"/api/v1/hands/{hand.pk}/void/", {"reason": "misdeal"},
                                                       format="json"), "organiser", "hand", "misdeal", "api"),
        "session_abandoned": (lambda: _api(w.organiser).post(f"/api/v1/sessions/{w.mu_session.pk}/abandon/",
                                                             {"reason": "fire alarm"}, format="json"),
                              "organiser", "session", "fire alarm", "api"),
        "hand_confirmed": (lambda: _api(w.organiser).post(f"/api/v1/hands/{w.unconfirmed.pk}/confirm/", {},
                                                          format="json"), "organiser", "hand", None, "api"),
        "hand_disputed": (lambda: _api(w.organiser).post(f"/api/v1/hands/{w.unconfirmed.pk}/dispute/",
                                                         {"reason": "wrong points"}, format="json"),
                          "organiser", "hand", "wrong points", "api"),
        "transfer_paid": (lambda: _api(w.organiser).post(
            f"/api/v1/transfers/{w.maumau_session.transfers.first().pk}/paid/"), "organiser", "transfer", None, "api"),
        "transfer_unpaid": (lambda: _page(w.organiser).post(
            f"/console/transfers/{_paid_transfer(w).pk}/unpaid/", {"reason": "a mistake"}),
            "organiser", "transfer", "a mistake", "page"),
        "series_created": (lambda: _api(w.club_organiser).post(
            "/api/v1/series/", {"club": w.club.pk, "name": "Jahreswertung", "game": "mu"}, format="json"),
            "club_organiser", "series", None, "api"),
        "series_changed": (lambda: _page(w.club_organiser).post(f"/console/series/{series().pk}/", {
            "club": w.club.pk, "name": "Winterpokal", "game": "mu", "scoring": "placement", "min_events": "1"}),
            "club_organiser", "series", None, "page"),
        "series_deleted": (lambda: _api(w.club_organiser).delete(f"/api/v1/series/{series().pk}/"),
                           "club_organiser", "series", None, "api"),
        # A player's personal code (printed by his club's organiser) and the phones it binds: the
        # player with an account binds and unbinds them logged in (a bound phone alone: no actor).
        "player_code_issued": (lambda: _page(w.club_organiser).post(f"/console/players/{w.players[1].pk}/code/"),
                               "club_organiser", "player", None, "page"),
        "player_device_bound": (lambda: _page(w.player_user).post("/me/pin/", {"pin": _code(w).pin}),
                                "player_user", "player", None, "page"),
        "player_device_revoked": (lambda: _page(w.player_user).post(f"/me/phones/{_device(w).pk}/unbind/"),
                                  "player_user", "player", None, "page"),
    }


def _code(w):
    from tournaments.people import codes
    from tournaments.people import services as people

    codes.forget("127.0.0.1")  # the test client's address: other tests' wrong codes are not this one's

    return people.code_issue(player=w.players[0], by_user=w.club_organiser)


def _device(w):
    from tournaments.people import services as people

    return people.device_bind(player=w.players[0], label="a phone")[0]


def _paid_transfer(w):
    from tournaments.results import services as results

    return results.transfer_mark_paid(transfer=w.maumau_session.transfers.first(), by_user=w.organiser)


def test_every_action_has_a_case(trust):
    from tournaments.audit import Action

    assert set(Action.values) == set(cases(trust))


@pytest.mark.parametrize("action", sorted(__import__("tournaments.audit", fromlist=["Action"]).Action.values))
def test_the_action_writes_its_row(trust, action):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from tournaments.models import AuditEntry

    do, actor, model, reason, via = cases(trust)[action]
    started = timezone.now()
    before = set(AuditEntry.objects.values_list("pk", flat=True))
    response = do()
    assert getattr(response, "status_code", 200) < 400, getattr(response, "content", response)
    rows = AuditEntry.objects.exclude(pk__in=before).filter(action=action)
    assert rows.count() >= 1, f"no {action} row"
    row = rows.latest("id")
    assert row.actor == get_user_model().objects.get(username=actor)
    assert row.via == via and row.object_type == model and row.object_id
    assert row.created_at >= started
    if reason is not None:
        assert row.reason == reason
    assert row.before is not None or row.after is not None or row.data, "the row says nothing of the change"
