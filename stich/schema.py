"""The OpenAPI schema's shared parts, documented once for every operation.

Every endpoint answers errors in one JSON shape (``stich/errors.py``): the ``Error`` component, its
``code`` one of ``ErrorCode``, the codes that handler answers with (``stich.errors.error_codes``:
``tournaments.errors.Error`` and the reader's ``games.refusals.Reason``), generated from the
enumerations. A hand record the engine rejects is answered 422 with ``RecordError`` (``code`` one of
``RecordErrorCode``, the published ``games.rules.Code``, ``message``, ``path``). The record format itself is a set of named
components (``HandRecord`` and one per game and body, ``games.rules.schema.openapi_components``).

Per operation this hook lists the errors it can give (with the descriptions and shapes of
``games.openapi``, the helper the API modules document their own with): 400 (input, filters), 401 (an invalid or
missing login where one is needed, a malformed ``Authorization`` header anywhere), 403 (the policy
refuses a write), 404 (an object that does not exist or is not visible, a page past the last), 409
(a write that contradicts stored results), and for an operation with a body 413 ``too_large`` and
415 (not JSON). Reads are open to anonymous clients, so their security lists the empty requirement.
"""
from __future__ import annotations

from games.api import MU_SUMMARY
from games.openapi import error_response, schema_of
from games.rules import Code
from games.rules.schema import openapi_components
from tournaments.errors import Error

from .api_examples import EXAMPLES
from .errors import error_codes

CORRECTION_EXAMPLES = [("Correct a hand's record", {"record": MU_SUMMARY, "reason": "The card points were swapped."})]

ERROR_SCHEMA = {
    "type": "object",
    "description": "Every error answer but the engine's 422. `fields` only on 400 `invalid`; `path` (a JSON "
                   "Pointer into the body) only on 400 `bad_text`; `retry_after` (seconds) only on 429.",
    "properties": {
        "code": {"$ref": "#/components/schemas/ErrorCode"},
        "message": {"type": "string", "description": "A sentence for people."},
        "fields": {"type": "object", "additionalProperties": {},
                   "description": "Per input field, its messages (nested for nested input)."},
        "path": {"type": "string"},
        "retry_after": {"type": "integer"},
    },
    "required": ["code", "message"],
}

RECORD_ERROR_SCHEMA = {
    "type": "object",
    "description": "The engine rejects a hand record; nothing is stored. `path` is an RFC 6901 JSON Pointer to the "
                   "first offending element of the record.",
    "properties": {
        "code": {"$ref": "#/components/schemas/RecordErrorCode"},
        "message": {"type": "string", "description": "A sentence for people, naming seat, card and rule."},
        "path": {"type": "string", "description": "A JSON Pointer into the record (`\"\"`: the record itself)."},
    },
    "required": ["code", "message", "path"],
}

ERROR_CODE = {
    "type": "string",
    "enum": error_codes(),
    "description": "A stable machine code (`stich.errors.error_codes`: `tournaments.errors.Error`, the README's "
                   "table, with the JSON reader's `games.refusals.Reason`):\n\n" +
                   "\n".join(f"* `{code}` ({code.status}): {code.description}" for code in Error),
}

RECORD_ERROR_CODE = {
    "type": "string",
    "enum": [str(code) for code in Code],
    "description": "The engine's codes (`games.rules.Code`):\n\n" +
                   "\n".join(f"* `{code}` ({code.kind}): {code.description}" for code in Code),
}

RETRY_AFTER = {"description": "Seconds to wait before trying again.", "schema": {"type": "integer", "minimum": 0}}

WRITES = {"post", "put", "patch", "delete"}
# The file variants of reads, each an operation at its own address (the README's spelling; errors
# stay JSON): path of the JSON read -> (address of the file, its media type).
FILE_VARIANTS = {
    "/api/v1/events/{id}/standings/": ("/api/v1/events/{id}/standings.csv", "text/csv"),
    "/api/v1/series/{id}/standings/": ("/api/v1/series/{id}/standings.csv", "text/csv"),
    "/api/v1/events/{id}/export/": ("/api/v1/events/{id}/export.jsonl", "application/jsonl"),
}
# Members some answers leave out (a read-only field is otherwise listed as required).
NOT_ALWAYS_THERE = {"Table": ["scorer_url"]}


def add_error_responses(result, generator, request, public):
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    schemas["ErrorCode"] = ERROR_CODE
    schemas["RecordError"] = RECORD_ERROR_SCHEMA
    schemas["RecordErrorCode"] = RECORD_ERROR_CODE
    schemas.update(openapi_components())
    _no_defaults_in_patches(schemas)
    for name, members in NOT_ALWAYS_THERE.items():
        if name in schemas:
            schemas[name]["required"] = [m for m in schemas[name].get("required", []) if m not in members]
    _file_variants(result.get("paths", {}))
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in WRITES | {"get"}:
                continue
            statuses = ["400", "401", "406", "503"]
            if "{" in path or method == "get":  # an object not visible, or a page beyond the last
                statuses.append("404")
            if method in WRITES:
                statuses += ["403", "409"]
            if "requestBody" in operation:
                statuses += ["411", "413", "415"]
            responses = operation.setdefault("responses", {})
            for status in statuses:
                answer = responses.get(status)
                if answer is None:
                    responses[status] = error_response(int(status))
                elif "content" not in answer:
                    answer["content"] = error_response(int(status))["content"]
            _add_examples(operation)
            for status in ("429", "503"):  # the answers that say when to try again
                if status in responses:
                    responses[status].setdefault("headers", {})["Retry-After"] = RETRY_AFTER
            for status, answer in responses.items():
                for media in answer.get("content", {}).values():
                    if media.get("schema") == {} and status >= "400":
                        media["schema"] = schema_of(int(status))
            if method == "get" and operation.get("security") and {} not in operation["security"]:
                operation["security"].append({})
    return result


def _no_defaults_in_patches(schemas: dict) -> None:
    """A PATCH body's members have no ``default``: a partial update changes only what it names
    (the serializers skip their defaults then), and a generated client fills a member it was not
    given with the schema's default, so a PATCH of one field would set the others back (an event
    attached to a series unpublished). The same serializers keep their defaults in the create
    bodies."""
    def strip(node):  # a schema: its own default and those of the schemas inside it
        if isinstance(node, dict):
            node.pop("default", None)
            for key, value in node.items():
                for inner in (value.values() if key == "properties" and isinstance(value, dict) else [value]):
                    strip(inner)
        elif isinstance(node, list):
            for value in node:
                strip(value)

    for name, schema in schemas.items():
        if name.startswith("Patched"):
            for member in schema.get("properties", {}).values():
                strip(member)


def _add_examples(operation: dict) -> None:
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body is None:
        return
    if body.get("schema") == {"$ref": "#/components/schemas/HandRecord"}:
        operation["requestBody"]["required"] = True
    listed = EXAMPLES.get(operation["operationId"]) or (
        CORRECTION_EXAMPLES if operation["operationId"] == "hands_correct_create" else [])
    examples = body.setdefault("examples", {}) if listed else None
    for summary, value in listed:
        examples["".join(word.capitalize() for word in summary.split()[:6])] = {"summary": summary, "value": value}


def _file_variants(paths: dict) -> None:
    """``standings.csv`` and ``export.jsonl`` as operations of their own; the JSON read keeps JSON."""
    for source, (target, media_type) in FILE_VARIANTS.items():
        operation = paths.get(source, {}).get("get")
        if operation is None:
            continue
        variant = {**operation, "responses": dict(operation["responses"]),
                   "parameters": [p for p in operation.get("parameters", []) if p.get("name") != "format"],
                   "operationId": operation["operationId"].replace("_retrieve", "") + "_" + target.rsplit(".", 1)[1]}
        variant["responses"]["200"] = {**operation["responses"]["200"],
                                       "content": {media_type: {"schema": {"type": "string"}}}}
        paths[target] = {"get": variant}
        if media_type == "application/jsonl":
            del paths[source]  # the export is only a file
            continue
        operation["parameters"] = variant["parameters"]
        operation["responses"]["200"]["content"] = {
            key: value for key, value in operation["responses"]["200"]["content"].items() if key != media_type}
