"""The one JSON parser of the API, with limits a hostile body cannot get past.

A body longer than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``MAX_RECORD_BYTES`` and room for an envelope,
stich/settings.py) is refused with 413 ``too_large`` after reading at most one byte more than the
limit, whatever its ``Content-Length`` claims. Nesting deeper than ``MAX_DEPTH`` is refused with
400 ``too_deep``: the C decoder stops at Python's recursion limit while parsing (a RecursionError,
never a 500), and a walk without recursion checks the depth of what it returned, so nothing after
the parser (the engine, fingerprints, the database's JSON) meets a document deep enough to exhaust
the stack. A string the database cannot store (a NUL character, a lone UTF-16 surrogate: both come
only from ``\\u`` escapes) is refused with 400 ``bad_text`` naming its JSON Pointer (``path``).
Unknown members stay allowed: only size, depth and storable text are checked.

``read_json`` is the one reader of JSON text for every way a record arrives (the API's bodies, the
console's correction, an event's import); ``text_error`` is its check of stored text, which the
services also apply to records handed to them directly.

What the reader refuses is one exception, ``Unreadable``, carrying a ``Reason`` (both in
games/refusals.py): this app is the bottom layer and knows neither the API's vocabulary nor its
answers. The one exception handler (``stich/errors.py``) answers a reason as the member of
``tournaments.errors.Error`` spelt the same (those members are defined from ``Reason``), with that
member's status and the JSON error shape (``path`` for ``bad_text``); the console and the import
say it in their own way.
"""
from __future__ import annotations

import codecs

from django.conf import settings
from rest_framework.parsers import JSONParser as DRFJSONParser
from rest_framework.utils import json

from .refusals import MAX_DEPTH, Reason, Unreadable


def _pointer(parts) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def _bad(text: str) -> str | None:
    if "\x00" in text:
        return "a NUL character (U+0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "a lone UTF-16 surrogate (U+D800 to U+DFFF)"
    return None


def text_error(document) -> tuple[str, str] | None:
    """(JSON Pointer, message) of the first string in ``document`` (a value or a member name) that
    PostgreSQL cannot store, or None. A bad member name is reported at its object (the pointer
    itself must be text that can be answered).

    Every hand submitted passes here, so the document is first written as JSON by the standard
    library's C encoder: text without an escaped NUL that encodes as UTF-8 holds neither problem,
    and only the rest (or what JSON cannot write) is walked to find where."""
    try:
        written = json.dumps(document, ensure_ascii=False)
    except (TypeError, ValueError):
        written = None
    if written is not None and "\\u0000" not in written:
        try:
            written.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            return None
    stack = [(document, ())]
    while stack:
        value, parts = stack.pop()
        if isinstance(value, str):
            problem = _bad(value)
            if problem:
                return _pointer(parts), f"The text at {_pointer(parts) or 'the top'} contains {problem}, which cannot be stored."
        elif isinstance(value, dict):
            for key, child in value.items():
                problem = _bad(key) if isinstance(key, str) else None
                if problem:
                    return _pointer(parts), (f"A member name in {_pointer(parts) or 'the top object'} contains {problem}, "
                                             "which cannot be stored.")
                stack.append((child, (*parts, key)))
        elif isinstance(value, list):
            stack.extend((child, (*parts, index)) for index, child in enumerate(value))
    return None


def read_json(data: bytes | str, *, encoding: str = "utf-8", strict: bool = True):
    """The document in ``data``, or ``Unreadable``: not JSON (strict: no NaN or Infinity; bytes
    in ``encoding``), nested deeper than ``MAX_DEPTH``, or holding text that cannot be stored."""
    try:
        text = codecs.decode(data, encoding) if isinstance(data, bytes) else data
        document = json.loads(text, parse_constant=json.strict_constant if strict else None)
    except RecursionError:
        raise Unreadable(Reason.TOO_DEEP) from None
    except ValueError as exc:
        raise Unreadable(Reason.PARSE_ERROR, f"JSON parse error - {exc}") from None
    # A document nests at most as deep as it has brackets: most records have fewer than the
    # limit, and counting them in the text costs far less than walking the document.
    if text.count("[") + text.count("{") > MAX_DEPTH and depth(document) > MAX_DEPTH:
        raise Unreadable(Reason.TOO_DEEP)
    # Such strings come only from \u escapes (JSON text cannot carry them raw) unless the text
    # itself holds them.
    if "\\u" in text or _bad(text):
        found = text_error(document)
        if found:
            raise Unreadable(Reason.BAD_TEXT, found[1], found[0])
    return document


def body_limit() -> int:
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def too_large(limit: int) -> Unreadable:
    """The refusal of a body over ``limit`` bytes (by the parser, or by its announced length)."""
    return Unreadable(Reason.TOO_LARGE, f"The body is larger than {limit} bytes (a hand record may have {settings.MAX_RECORD_BYTES}).")


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
    """DRF's JSON parser (strict: no NaN or Infinity) with the size and depth limits; what it
    refuses is ``Unreadable`` (not DRF's ``ParseError``), answered by the one handler."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = body_limit()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise too_large(limit)
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        return read_json(raw, encoding=encoding, strict=self.strict)  # Unreadable: stich/errors.py answers
