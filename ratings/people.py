"""A player's own data with his ratings: the export of ``tournaments.people.export`` and, added
here (ratings live above tournaments), his rating per game and its history. Served to him at
``/api/v1/me/player/export/`` and as a download on his privacy page (``stich/pages/me.py``)."""
from __future__ import annotations

import json

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from games.openapi import error_responses
from tournaments.api.people import own_player
from tournaments.models import Player
from tournaments.people.export import player_export as tournament_export

from .models import Rating
from .selectors import displayed, player_history


def player_export(player: Player) -> dict:
    document = tournament_export(player)
    document["ratings"] = {
        rating.game: {"rating": displayed(rating.mu, rating.sigma), "mu": rating.mu, "sigma": rating.sigma,
                      "sessions": rating.sessions,
                      "history": [{key: point[key] for key in ("finished_at", "rating_before", "rating_after",
                                                               "mu_before", "sigma_before", "mu_after", "sigma_after")}
                                  for point in player_history(player=player.pk, game=rating.game)]}
        for rating in Rating.objects.filter(player=player).order_by("game")
    }
    return document


def export_response(player: Player) -> HttpResponse:
    """The export as a JSON file to download."""
    body = json.dumps(player_export(player), ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="stich-my-data.json"'
    response["Cache-Control"] = "no-store"
    return response


class ExportView(APIView):
    permission_classes = [AllowAny]  # the policy decides (``own_player``: view_own_player)

    @extend_schema(operation_id="me_player_export", responses={
        200: OpenApiResponse(OpenApiTypes.OBJECT, description="Everything kept about him and nothing about others "
                                                              "(GDPR Art. 15 and 20): `format` "
                                                              "`stich-player-export/1`."),
        **error_responses(401, 403)})
    def get(self, request):
        """All his data as one JSON document, his ratings included."""
        return export_response(own_player(request))
