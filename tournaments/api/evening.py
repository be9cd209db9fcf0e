"""The evening over the API: who is checked in, and the state of an event's tables.

- ``/api/v1/events/{id}/checkins/``: ``GET`` lists the players checked in, ``POST {"player": id}``
  checks one in (``services.player_check_in``, as the console does; checking in a present player
  changes nothing and answers the same); ``DELETE .../checkins/{player}/`` checks him out
  (``services.player_check_out``). The event's organisers only (``check_in_at_event``): who is here
  tonight is the organisers' data.
- ``/api/v1/events/{id}/tables/``: every table of the current round (or ``?round=N``) with its
  players, its session's state, hands, totals and the time of its last hand, for whoever sees the
  event; a round held back is missing for all but its organisers (``selectors.tables_state``).
"""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.response import Response

from games.parsers import JSONParser

from .. import policy, services
from ..models import Player
from ..standings import selectors
from .views import ERROR_RESPONSES, PolicyAPIView


class CheckinRequestSerializer(serializers.Serializer):
    player = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), help_text="The id of a player of the event's club.")


class CheckinSerializer(serializers.Serializer):
    player = serializers.IntegerField(help_text="The player's id.")
    name = serializers.CharField(help_text="The name shown to you (namesakes told apart).")
    checked_in_at = serializers.DateTimeField(help_text="When he checked in (last).")


class CheckinListSerializer(serializers.Serializer):
    event = serializers.IntegerField()
    players = CheckinSerializer(many=True, help_text="The players checked in now, in check-in order: the players "
                                                     "the next draw seats.")


class TablesQuerySerializer(serializers.Serializer):
    round = serializers.IntegerField(required=False, min_value=1, max_value=32767,
                                     help_text="The round's number (default: the latest round with tables).")


class RoundRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()


class TablePlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, help_text="The seat, counted from 1 (seat 1 is the record's "
                                                           "seat 0), clockwise.")
    player = serializers.IntegerField(help_text="The player's id.")
    name = serializers.CharField(help_text="The name shown to you (namesakes told apart).")
    total = serializers.IntegerField(help_text="His total in the session so far (hands that count; Maumau: minus "
                                               "points negated).")


class TableStateSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The table's id.")
    number = serializers.IntegerField(help_text="The table's number in its round.")
    round = RoundRefSerializer()
    state = serializers.ChoiceField(
        choices=["not_started", "in_progress", "finished", "abandoned"],
        help_text="not_started: no hand yet; in_progress: hands entered, not over; finished; abandoned.")
    session = serializers.IntegerField(allow_null=True, help_text="The table's current session (null before it has "
                                                                  "one).")
    hands = serializers.IntegerField(help_text="Hands entered in the session (voided ones included).")
    hands_due = serializers.IntegerField(allow_null=True, help_text="Hands the session runs (null: until a total "
                                                                    "reaches target).")
    target = serializers.IntegerField(allow_null=True, help_text="Mü: the target score, when the session runs to one.")
    waiting_for_confirmation = serializers.IntegerField(
        help_text="Hands entered by one seat that wait for another's confirmation (they do not count yet).")
    last_hand_at = serializers.DateTimeField(allow_null=True, help_text="When the last hand was entered.")
    players = TablePlayerSerializer(many=True, help_text="In seat order.")


class TablesStateSerializer(serializers.Serializer):
    event = serializers.IntegerField()
    game = serializers.CharField()
    round = RoundRefSerializer(allow_null=True, help_text="The round shown; null for an open club night's "
                                                          "evening (each table a round of its own) or no round yet.")
    tables = TableStateSerializer(many=True)


ERROR_SCHEMA_REF = {"$ref": "#/components/schemas/Error"}  # the one error shape (added by stich/schema.py)


def error_responses(*statuses: int) -> dict:
    """The error answers of an operation, each with the error shape (``{code, message, ...}``)."""
    return {code: OpenApiResponse(response=ERROR_SCHEMA_REF, description=ERROR_RESPONSES[code].description)
            for code in statuses}


CHECKIN_EXAMPLE = OpenApiExample(
    "Check a player in", value={"player": 12}, request_only=True)
CHECKIN_ANSWER_EXAMPLE = OpenApiExample(
    "Checked in", value={"player": 12, "name": "Anna Berg", "checked_in_at": "2026-11-25T18:02:11Z"},
    response_only=True, status_codes=["200"])


class _OrganisersOfEvent(PolicyAPIView):
    # Check-in, check-out and the list of who is here: the event's organisers (PolicyPermission
    # asks the policy on the event; anonymous 401, others who see the event 403).
    permissions = {"GET": "check_in_at_event", "POST": "check_in_at_event", "DELETE": "check_in_at_event"}
    parser_classes = [JSONParser]

    def _event(self, request, pk: int):
        event = get_object_or_404(policy.Visibility(request.user).events(), pk=pk)
        self.check_object_permissions(request, event)
        return event


class CheckinsView(_OrganisersOfEvent):
    @extend_schema(operation_id="events_checkins_list",
                   responses={200: CheckinListSerializer, **error_responses(401, 403, 404)})
    def get(self, request, pk: int):
        """The players checked in at the event now, in check-in order (the event's organisers)."""
        event = self._event(request, pk)
        return Response({"event": event.pk, "players": selectors.checked_in(event, visibility=policy.Visibility(request.user))})

    @extend_schema(operation_id="events_checkins_create", request=CheckinRequestSerializer,
                   responses={200: CheckinSerializer, **error_responses(400, 401, 403, 404, 409)},
                   examples=[CHECKIN_EXAMPLE, CHECKIN_ANSWER_EXAMPLE])
    def post(self, request, pk: int):
        """Check a player of the event's club in (the event's organisers): the next draw seats him.
        Checking in a player who is checked in changes nothing and answers the same. 400
        ``not_a_member`` for a player of another club, 409 ``anonymised`` for a deleted one."""
        event = self._event(request, pk)
        data = CheckinRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        attendance = services.player_check_in(event=event, player=data.validated_data["player"], by_user=request.user)
        return Response(selectors.checkin_entry(attendance, visibility=policy.Visibility(request.user)),
                        status=status.HTTP_200_OK)


class CheckoutView(_OrganisersOfEvent):
    @extend_schema(operation_id="events_checkins_destroy", request=None,
                   responses={204: OpenApiResponse(description="Checked out (or was not checked in)."),
                              **error_responses(401, 403, 404)})
    def delete(self, request, pk: int, player: int):
        """Check a player out (a dropout; the event's organisers): later draws leave him out, his
        tables and results stay. A player who is not checked in stays so (204 all the same); a
        player who is not of the event's club is 404."""
        event = self._event(request, pk)
        target = get_object_or_404(policy.Visibility(request.user).players().filter(clubs=event.club_id), pk=player)
        services.player_check_out(event=event, player=target, by_user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class EventTablesView(PolicyAPIView):
    # A read for whoever sees the event: no permission is named, the policy's querysets decide.
    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="events_tables_retrieve",
        parameters=[OpenApiParameter("round", OpenApiTypes.INT, description="The round's number (default: the latest "
                                                                            "round with tables).")],
        responses={200: TablesStateSerializer, **error_responses(400, 404)},
    )
    def get(self, request, pk: int):
        """The state of the event's tables (as MahjongPantheon's GetTablesState): per table of the
        latest round with tables (or ``?round=N``; an open club night: every table of the evening)
        its number, its players by seat (from 1) and their totals, its session's state, the hands
        entered and when the last one came in. A round held back is missing (404 with
        ``?round=``) for all but the event's organisers."""
        visibility = policy.Visibility(request.user)
        event = get_object_or_404(visibility.events(), pk=pk)
        query = TablesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(selectors.tables_state(event, visibility=visibility,
                                               round_number=query.validated_data.get("round")))
