"""npm packages the tests run with Node.js (openapi-typescript, TypeScript, openapi-fetch,
@asyncapi/parser), installed once into a cache folder outside the repository: ``~/.cache/stich-npm``
or ``STICH_NPM_CACHE``. A test that needs them is skipped when npm is not installed."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

# Every package at its pinned version, installed together (one node_modules).
PACKAGES = {"openapi-typescript": "7.13.0", "typescript": "5.9.3", "openapi-fetch": "0.17.0",
            "@asyncapi/parser": "3.6.6"}
NPM_CACHE = Path(os.environ.get("STICH_NPM_CACHE", Path.home() / ".cache" / "stich-npm"))


def node_modules() -> Path:
    """The cache's ``node_modules`` with every package of ``PACKAGES`` at its version."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm is not installed: this check needs Node.js and npm")
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    modules = NPM_CACHE / "node_modules"
    if not all(_installed(modules, name, version) for name, version in PACKAGES.items()):
        done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(NPM_CACHE),
                               *(f"{name}@{version}" for name, version in PACKAGES.items())],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return modules


def _installed(modules: Path, name: str, version: str) -> bool:
    import json

    manifest = modules / name / "package.json"
    return manifest.exists() and json.loads(manifest.read_text()).get("version") == version
