"""Fixtures of the console's browser tests: the ASGI application served as in production (gunicorn
with a uvicorn worker: HTTP and WebSockets) in a second process on a loopback port, against the
test database, and headless Chromium driven by Playwright."""
from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django's ORM would refuse to run in it.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

from tests.pages.test_browser import DESKTOP, PHONE, SCREENSHOTS, browser  # noqa: F401 - one Chromium fixture
from tests.processes import stop

ROOT = Path(__file__).resolve().parents[2]


def _database_url() -> str:
    """The test database as a URL for the server process; in-memory SQLite cannot be shared."""
    from django.db import connection

    settings = connection.settings_dict
    if connection.vendor == "postgresql":
        auth = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
        return f"postgres://{auth}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"
    if connection.vendor == "sqlite" and not connection.is_in_memory_db():
        return f"sqlite:///{settings['NAME']}"
    pytest.skip("the live server runs in a second process: it needs PostgreSQL (DATABASE_URL) or a SQLite file")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(folder: Path):
    """The base URL of ``stich.asgi`` under gunicorn's uvicorn worker (deploy/compose.yaml's web
    command), with the in-memory channel layer and tasks run in-process (no REDIS_URL): one worker
    process stores the hands and pushes to the pages it serves. Its log goes to ``folder``."""
    port = _free_port()
    env = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "stich.test_settings", "DATABASE_URL": _database_url(),
        "DEBUG": "1",  # static files from the source folders (no collectstatic in tests)
        "ALLOWED_HOSTS": "127.0.0.1,localhost", "LOG_LEVEL": "WARNING",
    }
    env.pop("REDIS_URL", None)
    # Without REDIS_URL the server's cache is on disk (diskcache, CACHE_DIR): this process's own
    # when it has one (its CACHE_DIR, inherited), else one of the server's own.
    env.setdefault("CACHE_DIR", str(folder / "cache"))
    log = open(folder / "server.log", "wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "stich.asgi:application", "-k", "stich.workers.UvicornWorker",
         "--bind", f"127.0.0.1:{port}", "--workers", "1", "--graceful-timeout", "2"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2):
                break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError("the ASGI server did not start:\n" + (folder / "server.log").read_text())
            time.sleep(0.2)
    try:
        yield base
    finally:
        stop(server)
        log.close()


@pytest.fixture
def asgi_server(transactional_db, tmp_path):
    """A server of the test's own (``serving``), stopped before its database is emptied."""
    with serving(tmp_path) as base:
        yield base


@pytest.fixture(scope="module")
def module_asgi_server(django_db_setup, django_db_blocker, tmp_path_factory):
    """One server (``serving``) for the tests of a module, each of which asks for
    ``transactional_db``: the server reads what a test writes, and the database is emptied after
    each test while the server goes on (between requests its pooled connections hold no lock)."""
    with django_db_blocker.unblock(), serving(tmp_path_factory.mktemp("server")) as base:
        yield base


@pytest.fixture
def new_page(browser):
    """``new_page(phone=False, locale="en-GB")``: a page in a fresh browser context."""
    contexts = []

    def opener(*, phone: bool = False, locale: str = "en-GB"):
        context = browser.new_context(locale=locale, **(PHONE if phone else DESKTOP))
        context.set_default_timeout(15000)
        contexts.append(context)
        return context.new_page()

    yield opener
    for context in contexts:
        context.close()


@pytest.fixture
def photograph(new_page):
    """``photograph(url, name, login=(user, password))``: ``url`` at 375 and 1280 px into
    artifacts/screenshots/; the phone page must not scroll sideways."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def shoot(url: str, name: str, *, login: tuple[str, str] | None = None) -> None:
        for kind, phone in (("phone", True), ("desktop", False)):
            page = new_page(phone=phone)
            if login:
                log_in(page, url.split("/console")[0], *login)
            page.goto(url)
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{kind}.png"), full_page=True, scale="css")
            if phone:
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 375, f"{name}: the page is {width} px wide on a 375 px phone"

    return shoot


def click_and_wait(page, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)


def api(base: str, path: str, token: str | None = None, body=None) -> dict:
    """A GET (or, with ``body``, a POST) of the REST API, as a club's app would send it."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    request = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode() if body is not None else None,
                                     headers=headers, method="POST" if body is not None else "GET")
    with urllib.request.urlopen(request, timeout=15) as response:
        return json.load(response)


def play_table(base: str, table, token: str, rng, hands: int | None = None) -> None:
    """Enter the table's Mü hands through the API (a scoring app) until its session ends (or
    ``hands`` of them), for the tests whose subject is not the entry."""
    from tests.api.play import next_record

    session = api(base, f"/api/v1/tables/{table.pk}/hands/", token)["session"]
    entered = 0
    while (session is None or session["status"] == "open") and (hands is None or entered < hands):
        record = next_record("mu", rng, table.seats.count(), session, table.first_dealer)
        session = api(base, f"/api/v1/tables/{table.pk}/hands/", token, record)["session"]
        entered += 1


def log_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("#log-in")


@pytest.fixture
def published_round(transactional_db):
    """A published Mü event with one round of three tables of four, no hands yet."""
    from tests.conftest import make_user
    from tournaments import services
    from tournaments.models import Club

    organiser = make_user("screen_organiser")
    club = services.club_create(by_user=None, name="Screen Club", organisers=[organiser])
    players = [services.player_create(by_user=organiser, name=f"Spieler {i:02d}", clubs=[club]) for i in range(12)]
    event = services.event_create(by_user=organiser, club=club, name="Screen Cup", game="mu", published=True,
                                  mu_fixed_deals=4)
    round_ = services.round_create(event=event, by_user=organiser)
    tables = [services.table_create(round_=round_, players=players[4 * i:4 * i + 4], by_user=organiser, first_dealer=0)
              for i in range(3)]
    assert Club.objects.count() == 1
    return organiser, event, tables
