"""Backups: one consistent archive of the whole database, written by ``manage.py backup_database``
and, where ``BACKUP_DIR`` is set, by Celery beat on ``BACKUP_SCHEDULE`` (stich/settings.py).

PostgreSQL: ``pg_dump --format=custom``, which reads every table in one snapshot (a transaction at
REPEATABLE READ, serializable and deferrable), so hands submitted meanwhile are either in it with
their versions, audit row and rating effects or not at all. It restores with ``pg_restore`` into an
empty database (README.md, Backups). ``pg_dump`` must be at least the server's major version.
SQLite: SQLite's online backup, a consistent copy of the file that is the restore.

An archive is written under a temporary name and renamed when complete: a file named
``stich-*.dump`` or ``stich-*.sqlite3`` is whole. The newest ``BACKUP_KEEP`` are kept (0: all).
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.utils import timezone


class BackupError(Exception):
    pass


def libpq_environment(settings_dict: dict) -> dict:
    """The connection as libpq's environment variables (no password on a command line)."""
    values = {
        "PGHOST": settings_dict.get("HOST") or "",
        "PGPORT": str(settings_dict.get("PORT") or ""),
        "PGUSER": settings_dict.get("USER") or "",
        "PGPASSWORD": settings_dict.get("PASSWORD") or "",
        "PGDATABASE": settings_dict["NAME"],
    }
    return {key: value for key, value in values.items() if value}


def _major(version_text: str) -> int:
    return int(version_text.split()[-1].split(".")[0])


def _pg_dump(target: Path) -> None:
    program = shutil.which("pg_dump")
    if program is None:
        raise BackupError("pg_dump is not installed (Debian: apt-get install postgresql-client)")
    client = _major(subprocess.run([program, "--version"], capture_output=True, text=True, check=True).stdout)
    server = connection.pg_version // 10000 if connection.pg_version else 0
    if client < server:
        raise BackupError(f"pg_dump {client} cannot dump a PostgreSQL {server} server; install pg_dump {server} or newer")
    env = {**os.environ, **libpq_environment(connection.settings_dict)}
    # pg_dump opens a connection of its own: this process's is closed first, so that a backup holds
    # the one connection the budget counts for it (README.md, Connections). Not inside a
    # transaction, which closing would break (Django opens a new connection when next asked).
    if not connection.in_atomic_block:
        connection.close()
    result = subprocess.run(
        [program, "--format=custom", "--no-owner", "--no-privileges", "--file", str(target)],
        env=env, capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise BackupError(f"pg_dump failed: {result.stderr.strip()}")


def _sqlite_copy(target: Path) -> None:
    source = sqlite3.connect(connection.settings_dict["NAME"])
    copy = sqlite3.connect(target)
    try:
        with copy:
            source.backup(copy)
    finally:
        copy.close()
        source.close()


def backup(directory: Path | str, *, keep: int | None = None) -> Path:
    """Write one archive into ``directory``; returns its path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    stamp = timezone.now().strftime("%Y%m%dT%H%M%S.%fZ")
    connection.ensure_connection()
    if connection.vendor == "postgresql":
        suffix, write = ".dump", _pg_dump
    elif connection.vendor == "sqlite":
        suffix, write = ".sqlite3", _sqlite_copy
    else:
        raise BackupError(f"no backup for the {connection.vendor} backend")
    target = directory / f"stich-{stamp}{suffix}"
    partial = directory / f".{target.name}.partial"
    try:
        write(partial)
        partial.rename(target)
    finally:
        partial.unlink(missing_ok=True)
    prune(directory, settings.BACKUP_KEEP if keep is None else keep)
    return target


def prune(directory: Path, keep: int) -> list[Path]:
    """Remove all but the newest ``keep`` archives (0 keeps all); returns the removed ones."""
    if keep <= 0:
        return []
    archives = sorted(directory.glob("stich-*.dump")) + sorted(directory.glob("stich-*.sqlite3"))
    archives.sort(key=lambda path: path.name)
    removed = archives[:-keep]
    for path in removed:
        path.unlink()
    return removed
