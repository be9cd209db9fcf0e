"""The one place that maps errors to HTTP, in one JSON shape: ``{"code", "message", "fields"?}``.

Codes come from enumerations, never from a string written here: the tournament layer's
``tournaments.errors.Error`` (each with its status), the JSON reader's ``games.refusals.Reason``
(raised as ``Unreadable`` by games/parsers.py; each reason is answered as the ``Error`` member of
the same code, so with its status) and the engine's ``games.rules.Code`` (always 422). DRF's own
refusals (``method_not_allowed``, ``throttled``, ...) are members of ``Error`` too. A view or
service raises; only this handler answers. ``error_codes()`` lists every code answered in the
``Error`` shape (the API's description enumerates them, stich/schema.py).

``code`` is a stable machine string, ``message`` a sentence for people, ``fields`` (validation
errors only) maps each offending field to its messages; ``path`` (400 ``bad_text``) is the JSON
Pointer of text the database cannot store. Hand records are the exception: the rule engine's
errors keep their own ``{"code", "message", "path"}`` (answered with 422).

Two failures that are no client's fault get the shape too: a body too large for the service (413
``too_large``, refused by its ``Content-Length`` before anything reads it) and a database
connection lost in the middle of a request (503 ``unavailable``: a transaction is stored whole or
not at all, and a retry with the same ``Idempotency-Key`` stores a hand once).
"""
from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import (
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db import InterfaceError, OperationalError
from django.db.models import ProtectedError
from django.http import Http404, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.utils import translation
from django.utils.translation import get_supported_language_variant
from django.utils.translation.trans_real import parse_accept_lang_header
from django.views.defaults import bad_request as bad_request_page
from django.views.defaults import page_not_found
from django.views.defaults import server_error as server_error_page
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import APIView, exception_handler

from games.messages import message as engine_message
from games.parsers import body_limit, too_large
from games.refusals import Reason, Unreadable
from games.rules import Code, RecordError
from tournaments.errors import DomainError, Error, Kind, RecordRejected


def _answer(code: Error, message: str, **headers) -> Response:
    return Response({"code": str(code), "message": message}, status=code.status, headers=headers or None)


def _flatten(detail) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            text = _flatten(value)
            return text if key in ("non_field_errors", "detail") else f"{key}: {text}"
        return ""
    if isinstance(detail, list):
        return _flatten(detail[0]) if detail else ""
    return str(detail)


logger = logging.getLogger(__name__)

# Paths whose clients expect JSON; elsewhere (admin, pages) Django's own answers stay.
API_PREFIXES = ("/api/", "/api-auth/")


def error_codes() -> list[str]:
    """Every code answered in the ``Error`` shape: the members of ``Error`` and the reader's
    reasons (each of them a member too), in the enumeration's order."""
    return list(dict.fromkeys(str(code) for code in (*Error, *Reason)))


def _too_large_body(limit: int) -> dict:
    return _unreadable_body(too_large(limit))  # as the parser's refusal is answered


class BodySizeLimitMiddleware:
    """An API request announcing a body over the limit is answered 413 before it is read; a
    request with a chunked body (no length to read it by) 411 ``length_required``.

    Django's own check (``DATA_UPLOAD_MAX_MEMORY_SIZE``) raises where the body is first read and
    answers with an HTML page; the parser (games/parsers.py) also stops at the limit when the
    announced length is wrong.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            # Django reads a body by its Content-Length: a chunked body would be read as empty
            # (under WSGI and ASGI alike) and the request taken as one without a body.
            message = "Send the body with a Content-Length (chunked transfer encoding is not accepted)."
            if request.path.startswith(API_PREFIXES):
                return JsonResponse({"code": str(Error.LENGTH_REQUIRED), "message": message},
                                    status=status.HTTP_411_LENGTH_REQUIRED)
            return HttpResponse(message, status=status.HTTP_411_LENGTH_REQUIRED,
                                content_type="text/plain; charset=utf-8")
        if request.path.startswith(API_PREFIXES):
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            limit = body_limit()
            if length > limit:
                return JsonResponse(_too_large_body(limit), status=Error.TOO_LARGE.status)
        return self.get_response(request)


class RequestTextMiddleware:
    """A NUL character in the path, the query string or a header is refused with 400
    ``bad_text`` (the JSON error shape under the API) before any view or query sees it: the
    database cannot store or compare such text, and no address or parameter of the service has it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        where = self._nul(request)
        if where:
            message = f"The {where} contains a NUL character."
            if request.path.startswith(API_PREFIXES):
                return JsonResponse({"code": str(Error.BAD_TEXT), "message": message}, status=status.HTTP_400_BAD_REQUEST)
            return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
        return self.get_response(request)

    @staticmethod
    def _nul(request) -> str | None:
        if "\x00" in request.path or "\x00" in request.path_info:
            return "path"
        if "\x00" in request.META.get("QUERY_STRING", "") or "%00" in request.META.get("QUERY_STRING", ""):
            if any("\x00" in key or any("\x00" in value for value in values) for key, values in request.GET.lists()):
                return "query string"
        for key, value in request.META.items():
            if key.startswith("HTTP_") and isinstance(value, str) and "\x00" in value:
                return "header " + key[5:].replace("_", "-").title()
        return None


class MethodFirstMiddleware:
    """A method the address does not serve is 405 ``method_not_allowed`` (with ``Allow``) before
    anything else is asked: DRF authenticates and asks the permissions before it looks for the
    method's handler, so ``DELETE`` on a read-only address answered 401 or 403, which tells a
    client to log in or ask for rights that would change nothing. Every API view (a DRF view or
    view set) is checked here, from the methods its class or its router binding serves."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        allowed = served_methods(view_func)
        method = request.method.lower()
        if allowed is None or method in allowed:
            return None
        names = ", ".join(name.upper() for name in view_func.cls.http_method_names if name in allowed)
        response = JsonResponse({"code": str(Error.METHOD_NOT_ALLOWED), "message": f'Method "{request.method}" not allowed.'},
                                status=status.HTTP_405_METHOD_NOT_ALLOWED)
        response["Allow"] = names
        return response


def served_methods(view_func) -> set[str] | None:
    """The methods (lower case) a DRF view answers; None for any other view."""
    cls = getattr(view_func, "cls", None)
    if not isinstance(cls, type) or not issubclass(cls, APIView):
        return None
    actions = getattr(view_func, "actions", None)  # a view set's binding by its router: method -> action
    methods = set(actions) if actions is not None else {name for name in cls.http_method_names if hasattr(cls, name)}
    methods.add("options")  # DRF answers OPTIONS with the view's description
    if "get" in methods:
        methods.add("head")
    return methods & set(cls.http_method_names)


def asked_language(request) -> str | None:
    """The language an ``Accept-Language`` header asks for among the service's (de, en, fi), or
    None without the header (or with none of them): then the engine's English stays."""
    header = request.META.get("HTTP_ACCEPT_LANGUAGE", "") if request is not None else ""
    for language, _quality in parse_accept_lang_header(header[:255]):
        if language == "*":
            continue
        try:
            return get_supported_language_variant(language)
        except LookupError:
            continue
    return None


def _record_error_body(exc, request) -> dict:
    """The engine's ``{code, message, path}``; with ``Accept-Language`` the message in that language,
    seats counted from 1 and, given ``?name=`` per seat (the sheet sends them), named."""
    body = exc.as_dict()
    language = asked_language(request)
    if language is None:
        return body
    names = [name[:80] for name in request.GET.getlist("name")[:8]]
    with translation.override(language):
        body["message"] = engine_message(exc.code, exc.path, exc.params, names or None)
    return body


def _unreadable_body(exc: Unreadable) -> dict:
    """The reader's refusal as the ``Error`` member of its reason; ``bad_text`` with ``path``."""
    body = {"code": str(Error(exc.reason)), "message": exc.message}
    if exc.reason is Reason.BAD_TEXT:
        body["path"] = exc.path  # the JSON Pointer of the string in the body ("": the body itself)
    return body


def _member(code: str) -> Error | str:
    """DRF's code for its own refusals as the member of ``Error`` (every one it answers is one);
    a code that is not is logged and answered as it is (the API's description would not list it)."""
    try:
        return Error(code)
    except ValueError:
        logger.error("DRF answered with %r, which is not a member of tournaments.errors.Error", code)
        return code


def json_exception_handler(exc, context):
    if isinstance(exc, (OperationalError, InterfaceError)):
        logger.warning("database unavailable during %s", context.get("request") and context["request"].path,
                       exc_info=exc)
        return _answer(Error.UNAVAILABLE, "The database connection was lost. Retry; with the same Idempotency-Key "
                                          "a hand is stored once.", **{"Retry-After": "1"})
    if isinstance(exc, Unreadable):
        return Response(_unreadable_body(exc), status=Error(exc.reason).status)
    if isinstance(exc, RecordError) or (isinstance(exc, RecordRejected) and isinstance(exc.code, Code)):
        return Response(_record_error_body(exc, context.get("request")), status=Kind.REJECTED.status)
    if isinstance(exc, DomainError):  # a RecordRejected with an Error (bad_text): 400 with its path
        return Response(exc.as_dict(), status=exc.status)
    if isinstance(exc, OverflowError):
        # An id or number beyond what the database stores (SQLite raises; PostgreSQL finds nothing).
        return _answer(Error.OUT_OF_RANGE, "A number in the request is out of range.")
    if isinstance(exc, ProtectedError):
        return _answer(Error.PROTECTED, "Other records still refer to this one; remove them first.")
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = {"code": str(Error.INVALID), "message": _flatten(fields), "fields": fields}
        response.status_code = status.HTTP_400_BAD_REQUEST
        return response
    detail = getattr(exc, "detail", None)
    code = detail.code if hasattr(detail, "code") else getattr(exc, "default_code", "error")
    body = {"code": str(_member(code)), "message": str(detail if detail is not None else exc)}
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        body["retry_after"] = int(exc.wait)
    return Response(body, status=response.status_code, headers=dict(response.headers.items()))


def _api_path(request) -> bool:
    return request.path.startswith("/api/")


def not_found(request, exception=None):
    """404 for a URL that matches no route: the JSON error shape under ``/api/``."""
    if _api_path(request):
        return JsonResponse({"code": str(Error.NOT_FOUND), "message": "No such address in the API."},
                            status=Error.NOT_FOUND.status)
    return page_not_found(request, exception)


def bad_request(request, exception=None):
    """400 from Django before any view ran (a ``SuspiciousOperation``): the JSON error shape under
    ``/api/``. A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` that announced no larger length is 413
    ``too_large`` as the other oversized bodies; more parameters than
    ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` (query string or form) is 400 ``invalid``."""
    if not _api_path(request):
        return bad_request_page(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return JsonResponse(_too_large_body(body_limit()), status=Error.TOO_LARGE.status)
    if isinstance(exception, (TooManyFieldsSent, TooManyFilesSent)):
        message = f"Too many parameters: at most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}."
    else:
        message = "The request cannot be read."
    return JsonResponse({"code": str(Error.INVALID), "message": message}, status=Error.INVALID.status)


def server_error(request):
    """500: the JSON error shape under ``/api/`` (the details go to the log, not to the client)."""
    if _api_path(request):
        return JsonResponse({"code": str(Error.SERVER_ERROR), "message": "The server failed; the error is logged."},
                            status=Error.SERVER_ERROR.status)
    return server_error_page(request)
