"""The embedded default's cache: a SQLite file of its own, shared by every process on the machine.

Without ``REDIS_URL`` the cache was Django's database cache, a table in the service's own
database. On SQLite that cost three things: its statements ran on the request's connection (a page
that caches one value per table, the win chances, wrote each with its own statements, so its
queries grew with the tables); its writes took the database's one write lock, so parallel requests
waited on each other's throttle counts; and its ``incr`` reads and writes back, so parallel requests
all passed the throttle with the same count.

This backend keeps the entries in a separate SQLite file (``LOCATION``; under tests one per
worker) through its own connections, one per thread: nothing it does is a query of the service's
database. ``add`` and ``incr`` are one statement each in an immediate transaction, so they are
atomic across threads and processes as Redis's are; ``set_many`` writes every entry in one
transaction. Values are pickled, as Django's own backends do; expired entries are skipped on read
and deleted when the file holds more than ``MAX_ENTRIES`` (Django's ``OPTIONS``).
"""
from __future__ import annotations

import pickle
import sqlite3
import threading
import time
from pathlib import Path

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache

SCHEMA = "CREATE TABLE IF NOT EXISTS entry (key TEXT PRIMARY KEY, value BLOB NOT NULL, expires REAL)"


class SQLiteFileCache(BaseCache):
    """Django's cache API over one SQLite file (see the module's docstring)."""

    def __init__(self, location: str, params: dict) -> None:
        super().__init__(params)
        self.path = Path(location)
        self._local = threading.local()

    # --- the connection of this thread ---------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=20, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer
            connection.execute("PRAGMA synchronous=NORMAL")  # a cache may lose its last writes in a crash
            connection.execute(SCHEMA)
            self._local.connection = connection
        return connection

    def _write(self, statements) -> object:
        """Run ``statements(connection)`` in one immediate transaction (the file's write lock is
        taken at once, so a read-then-write inside cannot race another process)."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            result = statements(db)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return result

    def _expiry(self, timeout) -> float | None:
        """The time (``time.time()``) the entry expires at; None: never."""
        return self.get_backend_timeout(timeout)

    def _live(self, db: sqlite3.Connection, key: str):
        return db.execute("SELECT value FROM entry WHERE key = ? AND (expires IS NULL OR expires > ?)",
                          (key, time.time())).fetchone()

    def _cull(self, db: sqlite3.Connection) -> None:
        if db.execute("SELECT count(*) FROM entry").fetchone()[0] > self._max_entries:
            db.execute("DELETE FROM entry WHERE expires IS NOT NULL AND expires <= ?", (time.time(),))

    # --- Django's cache API ------------------------------------------------------------------------

    def get(self, key, default=None, version=None):
        key = self.make_and_validate_key(key, version=version)
        row = self._live(self._db(), key)
        return default if row is None else pickle.loads(row[0])

    def get_many(self, keys, version=None):
        names = {self.make_and_validate_key(key, version=version): key for key in keys}
        if not names:
            return {}
        found = {}
        names_list = list(names)
        for start in range(0, len(names_list), 500):  # SQLite's bound on a statement's parameters
            chunk = names_list[start:start + 500]
            rows = self._db().execute(
                f"SELECT key, value FROM entry WHERE key IN ({','.join('?' * len(chunk))}) "
                "AND (expires IS NULL OR expires > ?)", (*chunk, time.time())).fetchall()
            found.update({names[key]: pickle.loads(value) for key, value in rows})
        return found

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self.set_many({key: value}, timeout, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        expires = self._expiry(timeout)
        rows = [(self.make_and_validate_key(key, version=version), pickle.dumps(value, pickle.HIGHEST_PROTOCOL), expires)
                for key, value in data.items()]

        def write(db):
            db.executemany("INSERT OR REPLACE INTO entry (key, value, expires) VALUES (?, ?, ?)", rows)
            self._cull(db)

        if rows:
            self._write(write)
        return []

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        key = self.make_and_validate_key(key, version=version)
        blob, expires = pickle.dumps(value, pickle.HIGHEST_PROTOCOL), self._expiry(timeout)

        def write(db):
            db.execute("DELETE FROM entry WHERE key = ? AND expires IS NOT NULL AND expires <= ?", (key, time.time()))
            return db.execute("INSERT OR IGNORE INTO entry (key, value, expires) VALUES (?, ?, ?)",
                              (key, blob, expires)).rowcount == 1

        return self._write(write)

    def incr(self, key, delta=1, version=None):
        key = self.make_and_validate_key(key, version=version)

        def write(db):
            row = self._live(db, key)
            if row is None:
                raise ValueError(f"Key '{key}' not found")
            value = pickle.loads(row[0]) + delta
            db.execute("UPDATE entry SET value = ? WHERE key = ?", (pickle.dumps(value, pickle.HIGHEST_PROTOCOL), key))
            return value

        return self._write(write)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        key = self.make_and_validate_key(key, version=version)
        expires = self._expiry(timeout)
        return self._write(lambda db: db.execute(
            "UPDATE entry SET expires = ? WHERE key = ? AND (expires IS NULL OR expires > ?)",
            (expires, key, time.time())).rowcount == 1)

    def has_key(self, key, version=None):
        key = self.make_and_validate_key(key, version=version)
        return self._live(self._db(), key) is not None

    def delete(self, key, version=None):
        key = self.make_and_validate_key(key, version=version)
        return self._write(lambda db: db.execute("DELETE FROM entry WHERE key = ?", (key,)).rowcount == 1)

    def delete_many(self, keys, version=None):
        names = [self.make_and_validate_key(key, version=version) for key in keys]
        if names:
            self._write(lambda db: db.executemany("DELETE FROM entry WHERE key = ?", [(name,) for name in names]))

    def clear(self):
        self._write(lambda db: db.execute("DELETE FROM entry"))

    def close(self, **kwargs):
        """Connections stay open for the thread's next request (Django closes caches after each)."""
