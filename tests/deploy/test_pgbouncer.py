"""Behind PgBouncer in transaction mode (README.md, Connections; deploy/README.md, PgBouncer):
a pooler hands each transaction whatever server connection is free, so a statement prepared in
one transaction is not there in the next, or another client's of the same name is. With
``DB_PREPARE_THRESHOLD=0`` the service prepares nothing and hand submission works through it; the
same submissions with the default (prepared once per connection) fail, which shows the setting
is what makes the difference. Debian's pgbouncer (scripts/test.sh installs it) in front of the
test database, on a free port; a gunicorn server of two workers submits through it."""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

from tests import processes
from tests.api.play import next_record
from tests.deploy.test_probes import free_port, start

ROOT = Path(__file__).resolve().parents[2]
PGBOUNCER = shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
    pytest.mark.skipif(PGBOUNCER is None, reason="needs pgbouncer (Debian: pgbouncer)"),
]


@pytest.fixture
def pgbouncer():
    """PgBouncer in transaction mode on a free port, one server connection per database (so two
    clients always share it), in front of the test PostgreSQL; yields its port."""
    settings = connection.settings_dict
    directory = Path(tempfile.mkdtemp(prefix="stich-pgbouncer-"))
    directory.chmod(0o777)  # pgbouncer refuses to run as root: it drops to nobody (-u), who writes here
    port = free_port()
    (directory / "users.txt").write_text(f'"{settings["USER"]}" "{settings["PASSWORD"] or ""}"\n')
    (directory / "pgbouncer.ini").write_text(f"""[databases]
* = host={settings["HOST"] or "127.0.0.1"} port={settings["PORT"] or 5432}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = {"trust" if not settings["PASSWORD"] else "plain"}
auth_file = {directory}/users.txt
pool_mode = transaction
default_pool_size = 1
max_client_conn = 50
ignore_startup_parameters = extra_float_digits,options
logfile = {directory}/pgbouncer.log
pidfile = {directory}/pgbouncer.pid
""")
    for name in ("users.txt", "pgbouncer.ini"):
        (directory / name).chmod(0o644)
    command = [PGBOUNCER, *(["-u", "nobody"] if os.geteuid() == 0 else []), str(directory / "pgbouncer.ini")]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, process.stderr.read().decode()
            time.sleep(0.05)
    yield port
    process.send_signal(signal.SIGTERM)
    process.wait(10)
    shutil.rmtree(directory, ignore_errors=True)


def submit(url: str, token: str, record: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(record).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-Scorer-Token": token,
                                              "Host": "localhost"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {}


def play_through(pgbouncer_port: int, world, threshold: str | None) -> list[int]:
    """Hands at the Mü event's tables, alternating, through a server on PgBouncer."""
    port = free_port()
    env = {"DATABASE_URL": f"postgres://{connection.settings_dict['USER']}@127.0.0.1:{pgbouncer_port}/"
                           f"{connection.settings_dict['NAME']}", "CONN_MAX_AGE": "60"}
    if connection.settings_dict["PASSWORD"]:
        env["DATABASE_URL"] = env["DATABASE_URL"].replace("@", f":{connection.settings_dict['PASSWORD']}@", 1)
    if threshold is not None:
        env["DB_PREPARE_THRESHOLD"] = threshold
    server = start([sys.executable, "-m", "gunicorn", "stich.wsgi:application", "--workers", "2",
                    "--bind", f"127.0.0.1:{port}", "--no-control-socket"], port, env)
    statuses = []
    try:
        rng = random.Random(5)
        tables = list(world.events["mu"].rounds.get().tables.all())
        sessions = {table.pk: None for table in tables}
        for _ in range(6):
            for table in tables:
                if sessions[table.pk] is not None and sessions[table.pk]["status"] != "open":
                    continue  # finished: no more hands here
                record = next_record("mu", rng, table.seats.count(), sessions[table.pk], table.first_dealer)
                status, body = submit(f"http://127.0.0.1:{port}/api/v1/tables/{table.pk}/hands/", table.scorer_token, record)
                statuses.append(status)
                if status == 201:
                    sessions[table.pk] = body["session"]
    finally:
        processes.stop(server, timeout=20)
    return statuses


def test_hands_are_stored_through_a_transaction_pooler_with_prepared_statements_off(pgbouncer, world):
    from tournaments.models import Hand

    statuses = play_through(pgbouncer, world, "0")
    assert statuses == [201] * len(statuses) and len(statuses) >= 6
    assert Hand.objects.filter(session__table__round__event=world.events["mu"]).count() == len(statuses)
