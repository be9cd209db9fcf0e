"""Writes of the tournament domain (HackSoft style: keyword-only, one transaction each)."""
from __future__ import annotations

from django.db import transaction

from .models import Player, Seat, Table


@transaction.atomic
def table_seat_players(*, table: Table, players: list[Player]) -> Table:
    """Seat ``players`` at ``table`` in seat order, replacing whoever sat there."""
    table.seats.all().delete()
    Seat.objects.bulk_create(
        Seat(table=table, round_id=table.round_id, player=player, position=position)
        for position, player in enumerate(players)
    )
    return table


@transaction.atomic
def player_anonymise(*, player: Player) -> Player:
    """Deleting a player keeps every standing and rating: the person goes, the results stay."""
    player.name = ""
    player.user = None
    player.anonymised = True
    player.initials_only = True
    player.save(update_fields=["name", "user", "anonymised", "initials_only"])
    player.clubs.clear()
    return player
