"""The OpenAPI schema's error answers, documented once for every operation.

Every endpoint answers errors in one JSON shape (``stich/errors.py``); this hook adds that shape as
the ``Error`` component and lists, per operation, the errors it can give: 400 (input, filters),
401 (an invalid or missing login where one is needed), 403 (the policy refuses a write), 404 (an
object that does not exist or is not visible) and 409 (a write that contradicts stored results).
Reads are open to anonymous clients, so their security lists the empty requirement too.
"""
from __future__ import annotations

ERROR_SCHEMA = {
    "type": "object",
    "description": "Every error answer. `fields` only on 400; `path` (a JSON Pointer into the hand record) "
                   "only on 422; `retry_after` (seconds) only on 429.",
    "properties": {
        "code": {"type": "string", "description": "A stable machine code (README: the tables of "
                                                  "`tournaments.errors.Error` and `games.rules.Code`), e.g. "
                                                  "`invalid`, `not_authenticated`, `permission_denied`, "
                                                  "`not_found`, `has_results`, `hand_taken`."},
        "message": {"type": "string", "description": "A sentence for people."},
        "fields": {"type": "object", "additionalProperties": {"type": "array", "items": {}},
                   "description": "Per input field, its messages."},
        "path": {"type": "string"},
        "retry_after": {"type": "integer"},
    },
    "required": ["code", "message"],
}

DESCRIPTIONS = {
    "400": "The input (or a filter) is not valid: `{code, message, fields}`.",
    "401": "Not logged in, or the token is invalid: `{code, message}`.",
    "403": "The policy does not allow this to you: `{code, message}`.",
    "404": "No such object, or not visible to you: `{code, message}`.",
    "409": "Contradicts the stored state, e.g. `has_results`: `{code, message}`.",
}
WRITES = {"post", "put", "patch", "delete"}


def _error(status: str) -> dict:
    return {"description": DESCRIPTIONS[status],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def add_error_responses(result, generator, request, public):
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in WRITES | {"get"}:
                continue
            statuses = ["400", "401"]
            if "{" in path or method == "get":  # an object not visible, or a page beyond the last
                statuses.append("404")
            if method in WRITES:
                statuses += ["403", "409"]
            responses = operation.setdefault("responses", {})
            for status in statuses:
                answer = responses.get(status)
                if answer is None:
                    responses[status] = _error(status)
                elif "content" not in answer:
                    answer["content"] = _error(status)["content"]
            for answer in responses.values():
                for media in answer.get("content", {}).values():
                    if media.get("schema") == {}:
                        media["schema"] = {"$ref": "#/components/schemas/Error"}
            if method == "get" and operation.get("security") and {} not in operation["security"]:
                operation["security"].append({})
    return result
