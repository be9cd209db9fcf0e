"""deploy/compose.yaml is checked against the Compose specification by Debian's
``docker-compose config``, which needs no Docker engine (scripts/test.sh installs it as root)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"

pytestmark = pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose is not installed")


def compose_config(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    (tmp_path / "compose.yaml").write_text(text)
    shutil.copy(DEPLOY / "env.example", tmp_path / ".env")
    return subprocess.run(
        ["docker-compose", "-f", str(tmp_path / "compose.yaml"), "config"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )


def test_compose_file_is_valid_and_runs_the_whole_service(tmp_path):
    result = compose_config(tmp_path, (DEPLOY / "compose.yaml").read_text())
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    assert set(services) == {"web", "worker", "beat", "db", "redis"}
    assert "gunicorn" in " ".join(services["web"]["command"] if isinstance(services["web"]["command"], list) else [services["web"]["command"]])
    for name in ("web", "worker", "beat"):
        environment = services[name]["environment"]
        assert environment["DATABASE_URL"].startswith("postgres://")
        assert environment["REDIS_URL"].startswith("redis://")
        assert environment["SECRET_KEY"]  # from env.example via env_file


def test_a_broken_compose_file_is_rejected(tmp_path):
    broken = (DEPLOY / "compose.yaml").read_text().replace("    ports:\n", "    portz:\n", 1)
    result = compose_config(tmp_path, broken)
    assert result.returncode != 0
    assert "portz" in result.stderr
