"""Domain errors: what a service refuses, with a stable code from ``Error`` (API clients rely on it).

``Error`` is the tournament layer's enumeration beside the engine's ``games.rules.Code``: each
code has its kind (``invalid``, ``not_authenticated``, ``not_allowed``, ``not_found``,
``conflict``, ``unavailable``), the HTTP status of that kind and what it means. Services raise
the classes below with a code and know nothing of HTTP; the one exception handler
(``stich.errors``) answers with the code's status and the JSON error shape. A code is raised with
the class of its kind (tests/api/test_error_codes.py checks every raise).

The codes with which the JSON reader refuses a body (``parse_error``, ``too_deep``, ``bad_text``,
``too_large``) are the reasons of ``games.refusals.Reason``: the members below are defined from
them, so the two layers spell them alike. What an event's import refuses besides these is
``ImportCode`` (the import is a command, not an answer of the API).

``python -m tournaments.errors`` prints the table of codes the README shows;
``python -m tournaments.errors --readme`` writes both tables (this one and the engine's,
``games.rules.errors``) into README.md (tests/api/test_error_codes.py checks they match).
"""
from __future__ import annotations

import re
import sys
from enum import Enum, StrEnum
from pathlib import Path

from games.refusals import Reason
from games.rules import Code
from games.rules.errors import markdown_table as engine_table


class Kind(Enum):
    """What kind of refusal a code is, with its HTTP status."""

    INVALID = "invalid", 400
    NOT_AUTHENTICATED = "not_authenticated", 401
    NOT_ALLOWED = "not_allowed", 403
    NOT_FOUND = "not_found", 404
    CONFLICT = "conflict", 409
    METHOD_NOT_ALLOWED = "method_not_allowed", 405
    NOT_ACCEPTABLE = "not_acceptable", 406
    LENGTH_REQUIRED = "length_required", 411
    TOO_LARGE = "too_large", 413
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type", 415
    REJECTED = "rejected", 422
    THROTTLED = "throttled", 429
    SERVER_ERROR = "server_error", 500
    UNAVAILABLE = "unavailable", 503

    def __new__(cls, name: str, status: int) -> "Kind":
        member = object.__new__(cls)
        member._value_ = name
        member.status = status
        return member


class Error(StrEnum):
    """Every code the API answers with besides the engine's: its kind and what it means."""

    # input
    INVALID = "invalid", Kind.INVALID, "a field or parameter cannot be taken as it is (`fields` names it)"
    PARSE_ERROR = Reason.PARSE_ERROR, Kind.INVALID, "the body is not JSON"
    TOO_DEEP = Reason.TOO_DEEP, Kind.INVALID, "the JSON nests deeper than 64 levels"
    OUT_OF_RANGE = "out_of_range", Kind.INVALID, "a number in the request is beyond what the database stores"
    DUPLICATE = "duplicate", Kind.INVALID, "a club name, round number or table number that exists already"
    BAD_PLAYERS = "bad_players", Kind.INVALID, "draw: players is not a list of distinct player ids"
    UNKNOWN_PLAYERS = "unknown_players", Kind.INVALID, "draw: player ids that do not exist"
    NOT_A_MEMBER = "not_a_member", Kind.INVALID, "a player who is not a member of the event's club"
    TOO_FEW_PLAYERS = "too_few_players", Kind.INVALID, "too few players to fill a table (or every table of a plan)"
    NOT_IN_DRAW = "not_in_draw", Kind.INVALID, "swap: a player who is not in the draw"
    SAME_PLAYER = "same_player", Kind.INVALID, "swap: the same player twice"
    BAD_ROUNDS = "bad_rounds", Kind.INVALID, "plan: not between 1 and 20 rounds"
    BAD_PLAYER_COUNT = "bad_player_count", Kind.INVALID, "a table with a player count its game is not played with"
    SEATED_ELSEWHERE = "seated_elsewhere", Kind.INVALID, "a player seated at another table of the round"
    BAD_TEXT = Reason.BAD_TEXT, Kind.INVALID, "a string the database cannot store (NUL, a lone surrogate), at `path`"
    SERIES_MISMATCH = "series_mismatch", Kind.INVALID, "an event joins only a series of its own club and game"
    NOT_PRESENT = "not_present", Kind.INVALID, "open club night: a player who is not checked in tonight"
    STILL_PLAYING = "still_playing", Kind.INVALID, "open club night: a player still at an unfinished table"
    BAD_METHOD = "bad_method", Kind.INVALID, "draw: not a seating method (varied, standings, interval, script)"
    BAD_SCRIPT = "bad_script", Kind.INVALID, "seating script: lines with errors (`fields.script`: `line N: …`); nothing stored"
    SCRIPT_ABSENT = "script_absent", Kind.INVALID, "draw by script: players of the round's script are not checked in"
    BAD_FINAL_SIZE = "bad_final_size", Kind.INVALID, "final_size: not a multiple of a table size the game plays"
    # who
    NOT_AUTHENTICATED = "not_authenticated", Kind.NOT_AUTHENTICATED, "log in (or use the table's scorer link) first"
    AUTHENTICATION_FAILED = "authentication_failed", Kind.NOT_AUTHENTICATED, "the token or login is not valid"
    PERMISSION_DENIED = "permission_denied", Kind.NOT_ALLOWED, "the policy does not allow this to you"
    BAD_SCORER_TOKEN = "bad_scorer_token", Kind.NOT_ALLOWED, "the scorer token is not this table's"
    SAME_SEAT = "same_seat", Kind.NOT_ALLOWED, "the seat that entered a hand cannot confirm it"
    SEAT_REQUIRED = "seat_required", Kind.NOT_ALLOWED, "a hand is confirmed by another seat or an organiser"
    # what
    NOT_FOUND = "not_found", Kind.NOT_FOUND, "no such object or address, or not visible to you"
    NO_MONEY = "no_money", Kind.NOT_FOUND, "money of an event that is not Maumau"
    NOT_DRAWN = "not_drawn", Kind.NOT_FOUND, "the draw of a round that has not been drawn"
    METHOD_NOT_ALLOWED = "method_not_allowed", Kind.METHOD_NOT_ALLOWED, "an HTTP method the address does not serve"
    NOT_ACCEPTABLE = "not_acceptable", Kind.NOT_ACCEPTABLE, "a format the address does not serve"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type", Kind.UNSUPPORTED_MEDIA_TYPE, "a body type other than JSON"
    # the stored state
    CONFLICT = "conflict", Kind.CONFLICT, "the change contradicts the stored state"
    PROTECTED = "protected", Kind.CONFLICT, "other records still refer to this one"
    HAS_RESULTS = "has_results", Kind.CONFLICT, "an event, round or table with hands: not deleted, seats and rules fixed"
    HAS_TABLES = "has_tables", Kind.CONFLICT, "the game of an event with tables cannot change"
    HAS_EVENTS = "has_events", Kind.CONFLICT, "a club or series with events cannot be deleted (nor a series' game changed)"
    HAS_ROUNDS = "has_rounds", Kind.CONFLICT, "an event's format cannot change once it has rounds"
    OPEN_EVENT = "open_event", Kind.CONFLICT, "an open club night has no draw: its tables are opened as players arrive"
    NOT_OPEN = "not_open", Kind.CONFLICT, "only an open club night opens tables without a draw"
    HAS_PLAYERS = "has_players", Kind.CONFLICT, "a club with players cannot be deleted"
    ANONYMISED = "anonymised", Kind.CONFLICT, "a deleted player: only his results remain"
    LAST_CLUB = "last_club", Kind.CONFLICT, "a player's last club cannot be left (delete the player)"
    ROUND_PUBLISHED = "round_published", Kind.CONFLICT, "a round with tables cannot be drawn again"
    NO_DRAW = "no_draw", Kind.CONFLICT, "swap or publish before the round is drawn"
    DRAW_OUTDATED = "draw_outdated", Kind.CONFLICT, "a player of the draw no longer exists: draw again"
    SAME_NAME = "same_name", Kind.CONFLICT, "console: a player of the club has this name already (confirm to add)"
    SESSION_CLOSED = "session_closed", Kind.CONFLICT, "the session is finished or abandoned: no more hands"
    HAND_TAKEN = "hand_taken", Kind.CONFLICT, "another submission stored this hand first"
    NOT_NEXT_HAND = "not_next_hand", Kind.CONFLICT, "`?hand=N` is not the next hand (formerly also `hand_taken`)"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused", Kind.CONFLICT, "the Idempotency-Key was used for another record"
    ALREADY_VOID = "already_void", Kind.CONFLICT, "the hand is void already"
    NOT_UNCONFIRMED = "not_unconfirmed", Kind.CONFLICT, "the hand does not wait for a confirmation"
    ALREADY_DISPUTED = "already_disputed", Kind.CONFLICT, "the hand is disputed already: the organisers decide"
    ALREADY_ABANDONED = "already_abandoned", Kind.CONFLICT, "the session is abandoned already"
    ALREADY_PAID = "already_paid", Kind.CONFLICT, "the payment is marked paid already"
    NOT_PAID = "not_paid", Kind.CONFLICT, "the payment is not marked paid: nothing to undo"
    NO_SCRIPT = "no_script", Kind.CONFLICT, "draw by script: the event's seating script has no tables for this round"
    NO_FINAL = "no_final", Kind.CONFLICT, "a final round of an event without a final stage (set `final_size` first)"
    TOO_FEW_FINALISTS = "too_few_finalists", Kind.CONFLICT, "fewer players in the preliminary standings than final seats"
    CLOCK_STATE = "clock_state", Kind.CONFLICT, "the round's clock cannot do this now (start without a length, pause when over)"
    REGISTRATION_CLOSED = "registration_closed", Kind.CONFLICT, "the event does not take registrations (now)"
    REGISTRATION_STATE = "registration_state", Kind.CONFLICT, "the registration cannot do this now (confirm a withdrawn one)"
    NAMESAKE_UNRESOLVED = "namesake_unresolved", Kind.INVALID, "player import: a row's namesake is not resolved (new or which player)"
    BAD_FILE = "bad_file", Kind.INVALID, "player import: the file is not a CSV with a name column"
    # the service
    LENGTH_REQUIRED = "length_required", Kind.LENGTH_REQUIRED, "a chunked body: send its Content-Length"
    TOO_LARGE = Reason.TOO_LARGE, Kind.TOO_LARGE, "the body is larger than the service accepts"
    THROTTLED = "throttled", Kind.THROTTLED, "too many requests (`retry_after` seconds)"
    UNAVAILABLE = "unavailable", Kind.UNAVAILABLE, "the database connection was lost: retry (the same Idempotency-Key stores a hand once)"
    SERVER_ERROR = "server_error", Kind.SERVER_ERROR, "the server failed; the error is logged"

    def __new__(cls, value: str, kind: Kind, description: str) -> "Error":
        value = str(value)  # a games.refusals.Reason for the reader's codes
        member = str.__new__(cls, value)
        member._value_ = value
        member.kind = kind
        member.description = description
        return member

    @property
    def status(self) -> int:
        return self.kind.status


# Former meanings of a code: ``hand_taken`` also answered a ``?hand=N`` that is not the next hand.
ALIASES: dict[str, Error] = {"hand_taken": Error.NOT_NEXT_HAND}


class ImportCode(StrEnum):
    """What an event's import (``tournaments.results.exchange``, ``manage.py import_records``)
    refuses besides the codes of ``Error`` and the engine's: a command's answer, no HTTP status, so
    not in the API's description."""

    BAD_LINE = "bad_line", "a line that is not an export line (not JSON, or an object without a type)"
    NO_EVENT = "no_event", "the file holds no event"

    def __new__(cls, value: str, description: str) -> "ImportCode":
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member


class DomainError(Exception):
    """A refused change. ``code`` is an ``Error``, ``message`` a sentence for people, ``field``
    the input field it concerns (if any)."""

    code = Error.INVALID

    def __init__(self, message: str, *, code: Error | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = Error(code)
        self.field = field

    @property
    def status(self) -> int:
        return self.code.status

    def as_dict(self) -> dict:
        body = {"code": str(self.code), "message": self.message}
        if self.field:
            body["fields"] = {self.field: [self.message]}
        return body


class Invalid(DomainError):
    """The input cannot be taken as it is (400)."""


class ScriptRefused(Invalid):
    """A seating script refused whole (400 ``bad_script``): ``lines`` holds one sentence per faulty
    line (``line N: …``), answered as ``fields.script``."""

    code = Error.BAD_SCRIPT

    def __init__(self, message: str, lines: list[str]) -> None:
        super().__init__(message, field="script")
        self.lines = list(lines)

    def as_dict(self) -> dict:
        return {"code": str(self.code), "message": self.message, "fields": {"script": self.lines}}


class NotAuthenticated(DomainError):
    """Nobody is logged in where the policy needs someone (401)."""

    code = Error.NOT_AUTHENTICATED


class NotAllowed(DomainError):
    """The actor may not do this (403)."""

    code = Error.PERMISSION_DENIED


class NotFound(DomainError):
    """What the change refers to does not exist, or the actor may not see it (404)."""

    code = Error.NOT_FOUND


class Conflict(DomainError):
    """The change contradicts the stored state (409): the session is over, the slot is taken,
    the object has results."""

    code = Error.CONFLICT


# The kind each class raises; a code is raised with the class of its kind.
CLASS_KINDS = {Invalid: Kind.INVALID, ScriptRefused: Kind.INVALID, NotAuthenticated: Kind.NOT_AUTHENTICATED, NotAllowed: Kind.NOT_ALLOWED,
               NotFound: Kind.NOT_FOUND, Conflict: Kind.CONFLICT}


class RecordRejected(DomainError):
    """A hand record refused (422 with the engine's code, ``games.rules.Code``), or holding text the
    database cannot store (``Error.BAD_TEXT``: 400, the README's answer to bad text wherever it
    is); ``path`` is a JSON Pointer into the record."""

    def __init__(self, code: Code | Error | str, message: str, path: str, params: dict | None = None) -> None:
        super().__init__(message)
        if not isinstance(code, (Code, Error)):
            try:
                code = Code(code)
            except ValueError:
                code = Error(code)
        self.code = code
        self.path = path
        self.params = dict(params or {})

    @property
    def status(self) -> int:
        return Kind.REJECTED.status if isinstance(self.code, Code) else self.code.status

    @classmethod
    def from_record_error(cls, error) -> "RecordRejected":
        return cls(error.code, error.message, error.path, error.params)

    def as_dict(self) -> dict:
        return {"code": str(self.code), "message": self.message, "path": self.path}


def markdown_table() -> str:
    """The README's table of the tournament layer's codes, generated from the enumeration."""
    lines = ["| code | status | meaning |", "|---|---|---|"]
    lines += [f"| `{code}` | {code.status} | {code.description} |" for code in Error]
    return "\n".join(lines)


# The README's generated blocks: (start marker, end marker, generator).
README_BLOCKS = (
    ("<!-- error codes: generated by python -m games.rules.errors -->", "<!-- end of error codes -->", "engine"),
    ("<!-- domain error codes: generated by python -m tournaments.errors -->", "<!-- end of domain error codes -->",
     "domain"),
)


def readme_with_tables(text: str) -> str:
    """``text`` (the README) with both generated tables as the enumerations give them now."""
    tables = {"engine": engine_table(), "domain": markdown_table()}
    for start, end, name in README_BLOCKS:
        pattern = re.compile(re.escape(start) + r"\n(?:.*?\n)?" + re.escape(end), re.S)
        if not pattern.search(text):
            raise ValueError(f"README.md has no block {start}")
        text = pattern.sub(lambda _match: f"{start}\n{tables[name]}\n{end}", text)
    return text


if __name__ == "__main__":
    if sys.argv[1:] == ["--readme"]:
        readme = Path(__file__).resolve().parents[1] / "README.md"
        readme.write_text(readme_with_tables(readme.read_text()))
    else:
        print(markdown_table())
