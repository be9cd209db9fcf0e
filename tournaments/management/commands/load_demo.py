"""``manage.py load_demo``: a small demo club with players and one event per game, played.

Each event has two rounds of three tables of four. Every session is played to its end from
generated legal records, submitted through the same service the API uses (so the engine validates
every hand, Maumau series are settled and ratings follow). The Mü event's second round is held
back, to show how results stay hidden until an organiser releases them. Idempotent: running it
again changes nothing. Everything is written through the services, as an organiser would: the
demo's organiser is a club organiser, not staff.
"""
from __future__ import annotations

import datetime
import random
from importlib import import_module

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from tournaments import services
from tournaments.draws.services import draw_preview, draw_publish
from tournaments.models import Club, Event, Player, Session, Table
from tournaments.results.services import (
    Entry,
    current_session,
    hand_submit,
    session_summary,
)

DEMO_PLAYERS = [
    "Anna Becker", "Bernd Fischer", "Conny Hahn", "Dagmar Koch", "Emil Lang", "Frieda Maier",
    "Gustav Neumann", "Hanna Otto", "Ilse Peters", "Jonas Richter", "Karla Schulz", "Lukas Vogel",
]
ROUNDS = 2
DEMO_EVENING = "Mü-Abend im Winter"
HELD_BACK = {"mu": 2}  # game -> the round whose results the demo holds back
# game, name, table sizes of each round
DEMO_EVENTS = [
    ("mu", "Mü-Abend im Herbst", [4, 4, 4]),
    ("maumau", "Maumau-Serie", [4, 4, 4]),
    ("lut", "List-und-Tücke-Turnier", [4, 4, 4]),
]


class Command(BaseCommand):
    help = "Load a small demo: a club, its organiser, players and one event per game with tables."

    @transaction.atomic
    def handle(self, *args, **options):
        users = get_user_model()
        organiser, created = users.objects.get_or_create(username="organiser")
        if created:
            organiser.set_password("organiser")
            organiser.save()
        club = Club.objects.filter(name="Stich Demo Club").first()
        if club is None:
            club = services.club_create(by_user=None, via="command", name="Stich Demo Club", city="Berlin",
                                        organisers=[organiser])
        players = []
        for index, name in enumerate(DEMO_PLAYERS):
            player = Player.objects.filter(name=name, clubs=club).first()
            if player is None:
                player = services.player_create(by_user=organiser, via="command", name=name, clubs=[club],
                                                initials_only=index == 11)
            players.append(player)
        rng = random.Random(2026)
        for game, name, sizes in DEMO_EVENTS:
            if Event.objects.filter(club=club, name=name).exists():
                continue
            event = services.event_create(
                by_user=organiser, via="command", club=club, name=name, game=game, published=True,
                starts_on=datetime.date(2026, 11, 21), mu_fixed_deals=8 if game == "mu" else None,
            )
            for number in range(1, ROUNDS + 1):
                round_ = services.round_create(event=event, number=number, by_user=organiser, via="command")
                if number == 1:
                    start = 0
                    for size in sizes:
                        services.table_create(round_=round_, players=players[start:start + size], by_user=organiser,
                                              via="command")
                        start += size
                else:  # later rounds: the seating draw of round 1's players, as an organiser would make it
                    draw_preview(round_, by_user=organiser, seed=number, via="command",
                                 players=[player.pk for player in players[:sum(sizes)]])
                    draw_publish(round_, by_user=organiser, via="command")
                for table in round_.tables.order_by("number"):
                    play_session(table, game, rng, organiser)
                if HELD_BACK.get(game) == number:
                    services.round_set_results_held(round_=round_, held=True, by_user=organiser, via="command",
                                                    reason="the demo shows a round held back")
        evening = Event.objects.filter(club=club, name=DEMO_EVENING).first()
        if evening is None:
            # An evening that has not begun, to try the console with: everybody checked in, no round.
            evening = services.event_create(by_user=organiser, via="command", club=club, name=DEMO_EVENING, game="mu",
                                            starts_on=datetime.date(2026, 11, 28), mu_fixed_deals=8)
            for player in players:
                services.player_check_in(event=evening, player=player, by_user=organiser, via="command")
        self.stdout.write(self.style.SUCCESS(
            f"Demo loaded: {club.name}, {len(players)} players, {len(DEMO_EVENTS) + 1} events "
            "(the console: /console/, log in as organiser / organiser)."
        ))


def play_session(table: Table, game: str, rng: random.Random, organiser) -> Session:
    """Play the table's session to its end with generated legal records (the first dealer drawn)."""
    simulate = import_module(f"games.simulate.{game}")
    players = table.seats.count()
    for _ in range(200):
        session = current_session(table)
        if session is not None and session.status != Session.Status.OPEN:
            return session
        following = (session_summary(session)["next"] if session is not None
                     else {"dealer": table.first_dealer, "direction": 1})
        dealer = following["dealer"] if following["dealer"] is not None else rng.randrange(players)
        options = {"direction": following["direction"] or 1} if game == "maumau" else {}
        record = simulate.random_record(rng, players, dealer=dealer, **options)
        hand_submit(table_id=table.pk, entry=Entry(record), by_user=organiser)
    raise RuntimeError(f"{table} did not finish its session")
