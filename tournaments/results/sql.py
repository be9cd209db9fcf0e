"""Hand submission's SQL: the statements of the one frequent write, without the ORM's query compiler.

``lock_table`` is the one table lock of every write of results (correct, void, confirm, dispute,
abandon: ``tournaments/results/services.py``), and on PostgreSQL it counts the table's
``revision`` on. A submission there takes no lock: it reads the table and its state in one
statement (``read_table``) and stores the hand with one statement that first counts the revision
on where it is still the one read (``store_hand``'s guard): two statements, no transaction of its
own. When the table was written meanwhile (the guard finds another revision), or the hand needs
more than that statement (a session's first hand, its last, a Maumau series' payments), nothing
is stored and the submission is made again under the lock (``NeedsLock``).

Every table of an evening stores a hand every minute or two, and a benchmark of 32 tables at once
(issue 17, ``python -m bench.scale``) showed where a submission's time went: not to the engine
(0.1 ms) nor to PostgreSQL, but to Django building and compiling each query anew (about a
millisecond of a web worker's CPU per query, on the benchmark's machine). So the submission reads
what it needs in one statement written here, and writes model instances through ``insert`` and
``update``, which take the columns, ``auto_now`` and the conversions of JSON and times from the
models' own field definitions: a field added to a model is written here too, with its default.

The SQL is the same on PostgreSQL and SQLite, except the row lock (``FOR UPDATE``), which SQLite
neither has nor needs (it serialises writers). On PostgreSQL the statements are bound on the
server and prepared (``_cursor``): their text is constant, so PostgreSQL parses and plans each
once per connection (connections persist: ``CONN_MAX_AGE``). Everything else writes through the
ORM. The cursor is built from Django's private classes; tests/scale/test_sql_django_private.py
fails when an upgrade changes them.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model

from ..models import (
    Event,
    EventStanding,
    Hand,
    HandVersion,
    IdempotentSubmission,
    Round,
    RoundStanding,
    Seat,
    SeriesSyncRequest,
    Session,
    Table,
)
from ..standings import sums as aggregates

_SESSION_COLUMNS = ("id", "table_id", "number", "status", "first_dealer", "totals", "hand_count")
_HAND_COLUMNS = ("id", "session_id", "number", "dealer", "record", "result", "voided", "version",
                 "entered_by_seat", "unconfirmed", "disputed")


_TABLE_COLUMNS = ("id", "round_id", "number", "scorer_token", "first_dealer")
_ROUND_COLUMNS = ("id", "event_id", "number", "results_held")
_EVENT_COLUMNS = ("id", "club_id", "name", "game", "published", "mu_target_score", "mu_fixed_deals",
                  "maumau_games_per_series", "maumau_stake_cents", "confirm_hands")


def _table_columns() -> str:
    return ", ".join([f"t.{c}" for c in _TABLE_COLUMNS] + [f"r.{c}" for c in _ROUND_COLUMNS]
                     + [f"e.{c}" for c in _EVENT_COLUMNS])


def _table_joins() -> str:
    return (f"FROM {Table._meta.db_table} t JOIN {Round._meta.db_table} r ON r.id = t.round_id "
            f"JOIN {Event._meta.db_table} e ON e.id = r.event_id")


def _load_table(db, row) -> Table:
    first, second = len(_TABLE_COLUMNS), len(_TABLE_COLUMNS) + len(_ROUND_COLUMNS)
    table = load(Table, _TABLE_COLUMNS, row[:first], db)
    table.round = load(Round, _ROUND_COLUMNS, row[first:second], db)
    table.round.event = load(Event, _EVENT_COLUMNS, row[second:second + len(_EVENT_COLUMNS)], db)
    return table


class NeedsLock(Exception):
    """A submission read without the table's lock cannot be stored by the one guarded statement:
    the table was written since it was read, or the hand needs more writes. Nothing was stored."""


@dataclass(frozen=True)
class Guard:
    """What ``read_table`` read for ``store_hand``'s guard: the table's revision then, and the id
    reserved for the hand (its receipt, stored with an Idempotency-Key, names it before the write)."""

    table_id: int
    revision: int
    hand_id: int


@dataclass(frozen=True)
class TableState:
    """What a submission needs of a table, read under its row lock (``table_state``) or, on
    PostgreSQL, without it and stored under ``guard`` (``read_table``)."""

    table: Table  # with its round and event, as they are now
    seats: int
    session: Session | None  # the current (latest) session; only the columns above are loaded
    last: Hand | None  # its latest hand
    waiting: int  # how many of the session's hands wait for a confirmation
    voided: int = 0  # how many of the session's hands are voided (they do not count toward a length in hands)
    earlier: IdempotentSubmission | None = None  # the submission stored under the key asked for
    players: tuple[int, ...] = ()  # the seated players' ids in seat order
    guard: Guard | None = None  # read without the lock (``read_table``): the store's guard


def _db():
    """This thread's connection (looked up once per statement: the ``connection`` proxy looks it
    up again on every attribute)."""
    return connections[DEFAULT_DB_ALIAS]


def _cursor(db):
    """A cursor for the statements here: Django's (its query log, its execute wrappers, its error
    mapping), over a psycopg cursor that binds parameters on the server and prepares every
    statement on PostgreSQL; Django's own cursor elsewhere."""
    if db.vendor != "postgresql":
        return db.cursor()
    db.close_if_health_check_failed()
    db.ensure_connection()
    cursor_class, debug_wrapper = _preparing_cursor_class()
    inner = cursor_class(db.connection)
    return debug_wrapper(inner, db) if db.queries_logged else db.make_cursor(inner)


@lru_cache(maxsize=1)
def _preparing_cursor_class():
    from django.db.backends.postgresql.base import (
        CursorDebugWrapper,
        ServerBindingCursor,
    )
    from django.db.backends.utils import CursorWrapper

    class PreparingCursor(ServerBindingCursor):
        def execute(self, query, params=None, *, prepare=None, binary=None):
            return super().execute(query, params, prepare=True, binary=binary)

    class PreparedDebugWrapper(CursorDebugWrapper):
        """Logs the statement as written (a prepared statement's execution keeps no text of it)."""

        def execute(self, sql, params=None):
            with self.debug_sql(sql, params):
                return CursorWrapper.execute(self, sql, params)

    return PreparingCursor, PreparedDebugWrapper


_KEY_COLUMNS = ("id", "table_id", "key", "fingerprint", "body")


@lru_cache(maxsize=4)
def _lock_sql(vendor: str) -> str:
    if vendor == "postgresql":
        # The row lock of an UPDATE: the revision counted on (``read_table``'s readers see it).
        return (f"UPDATE {Table._meta.db_table} t SET revision = t.revision + 1 FROM {Round._meta.db_table} r "
                f"JOIN {Event._meta.db_table} e ON e.id = r.event_id WHERE t.id = %s AND r.id = t.round_id "
                f"RETURNING {_table_columns()}")
    # SQLite serialises writers (and has no row lock); no submission reads without it there.
    return f"SELECT {_table_columns()} {_table_joins()} WHERE t.id = %s"


def lock_table(table_id: int) -> Table:
    """Lock the table's row (only it: the round and event rows read with it stay free, so the
    event's other tables submit in parallel) and read it with its round and event: what deciding
    who may submit needs. On PostgreSQL the lock is an UPDATE that counts the table's revision on,
    so that a submission read without the lock before stores nothing (``store_hand``'s guard).
    Raises ``Table.DoesNotExist``.

    The table's state is read by the next statement (``table_state``), not by this one: a
    statement sees the database as it was when it started, so a read that had to wait for the
    lock would miss the hand that the lock's holder stored meanwhile (PostgreSQL's Read Committed;
    tests/integration/test_concurrency.py)."""
    db = _db()
    with _cursor(db) as cursor:
        cursor.execute(_lock_sql(db.vendor), [table_id])
        row = cursor.fetchone()
    if row is None:
        raise Table.DoesNotExist(f"no table {table_id}")
    return _load_table(db, row)


def reads_unlocked() -> bool:
    """Whether submissions read without the table's lock here (``read_table``): on PostgreSQL."""
    return _db().vendor == "postgresql"


@lru_cache(maxsize=2)
def _read_sql(key: bool) -> str:
    """``lock_table``'s read and ``table_state``'s in one statement, without a lock, with the
    table's revision and an id reserved for the hand (PostgreSQL)."""
    columns, joins = _state_parts(key, "postgresql", joined=True)
    # The sequence as a constant (regclass): resolved once when the statement is prepared, where
    # pg_get_serial_sequence() searched the catalog at every execution.
    sequence = "nextval('{}'::regclass)".format(_hand_sequence().replace("'", "''"))
    return f"SELECT {_table_columns()}, t.revision, {sequence}, {columns} {_table_joins()} {joins} WHERE t.id = %s"


@lru_cache(maxsize=1)
def _hand_sequence() -> str:
    """The name of the sequence of hands' ids (PostgreSQL), as the server qualifies it."""
    with _db().cursor() as cursor:
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [Hand._meta.db_table])
        return cursor.fetchone()[0]


def read_table(table_id: int, key: str | None = None) -> TableState:
    """The table with its round and event (what deciding who may submit needs) and its state, as
    ``lock_table`` and ``table_state`` read them, in one statement without the lock, with the
    guard that ``store_hand`` stores under. Raises ``Table.DoesNotExist``."""
    db = _db()
    with _cursor(db) as cursor:
        cursor.execute(_read_sql(key is not None), [table_id] if key is None else [key, table_id])
        row = cursor.fetchone()
    if row is None:
        raise Table.DoesNotExist(f"no table {table_id}")
    table = _load_table(db, row)
    start = len(_TABLE_COLUMNS) + len(_ROUND_COLUMNS) + len(_EVENT_COLUMNS)
    guard = Guard(table.pk, row[start], row[start + 1])
    return _state(db, table, row[start + 2:], key, guard)


def _seated_sql(vendor: str, seat: str) -> str:
    """The table's players in seat order: an array on PostgreSQL, a comma-separated text elsewhere."""
    if vendor == "postgresql":
        return f"(SELECT array_agg(player_id ORDER BY position) FROM {seat} WHERE table_id = t.id)"
    return f"(SELECT group_concat(player_id) FROM (SELECT player_id FROM {seat} WHERE table_id = t.id ORDER BY position))"


def _ids(value) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(int(part) for part in value.split(",") if part)
    return tuple(value)


@lru_cache(maxsize=8)
def _state_sql(key: bool, vendor: str = "postgresql") -> str:
    """Every lookup by an index: the table's seated players, its event's series, the latest
    session by (table, number), its latest hand by (session, number) = the session's kept hand
    count (slots have no gaps), the unconfirmed ones and the voided ones by their partial indexes,
    the submission under an Idempotency-Key by (table, key)."""
    columns, joins = _state_parts(key, vendor)
    return f"SELECT {columns} FROM {Table._meta.db_table} t {joins} WHERE t.id = %s"


def _state_parts(key: bool, vendor: str, joined: bool = False) -> tuple[str, str]:
    """``_state_sql``'s columns and joins (to the table ``t``; ``joined``: its round ``r`` and
    event ``e`` are joined already, as in ``read_table``)."""
    seat, session, hand = Seat._meta.db_table, Session._meta.db_table, Hand._meta.db_table
    round_, event = Round._meta.db_table, Event._meta.db_table
    columns = [f"s.{c}" for c in _SESSION_COLUMNS] + [f"h.{c}" for c in _HAND_COLUMNS]
    if key:
        columns += [f"k.{c}" for c in _KEY_COLUMNS]
    series = "e.series_id" if joined else (
        f"(SELECT e.series_id FROM {round_} r JOIN {event} e ON e.id = r.event_id WHERE r.id = t.round_id)")
    selected = (
        f"{_seated_sql(vendor, seat)}, {series}, "
        f"{', '.join(columns)}, "
        f"(SELECT COUNT(*) FROM {hand} v WHERE v.session_id = s.id AND v.voided), "
        f"(SELECT COUNT(*) FROM {hand} w WHERE w.session_id = s.id AND w.unconfirmed)"
    )
    if vendor == "postgresql":
        # The latest session: one backward scan of ``session_number_unique`` (table, number);
        # a join on MAX(number) read that index twice and the table's sessions once more.
        latest = (f"LEFT JOIN LATERAL (SELECT * FROM {session} WHERE table_id = t.id "
                  f"ORDER BY number DESC LIMIT 1) s ON TRUE ")
    else:  # SQLite has no LATERAL
        latest = (f"LEFT JOIN {session} s ON s.table_id = t.id "
                  f"AND s.number = (SELECT MAX(number) FROM {session} WHERE table_id = t.id) ")
    joins = (
        latest
        + f"LEFT JOIN {hand} h ON h.session_id = s.id AND h.number = s.hand_count"
        + (f" LEFT JOIN {IdempotentSubmission._meta.db_table} k ON k.table_id = t.id AND k.key = %s" if key else "")
    )
    return selected, joins


def table_state(table: Table, key: str | None = None) -> TableState:
    """What a submission needs of ``table`` (locked by ``lock_table`` in this transaction): its
    seat count, its current session, that session's latest hand, how many of its hands are voided
    and how many wait for a confirmation, and the submission stored under ``key`` (an
    Idempotency-Key), if any. The event's series is read here, after the lock (a move of the event
    to or from a series locks its tables first), and set on ``table.round.event``."""
    db = _db()
    with _cursor(db) as cursor:
        cursor.execute(_state_sql(key is not None, db.vendor), [table.pk] if key is None else [key, table.pk])
        rest = cursor.fetchone()
    return _state(db, table, rest, key)


def _state(db, table: Table, rest, key: str | None, guard: Guard | None = None) -> TableState:
    """A ``TableState`` from the columns of ``_state_parts``."""
    players, series_id = _ids(rest[0]), rest[1]
    table.round.event.series_id = series_id
    rest = rest[2:]
    seats, session_values = len(players), rest[:len(_SESSION_COLUMNS)]
    hand_values = rest[len(_SESSION_COLUMNS):len(_SESSION_COLUMNS) + len(_HAND_COLUMNS)]
    session = None if session_values[0] is None else load(Session, _SESSION_COLUMNS, session_values, db)
    last = None if hand_values[0] is None else load(Hand, _HAND_COLUMNS, hand_values, db)
    earlier = None
    if key is not None:
        start = len(_SESSION_COLUMNS) + len(_HAND_COLUMNS)
        key_values = rest[start:start + len(_KEY_COLUMNS)]
        earlier = None if key_values[0] is None else load(IdempotentSubmission, _KEY_COLUMNS, key_values, db)
    if session is not None:
        session.table = table
        if last is None and session.hand_count:
            # A hand count not kept (data written around the services): read the latest hand.
            last = session.hands.order_by("-number").first()
    return TableState(table=table, seats=seats, session=session, last=last, waiting=rest[-1] or 0, earlier=earlier,
                      players=players, voided=rest[-2] or 0, guard=guard)


def earlier_submission(table_id: int, key: str) -> IdempotentSubmission | None:
    """The submission stored under ``key`` at the table, if any (its fingerprint and body)."""
    db = _db()
    with _cursor(db) as cursor:
        cursor.execute(
            f"SELECT {', '.join(_KEY_COLUMNS)} FROM {IdempotentSubmission._meta.db_table} WHERE table_id = %s AND key = %s",
            [table_id, key],
        )
        row = cursor.fetchone()
    return None if row is None else load(IdempotentSubmission, _KEY_COLUMNS, row, db)


def load(model: type[Model], columns: tuple[str, ...], values, db=None) -> Model:
    """A model instance from a row of ``columns`` (attribute names), converted as the ORM converts
    them (JSON decoded, SQLite's booleans); the other fields are deferred."""
    db = db or _db()
    converted = list(values)
    for index, expression, converters in _converters(db, model, columns):
        value = converted[index]
        if value is not None:
            for converter in converters:
                value = converter(value, expression, db)
            converted[index] = value
    return model.from_db(db.alias, list(columns), converted)


@lru_cache(maxsize=256)
def _converters(db, model: type[Model], columns: tuple[str, ...]) -> list:
    """The ORM's conversions of ``columns`` read on ``db`` (a thread's connection object)."""
    fields = _fields_by_attname(model)
    found = []
    for index, name in enumerate(columns):
        field = fields[name]
        expression = field.get_col(model._meta.db_table)
        converters = db.ops.get_db_converters(expression) + field.get_db_converters(db)
        if converters:
            found.append((index, expression, converters))
    return found


def _prepared_values(db, obj: Model, fields, add: bool) -> list:
    return [field.get_db_prep_save(field.pre_save(obj, add), db) for field in fields]


def insert(obj: Model, *, returning: tuple[str, ...] = ()) -> None:
    """INSERT a new instance (every concrete field but an automatic primary key) and set its
    primary key, and the ``returning`` fields as the database stored them."""
    db, model = _db(), type(obj)
    fields = _insert_fields(model)
    values = _prepared_values(db, obj, fields, True)
    back = (model._meta.pk.attname, *returning)
    with _cursor(db) as cursor:
        if db.features.can_return_columns_from_insert:
            cursor.execute(_insert_sql(model, back), values)
            stored = load(model, back, cursor.fetchone(), db)
        else:
            cursor.execute(_insert_sql(model, ()), values)
            pk = db.ops.last_insert_id(cursor, model._meta.db_table, model._meta.pk.column)
            stored = model.objects.only(*back).get(pk=pk) if returning else None
            obj.pk = pk
    if stored is not None:
        for name in back:
            setattr(obj, name, getattr(stored, name))
    obj._state.adding, obj._state.db = False, db.alias


@lru_cache(maxsize=64)
def _insert_sql(model: type[Model], returning: tuple[str, ...]) -> str:
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    fields = _insert_fields(model)
    sql = (f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
           f"VALUES ({', '.join(['%s'] * len(fields))})")
    if returning:
        sql += " RETURNING " + ", ".join(quote(_fields_by_attname(model)[name].column) for name in returning)
    return sql


def update(obj: Model, fields: list[str]) -> None:
    """UPDATE the named fields of a stored instance, as ``save(update_fields=...)`` would."""
    db, model = _db(), type(obj)
    chosen = [model._meta.get_field(name) for name in fields]
    quote = db.ops.quote_name
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in chosen)
    with _cursor(db) as cursor:
        cursor.execute(
            f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {quote(model._meta.pk.column)} = %s",
            [*_prepared_values(db, obj, chosen, False), obj.pk],
        )


def store_hand(hand: Hand, version: HandVersion, session: Session, fields: list[str],
               standings: tuple[int, int, list] | None = None, *, guard: Guard | None = None,
               key: IdempotentSubmission | None = None) -> int | None:
    """Store a new hand, its first version, the session's ``fields`` and the changes of its
    players' round and event sums (``standings``: event id, round id, the book's ``Outcome.standings``)
    and, when they changed and the event counts for a series, the series' sync request
    (``tournaments/standings/outbox.py``): on PostgreSQL in one statement (data-modifying WITH),
    elsewhere in up to six. Returns the series of that request (read by this statement, after the
    table's lock), else None.

    With ``guard`` (PostgreSQL, read by ``read_table`` without the lock; ``hand`` has the id it
    reserved) the statement first counts the table's revision on where it is still the guard's
    (waiting for a write that holds the lock), and writes nothing else when it is not: then it
    raises ``NeedsLock``. ``key``: the submission stored under an Idempotency-Key, by the same
    statement (its body as stored is set on it)."""
    db = _db()
    changes = standings[2] if standings else []
    if guard is not None:
        return _store_in_one_statement(db, hand, version, session, fields, standings, changes, guard, key)
    if db.vendor != "postgresql":
        series_id = None
        if changes and db.features.can_return_columns_from_insert:
            # SQLite: the series is read by the hand's INSERT (RETURNING), as on PostgreSQL by the
            # one statement: after the database's write lock, and no statement of its own.
            quote = db.ops.quote_name
            sql = (_insert_sql(Hand, ("id",))
                   + f", (SELECT series_id FROM {quote(Event._meta.db_table)} WHERE id = %s)")
            with _cursor(db) as cursor:
                cursor.execute(sql, [*_prepared_values(db, hand, _insert_fields(Hand), True), standings[0]])
                hand.pk, series_id = cursor.fetchone()
            hand._state.adding, hand._state.db = False, db.alias
        else:
            insert(hand)
        version.hand = hand  # its id is known now
        insert(version)
        if fields:
            update(session, fields)
        if changes:
            aggregates.apply(standings[0], standings[1], changes)
            if not db.features.can_return_columns_from_insert:
                series_id = Event.objects.filter(pk=standings[0]).values_list("series_id", flat=True).first()
            if series_id is not None:
                SeriesSyncRequest.objects.create(series_id=series_id)
            return series_id
        return None
    return _store_in_one_statement(db, hand, version, session, fields, standings, changes)


def _store_in_one_statement(db, hand, version, session, fields, standings, changes, guard: Guard | None = None,
                            key: IdempotentSubmission | None = None) -> int | None:
    """``store_hand`` on PostgreSQL: ``_store_sql``'s one statement."""
    for name in _SHARED:  # the first version is the hand as stored: its record is sent once
        ours, its = getattr(version, name), getattr(hand, name)
        if ours is not its and ours != its:
            raise ValueError(f"the first version's {name} differs from the hand's")
    session_fields = [Session._meta.get_field(name) for name in fields]
    values = (([guard.table_id, guard.revision, guard.hand_id] if guard is not None else [])
              + _prepared_values(db, hand, _insert_fields(Hand), True)
              + _prepared_values(db, version, _version_fields(), True)
              + _prepared_values(db, session, session_fields, False) + ([session.pk] if fields else [])
              + ([*aggregates.changes_params(db.vendor, changes), standings[0], standings[1], standings[0],
                  standings[0]] if changes else [])
              + (_prepared_values(db, key, _insert_fields(IdempotentSubmission), True) if key is not None else []))
    with _cursor(db) as cursor:
        cursor.execute(_store_sql(tuple(fields), bool(changes), guarded=guard is not None, key=key is not None),
                       values)
        row = cursor.fetchone()
    if row is None:  # only a guard stores nothing
        raise NeedsLock(f"table {guard.table_id} was written since it was read")
    hand.pk, series_id = row[0], row[1]
    version.hand = hand
    for obj in (hand, version):
        obj._state.adding, obj._state.db = False, db.alias
    if key is not None:
        stored = load(IdempotentSubmission, ("id", "body"), row[2:4], db)
        key.pk, key.body = stored.pk, stored.body
        key._state.adding, key._state.db = False, db.alias
    return series_id if changes else None


_SHARED = ("dealer", "record", "result", "voided")  # a first version's columns taken from its hand's row


@lru_cache(maxsize=1)
def _version_fields() -> list:
    """The first version's columns sent as parameters: not its hand, not those it shares with it."""
    return [field for field in _insert_fields(HandVersion) if field.attname != "hand_id" and field.attname not in _SHARED]


@lru_cache(maxsize=64)
def _store_sql(session_fields: tuple[str, ...], standings: bool = False, guarded: bool = False,
               key: bool = False) -> str:
    """``store_hand``'s statement; ``guarded``: first the table's revision counted on where it is
    still the one read, and every other write only when it was (``t``); ``key``: the submission
    under an Idempotency-Key too."""
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    shared = [HandVersion._meta.get_field(name).column for name in _SHARED]
    hand_sql = _insert_sql(Hand, ("id", *_SHARED))
    only = ""
    if guarded:
        only = " AND EXISTS (SELECT 1 FROM t)"
        columns = [Hand._meta.pk, *_insert_fields(Hand)]
        hand_sql = (f"INSERT INTO {quote(Hand._meta.db_table)} ({', '.join(quote(field.column) for field in columns)}) "
                    f"SELECT {', '.join(['%s'] * len(columns))} FROM t RETURNING "
                    + ", ".join(quote(_fields_by_attname(Hand)[name].column) for name in ("id", *_SHARED)))
    version_sql = (
        f"INSERT INTO {quote(HandVersion._meta.db_table)} (hand_id, "
        f"{', '.join(quote(column) for column in shared)}, "
        f"{', '.join(quote(field.column) for field in _version_fields())}) "
        f"SELECT h.id, {', '.join(f'h.{quote(column)}' for column in shared)}, "
        f"{', '.join(['%s'] * len(_version_fields()))} FROM h"
    )
    sql = f"WITH h AS ({hand_sql}), v AS ({version_sql})"
    if guarded:
        table = quote(Table._meta.db_table)
        sql = (f"WITH t AS (UPDATE {table} SET revision = revision + 1 WHERE id = %s AND revision = %s RETURNING id), "
               + sql[len("WITH "):])
    if session_fields:
        assignments = ", ".join(f"{quote(Session._meta.get_field(name).column)} = %s" for name in session_fields)
        sql += f", s AS (UPDATE {quote(Session._meta.db_table)} SET {assignments} WHERE id = %s{only})"
    if standings:
        sql += (f", {aggregates.changes_cte('postgresql', quote, 0, where=only[len(' AND '):])}"
                f", a AS ({aggregates.upsert_sql(RoundStanding._meta.db_table, quote)})"
                f", b AS ({aggregates.upsert_sql(EventStanding._meta.db_table, quote, per_event=True)})")
        # The series' sync request, when the event counts for one (its series read here, after
        # the table's lock; no lock of the series: the request has no foreign key).
        sql += (f", r AS (INSERT INTO {quote(SeriesSyncRequest._meta.db_table)} (series_id, requested_at) "
                f"SELECT series_id, statement_timestamp() FROM {quote(Event._meta.db_table)} "
                f"WHERE id = %s AND series_id IS NOT NULL{only} RETURNING series_id)")
    answer = ", (SELECT series_id FROM r)" if standings else ", NULL::bigint"
    if key:  # its parameters come last
        fields = _insert_fields(IdempotentSubmission)
        sql += (f", k AS (INSERT INTO {quote(IdempotentSubmission._meta.db_table)} "
                f"({', '.join(quote(field.column) for field in fields)}) SELECT {', '.join(['%s'] * len(fields))} "
                f"FROM h RETURNING id, body)")
        answer += ", (SELECT id FROM k), (SELECT body FROM k)"
    return sql + f" SELECT id{answer} FROM h"


@lru_cache(maxsize=None)
def _insert_fields(model: type[Model]) -> list:
    return [field for field in model._meta.concrete_fields if not (field.primary_key and field.db_returning)]


@lru_cache(maxsize=None)
def _fields_by_attname(model: type[Model]) -> dict:
    return {field.attname: field for field in model._meta.concrete_fields}

