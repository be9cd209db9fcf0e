"""What the servers hand the application: list filters on ids that match nothing answer an empty
list; a chunked body (which Django would read as empty) is refused with 411; under gunicorn's
uvicorn worker (deploy/) the client's own X-Forwarded-For does not change its address."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import client_for
from tests.processes import stop

ROOT = Path(__file__).resolve().parents[2]

FILTERS = [
    "/api/v1/players/?clubs={id}", "/api/v1/events/?club={id}", "/api/v1/rounds/?event={id}",
    "/api/v1/tables/?round={id}", "/api/v1/tables/?round__event={id}", "/api/v1/sessions/?table={id}",
    "/api/v1/sessions/?table__round__event={id}", "/api/v1/hands/?session={id}",
    "/api/v1/hands/?session__table={id}", "/api/v1/transfers/?session={id}",
]


@pytest.mark.django_db
@pytest.mark.parametrize("url", FILTERS)
def test_a_filter_on_an_id_that_matches_nothing_is_an_empty_list(world, url):
    for client in (client_for(), client_for(world.organiser)):
        for missing in (987654, 2**70, 0):
            response = client.get(url.format(id=missing))
            assert response.status_code == 200, (url, missing, response.content)
            assert response.json()["results"] == []
        assert client.get(url.format(id="abc")).status_code == 400


@pytest.mark.django_db
def test_a_filter_on_an_existing_id_still_filters(world):
    rows = client_for().get(f"/api/v1/rounds/?event={world.events['mu'].pk}").json()["results"]
    assert [row["event"] for row in rows] == [world.events["mu"].pk]
    players = client_for().get(f"/api/v1/players/?clubs={world.club.pk}").json()["results"]
    assert len(players) == 12


@pytest.mark.django_db
def test_a_chunked_body_is_411(world):
    from tournaments.models import Club

    clubs = Club.objects.count()
    response = client_for(world.staff).post("/api/v1/clubs/", {"name": "Chunky"}, format="json",
                                            HTTP_TRANSFER_ENCODING="chunked")
    assert response.status_code == 411 and response.json()["code"] == "length_required"
    assert client_for().post("/api/v1/records/validate", {"game": "mu"}, format="json",
                             HTTP_TRANSFER_ENCODING="gzip, chunked").status_code == 411
    assert Club.objects.count() == clubs


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _post(url: str, forwarded: str) -> int:
    request = urllib.request.Request(url, data=b'{"game": "mu"}', method="POST", headers={
        "Content-Type": "application/json", "X-Forwarded-For": forwarded})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_under_the_uvicorn_worker_a_client_cannot_name_its_address(tmp_path):
    """NUM_PROXIES=0 (the default): the connection's peer is the address; a different
    X-Forwarded-For on each request from 127.0.0.1 does not lift the dry-run throttle."""
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    env.update({"DATABASE_URL": f"sqlite:///{tmp_path / 'transport.sqlite3'}", "DEBUG": "1",
                "DRY_RUN_THROTTLE": "2/min", "LOG_LEVEL": "WARNING", "NUM_PROXIES": "0",
                "CACHE_DIR": str(tmp_path / "cache")})  # the throttle's count, of this server only
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "stich.asgi:application", "-k", "stich.workers.UvicornWorker",
         "--bind", f"127.0.0.1:{port}", "--workers", "1", "--graceful-timeout", "2"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2):
                    break
            except urllib.error.HTTPError:
                break  # it answers
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the server did not start:\n" + (tmp_path / "server.log").read_text())
                time.sleep(0.2)
        codes = [_post(f"{base}/api/v1/records/validate", f"203.0.113.{n}") for n in range(4)]
    finally:
        stop(server)
        log.close()
    assert codes == [422, 422, 429, 429], codes
