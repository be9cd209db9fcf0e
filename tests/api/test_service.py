"""The service's own surface: health, schema, API docs served locally, settings from the env."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_healthz_reports_database_and_broker():
    response = Client().get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True


@pytest.mark.django_db
def test_healthz_answers_503_when_the_broker_is_unreachable(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json()["broker"]["ok"] is False


@pytest.mark.django_db
def test_openapi_schema_lists_the_api():
    response = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for name in ("clubs", "players", "events", "rounds", "tables"):
        assert f"/api/v1/{name}/" in paths


@pytest.mark.django_db
def test_swagger_ui_is_served_from_the_project_itself():
    page = Client().get("/api/docs/").content.decode()
    assert "swagger-ui" in page
    assert "cdn" not in page.lower() and "https://" not in page
    # The page's scripts come from our own static files (drf-spectacular-sidecar).
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    redoc = Client().get("/api/redoc/").content.decode()
    assert "/static/drf_spectacular_sidecar/redoc/" in redoc


def _settings_import(env: dict) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)"],
        cwd=ROOT, env={**clean, "DJANGO_SETTINGS_MODULE": "stich.settings", **env},
        capture_output=True, text=True, timeout=60,
    )


def test_refuses_to_start_without_secret_key_when_debug_is_off():
    result = _settings_import({"DEBUG": "0"})
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_development_secret_key_only_with_debug_on():
    assert _settings_import({"DEBUG": "1"}).returncode == 0
    given = _settings_import({"DEBUG": "0", "SECRET_KEY": "s3cret"})
    assert given.returncode == 0 and given.stdout.strip() == "s3cret"
