"""A pytest plugin that keeps every error the engine raises while the engine's tests run.

``pytest -p tests.messages.harvest tests/engine/...`` with ``HARVEST_TO`` set writes the errors
(code, path, params) as JSON lines there: real errors, from the worked examples and the property
tests' corruptions, for the catalogue test (tests/messages/test_catalogue.py).
"""
from __future__ import annotations

import json
import os

from games.rules import errors

_seen: dict[tuple, dict] = {}


def pytest_configure(config):
    original = errors.RecordError.__init__

    def keep(self, code, message, path="", params=None):
        original(self, code, message, path, params)
        key = (str(self.code), self.path, json.dumps(self.params, sort_keys=True, default=str))
        _seen.setdefault(key, {"code": str(self.code), "path": self.path, "params": self.params,
                               "message": message})

    errors.RecordError.__init__ = keep


def pytest_unconfigure(config):
    target = os.environ.get("HARVEST_TO")
    if target:
        with open(target, "w", encoding="utf-8") as out:
            for error in _seen.values():
                out.write(json.dumps(error, default=str) + "\n")
