"""The benchmarks (one namespace, ``python -m bench.<name>``) run on a small input and report what
their docstrings say; openskill, the reference of ``bench.ratings``, is optional."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from bench import engine
from bench import ratings as ratings_bench


def test_the_engine_benchmark_validates_generated_records_and_reports_a_ratio():
    figures = engine.measure("maumau", 20, repeats=1)
    assert figures["game"] == "maumau" and figures["records"] == 20
    assert figures["validated_per_second"] > 0 and figures["ratio_to_json_loads"] > 0


def test_the_ratings_benchmark_compares_with_openskill(capsys):
    ratings_bench.main(["--players", "30", "--sessions", "200"])
    out = capsys.readouterr().out
    assert "openskill PlackettLuce.rate" in out
    differences = [float(line.split(":")[-1].split()[0]) for line in out.splitlines() if "difference" in line]
    assert len(differences) == 2 and max(differences) < 1e-12


def test_the_ratings_benchmark_says_when_openskill_is_missing(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "openskill", None)
    monkeypatch.setitem(sys.modules, "openskill.models", None)
    ratings_bench.main(["--players", "30", "--sessions", "200"])
    out = capsys.readouterr().out
    assert "openskill is not installed" in out
    assert "openskill PlackettLuce.rate" not in out and "rate_league" in out


def test_the_engine_benchmark_times_an_earlier_revision_beside_todays():
    figures = engine.compare("maumau", "HEAD", 20, repeats=1)
    assert figures["records"] == 20
    assert figures["validated_per_second"] > 0 and figures["validated_per_second_at_HEAD"] > 0
    assert figures["time_ratio_to_revision"] > 0


@pytest.mark.django_db(transaction=True)
def test_the_series_benchmark_reports_before_after_and_a_big_events_reads(capsys):
    """A small season and a small big event: constant queries, the CSV streamed, the serving
    process's memory measured (the figures of issue 24 come from the full run)."""
    from bench import series

    figures = series.main(["--events", "4", "--few", "2", "--repeats", "2", "--event-sessions", "40",
                           "--event-players", "16", "--event-repeats", "1"])
    assert figures["many"][1] == figures["few"][1]
    assert figures["event"]["csv_streamed"] and figures["event"]["csv_bytes"] > 0
    assert figures["event"]["peak_rss_mib"] > 0 and figures["event_before"]["standings_before_ms"] > 0
    out = capsys.readouterr().out
    assert "ratio 4 / 2 events" in out and "peak RSS of the serving process" in out


@pytest.mark.django_db(transaction=True)
def test_the_series_page_benchmark_reports_the_same_queries_for_a_long_season(capsys):
    """The page of a season of 12 events makes the queries of one of 3 (issue 41; the time ratio
    of 50 to 5 events comes from the full run)."""
    from bench import series_page

    figures = series_page.main(["--events", "12", "--few", "3", "--players", "12", "--repeats", "2"])
    assert figures["many"]["queries"] == figures["few"]["queries"]
    assert figures["ratio"] > 0
    assert "ratio 12 / 3 events" in capsys.readouterr().out


@pytest.mark.django_db(transaction=True)
def test_the_event_page_benchmark_measures_warm_cold_and_without_the_cache(capsys):
    """A small evening and one of three times its rounds and history: the page's queries the same,
    every figure measured, and every page answered with the cache unreachable (issue 37; the
    figures of 150 sessions come from the full run)."""
    from bench import event_page

    figures = event_page.main(["--rounds", "2", "--tables", "3", "--history", "1", "--repeats", "4", "--chunk", "2"])
    assert figures["queries_constant"]
    for key in ("event", "big"):
        entry = figures[key]
        assert entry["warm_ms"] > 0 and entry["cold_ms"] > 0 and entry["api_ms"] > 0
        assert entry["warm_queries"] <= entry["cold_queries"]
    assert figures["down_statuses"] and set(figures["down_statuses"].values()) == {200}
    assert not figures["down_cache"] and figures["down"]["warm_ms"] > 0
    out = capsys.readouterr().out
    assert "cache unreachable" in out and "ratio 3x rounds and history" in out


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads Linux's /proc")
def test_the_suite_cpu_count_finds_the_commands_processes_by_kind_and_keeps_its_exit(capsys):
    from bench import suite_cpu

    burn = "import sys; sum(i * i for i in range(3 * 10**6)); sys.exit(3)"
    assert suite_cpu.main(["--every", "0.05", "--", sys.executable, "-c", burn]) == 3
    out = capsys.readouterr().out
    assert "exit 3" in out
    spent = {m[2]: float(m[1]) for m in re.finditer(r"^ +([0-9.]+) CPU-s  (.+)$", out, re.MULTILINE)}
    assert spent.get("other Python", 0) > 0.05, out
    assert suite_cpu.kind("chrome", "/usr/lib/chromium/chromium --type=renderer") == "Chromium"
    assert suite_cpu.kind("python", "python -m pytest -n 2") == "test processes (pytest and its workers)"
    assert suite_cpu.kind("postgres", "postgres: 15/main: test") == "PostgreSQL"


def test_the_layer_benchmark_times_the_script_beside_the_pipeline(settings):
    """``bench.layer`` on the real Redis: both ways of a delivery's expiry and count are timed, and
    the script's keys are the layer's own (nothing left behind)."""
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set")
    import redis

    from bench import layer

    figures = layer.measure(settings.REDIS_URL, groups=5, deliveries=5, chunks=1)
    assert figures["groups"] == 5 and figures["script_ms"] > 0 and figures["pipeline_ms"] > 0
    assert figures["ratio"] == pytest.approx(figures["pipeline_ms"] / figures["script_ms"])
    assert not redis.Redis.from_url(settings.REDIS_URL).keys("bench-*")


def test_the_throughput_benchmark_pairs_each_rounds_chunks():
    """``bench.scale``'s ratios per round: each round's chunks (one of each kind, back to back)
    divided, whether wrk (requests) or the threads (latencies) sent them, and printed with their
    median."""
    from bench.scale.__main__ import _paired, _per_round

    chunks = {
        "bare": [{"elapsed": 1.0, "requests": 900}, {"elapsed": 2.0, "latencies": [0.01] * 1200}],
        "dry run": [{"elapsed": 1.0, "requests": 700}, {"elapsed": 1.0, "requests": 500}],
        "hands": [{"elapsed": 1.0, "requests": 300}, {"elapsed": 1.0, "latencies": [0.1] * 200}],
        "series hands": [{"elapsed": 2.0, "requests": 540}, {"elapsed": 1.0, "requests": 190}],
    }
    paired = _paired(chunks)
    assert paired["hands / bare"] == pytest.approx([1 / 3, 1 / 3])
    assert paired["series / outside"] == pytest.approx([0.9, 0.95])
    assert _per_round(paired["series / outside"], "{:.2f}x") == " (per round: 0.90x, 0.95x; median 0.93x)"
    assert "series / outside" not in _paired({kind: chunks[kind] for kind in ("bare", "dry run", "hands")})
    assert _per_round(None, "{:.0%}") == ""


def test_the_throughput_benchmark_has_wrk_send_each_clients_own_requests(tmp_path):
    """``bench.scale --wrk``: thread ``i`` of wrk sends client ``i``'s requests in turn, counting
    its answers with the expected status, and its chunks merge into the same figures as the
    threads' (the p99 the largest of the chunks'). With wrk on PATH, the script runs against a
    small server that answers 201 to even bodies and 409 to the others."""
    import http.server
    import json
    import shutil
    import subprocess
    import threading

    from bench.scale.__main__ import _merged, _wrk_script

    merged = _merged([
        {"elapsed": 2.0, "requests": 300, "errors": 1, "p50": 0.02, "p99": 0.05, "cpu_s": {"web workers": 0.6}},
        {"elapsed": 1.0, "requests": 100, "errors": 0, "p50": 0.04, "p99": 0.09, "cpu_s": {"web workers": 0.2}},
    ])
    assert merged["per_second"] == pytest.approx(400 / 3) and merged["requests"] == 400 and merged["errors"] == 1
    assert merged["p50"] == pytest.approx(0.03) and merged["p99"] == 0.09
    assert merged["cpu_ms"]["web workers"] == pytest.approx(2.0)

    requests = [[("/a/", {"n": step}, {"X-Scorer-Token": "t1"}) for step in range(100)],
                [("/b/", {"n": 2 * step}, {}) for step in range(100)]]
    summary = tmp_path / "summary.txt"
    script = _wrk_script(requests, 201, str(summary))
    assert script.count("[==[/a/]==]") == 100 and script.count("[==[/b/]==]") == 100
    assert '[==[{"n": 99}]==]' in script and "[ [==[X-Scorer-Token]==] ]=[==[t1]==]" in script
    if shutil.which("wrk") is None:
        return
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append((self.path, self.headers.get("X-Scorer-Token"), body["n"]))
            self.send_response(201 if body["n"] % 2 == 0 else 409)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = tmp_path / "script.lua"
    path.write_text(script)
    try:
        subprocess.run(["wrk", "-t", "2", "-c", "2", "-d", "1s", "-s", str(path),
                        f"http://127.0.0.1:{server.server_address[1]}/"], check=True, capture_output=True)
    finally:
        server.shutdown()
    figures = dict(line.split() for line in summary.read_text().splitlines())
    # Client 1 stays on its second body (odd numbers are refused; its n moves on 201 only); client
    # 2's bodies are all even: it goes through them in order.
    assert int(figures["n1"]) == 1 and int(figures["n2"]) > 0 and int(figures["errors"]) > 0
    assert {token for path, token, _ in seen if path == "/a/"} == {"t1"}
    assert [n for path, _, n in seen if path == "/b/"][:5] == [0, 2, 4, 6, 8]
    assert int(figures["requests"]) >= len(seen) - 2 and float(figures["p99"]) >= float(figures["p50"]) > 0


def test_the_submission_benchmarks_phases_time_outermost_calls_and_are_removed_afterwards(monkeypatch):
    """``bench.submission --phases``: a recursive phase counts once per outermost call and includes
    what it calls, the timers go when the block ends, and every phase it names exists (an upgrade
    that renames one fails here, not in the benchmark)."""
    import types

    from bench.submission import PHASES, Phases

    module = types.ModuleType("phases_target")

    def burn(n):
        return sum(i * i for i in range(n))

    class Tree:
        def walk(self, depth):
            return module.burn(20_000) if depth == 0 else self.walk(depth - 1)

    module.burn, module.Tree = burn, Tree
    monkeypatch.setitem(sys.modules, "phases_target", module)
    walk = Tree.__dict__["walk"]
    with Phases([("walk", "phases_target", "Tree.walk"), ("burn", "phases_target", "burn")]) as phases:
        assert Tree.__dict__["walk"] is not walk and module.burn is not burn
        Tree().walk(3)
        Tree().walk(0)
    assert phases.calls == {"walk": 2, "burn": 2}
    assert phases.spent["walk"] >= phases.spent["burn"] > 0
    assert Tree.__dict__["walk"] is walk and module.burn is burn
    with Phases(PHASES) as every:
        pass
    assert set(every.calls) == {label for label, _, _ in PHASES}


def test_the_submission_benchmarks_phases_time_only_the_thread_that_installed_them(monkeypatch):
    """Another thread's calls (the live sender's) run untimed and do not hide the installing
    thread's own call made meanwhile."""
    import threading
    import types

    from bench.submission import Phases

    module = types.ModuleType("phases_threads")
    inside, release = threading.Event(), threading.Event()

    def step(wait=False):
        if wait:
            inside.set()
            release.wait(5)
        return sum(range(1000))

    module.step = step
    monkeypatch.setitem(sys.modules, "phases_threads", module)
    with Phases([("step", "phases_threads", "step")]) as phases:
        other = threading.Thread(target=module.step, kwargs={"wait": True})
        other.start()
        assert inside.wait(5)
        module.step()
        assert phases.calls == {"step": 1}  # counted, though the other thread is inside
        release.set()
        other.join(5)
    assert phases.calls == {"step": 1}  # the other thread's call is not
