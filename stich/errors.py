"""One JSON shape for every API error: ``{"code", "message", "fields"?}``.

``code`` is a stable machine string, ``message`` a sentence for people, ``fields`` (validation
errors only) maps each offending field to its messages. Hand records are the exception: the rule
engine's errors keep their own ``{"code", "message", "path"}`` (answered with 422).
"""
from __future__ import annotations

from django.db.models import ProtectedError
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
    if isinstance(exc, ProtectedError):
        return Response(
            {"code": "protected", "message": "Other records still refer to this one; remove them first."},
            status=status.HTTP_409_CONFLICT,
        )
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
