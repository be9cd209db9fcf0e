"""The rehearsal (``python -m bench.rehearsal``) at a small scale: nginx in front of two
web servers and a live server, two workers, beat and Redis; one web server and one worker killed
during the load, ten room screens listening. No accepted hand lost or stored twice, totals and
ratings as recomputed, connections under the limit, every screen told of the last hand. Redis is
not restarted here: after a restart a screen whose socket stayed open can stay deaf, an open
problem that would fail this test at random (README.md, Rehearsal). Bounded: about two minutes
on a loaded 2-core machine."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="needs PostgreSQL"),
    pytest.mark.skipif(shutil.which("nginx") is None or shutil.which("redis-server") is None,
                       reason="needs nginx and redis-server (Debian: nginx-light, redis-server)"),
]


def test_a_small_championship_survives_the_kills(tmp_path):
    report_path = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "bench.rehearsal", "--tables", "4", "--duration", "12", "--interval", "0.5",
         "--screens", "10", "--no-restart-redis", "--json", str(report_path)],
        cwd=ROOT, env={k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"},
        capture_output=True, text=True, timeout=420,
    )
    assert report_path.exists(), result.stderr[-3000:]
    report = json.loads(report_path.read_text())
    checks = report["checks"]
    assert checks["accepted"] > 0 and checks["stored"] == checks["accepted"]
    assert checks["lost"] == 0 and checks["duplicated"] == 0 and checks["tables_with_gaps"] == 0
    assert checks["sessions_with_wrong_totals"] == 0 and checks["ratings_equal_recompute"]
    assert len(report["events"]) == 2, report["events"]
    assert report["connections"]["peak"] <= report["connections"]["limit"]
    assert not [code for code in report["statuses"] if int(code) >= 500 and int(code) not in (502, 503, 504)]
    assert report["screens"]["saw_the_last_change"] == 10  # every room screen heard of the last hand
    assert report["ok"] and result.returncode == 0, result.stdout[-3000:]
