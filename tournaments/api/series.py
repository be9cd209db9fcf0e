"""REST API of series: ``/api/v1/series/`` and its standings.

A club's organisers create, change and delete (while it has no events) its series; events are
attached and detached with ``PATCH /api/v1/events/{id}/ {"series": id | null}``. Who sees a
series and which results count for whom is ``policy.Visibility``'s to say.
"""
from __future__ import annotations

import csv

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers
from rest_framework.decorators import action
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from games.catalog import GAMES
from games.openapi import error_responses

from .. import services
from ..models import POINTS_TABLE_RANKS, SERIES_OPTION_BOUNDS, Series
from ..standings.series_standings import series_document, series_events
from .renderers import BrowsableAPIRenderer
from .views import (
    CreateMixin,
    CSVRenderer,
    JSONErrorsMixin,
    PolicyViewSet,
    UpdateMixin,
)


class SeriesSerializer(serializers.ModelSerializer):
    game = serializers.ChoiceField(choices=sorted(GAMES), help_text="mu, maumau or lut.")
    scoring = serializers.ChoiceField(
        choices=Series.Scoring.values, required=False, default=Series.Scoring.PLACEMENT,
        help_text="placement: n − rank + 1 points per event (n ranked players); table: points_table by "
                  "event rank; total: the player's game total in the event (Maumau minus points negative).",
    )
    points_table = serializers.ListField(
        child=serializers.IntegerField(min_value=SERIES_OPTION_BOUNDS["points_table"][0],
                                       max_value=SERIES_OPTION_BOUNDS["points_table"][1]),
        required=False, default=list, max_length=POINTS_TABLE_RANKS,
        help_text="table scoring: the points of event rank 1, 2, …; ranks past its end score 0.",
    )
    best_of = serializers.IntegerField(required=False, allow_null=True, min_value=SERIES_OPTION_BOUNDS["best_of"][0],
                                       max_value=SERIES_OPTION_BOUNDS["best_of"][1], default=None,
                                       help_text="Only a player's best N event results count (null: all).")
    min_events = serializers.IntegerField(required=False, min_value=SERIES_OPTION_BOUNDS["min_events"][0],
                                          max_value=SERIES_OPTION_BOUNDS["min_events"][1], default=1,
                                          help_text="Players with fewer events are listed unranked after the others.")
    events = serializers.SerializerMethodField(help_text="The ids of the series' events you see, in date order.")

    class Meta:
        model = Series
        fields = ["id", "club", "name", "game", "season_from", "season_to", "scoring", "points_table",
                  "best_of", "min_events", "events", "created_at"]
        read_only_fields = ["created_at"]

    def get_events(self, series) -> list[int]:
        visibility = self.context.get("visibility")
        return [event.pk for event in series_events(series, visibility=visibility)] if visibility else []


class SeriesRowEventSerializer(serializers.Serializer):
    points = serializers.IntegerField()
    counted = serializers.BooleanField(help_text="Whether this event's points count (best_of).")


class SeriesRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, help_text="Null below min_events.")
    player = serializers.IntegerField()
    name = serializers.CharField(help_text="The name the player is shown by to you.")
    points = serializers.IntegerField(help_text="Counted series points.")
    played = serializers.IntegerField(help_text="Events played.")
    wins = serializers.IntegerField(help_text="Events won (rank 1, shared included).")
    per_event = serializers.DictField(child=SeriesRowEventSerializer(), help_text="Event id → its points.")


class SeriesStandingsSerializer(serializers.Serializer):
    scoring = serializers.ChoiceField(choices=Series.Scoring.values)
    best_of = serializers.IntegerField(allow_null=True)
    min_events = serializers.IntegerField()
    events = serializers.ListField(child=serializers.IntegerField(), help_text="Event ids in date order.")
    standings = SeriesRowSerializer(many=True)


class SeriesViewSet(JSONErrorsMixin, PolicyViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin, CreateMixin,
                    UpdateMixin, mixins.DestroyModelMixin):
    """Series: a club's season ranked over its events of one game. The club's organisers create,
    change and delete them (only while no event counts for it); a series is seen by whoever sees
    one of its events, and by its club's organisers."""

    serializer_class = SeriesSerializer
    filterset_fields = {"club": ["exact"], "game": ["exact"]}
    ordering_fields = ["season_from", "name", "created_at"]
    permissions = {"create": "add_series", "update": "change_series", "partial_update": "change_series",
                   "destroy": "delete_series"}

    def get_queryset(self):
        return self.visibility.series().select_related("club").order_by("-season_from", "name", "id")

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        serializer.instance = services.series_create(by_user=self.request.user, **data)

    def perform_update(self, serializer):
        data = dict(serializer.validated_data)
        club = data.pop("club", None)
        if club is not None and club != serializer.instance.club:
            raise serializers.ValidationError({"club": ["A series stays with its club."]})
        serializer.instance = services.series_update(series=serializer.instance, by_user=self.request.user, **data)

    def perform_destroy(self, series):
        services.series_delete(series=series, by_user=self.request.user)

    @extend_schema(responses={200: SeriesStandingsSerializer, (200, "text/csv"): OpenApiTypes.STR,
                              **error_responses(404)})
    @action(detail=True, methods=["get"], renderer_classes=[JSONRenderer, BrowsableAPIRenderer, CSVRenderer])
    def standings(self, request, pk=None, format=None):
        """The series' standings: rank (null below ``min_events``), counted points, events played and
        won, and each event's points with whether they count. JSON, or CSV as ``standings.csv``.
        Only the events and rounds you see count (unpublished events and held rounds for their
        organisers only)."""
        series = self.get_object()
        document = series_document(series, visibility=self.visibility)
        if request.accepted_renderer.format == "csv":
            return _standings_csv(series, document)
        return Response(document)


def _standings_csv(series: Series, document: dict) -> HttpResponse:
    """One row per player: rank, player, name, points, played, wins, then each event's points
    (in brackets when they do not count)."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="series-{series.pk}.csv"'
    writer = csv.writer(response)
    events = [str(event) for event in document["events"]]
    writer.writerow(["rank", "player", "name", "points", "played", "wins", *(f"event {e}" for e in events)])
    for row in document["standings"]:
        cells = []
        for event in events:
            entry = row["per_event"].get(event)
            cells.append("" if entry is None else entry["points"] if entry["counted"] else f"({entry['points']})")
        writer.writerow(["" if row["rank"] is None else row["rank"], row["player"], row["name"], row["points"],
                         row["played"], row["wins"], *cells])
    return response
