"""Django's PostgreSQL backend with a health check that costs no round trip when nothing happened.

Persistent connections (``CONN_MAX_AGE``) are checked before a request reuses them
(``CONN_HEALTH_CHECKS``). Django checks with ``SELECT 1``: a round trip to the database before every
request's first query, about a tenth of hand submission's work (issue 17). A connection that the
server closed while it was idle (a restart, ``pg_terminate_backend``, ``idle_session_timeout``, a
pooler) always has something to read on its socket: the server's last message and the end of the
stream. So the socket is polled first: nothing to read, an idle transaction state and an open
connection mean it is usable as it was; anything else falls back to Django's ``SELECT 1``, which
closes the connection when it fails. (A link that went silent without the server closing would
make ``SELECT 1`` wait as long as the request's first query would.)

With a connection pool (``OPTIONS["pool"]``, the ASGI processes: stich/settings.py) the pool checks
a connection before it hands it out; Django has it send an empty query each time. The pool here
polls the socket first in the same way and sends the empty query only when the server wrote
something meanwhile (a connection that fails it is discarded and another one taken).
"""
from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


def quiet(pgconn) -> bool:
    """Open, outside any transaction, and nothing arrived from the server since the last answer."""
    try:
        if pgconn.status != pq.ConnStatus.OK or pgconn.transaction_status != pq.TransactionStatus.IDLE:
            return False
        poller = select.poll()
        poller.register(pgconn.socket, select.POLLIN)
        return not poller.poll(0)
    except Exception:  # closed underneath (no socket), or no poll(): let the full check decide
        return False


def check_pooled(conn) -> None:
    """The pool's check: raises when the connection is unusable (psycopg_pool then replaces it)."""
    if quiet(conn.pgconn):
        return
    from psycopg_pool import ConnectionPool

    ConnectionPool.check_connection(conn)


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        if pool is not None and getattr(pool, "_check", None) is not None and pool._check is not check_pooled:
            from psycopg_pool import ConnectionPool

            # Django passes its check explicitly (it cannot be given in OPTIONS): replace it once,
            # before the pool is opened, when health checks are on (the check is None otherwise).
            if pool._check == ConnectionPool.check_connection:
                pool._check = check_pooled
        return pool

    def close_if_health_check_failed(self):
        if self.connection is not None and self.health_check_enabled and not self.health_check_done and self._quiet():
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quiet(self) -> bool:
        try:
            return quiet(self.connection.pgconn)
        except Exception:  # noqa: BLE001 - no pgconn: let Django's check decide
            return False
