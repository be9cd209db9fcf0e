"""Open club nights (``Event.format == "open"``): no draw; the organisers open a table for 3–6
present players as they arrive (a writer, like ``draws``).

Decision: each table opened is a round of its own with that one table, so that a player sits at
several tables in one evening (a player is seated once per round) and everything that reads
rounds — the scorer links and sheets, the board, standings, ratings, series points, the room
screen, held results — works as at any event. A player is free again once his table's session
is finished (or abandoned); the next table's suggestion seats the player with the fewest tables
tonight with the free players he met least, tonight first, then over the series' other events
(``seating.suggest_open_table``).
"""
from __future__ import annotations

import random
from collections import Counter

from django.db import transaction
from django.db.models import Exists, OuterRef

from ..errors import Conflict, Error, Invalid
from ..models import Event, Player, Seat, Session, Table
from ..services import round_create, table_create
from ..standings.selectors import present_players
from . import seating
from .seating.seat_order import seat_tables


def _tables(events) -> list[tuple[int, ...]]:
    """The seat orders of the tables of ``events`` (a queryset or ids), in the order they opened."""
    seats = Seat.objects.filter(round__event__in=events).order_by("round__event", "round__number", "table__number",
                                                                  "position")
    tables: dict[int, list[int]] = {}
    for table_id, player_id in seats.values_list("table_id", "player_id"):
        tables.setdefault(table_id, []).append(player_id)
    return [tuple(players) for players in tables.values()]


def busy_players(event: Event) -> set[int]:
    """Players at a table of ``event`` that has not finished: no session yet, or one still open."""
    unfinished = Table.objects.filter(round__event=event).filter(
        Exists(Session.objects.filter(table=OuterRef("pk"), status=Session.Status.OPEN))
        | ~Exists(Session.objects.filter(table=OuterRef("pk")))
    )
    return set(Seat.objects.filter(table__in=unfinished).values_list("player_id", flat=True))


def free_players(event: Event) -> list[int]:
    """The present players who sit at no unfinished table, in the order they checked in."""
    busy = busy_players(event)
    return [player for player in present_players(event) if player not in busy]


def _histories(event: Event) -> tuple[seating.MeetingHistory, seating.MeetingHistory, Counter]:
    tonight_tables = _tables([event.pk])
    tonight = seating.MeetingHistory.from_rounds([[table] for table in tonight_tables], game=event.game)
    season_tables = _tables(Event.objects.filter(series=event.series_id).exclude(pk=event.pk)) \
        if event.series_id else []
    season = seating.MeetingHistory.from_rounds([[table] for table in season_tables], game=event.game)
    played = Counter(player for table in tonight_tables for player in table)
    return tonight, season, played


def suggestion(event: Event, size: int | None = None) -> dict:
    """The next table the console proposes: ``{"free": [ids], "size", "players": [ids in seat
    order] | [], "first_dealer"}``."""
    free = free_players(event)
    size = size or seating.open_table_size(event.game, len(free))
    tonight, season, played = _histories(event)
    table = seating.suggest_open_table(free, size, tonight=tonight, season=season, tables_tonight=played,
                                       rng=random.Random(event.pk * 1000 + len(tonight.played))) if size else None
    return {"free": free, "size": size, "players": list(table.players) if table else [],
            "first_dealer": table.dealer if table else None}


@transaction.atomic
def open_table(*, event: Event, players: list[Player], by_user, via: str = "api") -> Table:
    """Open a table of the open club night ``event`` for ``players`` (present, not at an
    unfinished table): a new round with this one table, its seats ordered and its first dealer
    chosen as a drawn table's. Audited as the round's and the table's creation."""
    event = Event.objects.select_for_update().get(pk=event.pk)
    if event.format != Event.Format.OPEN:
        raise Conflict("only an open club night opens tables without a draw", code=Error.NOT_OPEN)
    ids = [player.pk for player in players]
    present = set(present_players(event))
    absent = [pk for pk in ids if pk not in present]
    if absent:
        raise Invalid(f"not checked in tonight: {', '.join(map(str, absent))}", code=Error.NOT_PRESENT, field="players")
    busy = sorted(busy_players(event) & set(ids))
    if busy:
        raise Invalid(f"still playing at another table: {', '.join(map(str, busy))}", code=Error.STILL_PLAYING,
                      field="players")
    tonight, _, _ = _histories(event)
    seated = seat_tables([ids], tonight, random.Random(event.pk * 1000 + len(tonight.played)))[0]
    by_id = {player.pk: player for player in players}
    round_ = round_create(event=event, by_user=by_user, via=via)
    return table_create(round_=round_, players=[by_id[pk] for pk in seated.players], number=1,
                        first_dealer=seated.dealer, by_user=by_user, via=via)
