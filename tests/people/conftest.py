"""A club evening for a player's own side: six named players, an event per game with one table,
a personal code for each player, and phones (Django test clients) to bind with them."""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

NAMES = ["Anna Adler", "Beate Berg", "Conny Cramer", "Dagmar Dorn", "Emil Eck", "Frieda Fink"]
_addresses = itertools.count(10)


@dataclass
class Club:
    organiser: object
    club: object
    players: list
    events: dict
    tables: dict


def build_club(*, confirm_hands: bool = False) -> Club:
    from tests.conftest import make_user
    from tournaments.models import Club as ClubModel
    from tournaments.models import Event, Membership, Player, Round
    from tournaments.services import table_create

    organiser = make_user("organiser")
    club = ClubModel.objects.create(name="Stichclub", city="Köln")
    club.organisers.add(organiser)
    players = []
    for name in NAMES:
        player = Player.objects.create(name=name)
        Membership.objects.create(player=player, club=club)
        players.append(player)
    sizes = {"mu": 5, "maumau": 4, "lut": 4}
    events, tables = {}, {}
    for game in ("mu", "maumau", "lut"):
        event = Event.objects.create(club=club, name=f"{game} evening", game=game, published=True, mu_fixed_deals=3,
                                     maumau_games_per_series=2, maumau_stake_cents=10, confirm_hands=confirm_hands)
        event.organisers.add(organiser)
        round_ = Round.objects.create(event=event, number=1)
        tables[game] = table_create(round_=round_, number=1, players=players[:sizes[game]], first_dealer=0,
                                    by_user=None)
        events[game] = event
    return Club(organiser, club, players, events, tables)


@pytest.fixture
def evening(db):
    return build_club()


@pytest.fixture
def confirming(db):
    return build_club(confirm_hands=True)


def address() -> str:
    """A client address of its own per phone: the lockout counts per address."""
    return f"10.9.{next(_addresses) % 250}.{next(_addresses) % 250}"


@pytest.fixture
def phone():
    """Make a phone (a test client with an address of its own); the lockout's counts of the
    addresses used are forgotten afterwards."""
    from django.test import Client

    from tournaments.people import codes

    used = []

    def make(*, csrf: bool = False, ip: str | None = None):
        ip = ip or address()
        used.append(ip)
        return Client(enforce_csrf_checks=csrf, REMOTE_ADDR=ip, HTTP_USER_AGENT="Mozilla/5.0 (Linux; Android 14) Chrome/120")

    codes.forget("*")
    yield make
    for ip in used:
        codes.forget(ip)


def issue(player, by_user):
    from tournaments.people import services

    return services.code_issue(player=player, by_user=by_user)


def bind(client, pin: str):
    data = {"pin": pin}
    if client.handler.enforce_csrf_checks:
        client.get("/me/pin/")
        data["csrfmiddlewaretoken"] = client.cookies["csrftoken"].value
    response = client.post("/me/pin/", data)
    assert response.status_code == 302, response.content[:300]
    return response
