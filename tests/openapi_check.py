"""Every answer of ``/api/v1/`` that a test receives is checked against the served OpenAPI description
(openapi-core): status code documented, content type documented, body valid under its schema.

``tests/conftest.py`` wraps Django's test client (and so DRF's ``APIClient``) with ``check``; the
generated-client test checks the answers of the live server with ``check_httpx``. The description is
built once per process, as ``/api/schema/`` serves it.
"""
from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field

from django.core.exceptions import TooManyFieldsSent

PREFIX = "/api/v1/"


@dataclass
class Tally:
    validated: int = 0
    mismatches: list[str] = field(default_factory=list)
    undocumented: int = 0  # no operation for the method and path: 404/405 of addresses the API lacks


TALLY = Tally()


@functools.cache
def served_schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))


@functools.cache
def _openapi():
    from openapi_core import Config, OpenAPI

    # The file variants are text: checked as strings (their schema), not as JSON.
    text = {media_type: (lambda data, **parameters: data.decode("utf-8")) for media_type in ("text/csv", "application/jsonl")}
    return OpenAPI.from_dict(served_schema(), config=Config(extra_media_type_deserializers=text))


class _Request:
    """openapi-core's request protocol over what a request was: matched by its path against the
    description's paths (not by Django's route)."""

    def __init__(self, method: str, host_url: str, path: str, query: dict, headers: dict):
        from openapi_core.datatypes import RequestParameters
        from werkzeug.datastructures import Headers, ImmutableMultiDict

        self.method, self.host_url, self.path = method.lower(), host_url, path
        self.parameters = RequestParameters(query=ImmutableMultiDict(query), header=Headers(headers),
                                            cookie=ImmutableMultiDict(), path={})
        self.body, self.content_type = b"", ""


class _Response:
    def __init__(self, status_code: int, content_type: str, data: bytes, headers: dict):
        from werkzeug.datastructures import Headers

        self.status_code, self.content_type, self.data = status_code, content_type, data
        self.headers = Headers(headers)


# The answers found valid, by a digest of all that their validation reads (the request's method and
# path, the answer's status, headers and body): validation is a pure function of these, and the
# suite receives the same answer many times (a 403 body, the same page for several roles), each
# checked once per process instead of at about 8 ms a time.
_VALID: set[bytes] = set()


def _digest(request: _Request, response: _Response) -> bytes:
    parts = [request.method, request.host_url, request.path, str(response.status_code), response.content_type,
             repr(sorted(response.headers.items()))]
    return hashlib.blake2b("\0".join(parts).encode() + b"\0" + response.data, digest_size=20).digest()


def _validate(request: _Request, response: _Response, where: str) -> None:
    from openapi_core.templating.paths.exceptions import OperationNotFound, PathNotFound

    digest = _digest(request, response)
    if digest in _VALID:
        TALLY.validated += 1
        return
    try:
        _openapi().validate_response(request, response)
    except (PathNotFound, OperationNotFound):
        TALLY.undocumented += 1
        return
    except Exception as error:  # noqa: BLE001 - every validation error is a mismatch to report
        detail = error
        while getattr(detail, "__cause__", None) is not None:
            detail = detail.__cause__
        reasons = getattr(detail, "schema_errors", None) or getattr(error, "schema_errors", None) or []
        text = "; ".join(str(reason.message)[:300] + " at " + "/".join(map(str, reason.absolute_path))
                         for reason in list(reasons)[:3]) or str(detail)[:500]
        TALLY.mismatches.append(f"{where} {response.status_code}: {type(error).__name__}: {text}")
        return
    _VALID.add(digest)
    TALLY.validated += 1


def check(response) -> None:
    """Check one answer of Django's test client (``response.wsgi_request`` is its request)."""
    request = getattr(response, "wsgi_request", None)
    if request is None or not request.path.startswith(PREFIX):
        return
    if getattr(response, "streaming", False):
        return
    if "text/html" in request.headers.get("Accept", "") and response.get("Content-Type", "").startswith("text/html"):
        return  # the browsable API, asked for by a browser: not part of the schema (README, API)
    try:
        query = request.GET
    except TooManyFieldsSent:
        return  # refused before any operation read it (stich.errors.bad_request): no operation's answer
    where = f"{request.method} {request.get_full_path()}"
    _validate(_Request(request.method, f"{request.scheme}://{request.get_host()}", request.path,
                       query, dict(request.headers.items())),
              _Response(response.status_code, response.get("Content-Type", ""), response.content,
                        dict(response.headers.items())), where)


def check_httpx(response) -> None:
    """Check one answer a generated client (httpx) received from a live server."""
    from urllib.parse import parse_qsl

    url = response.request.url
    if not url.path.startswith(PREFIX):
        return
    response.read()
    _validate(_Request(response.request.method, f"{url.scheme}://{url.netloc.decode()}", url.path,
                       dict(parse_qsl(url.query.decode())), dict(response.request.headers.items())),
              _Response(response.status_code, response.headers.get("Content-Type", ""), response.content,
                        dict(response.headers.items())), f"{response.request.method} {url}")
