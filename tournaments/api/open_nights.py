"""``/api/v1/events/{id}/open-table/``: the next table of an open club night (``open_nights``).

``GET`` proposes who should sit together (the free present players, the size, the players in seat
order and the first dealer); ``POST {"players": [ids]}`` opens the table. Organisers of the event
only (``open_table_at_event``): who is here tonight is the organisers' data.
"""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from games.openapi import error_responses

from .. import policy
from ..draws import open_nights
from ..models import Player, Table
from .serializers import TableSerializer
from .views import PolicyAPIView


# The body is the component ``OpenTableRequest`` (the spectacular default would say "Request" twice).
@extend_schema_serializer(component_name="OpenTable")
class OpenTableRequestSerializer(serializers.Serializer):
    players = serializers.PrimaryKeyRelatedField(
        many=True, queryset=Player.objects.all(),
        help_text="3–6 (the game's table sizes) present players who sit at no unfinished table.")


class OpenTableSuggestionSerializer(serializers.Serializer):
    free = serializers.ListField(child=serializers.IntegerField(),
                                 help_text="Present players at no unfinished table, in check-in order.")
    size = serializers.IntegerField(allow_null=True, help_text="The proposed table size (null: too few free).")
    players = serializers.ListField(child=serializers.IntegerField(),
                                    help_text="The proposed players in seat order: fewest meetings tonight, "
                                              "then in the series' other events.")
    first_dealer = serializers.IntegerField(allow_null=True)


class OpenTableView(PolicyAPIView):
    # The proposal and the opening are the event's organisers' (PolicyPermission asks the policy on
    # the event).
    permissions = {"GET": "open_table_at_event", "POST": "open_table_at_event"}

    def _event(self, request, pk: int):
        event = get_object_or_404(policy.Visibility(request.user).events(), pk=pk)
        self.check_object_permissions(request, event)
        return event

    @extend_schema(responses={200: OpenTableSuggestionSerializer, **error_responses(401, 403, 404)})
    def get(self, request, pk: int):
        """The proposed next table of an open club night."""
        return Response(open_nights.suggestion(self._event(request, pk)))

    @extend_schema(request=OpenTableRequestSerializer,
                   responses={201: TableSerializer, **error_responses(400, 401, 403, 404, 409)})
    def post(self, request, pk: int):
        """Open a table (a round of its own) for the players given, in the seat order the draw
        would choose."""
        event = self._event(request, pk)
        data = OpenTableRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = open_nights.open_table(event=event, players=data.validated_data["players"], by_user=request.user)
        table = Table.objects.select_related("round__event").prefetch_related("seats").get(pk=table.pk)
        context = {"request": request, "visibility": policy.Visibility(request.user)}
        return Response(TableSerializer(table, context=context).data, status=status.HTTP_201_CREATED)
