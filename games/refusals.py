"""Why the API's JSON reader (games/parsers.py) refuses a body: ``Reason``, and ``Unreadable``, the
one exception that carries it.

Pure Python (no Django, no DRF): ``tournaments.errors.Error`` defines its members for these codes
from ``Reason``, and that module is read without Django (``python -m tournaments.errors``). The
HTTP status is the one each reason is answered with (``Error``'s member of the same code has it,
tests/api/test_error_codes.py); which member and which JSON shape is the one exception handler's
(stich/errors.py).
"""
from __future__ import annotations

from enum import StrEnum
from http import HTTPStatus

# A hand record nests five or six levels (records.md); 64 leaves unknown members plenty of room.
MAX_DEPTH = 64


class Reason(StrEnum):
    """Why the reader refuses a body, as the code clients see, with the HTTP status a body is
    refused with for it (the parser is HTTP's; ``Error``'s member of the same code has the same
    status, tests/api/test_error_codes.py)."""

    PARSE_ERROR = "parse_error", HTTPStatus.BAD_REQUEST, "The body is not JSON."
    TOO_DEEP = "too_deep", HTTPStatus.BAD_REQUEST, f"The JSON is nested deeper than {MAX_DEPTH} levels."
    BAD_TEXT = "bad_text", HTTPStatus.BAD_REQUEST, "The body holds text the database cannot store."
    TOO_LARGE = "too_large", HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "The body is larger than the service accepts."

    def __new__(cls, value: str, status: int, message: str) -> "Reason":
        member = str.__new__(cls, value)
        member._value_ = value
        member.status = int(status)
        member.message = message
        return member


class Unreadable(ValueError):
    """What the reader refuses: its ``reason``, a ``message`` for people and, for ``bad_text``,
    ``path``, the JSON Pointer of the string.

    ``code`` is the reason too; ``status_code`` and ``default_code`` are DRF's names for an
    exception a parser raises."""

    def __init__(self, reason: Reason, message: str = "", path: str = "") -> None:
        self.reason = Reason(reason)
        self.message = message or self.reason.message
        self.path = path
        super().__init__(self.message)

    @property
    def code(self) -> Reason:
        return self.reason

    @property
    def default_code(self) -> Reason:
        return self.reason

    @property
    def status_code(self) -> int:
        return self.reason.status
