"""``manage.py load_demo``: a small demo club with players and one event per game.

Idempotent: running it again changes nothing. Later capabilities (results, ratings) add to it
through their own services.
"""
from __future__ import annotations

import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from tournaments.models import Club, Event, Membership, Player, Round, Table
from tournaments.services import table_seat_players

DEMO_PLAYERS = [
    "Anna Becker", "Bernd Fischer", "Conny Hahn", "Dagmar Koch", "Emil Lang", "Frieda Maier",
    "Gustav Neumann", "Hanna Otto", "Ilse Peters", "Jonas Richter", "Karla Schulz", "Lukas Vogel",
]
# game, name, table sizes of round 1
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
        for game, name, sizes in DEMO_EVENTS:
            event, created = Event.objects.get_or_create(
                club=club, name=name,
                defaults={"game": game, "starts_on": datetime.date(2026, 11, 21), "mu_fixed_deals": 8 if game == "mu" else None},
            )
            event.organisers.add(organiser)
            if not created:
                continue
            round_ = Round.objects.create(event=event, number=1)
            start = 0
            for number, size in enumerate(sizes, start=1):
                table = Table.objects.create(round=round_, number=number)
                table_seat_players(table=table, players=players[start:start + size])
                start += size
        self.stdout.write(self.style.SUCCESS(
            f"Demo loaded: {club.name}, {len(players)} players, {len(DEMO_EVENTS)} events "
            "(log in as organiser / organiser)."
        ))
