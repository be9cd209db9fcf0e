"""Registrations, players from CSV and the round's clock over the API (``tournaments/entry``).

- ``/api/v1/events/{id}/registration/``: ``GET`` what the public sees of the event's registration
  (capacity, places held, waiting, the names of those confirmed who agreed to be listed);
  ``POST {"name", "contact", "show_name"}`` registers (anyone, no account; throttled per client,
  scope ``registration``). The answer carries the private ``withdraw_token`` once.
- ``POST /api/v1/registrations/withdraw/ {"token"}``: withdraws by the private link's token
  (anyone holding it; throttled the same way).
- ``/api/v1/events/{id}/registrations/`` (``GET``), ``/api/v1/registrations/{id}/confirm/``,
  ``.../match/``, ``.../withdraw/``, ``.../check-in/`` (``POST``): the event's organisers
  (``change_registration``).
- ``POST /api/v1/clubs/{id}/players/import/``: a CSV file's preview (``"confirm": false``, the
  default) or its import (``"confirm": true``), the club's organisers (``import_players``).
- ``/api/v1/rounds/{id}/clock/``: ``GET`` the round's clock (whoever sees the round), with the
  server's ``now``; ``POST {"action", "minutes"}`` changes it (the event's organisers,
  ``change_round``).
"""
from __future__ import annotations

import base64
import binascii

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from games.openapi import error_responses
from games.parsers import JSONParser
from games.throttling import SlidingRateThrottle

from .. import policy
from ..entry import clock, players_csv
from ..entry import registration as registrations
from ..errors import Invalid
from ..models import Club, Player, Registration
from .views import PolicyAPIView

# --- registration -------------------------------------------------------------------------------


@extend_schema_serializer(component_name="RegistrationForm")
class RegisterRequestSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=registrations.NAME_MAX, help_text="The name to register under.")
    contact = serializers.CharField(max_length=registrations.CONTACT_MAX, required=False, allow_blank=True,
                                    default="", help_text="How the organisers reach you (seen by them only).")
    show_name = serializers.BooleanField(required=False, default=False,
                                         help_text="List your name on the event's public page once confirmed.")


class RegisteredSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Registration.Status.choices,
                                     help_text="registered (a place, to be confirmed) or waiting (the list is full).")
    waiting_position = serializers.IntegerField(allow_null=True, help_text="Your place on the waiting list.")
    withdraw_token = serializers.CharField(help_text="Your private withdrawal token (shown this once): "
                                                     "POST it to /api/v1/registrations/withdraw/.")


class PublicRegistrationSerializer(serializers.Serializer):
    event = serializers.IntegerField()
    open = serializers.BooleanField(help_text="Whether the event takes registrations now.")
    capacity = serializers.IntegerField(allow_null=True, help_text="Places (null: no limit).")
    held = serializers.IntegerField(help_text="Places held (registered or confirmed).")
    free = serializers.IntegerField(allow_null=True, help_text="Places free (null: no limit).")
    waiting = serializers.IntegerField(help_text="Registrations on the waiting list.")
    confirmed = serializers.IntegerField()
    names = serializers.ListField(child=serializers.CharField(),
                                  help_text="The confirmed who agreed to be listed, in order of registration.")


class WithdrawByTokenSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=64, help_text="The private token the registration answered with.")


class WithdrawnSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Registration.Status.choices)


class RegistrationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    contact = serializers.CharField(help_text="As given (the organisers' only).")
    show_name = serializers.BooleanField()
    status = serializers.ChoiceField(choices=Registration.Status.choices)
    waiting_position = serializers.IntegerField(allow_null=True)
    player = serializers.IntegerField(allow_null=True, help_text="The matched player's id.")
    player_name = serializers.CharField(allow_null=True, help_text="The matched player's name (namesakes told apart).")
    created_at = serializers.DateTimeField()
    confirmed_at = serializers.DateTimeField(allow_null=True)


class RegistrationListSerializer(serializers.Serializer):
    event = serializers.IntegerField()
    capacity = serializers.IntegerField(allow_null=True)
    registrations = RegistrationSerializer(many=True, help_text="In order of registration.")


@extend_schema_serializer(component_name="RegistrationMatch")
class MatchRequestSerializer(serializers.Serializer):
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all(), required=False, allow_null=True,
                                                help_text="A player of the event's club.")
    create = serializers.BooleanField(required=False, default=False,
                                      help_text="Create a player of the club by the registered name instead.")
    same_name_ok = serializers.BooleanField(required=False, default=False,
                                            help_text="With create: a player of the club has this name, and this "
                                                      "is another person (else 409 same_name).")


def registration_entry(registration: Registration, names: dict[int, str]) -> dict:
    return {"id": registration.pk, "name": registration.name, "contact": registration.contact,
            "show_name": registration.show_name, "status": registration.status,
            "waiting_position": registrations.waiting_position(registration),
            "player": registration.player_id,
            "player_name": names.get(registration.player_id) if registration.player_id else None,
            "created_at": registration.created_at, "confirmed_at": registration.confirmed_at}


def _public_document(event) -> dict:
    listed = registrations.public_list(event)
    return {"event": event.pk, "open": event.registration_open, "capacity": listed.capacity, "held": listed.held,
            "free": listed.free, "waiting": listed.waiting, "confirmed": listed.confirmed, "names": listed.names}


class RegistrationThrottle(SlidingRateThrottle):
    """Registering and withdrawing: per client address (``REGISTRATION_THROTTLE``), reads free."""

    def allow_request(self, request, view):
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return super().allow_request(request, view)


class EventRegistrationView(PolicyAPIView):
    permission_classes = [AllowAny]  # anyone registers; the service checks that the event takes registrations
    parser_classes = [JSONParser]
    throttle_classes = [RegistrationThrottle]
    throttle_scope = "registration"

    @extend_schema(operation_id="events_registration_retrieve",
                   responses={200: PublicRegistrationSerializer, **error_responses(404)})
    def get(self, request, pk: int):
        """What anyone sees of the event's registration: places, the waiting count and the names of
        the confirmed who agreed to be listed (nothing else of them)."""
        event = get_object_or_404(policy.Visibility(request.user).events(), pk=pk)
        return Response(_public_document(event))

    @extend_schema(operation_id="events_registration_create", request=RegisterRequestSerializer,
                   responses={201: RegisteredSerializer, **error_responses(400, 404, 409, 429)},
                   examples=[OpenApiExample("Register", value={"name": "Katrin Zimmermann",
                                                               "contact": "katrin@example.org", "show_name": True},
                                            request_only=True)])
    def post(self, request, pk: int):
        """Register for the event (no account; throttled per client): a place while one is free,
        else the waiting list. 409 ``registration_closed`` when it does not take registrations."""
        event = get_object_or_404(policy.Visibility(request.user).events(), pk=pk)
        data = RegisterRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        registration = registrations.register(event=event, by_user=request.user, via="api", **data.validated_data)
        return Response({"status": registration.status,
                         "waiting_position": registrations.waiting_position(registration),
                         "withdraw_token": registration.token}, status=status.HTTP_201_CREATED)


class WithdrawByTokenView(PolicyAPIView):
    permission_classes = [AllowAny]  # the token is the permission
    parser_classes = [JSONParser]
    throttle_classes = [RegistrationThrottle]
    throttle_scope = "registration"

    @extend_schema(operation_id="registrations_withdraw_by_token_create", request=WithdrawByTokenSerializer,
                   responses={200: WithdrawnSerializer, **error_responses(400, 404, 429)},
                   examples=[OpenApiExample("Withdraw", value={"token": "m2Yb0v5Vx9vQhJ8n3W1kq4TtZrAe6sPd"},
                                            request_only=True)])
    def post(self, request):
        """Withdraw a registration by its private token (its place goes to the first who waits).
        Withdrawing twice answers the same; an unknown token is 404."""
        data = WithdrawByTokenSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        registration = registrations.by_token(data.validated_data["token"])
        registration = registrations.withdraw(registration=registration, by_user=request.user, via="api")
        return Response({"status": registration.status})


class EventRegistrationsView(PolicyAPIView):
    permissions = {"GET": "change_registration"}

    @extend_schema(operation_id="events_registrations_list",
                   responses={200: RegistrationListSerializer, **error_responses(401, 403, 404)})
    def get(self, request, pk: int):
        """Every registration of the event with the contact given (the event's organisers)."""
        visibility = policy.Visibility(request.user)
        event = get_object_or_404(visibility.events(), pk=pk)
        self.check_object_permissions(request, event)
        rows = list(visibility.registrations().filter(event=event).order_by("created_at", "pk"))
        names = visibility.names({r.player_id for r in rows if r.player_id})
        return Response({"event": event.pk, "capacity": event.capacity,
                         "registrations": [registration_entry(r, names) for r in rows]})


class _RegistrationAction(PolicyAPIView):
    permissions = {"POST": "change_registration"}
    parser_classes = [JSONParser]

    def _registration(self, request, pk: int) -> Registration:
        registration = get_object_or_404(policy.Visibility(request.user).registrations().select_related("event"),
                                         pk=pk)
        self.check_object_permissions(request, registration)
        return registration

    def _answer(self, request, registration: Registration) -> Response:
        registration.refresh_from_db()
        names = policy.Visibility(request.user).names({registration.player_id} if registration.player_id else set())
        return Response(registration_entry(registration, names))


class ConfirmRegistrationView(_RegistrationAction):
    @extend_schema(operation_id="registrations_confirm_create", request=None,
                   responses={200: RegistrationSerializer, **error_responses(401, 403, 404, 409)})
    def post(self, request, pk: int):
        """Confirm a registration (one on the waiting list then holds a place beyond the capacity).
        Confirming twice answers the same; a withdrawn one is 409 ``registration_state``."""
        registration = self._registration(request, pk)
        return self._answer(request, registrations.confirm(registration=registration, by_user=request.user))


class WithdrawRegistrationView(_RegistrationAction):
    @extend_schema(operation_id="registrations_withdraw_create", request=None,
                   responses={200: RegistrationSerializer, **error_responses(401, 403, 404)})
    def post(self, request, pk: int):
        """Withdraw a registration for the person (its place goes to the first who waits)."""
        registration = self._registration(request, pk)
        return self._answer(request, registrations.withdraw(registration=registration, by_user=request.user,
                                                            via="api"))


class MatchRegistrationView(_RegistrationAction):
    @extend_schema(operation_id="registrations_match_create", request=MatchRequestSerializer,
                   responses={200: RegistrationSerializer, **error_responses(400, 401, 403, 404, 409)},
                   examples=[OpenApiExample("An existing player", value={"player": 1}, request_only=True),
                             OpenApiExample("A new player", value={"create": True}, request_only=True)])
    def post(self, request, pk: int):
        """Match a registration to a player of the event's club, or create one by the registered
        name (409 ``same_name`` while a player of the club has that name, unless ``same_name_ok``)."""
        registration = self._registration(request, pk)
        data = MatchRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        return self._answer(request, registrations.match(
            registration=registration, by_user=request.user, player=values.get("player"),
            create=values["create"], same_name_ok=values["same_name_ok"]))


class CheckInRegistrationView(_RegistrationAction):
    @extend_schema(operation_id="registrations_check_in_create", request=None,
                   responses={200: RegistrationSerializer, **error_responses(400, 401, 403, 404, 409)})
    def post(self, request, pk: int):
        """Check the registration's player in tonight (a confirmed, matched registration; 409
        ``registration_state`` otherwise)."""
        registration = self._registration(request, pk)
        registrations.check_in(registration=registration, by_user=request.user)
        return self._answer(request, registration)


# --- players from CSV ---------------------------------------------------------------------------

class ResolutionSerializer(serializers.Serializer):
    line = serializers.IntegerField(min_value=2, max_value=1_000_000, help_text="The row's line in the file.")
    player = serializers.IntegerField(allow_null=True, min_value=1, max_value=2**62,
                                      help_text="The namesake it is (null: a new player).")


@extend_schema_serializer(component_name="PlayersImport")
class ImportRequestSerializer(serializers.Serializer):
    csv = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False,
                                max_length=players_csv.MAX_BYTES, help_text="The file's text.")
    csv_base64 = serializers.CharField(required=False, max_length=players_csv.MAX_BYTES * 2,
                                       help_text="Or the file's bytes in base64 (UTF-8 or Windows-1252).")
    confirm = serializers.BooleanField(required=False, default=False,
                                       help_text="false: the preview only; true: import (one transaction).")
    resolutions = ResolutionSerializer(many=True, required=False, default=list,
                                       help_text="How each namesake row is resolved.")

    def validate(self, attrs):
        if ("csv" in attrs) == ("csv_base64" in attrs):
            raise serializers.ValidationError({"csv": ["give csv or csv_base64"]})
        return attrs


class RowErrorSerializer(serializers.Serializer):
    column = serializers.CharField()
    reason = serializers.ChoiceField(choices=["empty_name", "unknown_club", "duplicate_row", "too_long"])
    message = serializers.CharField()


class CandidateSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()


class ImportRowSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    name = serializers.CharField(allow_blank=True)
    club = serializers.CharField(allow_blank=True, help_text="The club as written (empty: the importing club).")
    fate = serializers.ChoiceField(choices=["new", "existing", "namesake", "error"])
    player = serializers.IntegerField(allow_null=True, help_text="existing: the player.")
    candidates = CandidateSerializer(many=True, help_text="namesake: the players it may be.")
    errors = RowErrorSerializer(many=True)


class ImportAnswerSerializer(serializers.Serializer):
    stored = serializers.BooleanField()
    encoding = serializers.CharField()
    delimiter = serializers.CharField()
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Rows by fate.")
    rows = ImportRowSerializer(many=True)
    created = serializers.ListField(child=serializers.IntegerField(), help_text="Stored: the new players' ids.")
    matched = serializers.ListField(child=serializers.IntegerField(), help_text="Stored: the existing players' ids.")


def preview_document(result: players_csv.Preview, names: dict[int, str]) -> dict:
    return {
        "encoding": result.encoding, "delimiter": result.delimiter,
        "counts": {fate: result.count(fate) for fate in ("new", "existing", "namesake", "error")},
        "rows": [{"line": row.number, "name": row.name, "club": row.club_text, "fate": row.fate,
                  "player": row.player.pk if row.player else None,
                  "candidates": [{"player": p.pk, "name": names.get(p.pk, "")} for p in row.candidates],
                  "errors": [{"column": e.column, "reason": e.reason, "message": e.message} for e in row.errors]}
                 for row in result.rows],
    }


class PlayersImportView(PolicyAPIView):
    permissions = {"POST": "import_players"}
    parser_classes = [JSONParser]

    @extend_schema(operation_id="clubs_players_import_create", request=ImportRequestSerializer,
                   responses={200: ImportAnswerSerializer, **error_responses(400, 401, 403, 404, 409)},
                   examples=[OpenApiExample("Preview a file", value={
                       "csv": "Name;Verein\nKatrin Zimmermann;\nJörg Weiß;\n", "confirm": False}, request_only=True),
                             OpenApiExample("Import it", value={
                       "csv": "Name;Verein\nKatrin Zimmermann;\nJörg Weiß;\n", "confirm": True,
                       "resolutions": []}, request_only=True)])
    def post(self, request, pk: int):
        """Players from a CSV file into the club: each row's fate (``new``, ``existing``,
        ``namesake``, ``error`` with the column and reason), nothing stored unless ``confirm``;
        then every row but the errors in one transaction (a namesake row needs its resolution:
        400 ``namesake_unresolved``)."""
        visibility = policy.Visibility(request.user)
        club = get_object_or_404(Club.objects.all(), pk=pk)
        self.check_object_permissions(request, club)
        data = ImportRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if "csv_base64" in values:
            try:
                content = base64.b64decode(values["csv_base64"], validate=True)
            except (binascii.Error, ValueError):
                raise Invalid("csv_base64 is not base64", field="csv_base64") from None
        else:
            content = values["csv"]
        clubs = list(visibility.organised_clubs())
        if values["confirm"]:
            resolutions = {r["line"]: r["player"] for r in values["resolutions"]}
            outcome = players_csv.apply(data=content, club=club, clubs=clubs, by_user=request.user,
                                        resolutions=resolutions)
            result, created, matched = outcome.preview, [p.pk for p in outcome.created], [p.pk for p in outcome.matched]
        else:
            result = players_csv.preview(data=content, club=club, clubs=clubs)
            created, matched = [], []
        names = visibility.names({p.pk for row in result.rows for p in row.candidates})
        return Response({"stored": values["confirm"], **preview_document(result, names),
                         "created": created, "matched": matched})


# --- the round's clock --------------------------------------------------------------------------

class ClockSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["unset", "ready", "running", "paused", "over"])
    seconds = serializers.IntegerField(allow_null=True, help_text="The round's length, extensions included.")
    left = serializers.IntegerField(allow_null=True, help_text="Whole seconds left as of now.")
    ends_at = serializers.DateTimeField(allow_null=True, help_text="While running: when the time is up.")
    now = serializers.DateTimeField(help_text="The server's now: count down from ends_at − now, not from the "
                                              "client's clock.")
    rule = serializers.ChoiceField(choices=["finish_deal", "no_new_deal"],
                                   help_text="What a table does when the time is up (the event's rule).")


@extend_schema_serializer(component_name="ClockChange")
class ClockRequestSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=list(clock.ACTIONS))
    minutes = serializers.IntegerField(required=False, min_value=1, max_value=clock.MAX_SECONDS // 60,
                                       help_text="set: the length; extend: the minutes added.")


class RoundClockView(PolicyAPIView):
    permissions = {"POST": "change_round"}
    parser_classes = [JSONParser]

    def _round(self, request, pk: int):
        return get_object_or_404(policy.Visibility(request.user).rounds().select_related("event"), pk=pk)

    @extend_schema(operation_id="rounds_clock_retrieve", responses={200: ClockSerializer, **error_responses(404)})
    def get(self, request, pk: int):
        """The round's clock as of the server's now (whoever sees the round)."""
        round_ = self._round(request, pk)
        return Response({**clock.reading(round_).as_dict(), "rule": round_.event.clock_rule})

    @extend_schema(operation_id="rounds_clock_create", request=ClockRequestSerializer,
                   responses={200: ClockSerializer, **error_responses(400, 401, 403, 404, 409)},
                   examples=[OpenApiExample("A round of 45 minutes", value={"action": "set", "minutes": 45},
                                            request_only=True),
                             OpenApiExample("Five more minutes", value={"action": "extend", "minutes": 5},
                                            request_only=True)])
    def post(self, request, pk: int):
        """Change the round's clock: ``set`` its length, ``start``, ``pause``, ``resume``,
        ``extend`` it by ``minutes``, ``end`` it (the event's organisers). 409 ``clock_state`` when
        the clock cannot do that now."""
        round_ = self._round(request, pk)
        self.check_object_permissions(request, round_)
        data = ClockRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        reading = clock.change(round_=round_, action=values["action"], minutes=values.get("minutes"),
                               by_user=request.user)
        return Response({**reading.as_dict(), "rule": round_.event.clock_rule})
