"""Settings for the test suite: the service's settings with a throwaway key.

The suite runs with DEBUG off, as production does; it only needs a SECRET_KEY, which must never be
this one outside tests.
"""
import os

os.environ.setdefault("SECRET_KEY", "tests-only-not-secret")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")


def _redis_url_of_worker(url: str, worker: str) -> str:
    """Under pytest-xdist each worker (``gw0``, ``gw1``, ...) gets a Redis database of its own, as
    pytest-django gives it a test database of its own: its cache, throttles, channel layer, broker
    queues and live Celery worker never meet another worker's. The worker's index is added to the
    URL's database number (``redis://host:6379/0`` is ``/1`` for ``gw1``)."""
    from urllib.parse import urlsplit, urlunsplit

    index = int(worker.removeprefix("gw") or 0)
    parts = urlsplit(url)
    database = int(parts.path.strip("/") or 0) + index
    return urlunsplit(parts._replace(path=f"/{database}"))


# Set in the environment, so that the processes the tests start (a Celery worker, beat, a server)
# use the same database.
if os.environ.get("REDIS_URL") and os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw"):
    if not os.environ.get("STICH_TEST_REDIS_BASE"):
        os.environ["STICH_TEST_REDIS_BASE"] = os.environ["REDIS_URL"]
    os.environ["REDIS_URL"] = _redis_url_of_worker(os.environ["STICH_TEST_REDIS_BASE"], os.environ["PYTEST_XDIST_WORKER"])


def _run_file(kind: str) -> str:
    """A file of this test process (and of the servers and workers it starts, which inherit the
    environment) in the temporary folder, fresh for each run: ``kind`` names it."""
    import atexit
    import tempfile
    from pathlib import Path

    import shutil

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    path = Path(tempfile.gettempdir()) / f"stich-tests-{os.getpid()}-{worker}-{kind}.sqlite3"
    atexit.register(lambda: [Path(f"{path}{tail}").unlink(missing_ok=True) for tail in ("", "-wal", "-shm")]
                    if not path.is_dir() else shutil.rmtree(path, ignore_errors=True))
    return str(path)


# The embedded default's cache folder (diskcache, ``CACHE_DIR``), one per test process: entries cached
# for one run's rows never meet another run's (primary keys repeat), nor another worker's.
# A process with the owner's worker name is the owner or one it started (xdist's workers inherit
# the controller's environment, so each worker makes its own).
if not os.environ.get("REDIS_URL") and os.environ.get("STICH_TEST_CACHE_OWNER") != os.environ.get("PYTEST_XDIST_WORKER", "main"):
    os.environ["STICH_TEST_CACHE_OWNER"] = os.environ.get("PYTEST_XDIST_WORKER", "main")
    os.environ["CACHE_DIR"] = _run_file("cache")

from .settings import *  # noqa: E402,F401,F403

# On SQLite the test database is a file, not memory: the servers the live-page tests start in a
# second process (tests/console/conftest.py) read and write the same database. pytest-django adds
# the xdist worker's name to it, as to a PostgreSQL test database.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": _run_file("db"), **DATABASES["default"].get("TEST", {})}  # noqa: F405
    # A throwaway database: no waiting for the disk; WAL lets the server read while a test writes.
    DATABASES["default"].setdefault("OPTIONS", {})["init_command"] = "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF"  # noqa: F405

# A cache prefix of the run's own (kept in the environment, for the processes the tests start): a
# Redis database outlives the run, and the next run's test database numbers its rows from 1 again,
# so the live pages' versions and fragments of an earlier run's event must not answer for this
# run's event of the same id (tests/console/test_push.py).
if not os.environ.get("STICH_TEST_CACHE_PREFIX"):
    import uuid

    os.environ["STICH_TEST_CACHE_PREFIX"] = f"stich-test-{uuid.uuid4().hex[:12]}"
CACHES = {name: {**options, "KEY_PREFIX": os.environ["STICH_TEST_CACHE_PREFIX"]}  # noqa: F405
          for name, options in CACHES.items()}  # noqa: F405

# Tests do not run collectstatic: serve static files by name, not from the hashed manifest.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405

# Fast hashing (tests/conftest.py uses it too), here so that a server the tests start in a second
# process (tests/console/conftest.py) checks the passwords the tests set.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The plan of a fixed roster searches one second, not five: the tests' rosters are small (12 players
# over 3 rounds reach what they assert within a second), and the planner's quality has its own
# tests and benchmark (tests/seating, python -m bench.seating) with their own limits.
SEATING_PLAN_SECONDS = 1.0
