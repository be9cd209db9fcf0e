"""Ratings over the API: the leaderboard per game, a player's ratings with their history, and a
table's win chances."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from games.catalog import GAMES
from games.openapi import error_responses
from tournaments import policy
from tournaments.models import Player

from .models import Rating
from .outlook import table_outlook
from .selectors import displayed, leaderboard, player_history


class LeaderboardQuery(serializers.Serializer):
    game = serializers.ChoiceField(choices=sorted(GAMES))
    club = serializers.IntegerField(required=False, min_value=1)
    min_sessions = serializers.IntegerField(required=False, min_value=0, default=0)


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id")
    name = serializers.CharField()
    rating = serializers.IntegerField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    sessions = serializers.IntegerField()
    trend = serializers.IntegerField()


class LeaderboardView(GenericAPIView):
    """``GET /api/v1/ratings/leaderboard/?game=mu[&club=ID][&min_sessions=N]`` (paginated)."""

    serializer_class = LeaderboardRowSerializer
    filter_backends: list = []

    @extend_schema(parameters=[LeaderboardQuery], responses={200: LeaderboardRowSerializer(many=True)})
    def get(self, request):
        """The players of a game by displayed rating (best first), with sessions and the trend over
        their last five rated sessions; ``club`` narrows it to one club's players."""
        query = LeaderboardQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = leaderboard(**query.validated_data)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(LeaderboardRowSerializer(page, many=True).data)


class HistoryPointSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    mu_before = serializers.FloatField()
    sigma_before = serializers.FloatField()
    mu_after = serializers.FloatField()
    sigma_after = serializers.FloatField()
    rating_before = serializers.IntegerField(help_text="Displayed rating before the session.")
    rating_after = serializers.IntegerField(help_text="Displayed rating after the session.")


class GameRatingSerializer(serializers.Serializer):
    rating = serializers.IntegerField(help_text="Displayed rating: round(1000 + 48 · (mu − 3σ)).")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    sessions = serializers.IntegerField()
    history = HistoryPointSerializer(many=True)


class PlayerRatingsSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField(help_text="The name the player shows in public.")
    ratings = serializers.DictField(child=GameRatingSerializer(), help_text="Per game (mu, maumau, lut).")


class PlayerRatingsView(APIView):
    """``GET /api/v1/players/{id}/ratings/``: per game the rating and its history."""

    @extend_schema(responses={200: PlayerRatingsSerializer, **error_responses(described={404: "No such player: `{code, message}`."})},
                   parameters=[OpenApiParameter("game", str, required=False, enum=sorted(GAMES))])
    def get(self, request, pk: int):
        player = get_object_or_404(Player, pk=pk)
        games = [request.query_params["game"]] if request.query_params.get("game") in GAMES else sorted(GAMES)
        body = {"player": player.pk, "name": player.public_name, "ratings": {}}
        for rating in Rating.objects.filter(player=player, game__in=games):
            body["ratings"][rating.game] = {
                "rating": displayed(rating.mu, rating.sigma), "mu": rating.mu, "sigma": rating.sigma,
                "sessions": rating.sessions, "history": player_history(player=player.pk, game=rating.game),
            }
        return Response(body)


class SeatChanceSerializer(serializers.Serializer):
    seat = serializers.IntegerField(help_text="The seat (0 to n-1, clockwise).")
    player = serializers.IntegerField()
    name = serializers.CharField(help_text="The name the player is shown by to you.")
    win = serializers.FloatField(help_text="Probability to finish first (the chances of a table add up to 1).")
    expected_place = serializers.FloatField(help_text="Expected place, 1 (first) to n (last).")
    provisional = serializers.BooleanField(help_text="Fewer rated sessions before the chance than "
                                                     "`RATINGS_PROVISIONAL_SESSIONS` (5), or sigma at the prior: "
                                                     "the chance rests on too little.")
    rating = serializers.IntegerField(help_text="Displayed rating the chance was computed from.")


class TableChancesSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    game = serializers.ChoiceField(choices=sorted(GAMES))
    basis = serializers.ChoiceField(
        choices=["current", "published", "before_session"],
        help_text="The chances are those of the table card, from the ratings when the table was published. "
                  "`current`: those are the players' ratings now; `published`: a player has been rated since "
                  "(the card's chances are kept); `before_session`: the table's latest rated session's, from "
                  "the ratings when it could first be predicted (its first session: the card's; a later one: "
                  "after the one before), never including its own result.")
    favourite = serializers.IntegerField(allow_null=True, help_text="The player with the strictly best chance.")
    players = SeatChanceSerializer(many=True)


class TableChancesView(APIView):
    """``GET /api/v1/tables/{id}/chances/``: each player's chance to win the table and his
    expected place."""

    @extend_schema(responses={200: TableChancesSerializer, **error_responses(400, described={
        404: "No such table, or not visible to you (a held-back round, an unpublished event): `{code, message}`."})})
    def get(self, request, pk: int):
        """Each seated player's probability to finish first and expected place, from the players'
        ratings (Plackett–Luce with the rating uncertainty integrated, `ratings/chances.py`). Seen
        by whoever sees the table: not for a round held back or an unpublished event, except by
        their organisers and the table's own players. New players are marked provisional."""
        visibility = policy.visibility(request.user)
        visible = visibility.tables() | visibility.seated_tables()
        table = get_object_or_404(visible.select_related("round__event").distinct(), pk=pk)
        outlook = table_outlook(table)
        if outlook is None:
            raise ValidationError({"players": ["A table needs 2 to 6 seated players for chances."]})
        players = {player.pk: player for player in Player.objects.filter(pk__in=[s.player_id for s in outlook.seats])}
        favourite = outlook.favourite
        return Response({
            "table": table.pk, "game": table.round.event.game, "basis": outlook.basis,
            "favourite": favourite.player_id if favourite else None,
            "players": [
                {"seat": seat.position, "player": seat.player_id, "name": visibility.name(players[seat.player_id]),
                 "win": seat.win, "expected_place": seat.expected_place, "provisional": seat.provisional,
                 "rating": displayed(seat.mu, seat.sigma)}
                for seat in outlook.seats
            ],
        })
