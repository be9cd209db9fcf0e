"""Settings for the test suite: the service's settings with a throwaway key.

The suite runs with DEBUG off, as production does; it only needs a SECRET_KEY, which must never be
this one outside tests.
"""
import os

os.environ.setdefault("SECRET_KEY", "tests-only-not-secret")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")

from .settings import *  # noqa: E402,F401,F403

# Tests do not run collectstatic: serve static files by name, not from the hashed manifest.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405

# Fast hashing (tests/conftest.py uses it too), here so that a server the tests start in a second
# process (tests/console/conftest.py) checks the passwords the tests set.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
