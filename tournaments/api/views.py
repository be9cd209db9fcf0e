"""REST API of the tournament domain under ``/api/v1/``.

Views translate HTTP to the services and back: what a user sees comes from
``policy.Visibility``, what he may change from the permission each view set names per action and
each view of its own (``PolicyAPIView``) per HTTP method (``permissions``, asked by
``PolicyPermission``), and every write is a service call. Domain errors become the JSON error shape in
``stich.errors``.
"""
from __future__ import annotations

import csv
import json

from django.db.models import Prefetch
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_serializer,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.filters import OrderingFilter
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from games.openapi import error_responses

from .. import policy, services
from ..draws import services as draws
from ..errors import Error, Invalid, NotFound
from ..models import Club, Player, Seat, Table, Transfer
from ..results import services as results
from ..results.exchange import export_text
from ..standings.metrics import METRICS
from ..standings.selectors import event_money, standings_document, standings_stream
from .filtering import FilterBackend
from .renderers import BrowsableAPIRenderer
from .serializers import (
    ClubSerializer,
    EventSerializer,
    NextHandSerializer,
    PlayerSerializer,
    RoundSerializer,
    SessionSerializer,
    TableSerializer,
    scorer_url,
)


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class OptionalReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class TransferSerializer(serializers.ModelSerializer):
    class Meta:
        model = Transfer
        fields = ["id", "session", "payer", "payee", "cents", "paid", "paid_at"]
        read_only_fields = fields


class StandingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    played = serializers.IntegerField(help_text="Sessions played (Maumau: series).")
    # The event's metrics (``metrics``), each a column of its own where the event ranks by it.
    placement = serializers.FloatField(required=False, help_text="Placement points: 1 for first at a table, 0 for "
                                                                 "last, linear between, ties sharing (4 places).")
    total = serializers.IntegerField(required=False, help_text="The sum of the engine's scores (Maumau: minus "
                                                               "points negated).")
    wins = serializers.IntegerField(required=False, help_text="Sessions won, shared first places included.")
    average_placement = serializers.FloatField(required=False, help_text="Placement points per session played.")
    cents = serializers.IntegerField(required=False, help_text="Maumau only: money won (+) or lost (-).")


class FinalRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="The final rank (no ties: the preliminary rank breaks them).")
    player = serializers.IntegerField()
    name = serializers.CharField()
    played = serializers.IntegerField(help_text="Final sessions finished.")
    final = serializers.FloatField(help_text="The first metric over the final sessions.")
    carried = serializers.FloatField(help_text="The carry-over: none, half or all of the preliminary value.")
    points = serializers.FloatField(help_text="final + carried: what ranks (exact; shown to 4 decimals).")
    preliminary_rank = serializers.IntegerField()


class FinalSerializer(serializers.Serializer):
    size = serializers.IntegerField(help_text="Finalists: the top N of the preliminary standings.")
    carry = serializers.ChoiceField(choices=["none", "half", "all"])
    metric = serializers.CharField(help_text="The metric whose points count (the event's first).")
    standings = FinalRowSerializer(many=True)


class StandingsSerializer(serializers.Serializer):
    event = serializers.IntegerField()
    metrics = serializers.ListField(child=serializers.ChoiceField(choices=sorted(METRICS)),
                                    help_text="The event's metrics in ranking priority: each is a member of every row.")
    standings = StandingRowSerializer(many=True)
    count = serializers.IntegerField(required=False, help_text="Paginated only: the rows of all pages.")
    page = serializers.IntegerField(required=False, help_text="Paginated only: this page's number (from 1).")
    pages = serializers.IntegerField(required=False, help_text="Paginated only: the number of pages.")
    page_size = serializers.IntegerField(required=False, help_text="Paginated only: rows per page.")
    next = serializers.URLField(required=False, allow_null=True, help_text="Paginated only: the next page.")
    previous = serializers.URLField(required=False, allow_null=True, help_text="Paginated only: the page before.")
    stage = serializers.ChoiceField(choices=["final"], required=False,
                                    help_text="With a final: `standings` is then the preliminary ranking.")
    final = FinalSerializer(required=False, help_text="The final ranking, once a final round has tables.")


STANDINGS_PAGE_PARAMETERS = [
    OpenApiParameter("page", int, description=(
        "A page of the standings (from 1). Standings longer than 100 rows always come in pages (page 1 "
        "unless asked); ranks are those of the whole standings, shared ranks may span two pages.")),
    OpenApiParameter("page_size", int, description="Rows per page, 1–1000 (default 100)."),
]


def _page_parameter(request, name: str) -> int | None:
    value = request.query_params.get(name)
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        raise Invalid(f"{name} is a whole number", field=name) from None


class MoneyTransferSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    to = serializers.IntegerField(help_text="Player id who receives.")
    cents = serializers.IntegerField()
    paid = serializers.BooleanField()

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.IntegerField(help_text="Player id who pays.")
        return fields


class MoneySeriesSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    table = serializers.IntegerField()
    round = serializers.IntegerField()
    nets = serializers.DictField(child=serializers.IntegerField(), help_text="Player id → net cents.")
    transfers = MoneyTransferSerializer(many=True)


class MoneySerializer(serializers.Serializer):
    cents = serializers.DictField(child=serializers.IntegerField(), help_text="Player id → net cents.")
    series = MoneySeriesSerializer(many=True)


class _CSVLine:
    """A file for ``csv.writer`` that hands back each line written: a streamed CSV's lines."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def write_row(self, writer, row) -> str:
        self.text = ""
        writer.writerow(row)
        return self.text


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


class PolicyViewSet(viewsets.GenericViewSet):
    """A view set whose readers get the policy's querysets and whose writes call services.

    ``permissions`` names the policy's permission of each action (tournaments/api/permissions.py); a
    create or update is asked on its validated data (``policy.Change``: ``CreateMixin``, ``UpdateMixin``)
    before the service runs.
    """

    permissions: dict[str, str] = {}

    def permission_for(self, request) -> str | None:
        return self.permissions.get(self.action)

    @property
    def visibility(self) -> policy.Visibility:
        return policy.visibility(self.request.user)

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "visibility": self.visibility}


class PolicyAPIView(APIView):
    """A view of its own (no model's view set) whose permissions are named per HTTP method,
    ``permissions = {"GET": "view_own_account"}`` (tournaments/api/permissions.py): the view asks
    them on its object with ``check_object_permissions``. A ``HEAD`` is asked as the ``GET`` it
    answers; a method without an entry reads freely and may not write."""

    permissions: dict[str, str] = {}

    def permission_for(self, request) -> str | None:
        return self.permissions.get("GET" if request.method == "HEAD" else request.method)

    def check_permissions(self, request):
        # A method the view does not answer is 405 (its handler says so), not a refusal.
        if hasattr(self, request.method.lower()):
            super().check_permissions(request)


class CreateMixin(mixins.CreateModelMixin):
    """A create asked of the policy on its validated data (``policy.Change``), then the service."""

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        self.check_object_permissions(request, policy.Change(None, serializer.validated_data))
        self.perform_create(serializer)
        return Response(serializer.data, status=status.HTTP_201_CREATED, headers=self.get_success_headers(serializer.data))


class UpdateMixin(mixins.UpdateModelMixin):
    """An update asked of the policy on the object (``get_object``) and on its validated data."""

    def update(self, request, *args, **kwargs):
        instance = self.get_object()
        serializer = self.get_serializer(instance, data=request.data, partial=kwargs.pop("partial", False))
        serializer.is_valid(raise_exception=True)
        self.check_object_permissions(request, policy.Change(instance, serializer.validated_data))
        self.perform_update(serializer)
        if getattr(instance, "_prefetched_objects_cache", None):
            instance._prefetched_objects_cache = {}
        return Response(serializer.data)


class ClubViewSet(PolicyViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin, CreateMixin,
                  UpdateMixin, mixins.DestroyModelMixin):
    """Clubs. Staff create and delete them; a club's organisers change it."""

    queryset = Club.objects.prefetch_related("organisers")
    serializer_class = ClubSerializer
    filterset_fields = {"name": ["exact", "icontains"], "city": ["exact", "icontains"]}
    ordering_fields = ["name", "created_at"]
    permissions = {"create": "add_club", "update": "change_club", "partial_update": "change_club",
                   "destroy": "delete_club"}

    def perform_create(self, serializer):
        serializer.instance = services.club_create(by_user=self.request.user, **serializer.validated_data)

    def perform_update(self, serializer):
        serializer.instance = services.club_update(club=serializer.instance, by_user=self.request.user,
                                                   **serializer.validated_data)

    def perform_destroy(self, club):
        services.club_delete(club=club, by_user=self.request.user)


class PlayerOrdering(OrderingFilter):
    """``?ordering=name`` orders by the shown name: the real one must not leak through the order."""

    def get_ordering(self, request, queryset, view):
        ordering = super().get_ordering(request, queryset, view)
        if not ordering:
            return None
        terms = [term.replace("name", "shown_name") if term.lstrip("-") == "name" else term for term in ordering]
        # Equal shown names (two "K.Z.") keep a fixed order that says nothing of the real ones.
        return terms if any(term.lstrip("-") == "id" for term in terms) else [*terms, "id"]

    def remove_invalid_fields(self, queryset, fields, view, request):
        return [term for term in fields if term.lstrip("-") in ("name", "created_at", "id")]


@extend_schema_view(
    destroy=extend_schema(description="Deleting a player anonymises him: name and account go, every result and "
                                      "rating stays."),
    list=extend_schema(parameters=[OpenApiParameter(
        "search", OpenApiTypes.STR,
        description="Players whose name contains every word of the text, in the name shown to you: the real name "
                    "only where you may see it, else the initials he agreed to. Each row's `label` is the name "
                    "to show, namesakes told apart.")]),
)
class PlayerViewSet(PolicyViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin, CreateMixin,
                    UpdateMixin, mixins.DestroyModelMixin):
    """Players. A club's organisers create players in their club. A player's name, initials and
    account are changed by whoever organises every club he belongs to; an organiser adds or removes
    memberships of his own clubs only. Names are shown as the player agreed (initials) to those who
    may not see the real one, and ``name`` filters and ordering use that shown name."""

    serializer_class = PlayerSerializer
    filterset_fields = {"clubs": ["exact"], "anonymised": ["exact"]}
    # DRF's filter_queryset iterates this attribute: the settings' plain OrderingFilter would sort
    # by the real name.
    filter_backends = [FilterBackend, PlayerOrdering]
    ordering_fields = ["name", "created_at", "id"]
    permissions = {"create": "add_player", "update": "change_player", "partial_update": "change_player",
                   "destroy": "delete_player"}

    def get_queryset(self):
        players = self.visibility.players().prefetch_related("clubs").order_by("shown_name", "id")
        text = self.request.query_params.get("name__icontains") or self.request.query_params.get("name")
        if text:
            players = self.visibility.filter_by_name(players, text)
        search = self.request.query_params.get("search")
        if search:
            players = self.visibility.search_players(players, search)
        return players

    def list(self, request, *args, **kwargs):
        # The page's names in one go (the namesake rule looks at all of them together).
        players = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(players)
        rows = list(page if page is not None else players)
        context = {**self.get_serializer_context(), "names": self.visibility.names(rows)}
        data = self.get_serializer(rows, many=True, context=context).data
        return self.get_paginated_response(data) if page is not None else Response(data)

    def perform_create(self, serializer):
        serializer.instance = services.player_create(by_user=self.request.user, **serializer.validated_data)

    def perform_update(self, serializer):
        user, player = self.request.user, serializer.instance
        data = dict(serializer.validated_data)
        clubs = data.pop("clubs", None)
        if data:
            player = services.player_update(player=player, by_user=user, **data)
        if clubs is not None:
            current = set(player.clubs.all())
            wanted = set(clubs)
            for club in wanted - current:
                services.player_join_club(player=player, club=club, by_user=user)
            for club in current - wanted:
                services.player_leave_club(player=player, club=club, by_user=user)
        serializer.instance = Player.objects.get(pk=player.pk)

    def perform_destroy(self, player):
        # Privacy: deleting a player anonymises him; standings and ratings stay as computed.
        services.player_anonymise(player=player, by_user=self.request.user)


class JSONErrorsMixin:
    """Errors are JSON (the one error shape) even where the URL asked for CSV or JSON Lines."""

    def handle_exception(self, exc):
        response = super().handle_exception(exc)
        if getattr(self.request, "accepted_renderer", None) is not None and \
                self.request.accepted_renderer.format in ("csv", "jsonl"):
            self.request.accepted_renderer = JSONRenderer()
            self.request.accepted_media_type = JSONRenderer.media_type
        return response


class SeatingScriptSerializer(serializers.Serializer):
    script = serializers.CharField(
        max_length=draws.MAX_SCRIPT_CHARS, allow_blank=True, trim_whitespace=False,
        help_text="One line per table per round: round, table, then the players by their number in the event "
                  "(their start number, `number` in `/api/v1/events/{id}/checkins/`), separated by commas, "
                  "semicolons, tabs or spaces; `#` starts a comment; a first line naming the columns is skipped.")


class ScriptTableSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    line = serializers.IntegerField(help_text="The script's line.")
    numbers = serializers.ListField(child=serializers.IntegerField(), help_text="Start numbers in seat order.")
    players = serializers.ListField(child=serializers.IntegerField(), help_text="Player ids in seat order.")


class SeatingScriptAnswerSerializer(serializers.Serializer):
    text = serializers.CharField()
    rounds = serializers.DictField(child=ScriptTableSerializer(many=True),
                                   help_text="Round number → its tables in table order.")


class EventViewSet(JSONErrorsMixin, PolicyViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin, CreateMixin,
                   UpdateMixin, mixins.DestroyModelMixin):
    """Events (tournaments) of one game. A club's organisers create them (unpublished); an event's
    organisers change them. An event with results cannot be deleted: unpublish it instead."""

    serializer_class = EventSerializer
    filterset_fields = {"club": ["exact"], "game": ["exact"], "starts_on": ["exact", "gte", "lte"]}
    ordering_fields = ["starts_on", "name", "created_at"]
    permissions = {"create": "add_event", "update": "change_event", "partial_update": "change_event",
                   "destroy": "delete_event", "seating_script": "change_event"}

    def get_queryset(self):
        return self.visibility.events().select_related("club").prefetch_related("organisers")

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        organisers = data.pop("organisers", [])
        serializer.instance = services.event_create(by_user=self.request.user, organisers=organisers, **data)

    def perform_update(self, serializer):
        event, user = serializer.instance, self.request.user
        data = dict(serializer.validated_data)
        club = data.pop("club", None)
        organisers = data.pop("organisers", None)
        serializer.instance = services.event_update(event=event, by_user=user, club=club, organisers=organisers, **data)

    def perform_destroy(self, event):
        services.event_delete(event=event, by_user=self.request.user)

    @extend_schema(methods=["GET"], request=None,
                   responses={200: SeatingScriptAnswerSerializer, **error_responses(401, 403, 404)})
    @extend_schema(methods=["PUT"], request=SeatingScriptSerializer,
                   responses={200: SeatingScriptAnswerSerializer, **error_responses(400, 401, 403, 404, 409)})
    @extend_schema(methods=["DELETE"], request=None, responses={204: None, **error_responses(401, 403, 404)})
    @action(detail=True, methods=["get", "put", "delete"], url_path="seating-script",
            serializer_class=SeatingScriptSerializer, pagination_class=None, filter_backends=[])
    def seating_script(self, request, pk=None):
        """The event's seating script (organisers): ``PUT`` checks it against the event's players
        (by their start number) and the game's table sizes and keeps it, or refuses it whole: 400
        `bad_script` with one sentence per faulty line in `fields.script` (`line 3: no player has the
        number 41 in this event`); ``GET`` shows it (404 when there is none); ``DELETE`` forgets it.
        The draw's `script` method seats it."""
        event = self.get_object()
        if request.method == "GET":
            if event.seating_script is None:
                raise NotFound("this event has no seating script")
            return Response(event.seating_script)
        if request.method == "DELETE":
            draws.seating_script_remove(event, by_user=request.user)
            return Response(status=status.HTTP_204_NO_CONTENT)
        data = SeatingScriptSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(draws.seating_script_set(event, text=data.validated_data["script"], by_user=request.user))

    @extend_schema(responses={200: StandingsSerializer, (200, "text/csv"): OpenApiTypes.STR,
                              **error_responses(400, 404)}, parameters=STANDINGS_PAGE_PARAMETERS)
    @action(detail=True, methods=["get"], renderer_classes=[JSONRenderer, BrowsableAPIRenderer, CSVRenderer])
    def standings(self, request, pk=None, format=None):
        """The event's standings: rank, player, sessions played and each of the event's metrics
        (placement points, totals, wins …); Maumau events add the money in cents. JSON, or CSV as
        ``standings.csv`` (or ``?format=csv``). Rounds held back count only for organisers.

        Long standings come in pages (``page``, ``page_size``): a paginated answer adds ``count``,
        ``page``, ``pages``, ``page_size``, ``next`` and ``previous``; ranks stay those of the
        whole standings. The CSV has every row, streamed."""
        event = self.get_object()
        if request.accepted_renderer.format == "csv":
            return self._standings_csv(event)
        document = standings_document(event, visibility=self.visibility, page=_page_parameter(request, "page"),
                                      page_size=_page_parameter(request, "page_size"))
        if "pages" in document:
            document["next"] = self._page_url(request, document, document["page"] + 1)
            document["previous"] = self._page_url(request, document, document["page"] - 1)
        return Response(document)

    @staticmethod
    def _page_url(request, document: dict, number: int) -> str | None:
        if not 1 <= number <= document["pages"]:
            return None
        query = request.query_params.copy()
        query["page"] = str(number)
        return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

    def _standings_csv(self, event) -> StreamingHttpResponse:
        """Every row of the standings, streamed (names looked up a chunk of rows at a time)."""
        rows = standings_stream(event, visibility=self.visibility)
        metrics, final = next(rows), None
        if isinstance(metrics, tuple):
            metrics, final = metrics
        money = event.game == "maumau"
        line = _CSVLine()
        writer = csv.writer(line)

        def lines():
            if final is None:
                yield line.write_row(writer, ["rank", "player", "name", "played", *metrics,
                                              *(["cents"] if money else [])])
                for row in rows:
                    yield line.write_row(writer, [
                        row["rank"], row["player"], row["name"], row["played"], *(row[m] for m in metrics),
                        *([row["cents"]] if money else []),
                    ])
                return
            # With a final: a column says the stage; the final's rows first (their points and
            # carry-over), then the preliminary ranking (its metrics).
            yield line.write_row(writer, ["stage", "rank", "player", "name", "played", "final", "carried", "points",
                                          *metrics, *(["cents"] if money else [])])
            for row in final["standings"]:
                yield line.write_row(writer, ["final", row["rank"], row["player"], row["name"], row["played"],
                                              row["final"], row["carried"], row["points"], *([""] * len(metrics)),
                                              *([""] if money else [])])
            for row in rows:
                yield line.write_row(writer, [
                    "preliminary", row["rank"], row["player"], row["name"], row["played"], "", "", "",
                    *(row[m] for m in metrics), *([row["cents"]] if money else []),
                ])

        response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="standings-{event.pk}.csv"'
        return response

    @extend_schema(responses={(200, "application/jsonl"): OpenApiTypes.STR, **error_responses(404)})
    @action(detail=True, methods=["get"], renderer_classes=[JSONLinesRenderer])
    def export(self, request, pk=None, format=None):
        """The event as JSON Lines (``export.jsonl``): event, clubs, players, rounds, tables, sessions
        and every hand version. ``manage.py import_records`` reads it back."""
        event = self.get_object()
        body = export_text(event, visibility=self.visibility)
        response = HttpResponse(body, content_type="application/jsonl; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="event-{event.pk}.jsonl"'
        return response

    @extend_schema(responses={200: MoneySerializer, **error_responses(404)})
    @action(detail=True, methods=["get"])
    def money(self, request, pk=None):
        """Maumau events only: each player's net cents and, per finished series, who pays whom."""
        event = self.get_object()
        if event.game != "maumau":
            raise NotFound("only Maumau events are played for money", code=Error.NO_MONEY)
        return Response(event_money(event, visibility=self.visibility))


# The body is the component ``DrawRequest`` (the spectacular default would say "Request" twice).
@extend_schema_serializer(component_name="Draw")
class DrawRequestSerializer(serializers.Serializer):
    players = serializers.ListField(child=serializers.IntegerField(), required=False,
                                    help_text="The players to seat. Default: the players checked in at the event "
                                              "(`/api/v1/events/{id}/checkins/`, as the console draws); "
                                              "400 `too_few_players` when nobody is checked in.")
    add = serializers.ListField(child=serializers.IntegerField(), required=False, default=list,
                                help_text="Late arrivals, added to the current draft's players (without a "
                                          "draft, to the checked-in players).")
    remove = serializers.ListField(child=serializers.IntegerField(), required=False, default=list,
                                   help_text="Dropouts, removed from the current draft's players (without a "
                                             "draft, from the checked-in players).")
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**31 - 1, help_text="Repeat a draw exactly.")
    method = serializers.ChoiceField(
        choices=draws.METHODS, required=False,
        help_text="How to seat: `varied` (fewest repeated meetings; the default), `standings` (tables filled in "
                  "standings order, the top players together), `interval` (players spread by standings: "
                  "1-5-9-13 / 2-6-10-14 …), `script` (the event's seating script for this round; "
                  "`/api/v1/events/{id}/seating-script/`). A final round defaults to `standings` and seats "
                  "the finalists.")


class SwapSerializer(serializers.Serializer):
    a = serializers.IntegerField(help_text="A player id of the draw.")
    b = serializers.IntegerField(help_text="Another player id of the draw.")


class DrawTableSerializer(serializers.Serializer):
    players = serializers.ListField(child=serializers.IntegerField(), help_text="Player ids in seat order.")
    first_dealer = serializers.IntegerField(help_text="The seat that deals first.")


class DrawSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    seed = serializers.IntegerField()
    players = serializers.ListField(child=serializers.IntegerField(), help_text="The present players.")
    byes = serializers.ListField(child=serializers.IntegerField(), help_text="Players who sit this round out.")
    tables = DrawTableSerializer(many=True)
    method = serializers.ChoiceField(choices=draws.METHODS, required=False, help_text="The seating method.")
    quality = serializers.DictField(help_text="Repeat meetings, off-size tables, club mates, seats and dealers; "
                                              "`method` and what it optimised (`optimised`: fewest_repeats, "
                                              "standings_order, standings_spread or as_scripted).")
    drawn_at = serializers.DateTimeField()


class RoundViewSet(PolicyViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin, CreateMixin,
                   UpdateMixin, mixins.DestroyModelMixin):
    """Rounds of an event. Its organisers create, draw, hold back and release them; a round whose
    results are held back is missing for everyone else until released."""

    serializer_class = RoundSerializer
    filterset_fields = {"event": ["exact"], "number": ["exact"]}
    ordering_fields = ["number"]
    permissions = {"create": "add_round", "update": "change_round", "partial_update": "change_round",
                   "destroy": "delete_round", "draw": "change_round", "draw_swap": "change_round",
                   "draw_publish": "change_round"}

    def get_queryset(self):
        return self.visibility.rounds().select_related("event")

    def perform_create(self, serializer):
        data = serializer.validated_data
        serializer.instance = services.round_create(event=data["event"], number=data.get("number"),
                                                    stage=data.get("stage", "preliminary"), by_user=self.request.user)

    def perform_update(self, serializer):
        round_ = serializer.instance
        data = serializer.validated_data  # its event and number stay (policy.may_change_round)
        if "results_held" in data:
            round_ = services.round_set_results_held(round_=round_, held=data["results_held"], by_user=self.request.user)
        serializer.instance = round_

    def perform_destroy(self, round_):
        services.round_delete(round_=round_, by_user=self.request.user)

    @extend_schema(methods=["GET"], request=None,
                   responses={200: DrawSerializer, **error_responses(401, 403, 404)})
    @extend_schema(methods=["POST"], request=DrawRequestSerializer,
                   responses={200: DrawSerializer, **error_responses(400, 401, 403, 409)})
    @action(detail=True, methods=["get", "post"], serializer_class=DrawRequestSerializer)
    def draw(self, request, pk=None):
        """The seating draw of a round before it is published (organisers only): ``GET`` shows the
        preview, ``POST`` draws (again): the players checked in at the event unless ``players``
        names them (``add``/``remove``: late arrivals and dropouts of the current draft)."""
        round_ = self.get_object()
        if request.method == "GET":
            if not round_.draft:
                raise NotFound("this round has not been drawn", code=Error.NOT_DRAWN)
            return Response(round_.draft)
        data = DrawRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(draws.draw_preview(round_, by_user=request.user, **data.validated_data))

    @extend_schema(request=SwapSerializer, responses={200: DrawSerializer, **error_responses(400, 409)})
    @action(detail=True, methods=["post"], url_path="draw/swap", serializer_class=SwapSerializer)
    def draw_swap(self, request, pk=None):
        """Exchange two players of the preview by hand (a player with a bye included)."""
        round_ = self.get_object()
        data = SwapSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(draws.draw_swap(round_, by_user=request.user, **data.validated_data))

    @extend_schema(request=None, responses={201: TableSerializer(many=True), **error_responses(409)})
    @action(detail=True, methods=["post"], url_path="draw/publish", serializer_class=serializers.Serializer,
            pagination_class=None, filter_backends=[])
    def draw_publish(self, request, pk=None):
        """Create the round's tables from the preview: the new tables in number order (a plain list,
        not a page), with their scorer links."""
        round_ = self.get_object()
        tables = draws.draw_publish(round_, by_user=request.user)
        seats = Prefetch("seats", queryset=Seat.objects.order_by("position"))
        tables = Table.objects.filter(pk__in=[t.pk for t in tables]).select_related("round").prefetch_related(
            seats).order_by("number")
        return Response(TableSerializer(tables, many=True, context=self.get_serializer_context()).data,
                        status=status.HTTP_201_CREATED)


class ScorerLinkSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    scorer_url = serializers.URLField(help_text="The table's private link; its QR code is on the table card.")


class TableViewSet(PolicyViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin, CreateMixin,
                   UpdateMixin, mixins.DestroyModelMixin):
    """Tables of a round with their players in seat order. Seats are final once a hand is stored."""

    serializer_class = TableSerializer
    filterset_fields = {"round": ["exact"], "round__event": ["exact"], "number": ["exact"]}
    ordering_fields = ["number"]
    permissions = {"create": "add_table", "update": "change_table", "partial_update": "change_table",
                   "destroy": "delete_table", "scorer_link": "change_table"}

    def get_queryset(self):
        seats = Prefetch("seats", queryset=Seat.objects.order_by("position"))
        return self.visibility.tables().select_related("round__event").prefetch_related(seats)

    def perform_create(self, serializer):
        data = serializer.validated_data
        serializer.instance = services.table_create(
            round_=data["round"], players=data["players"], number=data.get("number"),
            first_dealer=data.get("first_dealer"), by_user=self.request.user,
        )

    def perform_update(self, serializer):
        table = serializer.instance
        data = serializer.validated_data  # its round stays (policy.may_change_table)
        serializer.instance = services.table_update(
            table=table, by_user=self.request.user, players=data.get("players"), number=data.get("number"),
            first_dealer=data.get("first_dealer"),
        )

    def perform_destroy(self, table):
        services.table_delete(table=table, by_user=self.request.user)

    @extend_schema(request=None, responses={200: ScorerLinkSerializer, **error_responses(401, 403, 404)})
    @action(detail=True, methods=["post"], url_path="scorer-link", serializer_class=serializers.Serializer)
    def scorer_link(self, request, pk=None):
        """A new private scorer link for the table (organisers): the old link and its QR code stop
        working at once."""
        table = services.table_rotate_scorer_token(table=self.get_object(), by_user=request.user)
        return Response({"table": table.pk, "scorer_url": scorer_url(self.get_serializer_context(), table)})


class SessionDetailSerializer(SessionSerializer):
    """A session with its summary (``results.session_summary``): hands so far, totals, what comes next."""

    hands = serializers.IntegerField(help_text="Hands stored (voided ones included).")
    totals = serializers.ListField(child=serializers.IntegerField(), help_text="Per seat.")
    unconfirmed = serializers.IntegerField(help_text="Hands waiting for a second player's confirmation.")
    next = NextHandSerializer(allow_null=True, help_text="null once the session is over.")

    class Meta(SessionSerializer.Meta):
        fields = [*SessionSerializer.Meta.fields, "hands", "totals", "unconfirmed", "next"]
        read_only_fields = fields


@extend_schema_view(retrieve=extend_schema(responses={200: SessionDetailSerializer}))
class SessionViewSet(PolicyViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Sessions played at tables: a Mü game, a Maumau series, a game of Mit List und Tücke."""

    serializer_class = SessionSerializer
    filterset_fields = {"table": ["exact"], "table__round": ["exact"], "table__round__event": ["exact"], "status": ["exact"]}
    permissions = {"abandon": "change_session"}

    def get_queryset(self):
        return self.visibility.sessions().select_related("table__round__event")

    def retrieve(self, request, *args, **kwargs):
        session = self.get_object()
        return Response(SessionSerializer(session).data | results.session_summary(session))

    @extend_schema(request=ReasonSerializer, responses={200: SessionSerializer, **error_responses(400, 403, 409)})
    @action(detail=True, methods=["post"], serializer_class=ReasonSerializer)
    def abandon(self, request, pk=None):
        """Abandon a session (organisers, with a reason): it is shown as such and not rated."""
        session = self.get_object()
        data = ReasonSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session = results.session_abandon(session=session, by_user=request.user, reason=data.validated_data["reason"])
        return Response(SessionSerializer(session).data)


class TransferViewSet(PolicyViewSet, mixins.ListModelMixin):
    """Maumau payments that settle finished series; an organiser marks them paid."""

    serializer_class = TransferSerializer
    filterset_fields = {"session": ["exact"], "session__table__round__event": ["exact"], "paid": ["exact"]}
    permissions = {"paid": "change_transfer", "unpaid": "change_transfer"}

    def get_queryset(self):
        return self.visibility.transfers().select_related("session__table__round__event")

    @extend_schema(request=None, responses={200: TransferSerializer, **error_responses(401, 403, 409)})
    @action(detail=True, methods=["post"], serializer_class=serializers.Serializer)
    def paid(self, request, pk=None):
        """Tick a payment as paid (once)."""
        transfer = self.get_object()
        return Response(TransferSerializer(results.transfer_mark_paid(transfer=transfer, by_user=request.user)).data)

    @extend_schema(request=OptionalReasonSerializer,
                   responses={200: TransferSerializer, **error_responses(400, 401, 403, 409)})
    @action(detail=True, methods=["post"], serializer_class=OptionalReasonSerializer)
    def unpaid(self, request, pk=None):
        """Take back a "paid" mark given by mistake (409 ``not_paid`` when it is not marked)."""
        transfer = self.get_object()
        data = OptionalReasonSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        transfer = results.transfer_mark_unpaid(transfer=transfer, by_user=request.user,
                                                reason=data.validated_data["reason"])
        return Response(TransferSerializer(transfer).data)
