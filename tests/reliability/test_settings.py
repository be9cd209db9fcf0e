"""Production settings and the guards around logins and throttles.

``manage.py check --deploy`` under deploy/env.example reports nothing; passwords meet Django's
four validators; ``/healthz`` tells strangers only ok or failing; the 11th wrong password for one
account locks it (the right one is refused too); a client-written ``X-Forwarded-For`` does not
lift the dry-run throttle; every variable the settings read is documented.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client

from tests.conftest import client_for, forget_dry_runs, make_user

ROOT = Path(__file__).resolve().parents[2]


def env_example() -> dict:
    values = {}
    for line in (ROOT / "deploy/env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def test_check_deploy_under_the_documented_production_environment_gives_no_warning(tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in (
        "DEBUG", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE")}  # the browser tests set the last one
    env.update(env_example())
    env.setdefault("DATABASE_URL", f"sqlite:///{tmp_path / 'deploy.sqlite3'}")
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr


def test_without_the_production_switches_check_deploy_warns(tmp_path):
    """The test above is not vacuous: the same environment without HTTPS settings fails."""
    env = {key: value for key, value in os.environ.items() if key not in ("DEBUG", "DJANGO_SETTINGS_MODULE")}
    env.update({k: v for k, v in env_example().items() if not k.startswith(("SECURE_", "SESSION_", "CSRF_COOKIE"))})
    env.setdefault("DATABASE_URL", f"sqlite:///{tmp_path / 'deploy.sqlite3'}")
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr + result.stdout


def test_every_variable_the_settings_read_is_documented():
    source = (ROOT / "stich/settings.py").read_text()
    read = set(re.findall(r'env(?:\.\w+)?\("([A-Z_]+)"', source))
    assert {"SECURE_SSL_REDIRECT", "NUM_PROXIES", "MAX_RECORD_BYTES", "RATINGS_CATCH_UP_SECONDS"} <= read
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Configuration"):]
    example = (ROOT / "deploy/env.example").read_text()
    for name in read:
        assert f"`{name}`" in table, f"{name} is missing from README.md's Configuration table"
    for name in read - {"DATABASE_URL", "REDIS_URL"}:  # those two are set by compose.yaml
        assert re.search(rf"^{name}=", example, re.M), f"{name} is missing from deploy/env.example"


@pytest.mark.parametrize("password", ["password", "12345678", "iloveyou", "organiser", "Kreuz7"])
def test_weak_passwords_are_refused(password, db):
    user = make_user("organiser")
    with pytest.raises(ValidationError):
        validate_password(password, user)


def test_a_strong_password_passes(db):
    validate_password("Kreuz-Bube sticht Herz-Zehn", make_user("organiser"))


@pytest.mark.django_db
def test_healthz_tells_strangers_only_ok_or_failing(settings):
    settings.REDIS_URL = "redis://user:secret@127.0.0.1:1/0"
    anonymous = Client().get("/healthz")
    assert anonymous.status_code == 503
    assert anonymous.json() == {"status": "unavailable", "database": {"ok": True}, "broker": {"ok": False}}
    staff = Client()
    staff.force_login(make_user("staff", is_staff=True))
    details = staff.get("/healthz").json()
    assert details["broker"]["ok"] is False and "error" in details["broker"] and details["database"]["vendor"]


LOGINS = [
    ("/admin/login/", "is_staff"),
    ("/api-auth/login/", None),
]


@pytest.mark.django_db
@pytest.mark.parametrize("url, flag", LOGINS)
def test_the_eleventh_wrong_password_locks_the_account(url, flag):
    user = make_user("victim", **({flag: True} if flag else {}))
    right = {"username": "victim", "password": "pw-victim"}
    assert Client().post(url, right).status_code == 302  # logs in: the password is right
    for attempt in range(10):
        # From ten addresses: the account is locked, not only the address.
        response = Client(REMOTE_ADDR=f"10.0.0.{attempt + 1}").post(url, {"username": "victim", "password": "wrong"})
        assert response.status_code in (200, 429)
    refused = Client(REMOTE_ADDR="10.0.1.1").post(url, right)
    assert refused.status_code == 429
    assert "_auth_user_id" not in refused.client.session
    user.refresh_from_db()
    assert user.last_login is not None  # from the first, successful login only


@pytest.mark.django_db
def test_nine_wrong_passwords_then_the_right_one_logs_in():
    make_user("careless")
    for _ in range(9):
        Client().post("/api-auth/login/", {"username": "careless", "password": "wrong"})
    assert Client().post("/api-auth/login/", {"username": "careless", "password": "pw-careless"}).status_code == 302


@pytest.mark.django_db
def test_a_spoofed_forwarded_for_does_not_lift_the_dry_run_throttle(settings):
    from rest_framework.throttling import ScopedRateThrottle

    forget_dry_runs()
    original = ScopedRateThrottle.THROTTLE_RATES
    ScopedRateThrottle.THROTTLE_RATES = {**original, "dry_run": "3/min"}
    try:
        codes = [
            client_for().post("/api/v1/records/validate", {"game": "mu"}, format="json",
                              HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code
            for n in range(6)
        ]
    finally:
        ScopedRateThrottle.THROTTLE_RATES = original
        forget_dry_runs()
    assert codes == [422, 422, 422, 429, 429, 429]


@pytest.mark.django_db
def test_behind_one_proxy_the_address_it_appended_is_counted(settings):
    """``NUM_PROXIES=1``: the right-most X-Forwarded-For entry is the proxy's word; what a client
    wrote before it is ignored, and clients behind the proxy are counted apart."""
    from rest_framework.throttling import ScopedRateThrottle

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    original = ScopedRateThrottle.THROTTLE_RATES
    ScopedRateThrottle.THROTTLE_RATES = {**original, "dry_run": "2/min"}

    def dry_run(forwarded: str) -> int:
        return client_for().post("/api/v1/records/validate", {"game": "mu"}, format="json",
                                 HTTP_X_FORWARDED_FOR=forwarded).status_code

    try:
        spoofing = [dry_run(f"203.0.113.{n}, 192.0.2.7") for n in range(3)]
        other = dry_run("192.0.2.8")
    finally:
        ScopedRateThrottle.THROTTLE_RATES = original
        for ident in ("192.0.2.7", "192.0.2.8"):
            forget_dry_runs(ident)
    assert spoofing == [422, 422, 429]
    assert other == 422
