"""``manage.py load_demo``: a small demo club with players and one event per game, played.

Each event has two rounds of three tables of four. Every session is played to its end from
generated legal records, submitted through the same service the API uses (so the engine validates
every hand, Maumau series are settled and ratings follow). The Mü event's second round is held
back, to show how results stay hidden until an organiser releases them. Idempotent: running it
again changes nothing.
"""
from __future__ import annotations

import datetime
import random
from importlib import import_module

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from games.services import current_session, hand_submit, session_summary
from tournaments.models import Club, Event, Membership, Player, Round, Session, Table
from tournaments.draws import draw_preview, draw_publish
from tournaments.services import table_seat_players

DEMO_PLAYERS = [
    "Anna Becker", "Bernd Fischer", "Conny Hahn", "Dagmar Koch", "Emil Lang", "Frieda Maier",
    "Gustav Neumann", "Hanna Otto", "Ilse Peters", "Jonas Richter", "Karla Schulz", "Lukas Vogel",
]
ROUNDS = 2
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
        organiser, created = users.objects.get_or_create(username="organiser", defaults={"is_staff": True})
        if created:
            organiser.set_password("organiser")
            organiser.save()
        club, _ = Club.objects.get_or_create(name="Stich Demo Club", defaults={"city": "Berlin"})
        club.organisers.add(organiser)
        players = []
        for index, name in enumerate(DEMO_PLAYERS):
            player, _ = Player.objects.get_or_create(name=name, defaults={"initials_only": index == 11})
            Membership.objects.get_or_create(player=player, club=club)
            players.append(player)
        rng = random.Random(2026)
        for game, name, sizes in DEMO_EVENTS:
            event, created = Event.objects.get_or_create(
                club=club, name=name,
                defaults={"game": game, "starts_on": datetime.date(2026, 11, 21), "mu_fixed_deals": 8 if game == "mu" else None},
            )
            event.organisers.add(organiser)
            if not created:
                continue
            for number in range(1, ROUNDS + 1):
                round_ = Round.objects.create(event=event, number=number)
                if number == 1:
                    start = 0
                    for table_number, size in enumerate(sizes, start=1):
                        table = Table.objects.create(round=round_, number=table_number)
                        table_seat_players(table=table, players=players[start:start + size])
                        start += size
                else:  # later rounds: the seating draw, as an organiser would make it
                    draw_preview(round_, by_user=organiser, seed=number)
                    draw_publish(round_, by_user=organiser)
                for table in round_.tables.order_by("number"):
                    play_session(table, game, rng, organiser)
                if HELD_BACK.get(game) == number:
                    round_.results_held = True
                    round_.save(update_fields=["results_held"])
        self.stdout.write(self.style.SUCCESS(
            f"Demo loaded: {club.name}, {len(players)} players, {len(DEMO_EVENTS)} events "
            "(log in as organiser / organiser)."
        ))


def play_session(table: Table, game: str, rng: random.Random, organiser) -> Session:
    """Play the table's session to its end with generated legal records (the first dealer drawn)."""
    simulate = import_module(f"games.simulate.{game}")
    players = table.seats.count()
    for _ in range(200):
        session = current_session(table, create=False)
        if session is not None and session.status != Session.Status.OPEN:
            return session
        following = session_summary(session)["next"] if session is not None else {"dealer": None, "direction": 1}
        dealer = following["dealer"] if following["dealer"] is not None else rng.randrange(players)
        options = {"direction": following["direction"] or 1} if game == "maumau" else {}
        record = simulate.random_record(rng, players, dealer=dealer, **options)
        outcome = hand_submit(table=table, record=record, by_user=organiser)
        if outcome.status != 201:
            raise RuntimeError(f"the demo's record was refused: {outcome.body}")
    raise RuntimeError(f"{table} did not finish its session")
