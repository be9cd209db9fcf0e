"""``python -m bench.suite_cpu -- COMMAND ...``: where a command's CPU goes, by kind of process.

    python -m bench.suite_cpu -- bash .ci/run

Runs COMMAND and, every ``--every`` seconds until it ends, reads the CPU time of every process of
the machine from ``/proc`` (Linux); at the end it prints the CPU-seconds each kind of process
spent during the run (the test processes, Chromium, PostgreSQL, the servers and workers the tests
start, ...) and how busy the machine's cores were. A process that starts and ends between two
samples is missed: keep ``--every`` short. The suite is CPU-bound on a small machine, so its time
is what these processes spend (README: the test command).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import Counter

from bench.proc import PROC, stat

# (what a process is called, a test on its name and command line), first match wins.
KINDS = [
    ("Chromium", lambda name, command: "chrom" in name or "chrom" in command[:200]),
    ("PostgreSQL", lambda name, command: name in ("postgres", "postmaster")),
    ("Redis", lambda name, command: name.startswith("redis-server")),
    ("nginx", lambda name, command: name == "nginx"),
    ("Playwright's driver", lambda name, command: "playwright/driver" in command),
    ("Celery workers", lambda name, command: "celery" in command),
    ("gunicorn and uvicorn servers", lambda name, command: "gunicorn" in command or "uvicorn" in command),
    ("test processes (pytest and its workers)", lambda name, command: "pytest" in command or "execnet" in command
     or "exec(eval(sys.stdin" in command),
    ("other Python", lambda name, command: name.startswith("python")),
]


def kind(name: str, command: str) -> str:
    for label, test in KINDS:
        if test(name, command):
            return label
    return "other"


def _describe(pid: str) -> str | None:
    try:
        name = (PROC / pid / "comm").read_text().strip()
        command = (PROC / pid / "cmdline").read_text().replace("\0", " ")
    except OSError:
        return None
    return kind(name, command)


def _machine() -> tuple[int, int]:
    """(busy, total) clock ticks of all cores since boot."""
    values = [int(value) for value in (PROC / "stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values[:8]) - idle, sum(values[:8])


class Sampler:
    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], list] = {}  # (pid, start) -> [kind, first CPU, last CPU]
        self.first = True
        self.own = str(os.getpid())  # the sampler itself is not the command's

    def sample(self) -> None:
        for entry in PROC.iterdir():
            if not entry.name.isdigit() or entry.name == self.own:
                continue
            found = stat(entry.name)
            if found is None:
                continue
            key = (entry.name, found[0])
            if key not in self.seen:
                label = _describe(entry.name)
                if label is None:
                    continue
                # Processes running before the command count from the first sample on.
                self.seen[key] = [label, found[1] if self.first else 0.0, found[1]]
            self.seen[key][2] = found[1]
        self.first = False

    def totals(self) -> Counter:
        spent = Counter()
        for label, first, last in self.seen.values():
            spent[label] += last - first
        return spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suite_cpu", description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=float, default=0.5, help="seconds between samples")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    if not (PROC / "stat").exists():
        parser.error("needs Linux's /proc")
    sampler = Sampler()
    sampler.sample()
    busy_before, total_before = _machine()
    started = time.monotonic()
    process = subprocess.Popen(command)
    while process.poll() is None:
        time.sleep(args.every)
        sampler.sample()
    elapsed = time.monotonic() - started
    busy, total = _machine()
    spent = sampler.totals()
    cores = os.cpu_count() or 1
    print(f"\n{' '.join(command)}: exit {process.returncode}, {elapsed:.1f} s on {cores} cores "
          f"({elapsed * cores:.0f} CPU-seconds), the cores busy {100 * (busy - busy_before) / max(1, total - total_before):.0f} %")
    for label, seconds in spent.most_common():
        if seconds >= 0.05:
            print(f"  {seconds:9.1f} CPU-s  {label}")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())
