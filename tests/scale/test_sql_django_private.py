"""``tournaments/results/sql.py`` builds its PostgreSQL cursor from Django's private classes (a server-binding
psycopg cursor that prepares every statement, wrapped as Django wraps its own: query log, execute
wrappers, error mapping). A Django upgrade may change them without notice; this test fails when
one of them is no longer the code ``sql.py`` was written against, so whoever upgrades reads
``sql._cursor`` and ``sql._preparing_cursor_class`` again (and then updates the fingerprints)."""
from __future__ import annotations

import hashlib
import inspect

import pytest

psycopg = pytest.importorskip("psycopg")

# Checked against Django 5.2.19 (sha256 of each one's source).
FINGERPRINTS = {
    "postgresql.base.CursorMixin": "04f0c40d5a83fbfe4a7dc5e9a7512d4b1f2909452bfefad766bba4fb1d806d0c",
    "postgresql.base.ServerBindingCursor": "867ab9c95c4165ea7a2a3dda184dd36386c9c6278f937d783bd5f1b27742b2d5",
    "postgresql.base.CursorDebugWrapper": "31c09123c2d5bcfde5772ae33e50deb5de1ec9a33f8078dd908b9e73920af954",
    "postgresql.base.DatabaseWrapper.create_cursor": "5309d92ffca3e8718d0054b64fcd32ce8fb9cb7f260b914e844d4efcda62f81a",
    "utils.CursorWrapper.execute": "9c199f7ec639ad87b06f6d2438098d9c2f6bfe25dfcf70b3fe5d8429ccb942b2",
    "utils.CursorWrapper._execute_with_wrappers": "1f629e7adeb9d61baab0c0ac5b3cbf41a47a5df81640d933879beb49a73bd799",
    "utils.CursorDebugWrapper.debug_sql": "b9d41db9362ebf0a38613e21583b48e7e63057c75d14988b1a5aad080dc08234",
    "utils.CursorDebugWrapper.execute": "0b27fb67ba8d1505db1806de9499af7979bc972091a5ff47c22b2ca5995e3a66",
    "base.base.BaseDatabaseWrapper.make_cursor": "d4c6483ed6b4fc9ca9feb6c46de8460820567688d84a8f4bb0b534ee989e19e7",
    "base.base.BaseDatabaseWrapper.queries_logged": "d26da937d4e8595c6791cdc1e466bd75b431da510b55dba74ea895a874261908",
    "base.base.BaseDatabaseWrapper.close_if_health_check_failed":
        "f72eb45356f4a9108c8299b1a616f582cb1b4de12848e0a2401363ec9c9eb2cd",
}


def _resolve(dotted: str):
    from django.db.backends import utils
    from django.db.backends.base import base as base_base
    from django.db.backends.postgresql import base as postgresql_base

    modules = {"postgresql.base": postgresql_base, "utils": utils, "base.base": base_base}
    for prefix, module in modules.items():
        if dotted.startswith(prefix + "."):
            obj = module
            for name in dotted[len(prefix) + 1:].split("."):
                obj = getattr(obj, name)
            return obj.fget if isinstance(obj, property) else obj
    raise LookupError(dotted)


@pytest.mark.parametrize("name", sorted(FINGERPRINTS))
def test_the_private_django_code_sql_py_builds_on_is_unchanged(name):
    source = inspect.getsource(_resolve(name))
    assert hashlib.sha256(source.encode()).hexdigest() == FINGERPRINTS[name], (
        f"Django's {name} changed: check tournaments/results/sql.py's cursor against it, then update the fingerprint")


def test_the_preparing_cursor_is_built_from_them():
    """The classes ``sql.py`` subclasses still fit together: a psycopg cursor whose ``execute``
    takes ``prepare``, a debug wrapper with ``debug_sql``."""
    from django.db.backends.postgresql.base import (
        CursorDebugWrapper,
        ServerBindingCursor,
    )
    from django.db.backends.utils import CursorWrapper

    from tournaments.results.sql import _preparing_cursor_class

    preparing, debug = _preparing_cursor_class()
    assert issubclass(preparing, ServerBindingCursor) and issubclass(ServerBindingCursor, psycopg.Cursor)
    assert {"prepare", "binary"} <= set(inspect.signature(psycopg.Cursor.execute).parameters)
    assert issubclass(debug, CursorDebugWrapper) and issubclass(CursorDebugWrapper, CursorWrapper)
    assert list(inspect.signature(CursorDebugWrapper.debug_sql).parameters)[:3] == ["self", "sql", "params"]
