"""Input and output shapes of the tournament API. Serializers check shapes only; the rules of
the domain (who may be seated, what may change once results exist) are the services'."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.relations import PKOnlyObject

from games.catalog import GAMES

from ..models import Club, Event, Player, Round, Series, Session, Table


class UserIdField(serializers.PrimaryKeyRelatedField):
    """A user by id. Shown as ids only: user names are nobody's business on the API."""

    def __init__(self, **kwargs):
        kwargs.setdefault("queryset", get_user_model().objects.filter(is_active=True))
        super().__init__(**kwargs)

    def display_value(self, instance):
        return str(instance.pk)


class ClubSerializer(serializers.ModelSerializer):
    organisers = UserIdField(many=True, required=False, help_text="User ids of the club's organisers.")

    class Meta:
        model = Club
        fields = ["id", "name", "city", "slug", "organisers", "created_at"]
        read_only_fields = ["slug", "created_at"]
        extra_kwargs = {"slug": {"help_text": "The address of the club's public page, /clubs/{slug}/ "
                                              "(its calendar: /clubs/{slug}/calendar.ics); made from the name."}}
        validators = []  # the unique name is the service's to check (a 400 with code "duplicate")


class PlayerSerializer(serializers.ModelSerializer):
    clubs = serializers.PrimaryKeyRelatedField(many=True, queryset=Club.objects.all(), allow_empty=False)
    user = UserIdField(required=False, allow_null=True, help_text="The user account linked to the player.")
    display_name = serializers.CharField(source="shown_name", read_only=True,
                                         help_text="The name the player agreed to show in public.")
    label = serializers.SerializerMethodField(
        help_text="The name shown to you, namesakes told apart as on the sheets and standings "
                  "(\"Max Müller (2)\"): the name to show people.")

    class Meta:
        model = Player
        fields = ["id", "name", "display_name", "label", "distinction", "initials_only", "anonymised", "clubs", "user",
                  "created_at"]
        extra_kwargs = {"distinction": {"help_text": "What tells the player apart from namesakes (shown in "
                                                     "brackets beside the name where another has the same one)."}}
        read_only_fields = ["anonymised", "created_at"]

    def get_label(self, instance) -> str:
        names = self.context.get("names")
        if names is None or instance.pk not in names:
            visibility = self.context.get("visibility")
            if visibility is None:
                return instance.public_name
            names = visibility.names([instance])
        return names.get(instance.pk, instance.public_name)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        visibility = self.context.get("visibility")
        # The real name only for those the policy shows it to (tournaments/policy.py).
        if visibility is None or not visibility.sees_real_name(instance):
            data["name"] = instance.public_name
            data["user"] = None
            data["distinction"] = ""
        return data


class EventSerializer(serializers.ModelSerializer):
    organisers = UserIdField(many=True, required=False, help_text="User ids of the event's organisers.")
    game = serializers.ChoiceField(choices=sorted(GAMES), help_text="mu, maumau or lut.")
    published = serializers.BooleanField(required=False, default=False,
                                         help_text="Seen by the public. New events start unpublished.")
    series = serializers.PrimaryKeyRelatedField(
        queryset=Series.objects.all(), required=False, allow_null=True,
        help_text="The series (of the event's club and game) the event counts for; null detaches it.",
    )
    format = serializers.ChoiceField(
        choices=Event.Format.values, required=False, default=Event.Format.ROUNDS,
        help_text="rounds: rounds with a draw; open: a club night without a draw, a table opened for "
                  "3–6 present players at a time (each table its own round).",
    )

    class Meta:
        model = Event
        fields = [
            "id", "club", "name", "game", "format", "starts_on", "published", "organisers", "series",
            "mu_target_score", "mu_fixed_deals", "maumau_games_per_series", "maumau_stake_cents",
            "standings_metrics", "confirm_hands", "final_size", "final_carry", "place", "registration_open",
            "capacity", "clock_rule", "created_at",
        ]
        read_only_fields = ["created_at"]
        extra_kwargs = {
            "final_size": {"help_text": "The final stage: the top N of the preliminary rounds play the final rounds "
                                        "(N a multiple of a table size the game allows); null: no final.",
                           "min_value": 1, "max_value": 1000},
            "final_carry": {"help_text": "How much of their preliminary points (the first metric) the finalists "
                                         "keep: none, half (kept exactly, e.g. 3.5) or all."},
        }


class RoundSerializer(serializers.ModelSerializer):
    number = serializers.IntegerField(required=False, min_value=1, help_text="Default: the next number.")
    stage = serializers.ChoiceField(choices=Round.Stage.values, required=False,
                                    help_text="preliminary (default) or final: a final round seats the event's "
                                              "finalists (`final_size`); fixed once the round exists.")

    class Meta:
        model = Round
        fields = ["id", "event", "number", "stage", "results_held", "byes", "created_at"]
        read_only_fields = ["byes", "created_at"]
        validators = []


class SeatedPlayersField(serializers.ManyRelatedField):
    """The table's players by id in seat order: read from its seats, written as a list of ids."""

    def get_attribute(self, instance):
        return [PKOnlyObject(seat.player_id) for seat in instance.seats.all()]


class TableSerializer(serializers.ModelSerializer):
    players = SeatedPlayersField(
        child_relation=serializers.PrimaryKeyRelatedField(queryset=Player.objects.all()),
        help_text="Player ids in seat order (seat 0 first, clockwise).",
    )
    scorer_url = serializers.SerializerMethodField(
        help_text="The table's private scorer link (its QR code is on the table card): for the event's organisers "
                  "only, absent for everyone else.")
    number = serializers.IntegerField(required=False, min_value=1, help_text="Default: the next number.")
    first_dealer = serializers.IntegerField(required=False, allow_null=True, min_value=0,
                                            help_text="The seat that deals the first hand (the draw sets it).")
    event = serializers.IntegerField(source="round.event_id", read_only=True)

    class Meta:
        model = Table
        fields = ["id", "round", "event", "number", "players", "first_dealer", "scorer_url", "created_at"]
        read_only_fields = ["created_at"]
        validators = []

    @extend_schema_field(OpenApiTypes.URI)
    def get_scorer_url(self, instance):
        return scorer_url(self.context, instance)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if data.get("scorer_url") is None:
            data.pop("scorer_url", None)
        return data


def scorer_url(context: dict, table: Table) -> str | None:
    """The table's private scorer link (absolute), for the event's organisers only: it lets any
    phone enter the table's hands. ``None`` for everyone else."""
    visibility, request = context.get("visibility"), context.get("request")
    if visibility is None or request is None:
        return None
    organised = context.setdefault("_organised_events", {})
    event_id = table.round.event_id
    if event_id not in organised:
        organised[event_id] = visibility.organises(table.round.event)
    if not organised[event_id]:
        return None
    return request.build_absolute_uri(reverse("sheet:table", args=[table.scorer_token]))


class SessionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Session
        fields = ["id", "table", "number", "status", "first_dealer", "started_at", "finished_at"]
        read_only_fields = fields


class NextHandSerializer(serializers.Serializer):
    hand = serializers.IntegerField()
    dealer = serializers.IntegerField(allow_null=True, help_text="null: the table chooses (hand 1 without a drawn dealer).")
    direction = serializers.IntegerField(allow_null=True, help_text="Maumau: 1 clockwise, -1 counter-clockwise; "
                                                                    "null in the other games.")
