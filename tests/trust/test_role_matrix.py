"""Every write operation of the API × every role, generated from the URL configuration.

A role that does not own the object gets no 2xx and nothing changes in the database; the owner's
write succeeds and changes it. A write endpoint without a case here fails the test: a new endpoint
is not covered by accident.
"""
from __future__ import annotations

import pytest
from django.apps import apps
from django.urls import URLPattern, URLResolver, get_resolver

from tests.conftest import client_for

pytestmark = pytest.mark.django_db
ONE_WORLD = True  # every test here reads the one world of tests/trust/conftest.py, in its own savepoint

WRITES = ("post", "put", "patch", "delete")
ROLES = ["anonymous", "stranger", "player_elsewhere", "scorer_elsewhere", "other_club_organiser",
         "other_event_organiser"]
OWNERS = ["owner", "staff"]


def write_operations() -> list[tuple[str, str]]:
    """(URL name, method) of every write under /api/, read from the URL configuration."""
    found = set()

    def walk(patterns, prefix=""):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern) and (prefix + str(entry.pattern)).startswith("api/"):
                callback = entry.callback
                if getattr(callback, "actions", None):
                    methods = [m for m in callback.actions if m in WRITES]
                else:
                    view = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
                    methods = [m for m in WRITES if view is not None and hasattr(view, m)]
                for method in methods:
                    found.add((entry.name, method))

    walk(get_resolver().url_patterns)
    return sorted(found)


def _models():
    return [model for label in ("tournaments", "ratings") for model in apps.get_app_config(label).get_models()]


def database_state() -> dict:
    """Every row of the project's own tables: 'nothing written' made checkable. On PostgreSQL one
    query gives each table's row count and a digest of its rows as text (ordered), so that the
    ~800 tests that compare before and after do not fetch every row twice; elsewhere the rows
    themselves."""
    from django.db import connection

    models = _models()
    if connection.vendor != "postgresql":
        return {model._meta.label: sorted(map(str, model.objects.values_list())) for model in models}
    quote = connection.ops.quote_name
    digest = " UNION ALL ".join(
        f"SELECT %s, count(*), md5(coalesce(string_agg(row_text, '|' ORDER BY row_text), '')) "
        f"FROM (SELECT t::text AS row_text FROM {quote(model._meta.db_table)} AS t) AS rows"
        for model in models)
    with connection.cursor() as cursor:
        cursor.execute(digest, [model._meta.label for model in models])
        return {label: (count, rows) for label, count, rows in cursor.fetchall()}


def cases(w) -> dict:
    """(URL name, method) → (url, payload, owner). The owner is the least powerful role that owns
    the object; staff own everything as well."""
    mu = w.events["mu"]
    round1 = mu.rounds.get(number=1)
    hand = w.mu_session.hands.order_by("number").first()
    transfer = w.maumau_session.transfers.first()
    import random

    from tests.api.play import next_record

    replacement = next_record("mu", random.Random(11), 4, None, hand.dealer)
    replacement["dealer"] = hand.dealer
    next_hand = next_record("mu", random.Random(12), 4, {"next": {"dealer": (hand.dealer + 2) % 4, "direction": None}})
    members = [p.pk for p in w.players[:4]]
    drawn = [p.pk for p in w.players[:12]]  # nobody is checked in at the event: the draw names its players
    series, night = _series_and_open_night(w)
    registration, arrived = _registrations(w)
    return {
        ("registration-confirm", "post"): (f"/api/v1/registrations/{registration.pk}/confirm/", None, w.organiser),
        ("registration-withdraw", "post"): (f"/api/v1/registrations/{registration.pk}/withdraw/", None, w.organiser),
        ("registration-match", "post"): (f"/api/v1/registrations/{registration.pk}/match/",
                                         {"player": w.players[5].pk}, w.organiser),
        ("registration-check-in", "post"): (f"/api/v1/registrations/{arrived.pk}/check-in/", None, w.organiser),
        ("club-players-import", "post"): (f"/api/v1/clubs/{w.club.pk}/players/import/",
                                          {"csv": "Name\nNeu Importiert\n", "confirm": True}, w.club_organiser),
        ("round-clock", "post"): (f"/api/v1/rounds/{round1.pk}/clock/", {"action": "set", "minutes": 30},
                                  w.organiser),
        ("series-list", "post"): ("/api/v1/series/", {"club": w.club.pk, "name": "Cup", "game": "mu"},
                                  w.club_organiser),
        ("series-detail", "put"): (f"/api/v1/series/{series.pk}/", {"club": w.club.pk, "name": "Renamed", "game": "mu"},
                                   w.club_organiser),
        ("series-detail", "patch"): (f"/api/v1/series/{series.pk}/", {"best_of": 3}, w.club_organiser),
        ("series-detail", "delete"): (f"/api/v1/series/{series.pk}/", None, w.club_organiser),
        ("event-open-table", "post"): (f"/api/v1/events/{night.pk}/open-table/", {"players": members},
                                       w.club_organiser),
        ("event-seating-script", "put"): (f"/api/v1/events/{mu.pk}/seating-script/", {"script": "1, 1, 1, 2, 3, 4"},
                                          w.organiser),
        ("event-seating-script", "delete"): (f"/api/v1/events/{mu.pk}/seating-script/", None, w.organiser),
        ("event-checkins", "post"): (f"/api/v1/events/{mu.pk}/checkins/", {"player": w.players[8].pk}, w.organiser),
        ("event-checkout", "delete"): (f"/api/v1/events/{mu.pk}/checkins/{w.players[9].pk}/", None, w.organiser),
        ("club-list", "post"): ("/api/v1/clubs/", {"name": "New club"}, w.staff),
        ("club-detail", "put"): (f"/api/v1/clubs/{w.club.pk}/", {"name": "Testclub", "city": "Bonn"}, w.club_organiser),
        ("club-detail", "patch"): (f"/api/v1/clubs/{w.club.pk}/", {"city": "Bonn"}, w.club_organiser),
        ("club-detail", "delete"): (f"/api/v1/clubs/{w.empty_club.pk}/", None, w.staff),
        ("player-list", "post"): ("/api/v1/players/", {"name": "Neu", "clubs": [w.club.pk]}, w.club_organiser),
        ("player-detail", "put"): (f"/api/v1/players/{w.players[5].pk}/", {"name": "Renamed", "clubs": [w.club.pk]},
                                   w.club_organiser),
        ("player-detail", "patch"): (f"/api/v1/players/{w.players[5].pk}/", {"name": "Renamed"}, w.club_organiser),
        ("player-detail", "delete"): (f"/api/v1/players/{w.players[11].pk}/", None, w.club_organiser),
        ("event-list", "post"): ("/api/v1/events/", {"club": w.club.pk, "name": "Cup", "game": "mu"}, w.club_organiser),
        ("event-detail", "put"): (f"/api/v1/events/{mu.pk}/", {"club": w.club.pk, "name": "Renamed", "game": "mu"},
                                  w.organiser),
        ("event-detail", "patch"): (f"/api/v1/events/{mu.pk}/", {"name": "Renamed cup"}, w.organiser),
        ("event-detail", "delete"): (f"/api/v1/events/{w.empty_event.pk}/", None, w.organiser),
        ("round-list", "post"): ("/api/v1/rounds/", {"event": mu.pk, "number": 3}, w.organiser),
        ("round-detail", "put"): (f"/api/v1/rounds/{round1.pk}/", {"event": mu.pk, "number": 1, "results_held": True},
                                  w.organiser),
        ("round-detail", "patch"): (f"/api/v1/rounds/{round1.pk}/", {"results_held": True}, w.organiser),
        ("round-detail", "delete"): (f"/api/v1/rounds/{w.empty_round.pk}/", None, w.organiser),
        ("round-draw", "post"): (f"/api/v1/rounds/{w.empty_round.pk}/draw/", {"seed": 3, "players": drawn},
                                 w.organiser),
        ("round-draw-swap", "post"): (f"/api/v1/rounds/{w.empty_round.pk}/draw/swap/",
                                      {"a": w.players[0].pk, "b": w.players[5].pk}, w.organiser),
        ("round-draw-publish", "post"): (f"/api/v1/rounds/{w.empty_round.pk}/draw/publish/", None, w.organiser),
        ("table-list", "post"): ("/api/v1/tables/", {"round": w.empty_round.pk, "players": members}, w.organiser),
        ("table-detail", "put"): (f"/api/v1/tables/{w.empty_table.pk}/",
                                  {"round": round1.pk, "number": 7, "players": [p.pk for p in w.players[8:12]]},
                                  w.organiser),
        ("table-detail", "patch"): (f"/api/v1/tables/{w.empty_table.pk}/", {"number": 7}, w.organiser),
        ("table-detail", "delete"): (f"/api/v1/tables/{w.empty_table.pk}/", None, w.organiser),
        ("session-abandon", "post"): (f"/api/v1/sessions/{w.mu_session.pk}/abandon/", {"reason": "fire alarm"},
                                      w.organiser),
        ("transfer-paid", "post"): (f"/api/v1/transfers/{transfer.pk}/paid/", None, w.organiser),
        ("transfer-unpaid", "post"): (f"/api/v1/transfers/{transfer.pk}/unpaid/", {"reason": "a mistake"},
                                      w.organiser),
        ("hand-correct", "post"): (f"/api/v1/hands/{hand.pk}/correct/", {"record": replacement, "reason": "typo"},
                                   w.organiser),
        ("hand-void", "post"): (f"/api/v1/hands/{hand.pk}/void/", {"reason": "misdeal"}, w.organiser),
        ("table-hands", "post"): (f"/api/v1/tables/{w.mu_table.pk}/hands/", next_hand, w.organiser),
        ("table-scorer-link", "post"): (f"/api/v1/tables/{w.mu_table.pk}/scorer-link/", None, w.organiser),
        ("hand-confirm", "post"): (f"/api/v1/hands/{w.unconfirmed.pk}/confirm/", {}, w.organiser),
        ("hand-dispute", "post"): (f"/api/v1/hands/{w.unconfirmed.pk}/dispute/", {"reason": "wrong points"},
                                   w.organiser),
        # A player's own side (SELF below): the user linked to the seated player 0 is his owner.
        ("me-player", "patch"): ("/api/v1/me/player/", {"initials_only": True}, w.player_user),
        ("me-device-unbind", "post"): (f"/api/v1/me/player/devices/{_own_phone(w).pk}/unbind/", None, w.player_user),
    }


def _own_phone(w):
    from tournaments.people import services as people

    return people.device_bind(player=w.players[0], label="a phone")[0]


def _series_and_open_night(w):
    """An empty series of the club and an open club night with four players checked in."""
    from tournaments import services
    from tournaments.models import Series

    series = Series.objects.create(club=w.club, name="Jahreswertung", game="mu")
    night = services.event_create(by_user=w.club_organiser, club=w.club, name="Clubabend", game="mu", format="open")
    for player in w.players[:4]:
        services.player_check_in(event=night, player=player, by_user=w.club_organiser)
    return series, night


def _registrations(w):
    """The Mü event takes registrations: one registered, one confirmed and matched to a player who
    is not checked in."""
    from tournaments.entry import registration as registrations

    mu = w.events["mu"]
    mu.registration_open = True
    mu.save(update_fields=["registration_open"])
    registration = registrations.register(event=mu, name="Anna Neu")
    arrived = registrations.register(event=mu, name="Player 10")
    registrations.confirm(registration=arrived, by_user=w.organiser)
    registrations.match(registration=arrived, by_user=w.organiser, player=w.players[10])
    return registration, arrived


# Writes that store nothing and are open to everyone.
PUBLIC = {("records-validate", "post"), }
# Writes on the caller's own player (the user linked to him, or his bound phone): every caller
# changes his own and nobody else's; a caller without a player is refused. Of the roles, the
# user linked to a player is "player_elsewhere" (and the owner of the case).
SELF = {("me-player", "patch"), ("me-device-unbind", "post")}
# Writes open to everyone that store something: registering for an event that takes registrations,
# withdrawing by the registration's private token (the token is the permission).
OPEN_TO_ALL = {("event-registration", "post"), ("registration-withdraw-token", "post")}


def open_case(w, name: str) -> tuple[str, dict]:
    from tournaments.models import Registration

    mu = w.events["mu"]
    if name == "event-registration":
        return f"/api/v1/events/{mu.pk}/registration/", {"name": "Jemand"}
    return "/api/v1/registrations/withdraw/", {"token": Registration.objects.get(name="Anna Neu").token}


def client(w, role: str, owner):
    if role == "owner":
        return client_for(owner)
    if role == "scorer_elsewhere":
        api = client_for(None)
        api.credentials(HTTP_X_SCORER_TOKEN=w.own_table.scorer_token)
        return api
    users = {"anonymous": None, "stranger": w.stranger, "player_elsewhere": w.player_user,
             "other_club_organiser": w.outsider, "other_event_organiser": w.other_organiser, "staff": w.staff}
    return client_for(users[role])


def send(api, method: str, url: str, payload):
    if payload is None:
        return getattr(api, method)(url)
    return getattr(api, method)(url, payload, format="json")


def _prepare(w, name: str):
    """What an operation needs before it can be done: a draw before a swap or a publication."""
    from tournaments.draws import services as draws
    from tournaments.results import services as results

    if name in ("round-draw-swap", "round-draw-publish"):
        draws.draw_preview(w.empty_round, by_user=w.organiser, seed=3, players=[p.pk for p in w.players[:12]])
    if name == "event-checkout":
        from tournaments import services

        services.player_check_in(event=w.events["mu"], player=w.players[9], by_user=w.organiser)
    if name == "event-seating-script":  # four players by start number, and a script to delete
        from tournaments import services

        for player in w.players[:4]:
            services.player_check_in(event=w.events["mu"], player=player, by_user=w.organiser)
        draws.seating_script_set(w.events["mu"], text="1, 1, 4, 3, 2, 1", by_user=w.organiser)
    if name == "transfer-unpaid":
        results.transfer_mark_paid(transfer=w.maumau_session.transfers.first(), by_user=w.organiser)


def test_every_write_operation_has_a_case(trust):
    known = set(cases(trust)) | PUBLIC | OPEN_TO_ALL
    missing = [operation for operation in write_operations() if operation not in known]
    assert not missing, f"write operations without a role-matrix case: {missing}"


@pytest.mark.parametrize("operation", write_operations(), ids="{0[0]} {0[1]}".format)
@pytest.mark.parametrize("role", ROLES + OWNERS)
def test_only_the_owner_writes(trust, operation, role):
    table = cases(trust)
    if operation in PUBLIC:
        before = database_state()
        response = send(client(trust, role, None), operation[1], "/api/v1/records/validate", {"game": "mu"})
        assert response.status_code in (200, 422), response.content
        assert database_state() == before
        return
    if operation in OPEN_TO_ALL:
        from games.throttling import SlidingRateThrottle

        SlidingRateThrottle.forget("registration", "127.0.0.1")
        url, payload = open_case(trust, operation[0])
        before = database_state()
        response = send(client(trust, role, None), operation[1], url, payload)
        SlidingRateThrottle.forget("registration", "127.0.0.1")
        assert response.status_code in (200, 201), (role, response.status_code, response.content)
        assert database_state() != before
        return
    url, payload, owner = table[operation]
    _prepare(trust, operation[0])
    before = database_state()
    response = send(client(trust, role, owner), operation[1], url, payload)
    if operation in SELF:
        if role in ("owner", "player_elsewhere"):  # the user linked to player 0: his own player
            assert 200 <= response.status_code < 300, (role, response.status_code, response.content)
            assert database_state() != before, "his own write changed nothing"
        else:
            assert response.status_code in (401, 403, 404), (role, response.status_code, response.content)
            assert database_state() == before, f"{role}'s refused write changed the database"
        return
    if role in OWNERS:
        assert 200 <= response.status_code < 300, (role, response.status_code, response.content)
        assert database_state() != before, "the owner's write changed nothing"
    else:
        assert not 200 <= response.status_code < 300, (role, response.status_code, response.content)
        assert response.status_code in (400, 401, 403, 404), (role, response.status_code, response.content)
        assert database_state() == before, f"{role}'s refused write changed the database"
