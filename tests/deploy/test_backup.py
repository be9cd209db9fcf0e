"""Backups restore: an archive written while hands are being submitted restores into a new
database as one consistent moment, and one written after play restores everything as it was
(standings, sessions, hands, hand versions, audit rows, idempotency receipts, ratings)."""
from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from tests.api.play import next_record
from tests.conftest import client_for
from tests.deploy.fingerprint import fingerprint

ROOT = Path(__file__).resolve().parents[2]
URL = os.environ.get("DATABASE_URL", "")
postgres = pytest.mark.skipif(
    not URL.startswith("postgres") or shutil.which("pg_restore") is None,
    reason="the drill restores a pg_dump archive (PostgreSQL, pg_restore)",
)


def restore(archive: Path, database: str) -> None:
    """The documented restore: an empty database, then pg_restore (README.md, Backups)."""
    import psycopg

    with psycopg.connect(URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{database}"')
    from tournaments.management.backups import libpq_environment

    env = {**os.environ, **libpq_environment({**connection.settings_dict, "NAME": database})}
    result = subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "--dbname", database, str(archive)],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def drop(database: str) -> None:
    import psycopg

    with psycopg.connect(URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def fingerprint_of(database: str, *, catch_up: bool = False) -> dict:
    env = {**os.environ, "DATABASE_URL": URL.rsplit("/", 1)[0] + "/" + database,
           "DJANGO_SETTINGS_MODULE": "stich.test_settings"}
    env.pop("REDIS_URL", None)  # tasks in-process: the catch-up runs right there
    result = subprocess.run([sys.executable, "-m", "tests.deploy.fingerprint", *(["--catch-up"] if catch_up else [])],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def by_pk(rows: list[dict]) -> dict:
    return {row["id"]: row for row in rows}


class Play(threading.Thread):
    """One scorer: submits legal hands with an Idempotency-Key (sent again with the same key after
    a failure) to its tables' sessions one after the other, until they are finished or it is told
    to stop."""

    def __init__(self, tables, game: str, user, seed: int):
        super().__init__(daemon=True)
        self.tables, self.game, self.user, self.rng = tables, game, user, random.Random(seed)
        self.stop = threading.Event()
        self.failures: list[str] = []

    def run(self):
        from django.db import connections

        client = client_for(self.user)
        try:
            for table in self.tables:
                url = f"/api/v1/tables/{table.pk}/hands/"
                players = table.seats.count()
                session = client.get(url).json()["session"]
                while not self.stop.is_set() and (session is None or session["status"] == "open"):
                    record = next_record(self.game, self.rng, players, session, table.first_dealer)
                    key = uuid.uuid4().hex
                    response = client.post(url, record, format="json", HTTP_IDEMPOTENCY_KEY=key)
                    if response.status_code >= 500:
                        response = client.post(url, record, format="json", HTTP_IDEMPOTENCY_KEY=key)
                    if response.status_code != 201:
                        self.failures.append(f"{response.status_code} {response.content[:300]!r}")
                        return
                    session = response.json()["session"]
        finally:
            connections.close_all()


def scorers(world, rounds: int) -> list[Play]:
    """Per event, ``rounds`` rounds of the same three tables of four; a scorer per table number."""
    from tournaments.models import Round
    from tournaments.services import table_create

    plays = []
    for seed, (game, event) in enumerate(world.events.items()):
        for number in range(2, rounds + 1):
            round_ = Round.objects.create(event=event, number=number)
            for index in range(3):
                table_create(round_=round_, number=index + 1, players=world.players[4 * index:4 * index + 4], by_user=None)
        for index in range(3):
            tables = [round_.tables.get(number=index + 1) for round_ in event.rounds.order_by("number")]
            plays.append(Play(tables, game, world.organiser, 10 * seed + index))
    return plays


@postgres
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_restore_drill_during_play_and_after(world, tmp_path):
    from tournaments.management.backups import backup
    from tournaments.models import Hand

    players = scorers(world, rounds=3)
    for play in players:
        play.start()
    try:
        deadline = time.monotonic() + 60
        while Hand.objects.count() < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        during = backup(tmp_path / "during", keep=0)
        at_backup = Hand.objects.count()
        deadline = time.monotonic() + 60
        while (Hand.objects.count() < at_backup + 40 and any(play.is_alive() for play in players)
               and time.monotonic() < deadline):
            time.sleep(0.05)
    finally:
        for play in players:
            play.stop.set()
        for play in players:
            play.join(120)
    assert not [failure for play in players for failure in play.failures]
    after = backup(tmp_path / "after", keep=0)
    original = fingerprint()
    assert sum(1 for session in original["sessions"] if session["status"] != "open") >= 3  # ratings moved

    names = [f"{connection.settings_dict['NAME']}_restore_{which}" for which in ("during", "after")]
    try:
        restore(during, names[0])
        restore(after, names[1])
        mid = fingerprint_of(names[0], catch_up=True)
        end = fingerprint_of(names[1])
    finally:
        for name in names:
            drop(name)

    # After play: everything as it was.
    assert end == original

    # During play: one moment of the evening. Play went on before and after it.
    assert 0 < len(mid["hands"]) < len(original["hands"])
    for kind in ("hands", "versions", "audit", "receipts"):
        kept, now = by_pk(mid[kind]), by_pk(original[kind])
        assert all(now[pk] == row for pk, row in kept.items()), kind  # nothing torn, nothing invented
    # Every stored hand came with its first version and its receipt; each session's hands are
    # numbered 1..n with no gap (a hand is in the archive whole or not at all).
    versions = {(row["hand_id"], row["version"]) for row in mid["versions"]}
    assert all((hand["id"], 1) in versions for hand in mid["hands"])
    receipts = {row["hand_id"] for row in mid["receipts"] if row.get("hand_id")}
    assert receipts == {hand["id"] for hand in mid["hands"]}
    numbers: dict[int, list[int]] = {}
    for hand in mid["hands"]:
        numbers.setdefault(hand["session_id"], []).append(hand["number"])
    assert all(sorted(found) == list(range(1, len(found) + 1)) for found in numbers.values())
    # Ratings brought in step by beat's catch-up equal a recomputation from scratch.
    assert mid["ratings"] == mid["recomputed"]
    assert mid["ratings"]


def test_a_sqlite_backup_is_a_consistent_copy(tmp_path, monkeypatch):
    """On SQLite the archive is a copy made by SQLite's online backup: it opens as a database
    with every row of the original."""
    from tournaments.management import backups

    source = tmp_path / "live.sqlite3"
    with sqlite3.connect(source) as db:
        db.execute("CREATE TABLE hand (id INTEGER PRIMARY KEY, number INTEGER)")
        db.executemany("INSERT INTO hand (number) VALUES (?)", [(n,) for n in range(500)])

    class SQLiteFile:  # what backup() reads of Django's connection, for a database of its own
        vendor = "sqlite"
        settings_dict = {"NAME": str(source)}

        def ensure_connection(self):
            pass

    monkeypatch.setattr(backups, "connection", SQLiteFile())
    first = backups.backup(tmp_path / "out", keep=2)
    backups.backup(tmp_path / "out", keep=2)
    third = backups.backup(tmp_path / "out", keep=2)
    with sqlite3.connect(third) as copy:
        assert copy.execute("SELECT count(*), sum(number) FROM hand").fetchone() == (500, sum(range(500)))
    kept = sorted(path.name for path in (tmp_path / "out").iterdir())
    assert len(kept) == 2 and first.name not in kept and third.name in kept  # the newest two
    assert not list((tmp_path / "out").glob(".*partial"))


def test_the_command_needs_a_directory(settings):
    from django.core.management import CommandError, call_command

    settings.BACKUP_DIR = ""
    with pytest.raises(CommandError, match="BACKUP_DIR"):
        call_command("backup_database")


def settings_with(env: dict) -> subprocess.CompletedProcess:
    code = ("import django; django.setup(); from django.conf import settings; import json; "
            "entry = settings.CELERY_BEAT_SCHEDULE.get('backup-database'); "
            "print(json.dumps(entry and {'task': entry['task'], 'schedule': str(entry['schedule'])}))")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "DJANGO_SETTINGS_MODULE": "stich.test_settings", **env})


def test_beat_schedules_backups_only_where_a_directory_is_configured(tmp_path):
    scheduled = settings_with({"BACKUP_DIR": str(tmp_path), "BACKUP_SCHEDULE": "15 3 * * 1"})
    assert scheduled.returncode == 0, scheduled.stderr
    entry = json.loads(scheduled.stdout.strip().splitlines()[-1])
    assert entry["task"] == "tournaments.backup_database"
    assert entry["schedule"].startswith("<crontab: 15 3 * * 1")
    unscheduled = settings_with({"BACKUP_DIR": ""})
    assert json.loads(unscheduled.stdout.strip().splitlines()[-1]) is None
    wrong = settings_with({"BACKUP_DIR": str(tmp_path), "BACKUP_SCHEDULE": "every night"})
    assert wrong.returncode != 0 and "BACKUP_SCHEDULE" in wrong.stderr


@postgres
@pytest.mark.django_db
def test_the_scheduled_task_writes_an_archive(tmp_path, settings):
    """What beat's entry runs: an archive of the database in BACKUP_DIR, kept whole."""
    from tournaments.tasks import backup_database

    settings.BACKUP_DIR = str(tmp_path)
    path = Path(backup_database.delay().get())
    assert path.parent == tmp_path and path.name.startswith("stich-") and path.suffix == ".dump"
    listing = subprocess.run(["pg_restore", "--list", str(path)], capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0 and "TABLE DATA public games_hand" in listing.stdout


@postgres
@pytest.mark.skipif(shutil.which("pg_dump") is None, reason="needs pg_dump (Debian: postgresql-client)")
@pytest.mark.django_db(transaction=True)
def test_a_backup_holds_one_connection_pg_dumps(tmp_path, monkeypatch):
    """The connection budget counts one for a backup: the command's own connection is closed
    before pg_dump opens its own (it held both, two, before)."""
    from tournaments.management import backups

    open_while_dumping = []
    run = subprocess.run

    def watched(command, *args, **kwargs):
        if "--file" in command:
            open_while_dumping.append(connection.connection is not None)
        return run(command, *args, **kwargs)

    monkeypatch.setattr(backups.subprocess, "run", watched)
    archive = backups.backup(tmp_path, keep=0)
    assert archive.exists() and open_while_dumping == [False]
