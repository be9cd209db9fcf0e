"""A player's own side over the API (``/api/v1/me/player/…``) and any player's statistics
(``/api/v1/players/{id}/stats/``).

The player is the one the request proves to be: the phone bound by his personal code (its signed
cookie; a write also carries the page's CSRF token) or the logged-in user's player
(``tournaments/people/identity.py``); neither is 401. The policy decides with ``view_own_player``
and ``change_own_player`` on ``policy.Own``. His export (with his ratings) is
``/api/v1/me/player/export/`` (``ratings/people.py``).
"""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from games.catalog import GAMES
from games.openapi import error_responses

from .. import policy
from ..errors import NotAuthenticated
from ..models import Player, PlayerDevice
from ..people import services as people
from ..people import stats
from ..people.identity import device_of, login_player
from .hands import bound_player


def own_player(request, permission: str = "view_own_player") -> Player:
    """The request's own player, asked of the policy (401 without one, 403 when refused)."""
    if permission.startswith("change"):
        bound = bound_player(request)  # a write: the phone's cookie with the page's CSRF token
    else:
        device = device_of(request._request)
        bound = device.player if device is not None else None
    player = bound or login_player(request.user)
    if player is None:
        raise NotAuthenticated("bind this phone with your personal code, or log in")
    if not policy.may(request.user, permission, policy.Own(player, bound)):
        raise PermissionDenied("this is not your player")
    return player


class CommonStatsSerializer(serializers.Serializer):
    sessions = serializers.IntegerField(help_text="Sessions with a counted hand (abandoned ones left out).")
    finished = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="Finished sessions with the table's best total (shared or not).")
    average_place = serializers.FloatField(allow_null=True, help_text="Over finished sessions; 1 is first.")


class MuStatsSerializer(CommonStatsSerializer):
    hands = serializers.IntegerField(help_text="Counted deals.")
    chef = serializers.IntegerField()
    vice = serializers.IntegerField()
    team_hands = serializers.IntegerField(help_text="Played deals on the Chef's team (Chef or partner).")
    team_goal_made = serializers.IntegerField(help_text="Of those, the deals the team won.")
    eklats_caused = serializers.IntegerField(help_text="Eklats in which he was the provocateur.")


class MaumauStatsSerializer(CommonStatsSerializer):
    games = serializers.IntegerField(help_text="Counted games.")
    average_minus = serializers.FloatField(allow_null=True, help_text="Minus points per game.")
    cents = serializers.IntegerField(help_text="Money over finished series: won less paid, in cents.")


class ColoursSerializer(serializers.Serializer):
    B = serializers.IntegerField()
    G = serializers.IntegerField()
    R = serializers.IntegerField()
    Y = serializers.IntegerField()


class LutStatsSerializer(CommonStatsSerializer):
    rounds = serializers.IntegerField(help_text="Counted rounds.")
    average_points = serializers.FloatField(allow_null=True)
    colours_kept = ColoursSerializer(help_text="Rounds that ended with the colour among his open stacks.")


class GameStatsSerializer(serializers.Serializer):
    mu = MuStatsSerializer(required=False)
    maumau = MaumauStatsSerializer(required=False)
    lut = LutStatsSerializer(required=False)


class PlayerStatsSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField(help_text="The name the player is shown by to you.")
    games = GameStatsSerializer(help_text="Per game he played (absent: none).")


class OwnTableSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    event = serializers.IntegerField()
    event_name = serializers.CharField()
    game = serializers.ChoiceField(choices=sorted(GAMES))
    round = serializers.IntegerField()
    number = serializers.IntegerField(help_text="The table's number.")
    seat = serializers.IntegerField(help_text="His seat, from 1.")
    players = serializers.ListField(child=serializers.CharField(), help_text="By seat, the names shown to him.")


class OwnPlayerSideSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(help_text="His real name.")
    display_name = serializers.CharField(help_text="The name shown to those who may not see the real one.")
    initials_only = serializers.BooleanField()
    tables = OwnTableSerializer(many=True, help_text="His tables whose session is not over: your table, your seat.")
    games = GameStatsSerializer()


class PrivacySerializer(serializers.Serializer):
    initials_only = serializers.BooleanField(help_text="Shown by his initials to those who may not see his name.")


class HeadToHeadRowSerializer(serializers.Serializer):
    sessions = serializers.IntegerField(help_text="Sessions at the same table (with a counted hand).")
    finished = serializers.IntegerField()
    ahead = serializers.IntegerField(help_text="Finished sessions he ended with a higher total than the other.")
    behind = serializers.IntegerField()
    level = serializers.IntegerField()


class HeadToHeadSerializer(HeadToHeadRowSerializer):
    other = serializers.IntegerField()
    other_name = serializers.CharField()
    games = serializers.DictField(child=HeadToHeadRowSerializer(), help_text="Per game (mu, maumau, lut).")


class DeviceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField(help_text="The browser and system it was bound with.")
    bound_at = serializers.DateTimeField()
    unbound_at = serializers.DateTimeField(allow_null=True, source="revoked_at")
    this_phone = serializers.SerializerMethodField(help_text="The phone this request comes from.")

    def get_this_phone(self, device) -> bool:
        this = self.context.get("this")
        return this is not None and this.pk == device.pk


def _tables(player: Player, visibility: policy.Visibility) -> list[dict]:
    found = []
    for table, seat in stats.open_tables(player):
        names = visibility.names(s.player for s in table.seats.all())
        event = table.round.event
        found.append({"table": table.pk, "event": event.pk, "event_name": event.name, "game": event.game,
                      "round": table.round.number, "number": table.number, "seat": seat + 1,
                      "players": [names[s.player_id] for s in table.seats.all()]})
    return found


def _own_visibility(request, player: Player) -> policy.Visibility:
    """What his own pages read with: his login's visibility, else the public's."""
    return policy.visibility(request.user if request.user.is_authenticated else None)


class OwnPlayerView(APIView):
    permission_classes = [AllowAny]  # the policy decides (``own_player``)

    @extend_schema(operation_id="me_player_retrieve",
                   responses={200: OwnPlayerSideSerializer, **error_responses(401, 403)})
    def get(self, request):
        """His player (by his bound phone or login): his open tables with his seat, and his statistics."""
        player = own_player(request)
        visibility = _own_visibility(request, player)
        return Response({"id": player.pk, "name": player.name, "display_name": player.shown_name,
                         "initials_only": player.initials_only, "tables": _tables(player, visibility),
                         "games": stats.game_stats(player, visibility)})

    @extend_schema(operation_id="me_player_partial_update", request=PrivacySerializer,
                   responses={200: OwnPlayerSideSerializer, **error_responses(400, 401, 403, 409)})
    def patch(self, request):
        """His own choice: shown by his initials only, or by his name."""
        player = own_player(request, "change_own_player")
        data = PrivacySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        people.player_privacy(player=player, initials_only=data.validated_data["initials_only"],
                              by_user=request.user)
        return self.get(request)


class HeadToHeadView(APIView):
    permission_classes = [AllowAny]  # the policy decides (``own_player``)

    @extend_schema(operation_id="me_player_head_to_head",
                   responses={200: HeadToHeadSerializer, **error_responses(401, 403, 404)})
    def get(self, request, player: int):
        """His sessions with another player and who finished ahead (the sessions you may see)."""
        me = own_player(request)
        visibility = _own_visibility(request, me)
        rival = get_object_or_404(Player.objects.exclude(pk=me.pk), pk=player)
        return Response({"other": rival.pk, "other_name": visibility.names([rival])[rival.pk],
                         **stats.head_to_head(me, rival, visibility)})


class DevicesView(APIView):
    permission_classes = [AllowAny]  # the policy decides (``own_player``)

    @extend_schema(operation_id="me_player_devices_list",
                   responses={200: DeviceSerializer(many=True), **error_responses(401, 403)})
    def get(self, request):
        """The phones bound to him, newest first (unbound ones with the time they were unbound)."""
        player = own_player(request)
        return Response(DeviceSerializer(player.devices.all(), many=True,
                                         context={"this": device_of(request._request)}).data)


class DeviceUnbindView(APIView):
    permission_classes = [AllowAny]  # the policy decides (``own_player``)

    @extend_schema(operation_id="me_player_devices_unbind", request=None,
                   responses={200: DeviceSerializer, **error_responses(401, 403, 404)})
    def post(self, request, pk: int):
        """Unbind one of his phones (a lost one): it no longer acts or reads as him. Again: no change."""
        player = own_player(request, "change_own_player")
        device = get_object_or_404(PlayerDevice.objects.filter(player=player), pk=pk)
        device = people.device_revoke(device=device, player=player, by_user=request.user)
        return Response(DeviceSerializer(device, context={"this": device_of(request._request)}).data)


class PlayerStatsView(APIView):
    permission_classes = [AllowAny]  # reads what the reader sees (``policy.Visibility``)

    @extend_schema(operation_id="players_stats_retrieve",
                   responses={200: PlayerStatsSerializer, **error_responses(404)})
    def get(self, request, pk: int):
        """A player's statistics per game over the sessions you may see (published events, released rounds)."""
        visibility = policy.visibility(request.user)
        player = get_object_or_404(Player, pk=pk)
        return Response({"player": player.pk, "name": visibility.names([player])[player.pk],
                         "games": stats.game_stats(player, visibility)})
