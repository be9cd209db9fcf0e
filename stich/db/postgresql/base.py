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
"""
from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self):
        if self.connection is not None and self.health_check_enabled and not self.health_check_done and self._quiet():
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quiet(self) -> bool:
        """Open, outside any transaction, and nothing arrived from the server since the last answer."""
        try:
            pgconn = self.connection.pgconn
            if pgconn.status != pq.ConnStatus.OK or pgconn.transaction_status != pq.TransactionStatus.IDLE:
                return False
            poller = select.poll()
            poller.register(pgconn.socket, select.POLLIN)
            return not poller.poll(0)
        except Exception:  # closed underneath (no socket), or no poll(): let Django's check decide
            return False
