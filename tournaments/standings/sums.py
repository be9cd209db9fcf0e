"""Per-player sums per round (``RoundStanding``) and per event (``EventStanding``, the rounds'
added up, written with them): what event and series standings add up.

What one session adds to each of its players, by the one rule of what counts (a session under
way adds its points so far, a finished one its result, an abandoned one nothing), is the session
book's (``tournaments.results.book.contribution``, with ``FIELDS`` and the placement points' exact
integer ``PLACEMENT_SCALE``). The sums are kept by adding the difference between a session's
contribution before and after each write (the book's ``Outcome.standings``, stored by
``tournaments.results.services``: submit, correct, void, confirm, abandon; in the write's
transaction), so they stay exact under corrections and voids whatever their order:
tests/tournaments/test_aggregates.py compares them with ``recompute`` after random sequences.

Data written around the services (imports, generated leagues, tests building sessions by hand)
calls ``rebuild`` for its events afterwards.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from django.db import connection

from ..models import Event, EventStanding, RoundStanding, Seat, Session
from ..results.book import FIELDS, contribution

# The models ``recompute`` and ``rebuild`` read and write; a migration passes its historical ones.
CURRENT = {"Event": Event, "Seat": Seat, "Session": Session, "RoundStanding": RoundStanding,
           "EventStanding": EventStanding}

_CHANGE_COLUMNS = ("player_id", *FIELDS)


def changes_cte(vendor: str, quote, rows: int, where: str = "") -> str:
    """``c(player_id, *FIELDS) AS (…)``: ``rows`` changes (``difference``) as a relation that
    ``upsert_sql`` adds up. On PostgreSQL one bigint array per column, unnested: the statement's
    text and its number of parameters are then the same for any number of players, so it is
    prepared once per connection and parsed once by psycopg (which caches the conversion of
    statements of at most 50 parameters: a VALUES list of four players' rows per table took more
    of a hand's CPU than its engine); elsewhere (SQLite) a VALUES list. ``where``: a condition
    on the rows (PostgreSQL: a statement's guard, ``results.sql.store_hand``)."""
    names = ", ".join(quote(column) for column in _CHANGE_COLUMNS)
    if vendor == "postgresql":
        source = f"SELECT * FROM unnest({', '.join(['%s::bigint[]'] * len(_CHANGE_COLUMNS))})" + (f" WHERE {where}" if where else "")
    else:
        source = "VALUES " + ", ".join(["(" + ", ".join(["%s"] * len(_CHANGE_COLUMNS)) + ")"] * rows)
    return f"c({names}) AS ({source})"


def changes_params(vendor: str, changes: list[tuple[int, tuple]]) -> list:
    """The parameters of ``changes_cte``: bigint arrays on PostgreSQL, each sent as its text
    (``{1,-2,3}``, cast by the statement: one type whatever the values, so one prepared statement,
    and no adaptation of each element in Python), else the rows."""
    if vendor == "postgresql":
        return [_array([player for player, _ in changes]),
                *(_array([change[index] for _, change in changes]) for index in range(len(FIELDS)))]
    return [value for player, change in changes for value in (player, *change)]


def _array(values: list[int]) -> str:
    """A PostgreSQL array's text of integers."""
    return "{" + ",".join(map(str, map(int, values))) + "}"


def upsert_sql(table: str, quote, *, per_event: bool = False) -> str:
    """INSERT … SELECT … ON CONFLICT that adds the changes of the relation ``c`` (``changes_cte``)
    to the sums of event %s and round %s (``per_event``: of event %s), on PostgreSQL and SQLite."""
    keys = ["event_id", "player_id"] if per_event else ["event_id", "round_id", "player_id"]
    chosen = ["%s"] * (len(keys) - 1) + [quote(column) for column in _CHANGE_COLUMNS]
    sums = ", ".join(f"{quote(name)} = {quote(table)}.{quote(name)} + excluded.{quote(name)}" for name in FIELDS)
    conflict = "event_id, player_id" if per_event else "round_id, player_id"
    # WHERE true: SQLite's parser needs a WHERE before ON CONFLICT after a SELECT.
    return (f"INSERT INTO {quote(table)} ({', '.join(quote(c) for c in [*keys, *FIELDS])}) "
            f"SELECT {', '.join(chosen)} FROM c WHERE true ON CONFLICT ({conflict}) DO UPDATE SET {sums}")


def apply(event_id: int, round_id: int, changes: list[tuple[int, tuple]]) -> None:
    """Add ``changes`` (``difference``) to the round's sums and the event's, in the caller's
    transaction (a hand's submission adds them in its own statement: ``sql.store_hand``)."""
    if not changes:
        return
    quote, vendor = connection.ops.quote_name, connection.vendor
    cte, params = changes_cte(vendor, quote, len(changes)), changes_params(vendor, changes)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {cte} {upsert_sql(RoundStanding._meta.db_table, quote)}", [*params, event_id, round_id])
        cursor.execute(f"WITH {cte} {upsert_sql(EventStanding._meta.db_table, quote, per_event=True)}",
                       [*params, event_id])


def recompute(event_ids: Iterable[int], *, models=None) -> dict[tuple[int, int, int], tuple]:
    """The sums computed from the events' sessions and seats: (event, round, player) → FIELDS.
    ``models``: the model classes by name (a migration passes its historical ones)."""
    models = models or CURRENT
    Event, Seat, Session = models["Event"], models["Seat"], models["Session"]
    ids = list(event_ids)
    events = {e.pk: e for e in Event.objects.filter(pk__in=ids).only("game", "maumau_stake_cents")}
    seats: dict[int, list[int]] = defaultdict(list)
    for table_id, player_id in (Seat.objects.filter(table__round__event__in=ids).order_by("table_id", "position")
                                .values_list("table_id", "player_id")):
        seats[table_id].append(player_id)
    sums: dict[tuple[int, int, int], list[int]] = {}
    rows = (Session.objects.filter(table__round__event__in=ids).order_by()
            .values_list("table_id", "table__round_id", "table__round__event_id", "status", "hand_count", "totals"))
    for table_id, round_id, event_id, status, hand_count, totals in rows.iterator(chunk_size=2000):
        event = events[event_id]
        added = contribution(players=seats[table_id], totals=totals or [], status=status, hand_count=hand_count,
                             game=event.game, stake_cents=event.maumau_stake_cents)
        for player, values in added.items():
            kept = sums.setdefault((event_id, round_id, player), [0] * len(FIELDS))
            for index, value in enumerate(values):
                kept[index] += value
    return {key: tuple(values) for key, values in sums.items()}


def per_event(sums: dict[tuple[int, int, int], tuple]) -> dict[tuple[int, int], tuple]:
    """Round sums (event, round, player) → FIELDS added up per (event, player)."""
    found: dict[tuple[int, int], list[int]] = {}
    for (event, _, player), values in sums.items():
        kept = found.setdefault((event, player), [0] * len(FIELDS))
        for index, value in enumerate(values):
            kept[index] += value
    return {key: tuple(values) for key, values in found.items() if any(values)}


def rebuild(event_ids: Iterable[int], *, models=None) -> None:
    """Replace the events' sums (per round and per event) by ``recompute``: after data written
    around the services, and the migrations' backfill. The public standings of their series
    do not: ``series_standings.rebuild`` refreshes them too."""
    models = models or CURRENT
    RoundStanding, EventStanding = models["RoundStanding"], models.get("EventStanding")
    ids = list(event_ids)
    sums = recompute(ids, models=models)
    RoundStanding.objects.filter(event__in=ids).delete()
    RoundStanding.objects.bulk_create(
        (RoundStanding(event_id=event, round_id=round_, player_id=player, **dict(zip(FIELDS, values)))
         for (event, round_, player), values in sums.items() if any(values)),
        batch_size=2000,
    )
    if EventStanding is not None:
        EventStanding.objects.filter(event__in=ids).delete()
        EventStanding.objects.bulk_create(
            (EventStanding(event_id=event, player_id=player, **dict(zip(FIELDS, values)))
             for (event, player), values in per_event(sums).items()),
            batch_size=2000,
        )


def stored(event_ids: Iterable[int]) -> dict[tuple[int, int, int], tuple]:
    """The kept sums of the events, as ``recompute`` returns them (rows of zeros left out)."""
    rows = RoundStanding.objects.filter(event__in=list(event_ids)).values_list("event_id", "round_id", "player_id",
                                                                                 *FIELDS)
    return {tuple(row[:3]): tuple(row[3:]) for row in rows if any(row[3:])}


def stored_per_event(event_ids: Iterable[int]) -> dict[tuple[int, int], tuple]:
    """The kept per-event sums, as ``per_event(recompute(...))`` returns them."""
    rows = EventStanding.objects.filter(event__in=list(event_ids)).values_list("event_id", "player_id", *FIELDS)
    return {tuple(row[:2]): tuple(row[2:]) for row in rows if any(row[2:])}
