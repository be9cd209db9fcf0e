"""REST API of series: ``/api/v1/series/`` and its standings.

A club's organisers create, change and delete (while it has no events) its series; events are
attached and detached with ``PATCH /api/v1/events/{id}/ {"series": id | null}``. Who sees a
series and which results count for whom is ``policy.Visibility``'s to say.
"""
from __future__ import annotations

import csv

from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers
from rest_framework.decorators import action
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from games.catalog import GAME_CHOICES, GAMES
from games.openapi import error_responses

from .. import services
from ..models import POINTS_TABLE_RANKS, SERIES_OPTION_BOUNDS, Series
from ..standings.display import event_label, series_move
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
    games = serializers.ListField(
        child=serializers.ChoiceField(choices=GAME_CHOICES), required=False, default=list, max_length=len(GAMES),
        help_text="A season over several games: the games whose events count, e.g. [\"mu\", \"maumau\"] "
                  "(game among them; placement or table scoring). Empty: only game.")
    aggregate = serializers.ChoiceField(
        choices=Series.Aggregate.values, required=False, default=Series.Aggregate.SUM,
        help_text="sum: the counted events' points added up; average: their mean over the counted events.")
    drop_worst = serializers.IntegerField(
        required=False, default=0, min_value=SERIES_OPTION_BOUNDS["drop_worst"][0],
        max_value=SERIES_OPTION_BOUNDS["drop_worst"][1],
        help_text="A player's N worst events do not count (he keeps at least one); not with best_of.")
    qualify_percent = serializers.IntegerField(
        required=False, default=0, min_value=SERIES_OPTION_BOUNDS["qualify_percent"][0],
        max_value=SERIES_OPTION_BOUNDS["qualify_percent"][1],
        help_text="Ranked from ceil(events held × percent / 100) events on (and min_events); 50: half, rounded up.")
    absence_deduction = serializers.IntegerField(
        required=False, default=0, min_value=SERIES_OPTION_BOUNDS["absence_deduction"][0],
        max_value=SERIES_OPTION_BOUNDS["absence_deduction"][1],
        help_text="Points taken off a player's score per event held that he missed.")
    events = serializers.SerializerMethodField(help_text="The ids of the series' events you see, in date order.")

    class Meta:
        model = Series
        fields = ["id", "club", "name", "game", "season_from", "season_to", "scoring", "points_table",
                  "best_of", "min_events", "games", "aggregate", "drop_worst", "qualify_percent",
                  "absence_deduction", "events", "created_at"]
        read_only_fields = ["created_at"]

    def get_events(self, series) -> list[int]:
        visibility = self.context.get("visibility")
        return [event.pk for event in series_events(series, visibility=visibility)] if visibility else []


class SeriesRowEventSerializer(serializers.Serializer):
    points = serializers.IntegerField()
    counted = serializers.BooleanField(help_text="Whether this event's points count (best_of).")


class SeriesGameSerializer(serializers.Serializer):
    points = serializers.IntegerField(help_text="Counted series points of this game's events.")
    events = serializers.IntegerField(help_text="Events of this game played.")
    counted = serializers.IntegerField(help_text="Events of this game counted.")


class SeriesMoneySerializer(serializers.Serializer):
    won = serializers.IntegerField(help_text="Cents won over the season's Maumau events.")
    won_open = serializers.IntegerField(help_text="Of them, not paid to him yet.")
    lost = serializers.IntegerField(help_text="Cents lost.")
    lost_open = serializers.IntegerField(help_text="Of them, not paid by him yet.")
    net = serializers.IntegerField(help_text="won − lost.")


class SeriesRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, help_text="Null for a player who does not qualify.")
    player = serializers.IntegerField()
    name = serializers.CharField(help_text="The name the player is shown by to you.")
    points = serializers.IntegerField(help_text="Counted series points (their sum).")
    score = serializers.FloatField(help_text="What ranks: points (or their mean, to two decimals, for average) "
                                             "less absence_deduction × absences.")
    played = serializers.IntegerField(help_text="Events played.")
    counted = serializers.IntegerField(help_text="Events counted (best_of, drop_worst).")
    absences = serializers.IntegerField(help_text="Events held that he missed.")
    wins = serializers.IntegerField(help_text="Events won (rank 1, shared included).")
    qualified = serializers.BooleanField(help_text="Played required_events events or more.")
    trend = serializers.IntegerField(allow_null=True, help_text="Places gained (+) or lost (−) since the latest "
                                                                "event, 0 unchanged; null when new or unranked.")
    new = serializers.BooleanField(help_text="Ranked now and not before the latest event.")
    per_game = serializers.DictField(child=SeriesGameSerializer(), help_text="Game → its counted points.")
    per_event = serializers.DictField(child=SeriesRowEventSerializer(), help_text="Event id → its points.")
    money = SeriesMoneySerializer(allow_null=True, help_text="Maumau cents over the season: shown to the club's "
                                                             "organisers and to the player himself, else null.")


class SeriesColumnSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    starts_on = serializers.DateField(allow_null=True)


class SeriesStandingsSerializer(serializers.Serializer):
    scoring = serializers.ChoiceField(choices=Series.Scoring.values)
    best_of = serializers.IntegerField(allow_null=True)
    min_events = serializers.IntegerField()
    games = serializers.ListField(child=serializers.CharField(), help_text="The games whose events count.")
    aggregate = serializers.ChoiceField(choices=Series.Aggregate.values)
    drop_worst = serializers.IntegerField()
    qualify_percent = serializers.IntegerField()
    absence_deduction = serializers.IntegerField()
    held = serializers.IntegerField(help_text="Events held (with a ranked player) that you see.")
    required_events = serializers.IntegerField(help_text="Events a player needs to be ranked now.")
    money_shown = serializers.BooleanField(help_text="Whether rows carry money (yours or everyone's).")
    events = serializers.ListField(child=serializers.IntegerField(), help_text="Event ids in date order.")
    event_columns = SeriesColumnSerializer(many=True, help_text="The events in date order, with name and date.")
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
        """The series' standings: rank (null for a player who does not qualify), score, counted
        points, events played, counted, missed and won, the move since the latest event, each
        game's and each event's points with whether they count, and Maumau money over the season
        (for the club's organisers, and each player his own). JSON, or CSV as ``standings.csv``.
        Only the events and rounds you see count (unpublished events and held rounds for their
        organisers only)."""
        series = self.get_object()
        document = series_document(series, visibility=self.visibility)
        if request.accepted_renderer.format == "csv":
            return _standings_csv(series, document)
        return Response(document)


def _standings_csv(series: Series, document: dict) -> HttpResponse:
    """One row per player, headed in the reader's language: rank, player, name, score, points,
    events played, counted and missed, wins, the move since the latest event ("=", "new", ▲n,
    ▼n), each game's points (a season of several games), the money (when shown), then each event's
    points under its date and name (in brackets when they do not count)."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="series-{series.pk}.csv"'
    writer = csv.writer(response)
    columns = document["event_columns"]
    games = document["games"] if len(document["games"]) > 1 else []
    money = [("won", _("won (cents)")), ("won_open", _("won, open (cents)")), ("lost", _("lost (cents)")),
             ("lost_open", _("lost, open (cents)")), ("net", _("net (cents)"))] if document["money_shown"] else []
    writer.writerow([_("rank"), _("player"), _("name"), _("score"), _("points"), _("played"), _("counted"),
                     _("missed"), _("wins"), _("move"), *(GAMES[game].name for game in games),
                     *(label for _key, label in money),
                     *(event_label(column["name"], column["starts_on"]) for column in columns)])
    for row in document["standings"]:
        cells = []
        for column in columns:
            entry = row["per_event"].get(str(column["id"]))
            cells.append("" if entry is None else entry["points"] if entry["counted"] else f"({entry['points']})")
        owed = row["money"] or {}
        writer.writerow(["" if row["rank"] is None else row["rank"], row["player"], row["name"], row["score"],
                         row["points"], row["played"], row["counted"], row["absences"], row["wins"],
                         series_move(row["trend"], row["new"]),
                         *(row["per_game"].get(game, {}).get("points", "") for game in games),
                         *(owed.get(key, "") for key, _label in money), *cells])
    return response
