"""deploy/compose.yaml is checked against the Compose specification by Debian's
``docker-compose config``, which needs no Docker engine (scripts/test.sh installs it as root)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"

needs_compose = pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose is not installed")


def compose_config(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    (tmp_path / "compose.yaml").write_text(text)
    shutil.copy(DEPLOY / "env.example", tmp_path / ".env")
    return subprocess.run(
        ["docker-compose", "-f", str(tmp_path / "compose.yaml"), "config"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )


@needs_compose
def test_compose_file_is_valid_and_runs_the_whole_service(tmp_path):
    result = compose_config(tmp_path, (DEPLOY / "compose.yaml").read_text())
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    assert set(services) == {"web", "live", "worker", "beat", "db", "redis"}

    def command(name):
        value = services[name]["command"]
        return " ".join(value if isinstance(value, list) else [value])

    # HTTP through WSGI (persistent connections); the live pages' WebSockets through ASGI.
    assert "gunicorn stich.wsgi:application" in command("web")
    assert "gunicorn stich.asgi:application -k stich.workers.UvicornWorker" in command("live")
    assert services["live"]["environment"]["DB_POOL_SIZE"] == "4"
    for name in ("web", "live", "worker", "beat"):
        environment = services[name]["environment"]
        assert environment["DATABASE_URL"].startswith("postgres://")
        assert environment["REDIS_URL"].startswith("redis://")
        assert environment["SECRET_KEY"]  # from env.example via env_file


@needs_compose
def test_a_broken_compose_file_is_rejected(tmp_path):
    broken = (DEPLOY / "compose.yaml").read_text().replace("    ports:\n", "    portz:\n", 1)
    result = compose_config(tmp_path, broken)
    assert result.returncode != 0
    assert "portz" in result.stderr


def test_the_image_holds_everything_the_service_reads_at_run_time():
    """Every top-level folder the running service reads (code, templates, static files,
    translations) is copied into the image."""
    root = DEPLOY.parent
    copied = {
        line.split()[1] for line in (DEPLOY / "Dockerfile").read_text().splitlines() if line.startswith("COPY ")
    }
    needed = {"stich", "tournaments", "games", "ratings", "templates", "static", "locale", "manage.py"}
    assert needed <= copied
    for name in needed:
        assert (root / name).exists(), name
    assert (root / "locale/de/LC_MESSAGES/django.mo").exists(), "compiled German translations"


def test_the_image_serves_the_asgi_application_as_compose_does():
    """The image's default command is the web service's: gunicorn with uvicorn workers on
    ``stich.asgi`` (whose worker class and application must import)."""
    import importlib

    command = next(line for line in (DEPLOY / "Dockerfile").read_text().splitlines() if line.startswith("CMD "))
    assert '"stich.asgi:application", "-k", "stich.workers.UvicornWorker"' in command
    assert importlib.import_module("stich.workers").UvicornWorker.CONFIG_KWARGS["proxy_headers"] is False
    # A live message's text is encoded once for every screen: not compressed again per connection.
    assert importlib.import_module("stich.workers").UvicornWorker.CONFIG_KWARGS["ws_per_message_deflate"] is False
    assert callable(importlib.import_module("stich.asgi").application)
