"""Domain errors: what a service refuses, with a stable ``code`` (API clients rely on it).

Services raise these and know nothing of HTTP; ``stich.errors`` maps each class to its status
(400, 403, 404, 409, 422) and the JSON error shape.
"""
from __future__ import annotations


class DomainError(Exception):
    """A refused change. ``code`` is a stable machine string, ``message`` a sentence for people,
    ``field`` the input field it concerns (if any)."""

    code = "invalid"

    def __init__(self, message: str, *, code: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.field = field

    def as_dict(self) -> dict:
        body = {"code": self.code, "message": self.message}
        if self.field:
            body["fields"] = {self.field: [self.message]}
        return body


class Invalid(DomainError):
    """The input cannot be taken as it is (400)."""


class NotAllowed(DomainError):
    """The actor may not do this (403)."""

    code = "permission_denied"


class NotFound(DomainError):
    """What the change refers to does not exist, or the actor may not see it (404)."""

    code = "not_found"


class Conflict(DomainError):
    """The change contradicts the stored state (409): the session is over, the slot is taken,
    the object has results."""

    code = "conflict"


class RecordRejected(DomainError):
    """The rule engine refused a hand record (422): ``path`` is a JSON Pointer into the record."""

    def __init__(self, code: str, message: str, path: str) -> None:
        super().__init__(message, code=code)
        self.path = path

    @classmethod
    def from_record_error(cls, error) -> "RecordRejected":
        return cls(error.code, error.message, error.path)

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "path": self.path}
