"""The rule engine over the API: ``POST /api/v1/records/validate`` judges a record and stores
nothing. Everything inside a record, types included, is the engine's to judge."""
from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from .parsers import JSONParser
from .rules import RecordError, validate


class RawJSONParser(JSONParser):
    """Any JSON document, not only objects: the engine judges a record that is not an object."""


class DryRunView(APIView):
    """``POST /api/v1/records/validate``: the engine's answer (200) or error (422); stores nothing."""

    permission_classes = [AllowAny]
    parser_classes = [RawJSONParser]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "dry_run"

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="The engine's answer (records.md): scores and the "
                                                                  "game's summary."),
            422: OpenApiResponse(description="`{code, message, path}`: the record breaks a rule; `path` is a JSON "
                                             "Pointer into the record."),
            429: OpenApiResponse(description="Too many dry runs: `{code, message, retry_after}`."),
        },
    )
    def post(self, request):
        """Validate a hand record without storing it (throttled per client)."""
        try:
            return Response(validate(request.data))
        except RecordError as error:
            return Response(error.as_dict(), status=status.HTTP_422_UNPROCESSABLE_ENTITY)
