"""Hand records over the API: submit to a table, dry-run validation, corrections and voids.

Submitting is allowed to the players seated at the table, to the table's scorer token (header
``X-Scorer-Token``: the link or QR code an organiser hands to the table's device) and to the
event's organisers. Everything inside a record, types included, is the engine's to judge: 422 with
``{code, message, path}``.
"""
from __future__ import annotations

import hmac

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from tournaments import policy
from tournaments.models import Table

from . import services
from .models import Hand, HandVersion
from .rules import RecordError, validate
from .rules.errors import markdown_table
from .rules.schema import SCHEMAS, openapi_schema, record_schema

# The OpenAPI request body of submissions and dry runs: the record format's JSON Schema.
RECORD_BODY = {"application/json": openapi_schema("record")}
REJECTED = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description="The engine rejects the record: `{code, message, path}` (`path` a JSON Pointer). Codes:\n\n"
    + markdown_table(),
)


class RawJSONParser(JSONParser):
    """Any JSON document, not only objects: the engine judges a record that is not an object."""


def submission_rights(request, table: Table) -> bool:
    """Whether the request may submit to ``table``; True when it comes with the scorer token."""
    token = request.headers.get("X-Scorer-Token")
    if token:
        if hmac.compare_digest(token.encode(), table.scorer_token.encode()):
            return True
        raise PermissionDenied("This scorer token is not valid for this table.")
    user = request.user
    if not (user and user.is_authenticated):
        raise NotAuthenticated()
    if policy.organises_event(user, table.round.event) or table.seats.filter(player__user=user).exists():
        return False
    raise PermissionDenied("Only the players of this table, its scorer and the event's organisers submit here.")


def _answer(outcome: services.Outcome) -> Response:
    return Response(outcome.body, status=outcome.status)


class TableHandsView(APIView):
    """``POST /api/v1/tables/{id}/hands/``: submit the next hand of the table's current session."""

    permission_classes = [AllowAny]  # submission_rights decides, before the record is read
    parser_classes = [RawJSONParser]

    @extend_schema(
        request=RECORD_BODY,
        responses={201: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT, 422: REJECTED},
        parameters=[
            OpenApiParameter("hand", int, description="The hand number the table means to submit; 409 when taken."),
            OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER, description="Retries answer the first response."),
            OpenApiParameter("X-Scorer-Token", str, OpenApiParameter.HEADER, description="The table's scorer token."),
        ],
    )
    def post(self, request, pk: int):
        table = get_object_or_404(Table.objects.select_related("round__event"), pk=pk)
        via_token = submission_rights(request, table)
        expected = request.query_params.get("hand")
        if expected is not None and not expected.isdigit():
            return Response({"code": "invalid", "message": "hand must be a positive integer"}, status=400)
        outcome = services.hand_submit(
            table=table, record=request.data, by_user=request.user, via_scorer_token=via_token,
            expected_number=int(expected) if expected else None,
            idempotency_key=request.headers.get("Idempotency-Key") or None,
        )
        return _answer(outcome)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, pk: int):
        table = get_object_or_404(Table.objects.filter(round__event__in=policy.visible_events(request.user)), pk=pk)
        session = services.current_session(table, create=False)
        if session is None:
            return Response({"session": None, "hands": []})
        hands = [services.hand_view(hand) for hand in session.hands.order_by("number")]
        return Response({"session": services.session_summary(session), "hands": hands})


class DryRunView(APIView):
    """``POST /api/v1/records/validate``: the engine's answer (200) or error (422); stores nothing."""

    permission_classes = [AllowAny]
    parser_classes = [RawJSONParser]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "dry_run"

    @extend_schema(request=RECORD_BODY, responses={200: OpenApiTypes.OBJECT, 422: REJECTED})
    def post(self, request):
        try:
            return Response(validate(request.data))
        except RecordError as error:
            return Response(error.as_dict(), status=status.HTTP_422_UNPROCESSABLE_ENTITY)


class RecordSchemaView(APIView):
    """``GET /api/v1/records/schema/``: the names of the record schemas; ``.../{name}.json``: one of
    them (JSON Schema 2020-12: ``record``, a game, a game's ``-full`` or ``-summary``, ``maumau-series``)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, name: str | None = None):
        if name is None:
            base = request.build_absolute_uri()
            return Response({key: f"{base}{key}.json" for key in SCHEMAS})
        if name not in SCHEMAS:
            return Response({"code": "not_found", "message": f"no schema {name!r}"}, status=status.HTTP_404_NOT_FOUND)
        return Response(record_schema(name))


class HandVersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = HandVersion
        fields = ["version", "record", "result", "voided", "created_by", "via_scorer_token", "reason", "created_at"]


class HandSerializer(serializers.ModelSerializer):
    versions = HandVersionSerializer(many=True, read_only=True)

    class Meta:
        model = Hand
        fields = ["id", "session", "number", "dealer", "version", "voided", "record", "result", "versions", "updated_at"]


class CorrectionSerializer(serializers.Serializer):
    record = serializers.JSONField(help_text="The replacement record; the engine judges it (422).")
    reason = serializers.CharField(max_length=2000)


class VoidSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class HandViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Stored hands with every version; organisers correct or void them with a reason."""

    serializer_class = HandSerializer
    filterset_fields = {"session": ["exact"], "session__table": ["exact"]}

    def get_queryset(self):
        visible = policy.visible_events(self.request.user)
        hands = Hand.objects.filter(session__table__round__event__in=visible).prefetch_related("versions")
        if not self.request.user.is_staff:
            hidden = Hand.objects.filter(session__table__round__results_held=True).exclude(
                session__table__round__event__organisers=self.request.user.pk or 0
            )
            hands = hands.exclude(pk__in=hidden)
        return hands.order_by("session", "number")

    def may_change(self, user, hand: Hand) -> bool:
        """Object permission (ReadPublishedWriteOwned): only the event's organisers change hands."""
        return policy.organises_event(user, hand.session.table.round.event)

    def _organiser_only(self, hand: Hand) -> None:
        if not self.request.user.is_authenticated:
            raise NotAuthenticated()
        if not policy.organises_event(self.request.user, hand.session.table.round.event):
            raise PermissionDenied("Only the event's organisers correct hands.")

    @extend_schema(request=CorrectionSerializer, responses={200: OpenApiTypes.OBJECT, 422: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def correct(self, request, pk=None):
        hand = self.get_object()
        self._organiser_only(hand)
        data = CorrectionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _answer(services.hand_correct(
            hand=hand, record=data.validated_data["record"], by_user=request.user, reason=data.validated_data["reason"]
        ))

    @extend_schema(request=VoidSerializer, responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def void(self, request, pk=None):
        hand = self.get_object()
        self._organiser_only(hand)
        data = VoidSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _answer(services.hand_void(hand=hand, by_user=request.user, reason=data.validated_data["reason"]))
