"""REST API of the tournament domain under ``/api/v1/``.

Each view set says who may change what through ``may_create`` and ``may_change`` (tournaments/
policy.py); the default permission class calls them. Reads are open; querysets hide what is not
published.
"""
from __future__ import annotations

import csv
import json

from django.db import transaction
from django.db.models import Prefetch, Q
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from . import policy
from .models import AuditEntry, Club, Event, Player, Round, Seat, Session, Table, Transfer
from .selectors import event_money, event_standings
from .serializers import (
    ClubSerializer,
    EventSerializer,
    PlayerSerializer,
    RoundSerializer,
    SessionSerializer,
    TableSerializer,
)
from .services import player_anonymise
from .signals import results_visibility_changed


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class TransferSerializer(serializers.ModelSerializer):
    class Meta:
        model = Transfer
        fields = ["id", "session", "payer", "payee", "cents", "paid", "paid_at"]
        read_only_fields = fields


def standings_document(event: Event, *, public: bool) -> dict:
    """The event's standings as JSON: metrics as numbers (placement points rounded to 4 places)."""
    rows = event_standings(event, public=public)
    names = {p.pk: p.public_name for p in Player.objects.filter(pk__in=[row.player for row in rows])}
    cents = event_money(event, public=public)["cents"] if event.game == "maumau" else {}
    metrics = [name for name in event.standings_metrics.split(",") if name]
    return {
        "event": event.pk,
        "metrics": metrics,
        "standings": [
            {
                "rank": row.rank, "player": row.player, "name": names.get(row.player, ""), "played": row.played,
                **{name: _number(value) for name, value in row.metrics.items()},
                **({"cents": cents.get(row.player, 0)} if event.game == "maumau" else {}),
            }
            for row in rows
        ],
    }


def _number(value):
    return value if isinstance(value, int) else round(float(value), 4)


class _PassThroughRenderer(BaseRenderer):
    """The view writes the body itself; the renderer only lets content negotiation pick the format
    that the URL names (``standings.csv``, ``export.jsonl``; errors come back in that type too)."""

    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, (bytes, str)):
            return data
        return json.dumps(data).encode()


class CSVRenderer(_PassThroughRenderer):
    media_type = "text/csv"
    format = "csv"


class JSONLinesRenderer(_PassThroughRenderer):
    media_type = "application/jsonl"
    format = "jsonl"


class OwnedModelViewSet(viewsets.ModelViewSet):
    """A model view set whose writes are checked against the policy, inside one transaction."""

    def may_create(self, user, data: dict) -> bool:
        raise NotImplementedError

    def may_change(self, user, obj) -> bool:
        raise NotImplementedError

    def perform_create(self, serializer):
        if not self.may_create(self.request.user, serializer.validated_data):
            raise PermissionDenied("You may not create this here.")
        with transaction.atomic():
            serializer.save()

    def perform_update(self, serializer):
        with transaction.atomic():
            serializer.save()


class ClubViewSet(OwnedModelViewSet):
    queryset = Club.objects.prefetch_related("organisers")
    serializer_class = ClubSerializer
    filterset_fields = {"name": ["exact", "icontains"], "city": ["exact", "icontains"]}
    ordering_fields = ["name", "created_at"]

    def may_create(self, user, data):
        return policy.is_staff(user)

    def may_change(self, user, club):
        if self.request.method == "DELETE":
            return policy.is_staff(user)
        return policy.organises_club(user, club)


class PlayerViewSet(OwnedModelViewSet):
    queryset = Player.objects.prefetch_related("clubs")
    serializer_class = PlayerSerializer
    filterset_fields = {"clubs": ["exact"], "name": ["icontains"], "anonymised": ["exact"]}
    ordering_fields = ["name", "created_at"]

    def may_create(self, user, data):
        clubs = data.get("clubs") or []
        return bool(clubs) and all(policy.organises_club(user, club) for club in clubs)

    def may_change(self, user, player):
        return policy.may_change_player(user, player)

    def perform_update(self, serializer):
        clubs = serializer.validated_data.get("clubs")
        if clubs is not None and not all(policy.organises_club(self.request.user, club) for club in clubs):
            raise PermissionDenied("You may only place players in clubs you organise.")
        super().perform_update(serializer)

    def perform_destroy(self, player):
        # Privacy: deleting a player anonymises him; standings and ratings stay as computed.
        player_anonymise(player=player)


class EventViewSet(OwnedModelViewSet):
    serializer_class = EventSerializer
    filterset_fields = {"club": ["exact"], "game": ["exact"], "starts_on": ["exact", "gte", "lte"]}
    ordering_fields = ["starts_on", "name", "created_at"]

    def get_queryset(self):
        return policy.visible_events(self.request.user).select_related("club").prefetch_related("organisers")

    def may_create(self, user, data):
        return policy.organises_club(user, data["club"])

    def may_change(self, user, event):
        return policy.organises_event(user, event)

    @extend_schema(responses={200: OpenApiTypes.OBJECT, (200, "text/csv"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"], renderer_classes=[JSONRenderer, BrowsableAPIRenderer, CSVRenderer])
    def standings(self, request, pk=None, format=None):
        """JSON, or CSV as ``standings.csv`` (or ``?format=csv``)."""
        event = self.get_object()
        document = standings_document(event, public=not policy.organises_event(request.user, event))
        if request.accepted_renderer.format == "csv":
            return self._standings_csv(event, document)
        return Response(document)

    def _standings_csv(self, event, document) -> HttpResponse:
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="standings-{event.pk}.csv"'
        writer = csv.writer(response)
        metrics = document["metrics"]
        money = event.game == "maumau"
        writer.writerow(["rank", "player", "name", "played", *metrics, *(["cents"] if money else [])])
        for row in document["standings"]:
            writer.writerow([
                row["rank"], row["player"], row["name"], row["played"], *(row[m] for m in metrics),
                *([row["cents"]] if money else []),
            ])
        return response

    @extend_schema(responses={(200, "application/jsonl"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"], renderer_classes=[JSONLinesRenderer])
    def export(self, request, pk=None, format=None):
        """The event as JSON Lines: ``export.jsonl``."""
        from .exchange import export_text

        event = self.get_object()
        body = export_text(event, public=not policy.organises_event(request.user, event))
        response = HttpResponse(body, content_type="application/jsonl; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="event-{event.pk}.jsonl"'
        return response

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def money(self, request, pk=None):
        event = self.get_object()
        return Response(event_money(event, public=not policy.organises_event(request.user, event)))

    def perform_update(self, serializer):
        event = serializer.instance
        user = self.request.user
        if "club" in serializer.validated_data and serializer.validated_data["club"] != event.club:
            if not policy.organises_club(user, serializer.validated_data["club"]):
                raise PermissionDenied("You may only move an event to a club you organise.")
        if "organisers" in serializer.validated_data and not policy.organises_club(user, event.club):
            raise PermissionDenied("Only the club's organisers name an event's organisers.")
        super().perform_update(serializer)


class DrawRequestSerializer(serializers.Serializer):
    players = serializers.ListField(child=serializers.IntegerField(), required=False,
                                    help_text="The present players (default: the previous round's, or the club's).")
    add = serializers.ListField(child=serializers.IntegerField(), required=False, default=list,
                                help_text="Late arrivals, added to the current draft's players.")
    remove = serializers.ListField(child=serializers.IntegerField(), required=False, default=list,
                                   help_text="Dropouts, removed from the current draft's players.")
    seed = serializers.IntegerField(required=False, min_value=0, help_text="Repeat a draw exactly.")


class SwapSerializer(serializers.Serializer):
    a = serializers.IntegerField()
    b = serializers.IntegerField()


def _draw_answer(call) -> Response:
    from .draws import DrawError

    try:
        return Response(call())
    except DrawError as error:
        body = {"code": error.code, "message": error.message}
        if error.field:
            body["fields"] = {error.field: [error.message]}
        return Response(body, status=error.status)


class RoundViewSet(OwnedModelViewSet):
    serializer_class = RoundSerializer
    filterset_fields = {"event": ["exact"], "number": ["exact"]}
    ordering_fields = ["number"]

    def get_queryset(self):
        return Round.objects.filter(pk__in=policy.visible_rounds(self.request.user)).select_related("event")

    def may_create(self, user, data):
        return policy.organises_event(user, data["event"])

    def may_change(self, user, round_):
        return policy.organises_event(user, round_.event)

    def _organiser_only(self, round_) -> None:
        if not self.request.user.is_authenticated:
            raise NotAuthenticated()
        if not policy.organises_event(self.request.user, round_.event):
            raise PermissionDenied("Only the event's organisers draw its rounds.")

    @extend_schema(request=DrawRequestSerializer, responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get", "post"])
    def draw(self, request, pk=None):
        """The seating draw of a round before it is published (organisers only): ``GET`` shows the
        preview, ``POST`` draws (again) for the present players, late arrivals and dropouts."""
        from .draws import draw_preview

        round_ = self.get_object()
        self._organiser_only(round_)
        if request.method == "GET":
            if not round_.draft:
                return Response({"code": "no_draw", "message": "this round has not been drawn"}, status=404)
            return Response(round_.draft)
        data = DrawRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _draw_answer(lambda: draw_preview(round_, by_user=request.user, **data.validated_data))

    @extend_schema(request=SwapSerializer, responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"], url_path="draw/swap")
    def draw_swap(self, request, pk=None):
        """Exchange two players of the preview by hand (a player with a bye included)."""
        from .draws import draw_swap

        round_ = self.get_object()
        self._organiser_only(round_)
        data = SwapSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _draw_answer(lambda: draw_swap(round_, by_user=request.user, **data.validated_data))

    @extend_schema(request=None, responses={201: TableSerializer(many=True)})
    @action(detail=True, methods=["post"], url_path="draw/publish")
    def draw_publish(self, request, pk=None):
        """Create the round's tables from the preview."""
        from .draws import DrawError, draw_publish

        round_ = self.get_object()
        self._organiser_only(round_)
        try:
            tables = draw_publish(round_, by_user=request.user)
        except DrawError as error:
            return Response({"code": error.code, "message": error.message}, status=error.status)
        tables = Table.objects.filter(pk__in=[t.pk for t in tables]).prefetch_related("seats").order_by("number")
        return Response(TableSerializer(tables, many=True).data, status=201)

    def perform_update(self, serializer):
        was_held = serializer.instance.results_held
        super().perform_update(serializer)
        round_ = serializer.instance
        if round_.results_held != was_held:
            # Holding back or releasing a round changes what is public and rated.
            AuditEntry.objects.create(
                actor=self.request.user, action="round_released" if was_held else "round_held",
                event=round_.event, object_type="round", object_id=round_.pk,
            )
            event_id = round_.event_id
            transaction.on_commit(lambda: results_visibility_changed.send(sender=Round, event_id=event_id))


class TableViewSet(OwnedModelViewSet):
    serializer_class = TableSerializer
    filterset_fields = {"round": ["exact"], "round__event": ["exact"], "number": ["exact"]}
    ordering_fields = ["number"]

    def get_queryset(self):
        seats = Prefetch("seats", queryset=Seat.objects.order_by("position"))
        return (
            Table.objects.filter(round__in=policy.visible_rounds(self.request.user))
            .select_related("round__event")
            .prefetch_related(seats)
        )

    def may_create(self, user, data):
        return policy.organises_event(user, data["round"].event)

    def may_change(self, user, table):
        return policy.organises_event(user, table.round.event)


class SessionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = SessionSerializer
    filterset_fields = {"table": ["exact"], "table__round": ["exact"], "table__round__event": ["exact"], "status": ["exact"]}

    def may_change(self, user, session) -> bool:
        """Object permission: the event's organisers act on its sessions (abandon)."""
        return policy.organises_event(user, session.table.round.event)

    def get_queryset(self):
        sessions = Session.objects.filter(table__round__in=policy.visible_rounds(self.request.user))
        return sessions.select_related("table__round__event")

    def retrieve(self, request, *args, **kwargs):
        from games.services import session_summary

        session = self.get_object()
        body = SessionSerializer(session).data | session_summary(session)
        if policy_hides_results(request.user, session.table.round):
            body["totals"], body["hands"] = None, None
        return Response(body)

    @extend_schema(request=ReasonSerializer, responses={200: SessionSerializer})
    @action(detail=True, methods=["post"])
    def abandon(self, request, pk=None):
        from games.services import session_abandon

        session = self.get_object()
        if not policy.organises_event(request.user, session.table.round.event):
            raise PermissionDenied("Only the event's organisers abandon a session.")
        data = ReasonSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session = session_abandon(session=session, by_user=request.user, reason=data.validated_data["reason"])
        return Response(SessionSerializer(session).data)


def policy_hides_results(user, round_) -> bool:
    return round_.results_held and not policy.organises_event(user, round_.event)


class TransferViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Maumau payments that settle finished series; an organiser marks them paid."""

    serializer_class = TransferSerializer
    filterset_fields = {"session": ["exact"], "session__table__round__event": ["exact"], "paid": ["exact"]}

    def get_queryset(self):
        transfers = Transfer.objects.filter(
            session__table__round__event__in=policy.visible_events(self.request.user)
        ).select_related("session__table__round__event")
        if not self.request.user.is_staff:
            transfers = transfers.exclude(
                Q(session__table__round__results_held=True)
                & ~Q(session__table__round__event__organisers=self.request.user.pk or 0)
            )
        return transfers

    def may_change(self, user, transfer) -> bool:
        """Object permission: the event's organisers mark transfers paid."""
        return policy.organises_event(user, transfer.session.table.round.event)

    @extend_schema(request=None, responses={200: TransferSerializer})
    @action(detail=True, methods=["post"])
    def paid(self, request, pk=None):
        transfer = self.get_object()
        event = transfer.session.table.round.event
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        if not policy.organises_event(request.user, event):
            raise PermissionDenied("Only the event's organisers mark payments.")
        with transaction.atomic():
            transfer.paid, transfer.paid_at = True, timezone.now()
            transfer.save(update_fields=["paid", "paid_at"])
            AuditEntry.objects.create(
                actor=request.user, action="transfer_paid", event=event, object_type="transfer",
                object_id=transfer.pk, data={"cents": transfer.cents},
            )
        return Response(TransferSerializer(transfer).data)
