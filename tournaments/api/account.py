"""``GET /api/v1/me/``: who the caller is: his user name, his player (if one is linked to his
account) and his clubs with his roles in each. Anonymous callers get 401 (``view_own_account``)."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from games.openapi import error_responses

from ..standings import selectors
from .views import PolicyAPIView


class OwnPlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(help_text="His real name (he sees it).")
    display_name = serializers.CharField(help_text="The name shown to those who may not see the real one.")
    initials_only = serializers.BooleanField()


class ClubRoleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=["organiser", "member"]),
        help_text="organiser: he organises the club (changes it, creates its players, events and series); "
                  "member: his player belongs to it.")


class AccountSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The user's id (as in the organisers lists of clubs and events).")
    username = serializers.CharField()
    staff = serializers.BooleanField(help_text="Staff see and change everything.")
    player = OwnPlayerSerializer(allow_null=True, help_text="The player linked to the account (null: none).")
    clubs = ClubRoleSerializer(many=True, help_text="The clubs he organises or belongs to, by name.")


class MeView(PolicyAPIView):
    # The caller's own account: anyone logged in, about himself only (PolicyPermission: 401 when
    # anonymous).
    permissions = {"GET": "view_own_account"}

    @extend_schema(operation_id="me_retrieve",
                   responses={200: AccountSerializer, **error_responses(401)})
    def get(self, request):
        """The logged-in user: his user name, his player and his clubs with his roles in each."""
        self.check_object_permissions(request, request.user)
        return Response(selectors.account(request.user))
