"""The rule engine over the API: ``POST /api/v1/records/validate`` judges a record and stores
nothing; ``GET /api/v1/records/schema/`` publishes the record format as JSON Schema. Everything
inside a record, types included, is the engine's to judge."""
from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from .openapi import error_responses
from .parsers import JSONParser
from .rules import validate
from .rules.schema import SCHEMAS, record_schema
from .throttling import SlidingRateThrottle

# The record format's named components (games.rules.schema.openapi_components, added to the API
# description by stich/schema.py): the request body of submissions and dry runs.
RECORD_REF = {"$ref": "#/components/schemas/HandRecord"}
RECORD_BODY = {"application/json": RECORD_REF}


@extend_schema_field(RECORD_REF)
class RecordField(serializers.JSONField):
    """A hand record inside a body or an answer (``HandRecord`` in the API description)."""


@extend_schema_field({"type": "object", "additionalProperties": True,
                      "description": "The engine's answer (records.md): scores and the game's summary; null when "
                                     "the hand is voided."})
class AnswerField(serializers.JSONField):
    """The engine's answer to a record, or null."""
# records.md's Mü summary example: what a paper score sheet of one deal holds.
MU_SUMMARY = {"game": "mu", "players": 5, "dealer": 0,
              "summary": {"bids": [3, 1, 3, 4, 1], "chef": 3, "vice": 2, "provocateur": None, "vice_trump": "G",
                          "chef_trump": "1", "partner": 0, "card_points": [10, 12, 9, 19, 10]}}
RECORD_EXAMPLES = [
    OpenApiExample("A Mü deal from the score sheet", value=MU_SUMMARY, request_only=True,
                   description="records.md's summary example: team 29 < 33, scores [10, 22, 19, -1, 20]."),
    OpenApiExample("Card points that do not add up", value={**MU_SUMMARY, "summary": {
        **MU_SUMMARY["summary"], "card_points": [10, 12, 9, 19, 9]}}, request_only=True),
    OpenApiExample("The engine's refusal", status_codes=["422"], response_only=True,
                   value={"code": "card_points_sum",
                          "message": "card_points must sum to 60, got 59: 60 points are in play with 5 players",
                          "path": "/summary/card_points"}),
]


# What the dry run reads besides the body (stich/errors.py: the 422's message for people).
DRY_RUN_PARAMETERS = [
    OpenApiParameter(
        "name", str, many=True, explode=True,
        description="The players' names in seat order (`?name=Anna&name=Beate…`, at most 8, each cut at 80 "
                    "characters): a 422 message in the language of `Accept-Language` names the seats by them.",
    ),
    OpenApiParameter(
        "Accept-Language", str, location=OpenApiParameter.HEADER,
        description="`en`, `de` or `fi` (a list as browsers send it): the 422's `message` is the sentence for "
                    "people in that language (seats counted from 1, cards by name); otherwise the engine's "
                    "English sentence.",
    ),
]


class RawJSONParser(JSONParser):
    """Any JSON document, not only objects: the engine judges a record that is not an object."""


class DryRunView(APIView):
    """``POST /api/v1/records/validate``: the engine's answer (200) or error (422); stores nothing."""

    permission_classes = [AllowAny]
    parser_classes = [RawJSONParser]
    throttle_classes = [SlidingRateThrottle]  # atomic counts; a local count while the cache is down
    throttle_scope = "dry_run"

    @extend_schema(
        request=RECORD_BODY,
        examples=RECORD_EXAMPLES,
        parameters=DRY_RUN_PARAMETERS,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="The engine's answer (records.md): scores and the "
                                                                  "game's summary."),
            **error_responses(422, 429),
        },
    )
    def post(self, request):
        """Validate a hand record without storing it (throttled per client)."""
        return Response(validate(request.data))  # a RecordError is 422 (stich/errors.py)


class RecordSchemaView(APIView):
    """``GET /api/v1/records/schema/``: the names of the record schemas; ``.../{name}.json``: one of
    them (JSON Schema 2020-12: ``record``, a game, a game's ``-full`` or ``-summary``, ``maumau-series``)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, name: str | None = None):
        """The record format as JSON Schema: the list of schemas, or one of them by name."""
        if name is None:
            base = request.build_absolute_uri()
            return Response({key: f"{base}{key}.json" for key in SCHEMAS})
        if name not in SCHEMAS:
            raise NotFound(f"no schema {name!r}")
        return Response(record_schema(name))


@extend_schema_view(get=extend_schema(operation_id="records_schema_document_retrieve"))
class RecordSchemaDocumentView(RecordSchemaView):
    """``GET /api/v1/records/schema/{name}.json``: one record schema."""
