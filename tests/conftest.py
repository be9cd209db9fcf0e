"""Shared fixtures: API clients for every role, and a small club with one event per game."""
from __future__ import annotations

import pytest

# Django is imported inside the fixtures: the pure tests (engine, seating, ratings model) also run
# without Django (``pytest -p no:django tests/engine``).

# The files that take longest, in seconds on the quiet 2-core CI machine (``--durations=0``, summed
# per file). Under pytest-xdist (``--dist loadfile``: a file stays on one worker) they are handed
# out first, the longest first, and the other files fill in behind them, so that the two workers
# finish together instead of one starting a minute-long file when the other is done. Refresh the
# figures when a file becomes slow; a file missing here only runs later.
SLOW_FILES = {  # seconds per file, from a full run's --durations (2 cores)
    "tests/pages/test_accessibility.py": 155,
    # Schemathesis' operations are subtests of two tests (their items used to share one node id
    # under pytest-xdist, so the file never showed its length): about 140 CPU-seconds alone.
    "tests/trust/test_schemathesis.py": 150,
    "tests/integration/test_ratings_worker.py": 85,
    "tests/ratings/test_chances.py": 50,
    "tests/console/test_browser.py": 165,  # the evening walk in three languages
    "tests/integration/test_reliability.py": 45,
    "tests/deploy/test_rehearsal.py": 40,
    "tests/pages/test_chances_browser.py": 35,
    "tests/console/test_series_browser.py": 20,
    "tests/docs/test_guide.py": 30,  # the guide's screenshots, then its strict build
    "tests/console/test_entry_browser.py": 50,  # registration, an import and the clock in one walk
    "tests/api/test_generated_client.py": 60,  # two generated clients, tsc twice, a live evening
    "tests/people/test_player_evening_browser.py": 60,  # a player's evening, his pages in three languages
    "tests/console/test_championship_day_browser.py": 70,  # 24 players, four rounds, key pages in three languages
}


def pytest_configure(config):
    # xdist otherwise orders the files by their number of tests, which puts the slow files of one or
    # two tests last; the order of pytest_collection_modifyitems below is kept instead.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist: the files in SLOW_FILES first (longest first), then the others, the
    files of more tests first (xdist's own order); the tests of a file keep their order."""
    if not hasattr(config, "workerinput"):
        return
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    order = sorted(files, key=lambda path: (-SLOW_FILES.get(path, 0), -len(files[path])))
    items[:] = [item for path in order for item in files[path]]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, and on PostgreSQL its commits not waiting for the disk
    (``synchronous_commit`` off for every session of that database: this process's, the servers'
    and workers' the tests start, through a pooler too). A commit is as visible to the others as
    before; only a crash of PostgreSQL itself could lose the last ones, which no test does. It
    halves the time the transactional tests spend emptying the database and the servers' commits."""
    from django.db import connection

    with django_db_blocker.unblock():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"ALTER DATABASE {connection.ops.quote_name(connection.settings_dict['NAME'])} "
                               "SET synchronous_commit TO off")
            connection.close()  # the next connection opens with the database's setting
    yield


@pytest.fixture(autouse=True)
def _django_test_settings(request):
    """Fast password hashing, and tasks run in-process unless a test brings its own live worker
    (marker ``live_worker``). Nothing to do where Django is not loaded."""
    if not request.config.pluginmanager.hasplugin("django"):
        yield
        return
    from django.conf import settings

    from stich.celery import app as celery_app

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    if request.node.get_closest_marker("live_worker"):
        yield
        return
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous
    # Celery's eager apply_async marks the process "inside a task" (denied_join_result) with one
    # process-wide flag that it saves and restores; tasks applied from several threads at once
    # (tests/deploy/test_backup.py's scorers) can leave it set, and every later result.get() in
    # this process would then refuse. Nothing of a test outlives it.
    from celery.result import _set_task_join_will_block

    _set_task_join_will_block(False)


@pytest.fixture(autouse=True)
def _shared_cache_reachable_again(request):
    """Each test starts with the shared cache asked again: a process that found it down leaves it
    alone for a few seconds (games/cache_pause.py), and a test that broke the cache, or a timeout
    under load, must not carry that pause into the next test (the chances would then be the prior
    scale's for part of it)."""
    if not request.config.pluginmanager.hasplugin("django"):
        yield
        return
    from games import cache_pause

    cache_pause.end_all()
    yield


@pytest.fixture(autouse=True)
def _registrations_counted_afresh(request):
    """Each test starts with no registration counted for the local address (the test client's, the
    browsers' and the live servers'): the scope allows 20 an hour per address, and the tests of one
    process register more than that within an hour."""
    if not request.config.pluginmanager.hasplugin("django"):
        yield
        return
    from games.throttling import SlidingRateThrottle

    SlidingRateThrottle.forget("registration", "127.0.0.1")
    yield


@pytest.fixture(autouse=True)
def _answers_match_the_schema(request, monkeypatch):
    """Every ``/api/v1/`` answer a test gets through Django's test client (DRF's ``APIClient`` too)
    is checked against the served OpenAPI description (tests/openapi_check.py); a test whose answers
    differ from it fails, listing them."""
    if not request.config.pluginmanager.hasplugin("django"):
        yield
        return
    from django.test import Client

    from tests import openapi_check

    original = Client.request
    before = len(openapi_check.TALLY.mismatches)
    received = []

    def request_and_keep(self, **kwargs):
        response = original(self, **kwargs)
        received.append(response)  # checked after the test: no test times the check
        return response

    monkeypatch.setattr(Client, "request", request_and_keep)
    yield
    for response in received:
        openapi_check.check(response)
    found = openapi_check.TALLY.mismatches[before:]
    assert not found, "answers that differ from /api/schema/:\n" + "\n".join(found[:20])


def _tally() -> list[int] | None:
    import sys

    check = sys.modules.get("tests.openapi_check")
    if check is None:
        return None
    return [check.TALLY.validated, len(check.TALLY.mismatches), check.TALLY.undocumented]


def pytest_sessionfinish(session):
    """Under pytest-xdist a worker hands its count of checked answers to the controller."""
    if hasattr(session.config, "workeroutput") and _tally():
        session.config.workeroutput["openapi_tally"] = _tally()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    tally = getattr(node, "workeroutput", {}).get("openapi_tally")
    if tally:
        total = getattr(node.config, "_openapi_tally", [0, 0, 0])
        node.config._openapi_tally = [a + b for a, b in zip(total, tally)]


def pytest_terminal_summary(terminalreporter, config):
    tally = getattr(config, "_openapi_tally", None) or _tally()
    if tally and (tally[0] or tally[1]):
        terminalreporter.write_line(
            f"OpenAPI answers checked: {tally[0]} valid, {tally[1]} mismatches, "
            f"{tally[2]} to addresses the description does not list")


@pytest.fixture(autouse=True)
def _no_content_security_policy_violation(request):
    """A test that drives the browser fails when a page broke the Content-Security-Policy (an inline
    script, style or handler, a source of another site): tests/pages/csp.py watches every page."""
    if "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    browser.violations.clear()
    yield
    violations = list(browser.violations)
    browser.violations.clear()
    assert not violations, f"Content-Security-Policy violations: {violations[:3]}"


def forget_dry_runs(ident: str = "127.0.0.1") -> None:
    """Forget the dry-run throttle's count for one client address. The cache is shared (Redis when
    ``REDIS_URL`` is set) and outlives a test; ``cache.clear()`` would empty the broker's database."""
    from games.throttling import SlidingRateThrottle

    SlidingRateThrottle.forget("dry_run", ident)


def make_user(username: str, **extra):
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user(username=username, password="pw-" + username, **extra)
    Token.objects.create(user=user)
    return user


def client_for(user=None):
    from rest_framework.test import APIClient

    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {user.auth_token.key}")
    return client


@pytest.fixture
def world(db):
    """A club with an organiser, an event per game with its own organiser, and players
    (``build_world``)."""
    return build_world()


def build_world():
    """A club with an organiser, an event per game with its own organiser, and players.

    Roles: ``staff``; ``club_organiser`` (organises the club); ``organiser`` (organises the Mü,
    Maumau and LuT events); ``other_organiser`` (organises only another event of the club);
    ``player_user`` (a user linked to a seated player).
    """
    from tournaments.models import Club, Event, Membership, Player, Round
    from tournaments.services import table_create

    staff = make_user("staff", is_staff=True)
    club_organiser = make_user("club_organiser")
    organiser = make_user("organiser")
    other_organiser = make_user("other_organiser")
    player_user = make_user("player_user")
    club = Club.objects.create(name="Testclub", city="Köln")
    club.organisers.add(club_organiser)
    empty_club = Club.objects.create(name="Empty club")
    empty_club.organisers.add(club_organiser)
    players = []
    for index in range(12):
        player = Player.objects.create(name=f"Player {index:02d}", user=player_user if index == 0 else None)
        Membership.objects.create(player=player, club=club)
        players.append(player)
    events = {}
    for game in ("mu", "maumau", "lut"):
        event = Event.objects.create(club=club, name=f"{game} cup", game=game, published=True)
        event.organisers.add(organiser)
        round_ = Round.objects.create(event=event, number=1)
        for number in range(3):
            table_create(round_=round_, number=number + 1, players=players[4 * number:4 * number + 4], by_user=None)
        events[game] = event
    other_event = Event.objects.create(club=club, name="other cup", game="mu", published=True)
    other_event.organisers.add(other_organiser)

    class World:
        pass

    w = World()
    w.staff, w.club_organiser, w.organiser = staff, club_organiser, organiser
    w.other_organiser, w.player_user = other_organiser, player_user
    w.club, w.empty_club, w.players, w.events, w.other_event = club, empty_club, players, events, other_event
    return w
