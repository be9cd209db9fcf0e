"""The evening over the API: who is checked in, and the state of an event's tables.

- ``/api/v1/events/{id}/checkins/``: ``GET`` lists the players checked in, ``POST {"player": id}``
  checks one in (``services.player_check_in``, as the console does; checking in a present player
  changes nothing and answers the same); ``DELETE .../checkins/{player}/`` checks him out
  (``services.player_check_out``). The event's organisers only (``check_in_at_event``): who is here
  tonight is the organisers' data.
- ``/api/v1/events/{id}/tables/``: every table of the current round (or ``?round=N``) with its
  players, its session's state, hands, totals and the time of its last hand, for whoever sees the
  event; a round held back is missing for all but its organisers. The read is the one the
  console's board and the room screen show (``tables.round_progress``); the answer spells its
  states as ``TABLE_STATES`` says.
"""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.response import Response

from games.openapi import error_responses
from games.parsers import JSONParser

from .. import policy, services
from ..errors import NotFound
from ..models import Event, Player
from ..standings import selectors
from ..standings.tables import RoundProgress, TableState, round_progress
from .views import PolicyAPIView


# The body is the component ``CheckinRequest`` (the spectacular default would say "Request" twice).
@extend_schema_serializer(component_name="Checkin")
class CheckinRequestSerializer(serializers.Serializer):
    player = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), help_text="The id of a player of the event's club.")


class CheckinSerializer(serializers.Serializer):
    player = serializers.IntegerField(help_text="The player's id.")
    name = serializers.CharField(help_text="The name shown to you (namesakes told apart).")
    checked_in_at = serializers.DateTimeField(help_text="When he checked in (last).")
    number = serializers.IntegerField(help_text="His number in the event (start number: the order in which "
                                                "he was first checked in); a seating script names him by it.")


class CheckinListSerializer(serializers.Serializer):
    event = serializers.IntegerField()
    players = CheckinSerializer(many=True, help_text="The players checked in now, in check-in order: the players "
                                                     "the next draw seats.")


# The answer's names of the table states (``tables.TableState``, the states the board and the room
# screen show): two keep the spelling the API's clients know.
TABLE_STATES = {
    TableState.WAITING: "not_started",
    TableState.PLAYING: "in_progress",
    TableState.CONFIRMING: "confirming",
    TableState.FINISHED: "finished",
    TableState.ABANDONED: "abandoned",
}


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
        choices=list(TABLE_STATES.values()),
        help_text="not_started: no hand yet; in_progress: hands entered, not over; confirming: a hand entered by "
                  "one seat waits for another seat's (or an organiser's) confirmation, and does not count until "
                  "then (this state comes before finished: a session whose last hand waits is confirming); "
                  "finished; abandoned (given up; whatever waits).")
    session = serializers.IntegerField(allow_null=True, help_text="The table's current session (null before it has "
                                                                  "one).")
    hands = serializers.IntegerField(help_text="Hands entered in the session (voided ones included).")
    hands_due = serializers.IntegerField(allow_null=True, help_text="Hands the session runs, voided ones included: "
                                                                    "its length and one more for each voided hand "
                                                                    "that does not count toward it (Mü's fixed deals) "
                                                                    "(null: until a total reaches target).")
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


CHECKIN_EXAMPLE = OpenApiExample(
    "Check a player in", value={"player": 12}, request_only=True)
CHECKIN_ANSWER_EXAMPLE = OpenApiExample(
    "Checked in", value={"player": 12, "name": "Anna Berg", "checked_in_at": "2026-11-25T18:02:11Z", "number": 7},
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
        number = query.validated_data.get("round")
        progress = round_progress(event, visibility=visibility, number=number,
                                  whole_evening=event.format == Event.Format.OPEN)
        if progress is None and number is not None:
            raise NotFound("this event has no such round, or its results are not shown to you")
        return Response(tables_document(event, progress, visibility=visibility))


def tables_document(event: Event, progress: RoundProgress | None, *, visibility: policy.Visibility) -> dict:
    """The answer of ``/tables/`` (after MahjongPantheon's ``GetTablesState``): per table its number,
    its round, its players in seat order (seats from 1) by the names this reader sees with their
    totals, its state (``TABLE_STATES``), its session, the hands entered and due, those waiting
    for a confirmation and when the last hand came in. ``progress`` None: no round yet."""
    tables = progress.tables if progress is not None else []
    names = visibility.names({seat.player for table in tables for seat in table.seats})
    return {
        "event": event.pk, "game": event.game,
        "round": {"id": progress.round_id, "number": progress.round_number}
        if progress is not None and progress.round_id is not None else None,
        "tables": [{
            "id": table.id, "number": table.number,
            "round": {"id": table.round_id, "number": table.round_number},
            "state": TABLE_STATES[table.state], "session": table.session,
            "hands": table.hands, "hands_due": table.due, "target": table.target,
            "waiting_for_confirmation": table.waiting, "last_hand_at": table.last_hand_at,
            "players": [{"seat": index + 1, "player": seat.player, "name": names.get(seat.player, ""),
                         "total": seat.total} for index, seat in enumerate(table.seats)],
        } for table in tables],
    }
