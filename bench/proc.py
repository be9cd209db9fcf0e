"""A process's CPU time from Linux's ``/proc`` (the benchmarks that count CPU by process)."""
from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def stat(pid: int | str) -> tuple[str, float] | None:
    """(its start time in clock ticks since boot, CPU-seconds it has spent: user and system) of
    process ``pid``, or None when it is gone or there is no ``/proc``. The start time tells a
    process from a later one that got the same pid."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[19], (int(fields[11]) + int(fields[12])) / TICK


def cpu_seconds(pid: int | str) -> float:
    """CPU-seconds process ``pid`` has spent (0 when it is gone or there is no ``/proc``)."""
    found = stat(pid)
    return 0.0 if found is None else found[1]
