"""Input and output shapes of the tournament API."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from rest_framework import serializers

from games.catalog import GAMES

from .models import Club, Event, Player, Round, Session, Table


class ClubSerializer(serializers.ModelSerializer):
    organisers = serializers.PrimaryKeyRelatedField(
        many=True, required=False, queryset=get_user_model().objects.all()
    )

    class Meta:
        model = Club
        fields = ["id", "name", "city", "organisers", "created_at"]
        read_only_fields = ["created_at"]


class PlayerSerializer(serializers.ModelSerializer):
    clubs = serializers.PrimaryKeyRelatedField(many=True, queryset=Club.objects.all())
    user = serializers.PrimaryKeyRelatedField(
        required=False, allow_null=True, queryset=get_user_model().objects.all()
    )
    display_name = serializers.CharField(source="public_name", read_only=True)

    class Meta:
        model = Player
        fields = ["id", "name", "display_name", "initials_only", "anonymised", "clubs", "user", "created_at"]
        read_only_fields = ["anonymised", "created_at"]

    def validate_clubs(self, clubs):
        if not clubs:
            raise serializers.ValidationError(_("A player belongs to at least one club."))
        return clubs

    def validate_user(self, user):
        if user is not None:
            linked = Player.objects.filter(user=user).exclude(pk=getattr(self.instance, "pk", None))
            if linked.exists():
                raise serializers.ValidationError(_("This account is already linked to another player."))
        return user

    def to_representation(self, instance):
        data = super().to_representation(instance)
        request = self.context.get("request")
        # Public readers see the name the player agreed to show.
        if instance.initials_only or instance.anonymised:
            if not (request and request.user.is_authenticated and request.user.is_staff):
                data["name"] = instance.public_name
        return data


class EventSerializer(serializers.ModelSerializer):
    organisers = serializers.PrimaryKeyRelatedField(
        many=True, required=False, queryset=get_user_model().objects.all()
    )

    class Meta:
        model = Event
        fields = [
            "id", "club", "name", "game", "starts_on", "published", "organisers",
            "mu_target_score", "mu_fixed_deals", "maumau_games_per_series", "maumau_stake_cents",
            "standings_metrics", "created_at",
        ]
        read_only_fields = ["created_at"]

    def validate_mu_target_score(self, value):
        if value < 1:
            raise serializers.ValidationError(_("The target score must be positive."))
        return value

    def validate_mu_fixed_deals(self, value):
        if value is not None and value < 1:
            raise serializers.ValidationError(_("A fixed number of deals must be positive."))
        return value

    def validate_maumau_games_per_series(self, value):
        if value < 1:
            raise serializers.ValidationError(_("A series needs at least one game."))
        return value

    def validate_standings_metrics(self, value):
        from .standings import METRICS

        names = [name.strip() for name in value.split(",") if name.strip()]
        unknown = [name for name in names if name not in METRICS]
        if not names or unknown:
            raise serializers.ValidationError(
                _("Unknown standings metric(s): %(names)s; known: %(known)s")
                % {"names": ", ".join(unknown) or "-", "known": ", ".join(METRICS)}
            )
        return ",".join(names)

    def validate(self, attrs):
        if self.instance is not None and "game" in attrs and attrs["game"] != self.instance.game:
            if Table.objects.filter(round__event=self.instance).exists():
                raise serializers.ValidationError({"game": _("The game cannot change once tables are set.")})
        return attrs


class RoundSerializer(serializers.ModelSerializer):
    class Meta:
        model = Round
        fields = ["id", "event", "number", "results_held", "byes", "created_at"]
        read_only_fields = ["byes", "created_at"]
        validators = []  # the unique number is checked in validate(), with a field-level message

    def validate(self, attrs):
        event = attrs.get("event", getattr(self.instance, "event", None))
        number = attrs.get("number", getattr(self.instance, "number", None))
        clash = Round.objects.filter(event=event, number=number).exclude(pk=getattr(self.instance, "pk", None))
        if clash.exists():
            raise serializers.ValidationError({"number": _("This event already has a round %(n)s.") % {"n": number}})
        if self.instance is not None and "event" in attrs and attrs["event"] != self.instance.event:
            raise serializers.ValidationError({"event": _("A round cannot move to another event.")})
        return attrs


class TableSerializer(serializers.ModelSerializer):
    players = serializers.PrimaryKeyRelatedField(
        many=True, write_only=True, queryset=Player.objects.filter(anonymised=False),
        help_text="Player ids in seat order (seat 0 first, clockwise).",
    )
    event = serializers.IntegerField(source="round.event_id", read_only=True)

    class Meta:
        model = Table
        fields = ["id", "round", "event", "number", "players", "first_dealer", "created_at"]
        read_only_fields = ["first_dealer", "created_at"]
        validators = []  # the unique number is checked in validate(), with a field-level message

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["players"] = [seat.player_id for seat in instance.seats.all()]
        return data

    def validate(self, attrs):
        round_ = attrs.get("round", getattr(self.instance, "round", None))
        if self.instance is not None and "round" in attrs and attrs["round"] != self.instance.round:
            raise serializers.ValidationError({"round": _("A table cannot move to another round.")})
        number = attrs.get("number", getattr(self.instance, "number", None))
        if Table.objects.filter(round=round_, number=number).exclude(pk=getattr(self.instance, "pk", None)).exists():
            raise serializers.ValidationError({"number": _("This round already has a table %(n)s.") % {"n": number}})
        players = attrs.get("players")
        if players is None:
            return attrs
        info = GAMES[round_.event.game]
        if not info.min_players <= len(players) <= info.max_players:
            raise serializers.ValidationError({
                "players": _("%(game)s is played by %(low)s to %(high)s players, not %(count)s.") % {
                    "game": info.name, "low": info.min_players, "high": info.max_players, "count": len(players),
                }
            })
        seen = set()
        for player in players:
            if player.pk in seen:
                raise serializers.ValidationError({"players": _("Player %(id)s is seated twice.") % {"id": player.pk}})
            seen.add(player.pk)
        elsewhere = (
            Table.objects.filter(round=round_, seats__player__in=players)
            .exclude(pk=getattr(self.instance, "pk", None))
            .values_list("seats__player", flat=True)
        )
        taken = sorted(set(elsewhere) & seen)
        if taken:
            raise serializers.ValidationError({
                "players": _("Already seated at another table of this round: %(ids)s.") % {"ids": ", ".join(map(str, taken))}
            })
        return attrs

    def create(self, validated_data):
        from .services import table_seat_players

        players = validated_data.pop("players")
        table = Table.objects.create(**validated_data)
        return table_seat_players(table=table, players=players)

    def update(self, instance, validated_data):
        from .services import table_seat_players

        players = validated_data.pop("players", None)
        instance = super().update(instance, validated_data)
        if players is not None:
            table_seat_players(table=instance, players=players)
        return instance


class SessionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Session
        fields = ["id", "table", "number", "status", "first_dealer", "started_at", "finished_at"]
        read_only_fields = fields
