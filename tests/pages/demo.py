"""Results on top of the demo where it has none yet, for the public pages' tests.

The demo (``manage.py load_demo``) may or may not bring finished sessions and ratings; these
helpers only add sessions to tables that have none, so the tests compare the pages with the API's
JSON whatever the demo holds. Hands are stored as the engine would answer them (``scores``, and
for Maumau ``minus``), and the pools are synchronised by the ratings service.
"""
from __future__ import annotations

import datetime
import io
import random


def _hand_result(game: str, players: int, rng: random.Random) -> dict:
    if game == "maumau":
        minus = [rng.randint(0, 6) for _ in range(players)]
        minus[rng.randrange(players)] = 0  # rules/maumau.md: somebody went out with no minus points
        return {"scores": [-m for m in minus], "minus": minus}
    return {"scores": [rng.randint(-12, 30) for _ in range(players)]}


def play_table(table, *, rng: random.Random, finished_at: datetime.datetime, hands: int | None = None):
    """A finished session of ``table`` with stored hands (a Maumau series settled in transfers)."""
    from tournaments.models import Hand, Session, Transfer
    from tournaments.results.services import (
        maumau_settlement,
        session_rules,
        session_totals,
    )
    from tournaments.standings.series_standings import rebuild

    event = table.round.event
    seats = list(table.seats.order_by("position").values_list("player_id", flat=True))
    # As many hands as end a session: Mü's fixed deals, a Maumau series, a LuT round per player.
    count = hands or {"mu": event.mu_fixed_deals or 6, "maumau": event.maumau_games_per_series}.get(
        event.game, len(seats)
    )
    session = Session.objects.create(table=table, number=1)
    stored = [
        Hand.objects.create(session=session, number=number, dealer=(number - 1) % len(seats),
                            result=_hand_result(event.game, len(seats), rng))
        for number in range(1, count + 1)
    ]
    # Finished as tournaments.results.services leaves a session: its totals kept, marked for the pool.
    session.status, session.finished_at = Session.Status.FINISHED, finished_at
    session.totals, session.hand_count = session_totals(session_rules(session), stored), len(stored)
    session.rating_dirty_at = finished_at
    session.save(update_fields=["status", "finished_at", "totals", "hand_count", "rating_dirty_at"])
    if event.game == "maumau":
        for transfer in maumau_settlement(session_rules(session), stored)["transfers"]:
            Transfer.objects.create(session=session, payer_id=seats[transfer["from"]],
                                    payee_id=seats[transfer["to"]], cents=transfer["cents"])
    rebuild([event.pk])  # written around the services: the event's standings sums
    return session


def add_results(event, *, seed: int = 1) -> list:
    """Play every table of ``event`` that has no session yet; then bring the game's ratings in step."""
    from django.utils import timezone

    from ratings.services import pool_sync
    from tournaments.models import Table

    rng = random.Random(seed)
    start = timezone.now() - datetime.timedelta(days=1)
    sessions = []
    tables = Table.objects.filter(round__event=event, sessions__isnull=True).select_related("round__event")
    for index, table in enumerate(tables.order_by("round__number", "number")):
        sessions.append(play_table(table, rng=rng, finished_at=start + datetime.timedelta(minutes=10 * index)))
    pool_sync(event.game)
    return sessions


def add_held_round(event, *, seed: int = 2):
    """A further round of ``event`` with results, held back by the organiser."""
    from django.utils import timezone

    from ratings.services import pool_sync
    from tournaments.models import Round
    from tournaments.services import table_create

    first = event.rounds.order_by("number").first()
    number = (event.rounds.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    held = Round.objects.create(event=event, number=number, results_held=True)
    rng = random.Random(seed)
    for table in first.tables.order_by("number"):
        players = [seat.player for seat in table.seats.order_by("position")]
        rng.shuffle(players)
        copy = table_create(round_=held, number=table.number, players=players, by_user=None)
        play_table(copy, rng=rng, finished_at=timezone.now() + datetime.timedelta(minutes=table.number))
    pool_sync(event.game)
    return held


def build_demo():
    from django.core.management import call_command

    from tournaments.models import Event

    call_command("load_demo", stdout=io.StringIO())
    events = {}
    for event in Event.objects.order_by("id"):
        if not event.rounds.exists():
            continue  # the demo's evening that has not begun (for the console)
        add_results(event, seed=event.pk)
        if not event.rounds.filter(results_held=True).exists():
            add_held_round(event, seed=100 + event.pk)
        events.setdefault(event.game, event)
    return events
