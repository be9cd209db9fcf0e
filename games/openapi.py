"""The error answers of the API's description: one helper documents them for every API module
(games, tournaments, ratings), and the schema hook (stich/schema.py) adds the same answers to
every operation that does not name them.

Every error is answered in one of two shapes, components the hook defines: ``Error``
(``{code, message, fields?, path?, retry_after?}``, ``code`` one of the ``ErrorCode`` enumeration:
``tournaments.errors.Error``) and, for a hand record the engine rejects (422), ``RecordError``
(``code`` one of ``RecordErrorCode``: ``games.rules.Code``). This is the bottom app with API
modules, so the helper lives here and the apps above import it (apps depend one way,
.importlinter).
"""
from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse

from .rules.errors import markdown_table

ERROR_REF = {"$ref": "#/components/schemas/Error"}
RECORD_ERROR_REF = {"$ref": "#/components/schemas/RecordError"}
JSON = "application/json"

# What each error status means, the same for every operation (an operation may say more).
DESCRIPTIONS: dict[int, str] = {
    400: "The input (or a filter) is not valid: `{code, message, fields}`; a body that is not JSON, nests too deep "
         "or holds text the database cannot store: `parse_error`, `too_deep`, `bad_text` (with `path`, the JSON "
         "Pointer of the string).",
    401: "Not logged in, or the token or the `Authorization` header is not valid: `{code, message}`.",
    403: "The policy does not allow this to you: `{code, message}`.",
    404: "No such object, or not visible to you: `{code, message}`.",
    406: "`not_acceptable`: the `Accept` header names no type the operation answers with.",
    409: "Contradicts the stored state, e.g. `has_results`: `{code, message}`.",
    411: "`length_required`: the body was sent chunked; send it with a `Content-Length`.",
    413: "`too_large`: the body is larger than the service accepts (a hand record: `MAX_RECORD_BYTES`, 256 KiB "
         "by default). Nothing is read or stored.",
    415: "`unsupported_media_type`: the body is not `application/json`.",
    422: "The engine rejects the record: `RecordError` `{code, message, path}` (`path` a JSON Pointer into the "
         "record). Nothing is stored. Codes:\n\n" + markdown_table(),
    429: "`throttled`: too many requests: `{code, message, retry_after}` (seconds to wait).",
    503: "`unavailable`: the database or a web process is restarting (its connection was lost mid-request: a "
         "write is stored whole or not at all). Try again after `Retry-After` seconds, a write with its "
         "`Idempotency-Key`.",
}


def schema_of(status: int) -> dict:
    """The shape an error status is answered in: ``RecordError`` for 422, ``Error`` otherwise."""
    return RECORD_ERROR_REF if status == 422 else ERROR_REF


def error_responses(*statuses: int, described: dict[int, str] | None = None) -> dict[tuple, OpenApiResponse]:
    """The error answers an operation documents (``extend_schema(responses={200: ..., **error_responses(400,
    404)})``): each status with its shape and the description every operation shares, or the
    operation's own for the statuses in ``described`` (which are documented too). Errors are JSON
    whatever the operation answers with otherwise (a CSV, JSON Lines)."""
    described = described or {}
    return {(status, JSON): OpenApiResponse(response=schema_of(status),
                                            description=described.get(status, DESCRIPTIONS[status]))
            for status in sorted({*statuses, *described})}


def error_response(status: int) -> dict:
    """The OpenAPI response object of an error status, for the schema hook that completes every
    operation (stich/schema.py)."""
    return {"description": DESCRIPTIONS[status], "content": {JSON: {"schema": schema_of(status)}}}
