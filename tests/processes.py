"""Stopping the servers the tests start in processes of their own."""
from __future__ import annotations

import subprocess


def stop(process: subprocess.Popen, timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL if the process has not ended within ``timeout`` seconds; reaped."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
