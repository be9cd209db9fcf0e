"""Errors of the rule engine.

Like python-chess's error hierarchy, an error says what went wrong (``code``, a stable machine
string), explains it to a person (``message``, naming seat, card and rule) and says where (``path``,
an RFC 6901 JSON Pointer to the first offending element of the record).
"""
from __future__ import annotations


class RecordError(ValueError):
    """A hand record the engine rejects."""

    def __init__(self, code: str, message: str, path: str = "") -> None:
        super().__init__(f"{code} at {path or '(root)'}: {message}")
        self.code = code
        self.message = message
        self.path = path

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "path": self.path}

    def prefixed(self, prefix: str) -> "RecordError":
        """The same error seen from a containing document (a series: ``/records/3``)."""
        return RecordError(self.code, self.message, prefix + self.path)
