"""One JSON shape for every API error: ``{"code", "message", "fields"?}``.

``code`` is a stable machine string, ``message`` a sentence for people, ``fields`` (validation
errors only) maps each offending field to its messages. Hand records are the exception: the rule
engine's errors keep their own ``{"code", "message", "path"}`` (answered with 422).
"""
from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db.models import ProtectedError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from games.rules import RecordError
from tournaments.errors import Conflict, DomainError, Invalid, NotAllowed, NotFound, RecordRejected

# The HTTP status of each domain error (services know nothing of HTTP).
DOMAIN_STATUS = {
    Invalid: status.HTTP_400_BAD_REQUEST,
    NotAllowed: status.HTTP_403_FORBIDDEN,
    NotFound: status.HTTP_404_NOT_FOUND,
    Conflict: status.HTTP_409_CONFLICT,
    RecordRejected: status.HTTP_422_UNPROCESSABLE_ENTITY,
}


def domain_status(error: DomainError) -> int:
    for cls in type(error).__mro__:
        if cls in DOMAIN_STATUS:
            return DOMAIN_STATUS[cls]
    return status.HTTP_400_BAD_REQUEST


def _flatten(detail) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            text = _flatten(value)
            return text if key in ("non_field_errors", "detail") else f"{key}: {text}"
        return ""
    if isinstance(detail, list):
        return _flatten(detail[0]) if detail else ""
    return str(detail)


def json_exception_handler(exc, context):
    if isinstance(exc, DomainError):
        return Response(exc.as_dict(), status=domain_status(exc))
    if isinstance(exc, RecordError):
        return Response(exc.as_dict(), status=status.HTTP_422_UNPROCESSABLE_ENTITY)
    if isinstance(exc, OverflowError):
        # An id or number beyond what the database stores (SQLite raises; PostgreSQL finds nothing).
        return Response({"code": "out_of_range", "message": "A number in the request is out of range."},
                        status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, ProtectedError):
        return Response(
            {"code": "protected", "message": "Other records still refer to this one; remove them first."},
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = {"code": "invalid", "message": _flatten(fields), "fields": fields}
        response.status_code = status.HTTP_400_BAD_REQUEST
        return response
    detail = getattr(exc, "detail", None)
    code = detail.code if hasattr(detail, "code") else getattr(exc, "default_code", "error")
    body = {"code": code, "message": str(detail if detail is not None else exc)}
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        body["retry_after"] = int(exc.wait)
    return Response(body, status=response.status_code, headers=dict(response.headers.items()))


def _api_path(request) -> bool:
    return request.path.startswith("/api/")


def not_found(request, exception=None):
    """404 for a URL that matches no route: the JSON error shape under ``/api/``."""
    if _api_path(request):
        from django.http import JsonResponse

        return JsonResponse({"code": "not_found", "message": "No such address in the API."}, status=404)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def server_error(request):
    """500: the JSON error shape under ``/api/`` (the details go to the log, not to the client)."""
    if _api_path(request):
        from django.http import JsonResponse

        return JsonResponse({"code": "server_error", "message": "The server failed; the error is logged."}, status=500)
    from django.views.defaults import server_error as page

    return page(request)
