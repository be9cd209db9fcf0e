"""Hand records over the API: submit to a table, corrections and voids, the table's sheet.

Submitting is allowed to the players seated at the table, to the table's scorer link (header
``X-Scorer-Token``: the link or QR code an organiser hands to the table's device) and to the
event's organisers: the views pass what the request brings (``policy.Credentials``) and the
policy names the acting party (``policy.acting_party``). Everything inside a record, types included, is the engine's to judge: 422 with
``{code, message, path}``.
"""
from __future__ import annotations

import re

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status
from rest_framework.authentication import CSRFCheck
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api import (
    RECORD_BODY,
    RECORD_EXAMPLES,
    AnswerField,
    RawJSONParser,
    RecordField,
)
from games.openapi import error_responses

from .. import policy
from ..errors import Invalid
from ..models import Hand, HandVersion, Table
from ..people.identity import device_of
from ..results import services as results
from .serializers import NextHandSerializer
from .views import PolicyViewSet


class HandViewSerializer(serializers.Serializer):
    entered_by_seat = serializers.IntegerField(allow_null=True, help_text="The seat whose player entered the hand.")
    unconfirmed = serializers.BooleanField(help_text="Waits for another seat's confirmation; counts only after it.")
    disputed = serializers.BooleanField(help_text="A seat disputed it: the organisers confirm, correct or void it.")
    id = serializers.IntegerField()
    session = serializers.IntegerField()
    number = serializers.IntegerField(help_text="The hand's slot in its session, from 1.")
    dealer = serializers.IntegerField(help_text="The seat that dealt.")
    version = serializers.IntegerField(help_text="1 for the first submission; each correction or void adds one.")
    voided = serializers.BooleanField()
    record = RecordField(help_text="The hand record (records.md).")
    result = AnswerField(allow_null=True)


class SessionSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["open", "finished", "abandoned"])
    hands = serializers.IntegerField()
    totals = serializers.ListField(child=serializers.IntegerField(), help_text="Per seat.")
    first_dealer = serializers.IntegerField(allow_null=True)
    unconfirmed = serializers.IntegerField(help_text="Hands waiting for a second player's confirmation.")
    next = NextHandSerializer(allow_null=True, help_text="null once the session is over.")


class ReceiptSerializer(serializers.Serializer):
    hand = HandViewSerializer()
    result = AnswerField(allow_null=True)
    session = SessionSummarySerializer()


class SheetSerializer(serializers.Serializer):
    session = SessionSummarySerializer(allow_null=True)
    hands = HandViewSerializer(many=True)


def bound_player(request):
    """The player whose bound phone sends this write (``tournaments/people/identity.py``), if the
    request also carries the page's CSRF token: the phone's cookie goes with any request to the
    site, so a write on its strength alone could be forged by another site."""
    device = device_of(request._request)
    if device is None:
        return None
    check = CSRFCheck(lambda _request: None)
    check.process_request(request._request)
    if check.process_view(request._request, None, (), {}) is not None:
        return None
    return device.player


def submitting(request) -> policy.Credentials:
    """What a submission brings besides its login: the scorer token, the seat named on the
    table's shared device (``X-Scorer-Seat``) and the player of a bound phone."""
    return policy.Credentials(scorer_token=request.headers.get("X-Scorer-Token") or None,
                              seat=request.headers.get("X-Scorer-Seat"), player=bound_player(request))


def hand_party(request, hand: Hand, action: str) -> policy.Party:
    """Who confirms or disputes ``hand``: on the scorer link the seat named in the body's ``seat``."""
    token = request.headers.get("X-Scorer-Token") or None
    seat = None
    if token:
        data = request.data if isinstance(request.data, dict) else {}
        seat = data.get("seat")
    credentials = policy.Credentials(scorer_token=token, seat=seat, player=None if token else bound_player(request))
    return policy.acting_party(request.user, hand.session.table, credentials, action=action, hand=hand)


def expected_hand(request) -> int | None:
    value = request.query_params.get("hand")
    if value is None or value == "":
        return None
    # ASCII digits only: str.isdigit() also accepts "²".
    if not re.fullmatch(r"[0-9]{1,6}", value) or int(value) < 1:
        raise Invalid("hand must be a positive integer", field="hand")
    return int(value)


class TableHandsView(APIView):
    """``/api/v1/tables/{id}/hands/``: the current session's hands (GET), the next hand (POST)."""

    permission_classes = [AllowAny]  # the policy decides in the submission, before the record is read
    parser_classes = [RawJSONParser]

    @extend_schema(
        operation_id="tables_hands_create",
        request=RECORD_BODY,
        examples=RECORD_EXAMPLES,
        auth=[{"scorerToken": []}, {"tokenAuth": []}, {"cookieAuth": []}],
        responses={201: ReceiptSerializer, **error_responses(400, 401, 403, 404, 422, described={
            409: "`session_closed`, `hand_taken` (another submission took the slot), `not_next_hand` (`?hand=N` is "
                 "not the next hand) or `idempotency_key_reused`: `{code, message}`."})},
        parameters=[
            OpenApiParameter("hand", int, description="The hand number the table means to submit; 409 when taken."),
            OpenApiParameter("X-Scorer-Seat", int, OpenApiParameter.HEADER,
                             description="With the scorer link: the seat of the player who entered the hand (events "
                                         "with second-player confirmation: another seat confirms it)."),
            OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER,
                             description="A key per hand, chosen by the client: a retry with the same key and record "
                                         "answers the first receipt again; the same key with another record is 409."),
        ],
    )
    def post(self, request, pk: int):
        """Submit the next hand of the table's current session (seated players, the table's scorer
        link, the event's organisers)."""
        # The body is read (``request.data``) only once the policy let the party submit: 401/403
        # come before a 400 for a body that is not JSON. Its parser (games.parsers.read_json)
        # refuses text the database cannot store: the service does not look for it again.
        entry = results.Entry(record=lambda: request.data, credentials=submitting(request),
                              expected_number=expected_hand(request), text_checked=True)
        try:
            submission = results.hand_submit(
                table_id=pk, entry=entry, by_user=request.user,
                idempotency_key=request.headers.get("Idempotency-Key") or None,
            )
        except Table.DoesNotExist:
            raise Http404 from None
        return Response(submission.receipt, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="tables_hands_list", responses={200: SheetSerializer, **error_responses(404)})
    def get(self, request, pk: int):
        """The table's current session with every hand, as the table's sheet shows it."""
        table = get_object_or_404(policy.visibility(request.user).tables(), pk=pk)
        session = results.current_session(table)
        if session is None:
            return Response({"session": None, "hands": []})
        hands = [results.hand_view(hand) for hand in session.hands.order_by("number")]
        return Response({"session": results.session_summary(session), "hands": hands})


class HandVersionSerializer(serializers.ModelSerializer):
    record = RecordField(read_only=True)
    result = AnswerField(read_only=True, allow_null=True)
    class Meta:
        model = HandVersion
        fields = ["version", "dealer", "record", "result", "voided", "created_by", "via_scorer_token", "reason",
                  "created_at"]


class HandSerializer(serializers.ModelSerializer):
    versions = HandVersionSerializer(many=True, read_only=True)
    record = RecordField(read_only=True)
    result = AnswerField(read_only=True, allow_null=True)

    class Meta:
        model = Hand
        fields = ["id", "session", "number", "dealer", "version", "voided", "record", "result", "entered_by_seat",
                  "unconfirmed", "disputed", "confirmed_at", "confirmed_by_seat", "versions", "updated_at"]


class CorrectionSerializer(serializers.Serializer):
    record = RecordField(help_text="The replacement record; the engine judges it (422).")
    reason = serializers.CharField(max_length=2000)


class VoidSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class ConfirmSerializer(serializers.Serializer):
    seat = serializers.IntegerField(required=False, min_value=0,
                                    help_text="With the scorer link: the confirming player's seat.")


class DisputeSerializer(ConfirmSerializer):
    reason = serializers.CharField(max_length=2000)


class HandViewSet(PolicyViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Stored hands with every version. The event's organisers **correct** a hand that was entered
    wrongly (a new version replaces it in its slot) or **void** one that must not count (its slot
    stays, it scores nothing); both need a reason and are audited."""

    serializer_class = HandSerializer
    filterset_fields = {"session": ["exact"], "session__table": ["exact"]}
    permissions = {"correct": "change_hand", "void": "change_hand"}

    def get_queryset(self):
        return self.visibility.hands().prefetch_related("versions").order_by("session", "number")

    @extend_schema(request=CorrectionSerializer,
                   responses={200: ReceiptSerializer, **error_responses(400, 401, 403, 404, 422)})
    @action(detail=True, methods=["post"], serializer_class=CorrectionSerializer)
    def correct(self, request, pk=None):
        """Replace the hand's record (checked against the hands before it); also brings back a
        voided hand."""
        hand = self.get_object()
        data = CorrectionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(results.hand_correct(
            hand=hand, record=data.validated_data["record"], by_user=request.user, reason=data.validated_data["reason"]
        ))

    @extend_schema(request=VoidSerializer,
                   responses={200: ReceiptSerializer, **error_responses(400, 401, 403, 404, 409)})
    @action(detail=True, methods=["post"], serializer_class=VoidSerializer)
    def void(self, request, pk=None):
        """Void the hand: it keeps its slot (the dealer still moved on) and scores nothing."""
        hand = self.get_object()
        data = VoidSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(results.hand_void(hand=hand, by_user=request.user, reason=data.validated_data["reason"]))

    def _hand_for_table(self, pk) -> Hand:
        # Not through the reader's visibility: the table's scorer link acts without an account.
        return get_object_or_404(Hand.objects.select_related("session__table__round__event"), pk=pk)

    @extend_schema(request=ConfirmSerializer,
                   responses={200: ReceiptSerializer, **error_responses(400, 401, 403, 404, 409)})
    @action(detail=True, methods=["post"], serializer_class=ConfirmSerializer, permission_classes=[AllowAny])
    def confirm(self, request, pk=None):
        """Confirm a hand that waits for a second player (events with ``confirm_hands``): another
        seat than the one that entered it (403 ``same_seat``), or an organiser. From then on it
        counts in totals, standings, money and ratings."""
        hand = self._hand_for_table(pk)
        party = hand_party(request, hand, "confirm")
        return Response(results.hand_confirm(hand=hand, seat=party.seat, by_user=request.user, via=party.via,
                                             player=party.player))

    @extend_schema(request=DisputeSerializer,
                   responses={200: ReceiptSerializer, **error_responses(400, 401, 403, 404, 409)})
    @action(detail=True, methods=["post"], serializer_class=DisputeSerializer, permission_classes=[AllowAny])
    def dispute(self, request, pk=None):
        """Dispute a hand that waits for confirmation: the organisers then confirm, correct or void
        it (with a reason)."""
        hand = self._hand_for_table(pk)
        party = hand_party(request, hand, "dispute")
        data = DisputeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(results.hand_dispute(hand=hand, seat=party.seat, reason=data.validated_data["reason"],
                                             by_user=request.user, via=party.via, player=party.player))
