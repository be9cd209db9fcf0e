"""The one JSON parser of the API, with limits a hostile body cannot get past.

A body longer than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``MAX_RECORD_BYTES`` and room for an envelope,
stich/settings.py) is refused with 413 ``too_large`` after reading at most one byte more than the
limit, whatever its ``Content-Length`` claims. Nesting deeper than ``MAX_DEPTH`` is refused with
400 ``too_deep``: the C decoder stops at Python's recursion limit while parsing (a RecursionError,
never a 500), and a walk without recursion checks the depth of what it returned, so nothing after
the parser (the engine, fingerprints, the database's JSON) meets a document deep enough to exhaust
the stack. Unknown members stay allowed: only size and depth are limited.
"""
from __future__ import annotations

import codecs

from django.conf import settings
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser as DRFJSONParser
from rest_framework.utils import json

# A hand record nests five or six levels (records.md); 64 leaves unknown members plenty of room.
MAX_DEPTH = 64


class TooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"
    default_detail = "The body is larger than the service accepts."


class TooDeep(exceptions.ParseError):
    default_code = "too_deep"
    default_detail = f"The JSON is nested deeper than {MAX_DEPTH} levels."


def body_limit() -> int:
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def too_large(limit: int) -> TooLarge:
    return TooLarge(f"The body is larger than {limit} bytes (a hand record may have {settings.MAX_RECORD_BYTES}).")


def depth(document) -> int:
    """How deeply ``document`` nests arrays and objects (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(document, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if level > MAX_DEPTH:
            return level
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


class JSONParser(DRFJSONParser):
    """DRF's JSON parser (strict: no NaN or Infinity) with the size and depth limits."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = body_limit()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise too_large(limit)
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.decode(raw, encoding)
            document = json.loads(text, parse_constant=json.strict_constant if self.strict else None)
        except RecursionError:
            raise TooDeep() from None
        except ValueError as exc:
            raise exceptions.ParseError(f"JSON parse error - {exc}") from None
        # A document nests at most as deep as it has brackets: most records have fewer than the
        # limit, and counting them in the text costs far less than walking the document.
        if text.count("[") + text.count("{") > MAX_DEPTH and depth(document) > MAX_DEPTH:
            raise TooDeep()
        return document
