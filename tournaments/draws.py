"""Seating draws of a round: preview, adjust, publish (the service around ``seating``).

An organiser draws a round before publishing it: ``draw_preview`` draws the present players on
the history of the event's earlier rounds and keeps the result on the round (``Round.draft``)
with its quality report; drawing again (another seed, late arrivals, dropouts) replaces it;
``draw_swap`` exchanges two players by hand (a player with a bye included); ``draw_publish``
turns the draft into tables and seats. A round that has tables is published: its draw is final
(tables can still be edited one by one through the API, as before).

Decisions (the issue leaves them open):
- The present players default to the previous round's players (seated and byes) or, for the first
  round, to the members of the event's club; an organiser passes ``players`` (or ``add`` /
  ``remove``) for late arrivals and dropouts.
- Club mates are kept apart in the first round when the players come from several clubs.
- Byes (only when no mix of table sizes seats everybody) go to the players with the fewest byes so
  far, ties by the draw's seed; how a bye scores is the event's rule (the standings count sessions
  played, so a bye simply plays one session fewer).
"""
from __future__ import annotations

import random

from django.db import transaction
from django.utils import timezone

from . import seating
from .models import AuditEntry, Membership, Player, Round, Seat, Table
from .services import table_seat_players


class DrawError(Exception):
    """A draw that cannot be made or changed; ``status`` is the HTTP status it answers with."""

    def __init__(self, code: str, message: str, status: int = 400, field: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.field = code, message, status, field


def event_history(round_: Round) -> seating.MeetingHistory:
    """The tables of the event's published rounds before ``round_``, oldest first."""
    earlier = list(
        Round.objects.filter(event=round_.event_id, number__lt=round_.number).order_by("number")
        .prefetch_related("tables__seats")
    )
    rounds, byes = [], []
    for previous in earlier:
        tables = []
        for table in sorted(previous.tables.all(), key=lambda t: t.number):
            players = [seat.player_id for seat in sorted(table.seats.all(), key=lambda s: s.position)]
            if players:
                tables.append(seating.DrawTable(tuple(players), table.first_dealer or 0))
        if tables:
            rounds.append(tables)
            byes.append(previous.byes or [])
    return seating.MeetingHistory.from_rounds(rounds, game=round_.event.game, byes=byes)


def default_players(round_: Round) -> list[int]:
    previous = Round.objects.filter(event=round_.event_id, number__lt=round_.number).order_by("-number").first()
    if previous is not None:
        seated = list(
            Seat.objects.filter(round=previous).order_by("table__number", "position").values_list("player_id", flat=True)
        )
        if seated:
            return list(dict.fromkeys(seated + list(previous.byes or [])))
    members = Membership.objects.filter(club=round_.event.club_id, player__anonymised=False)
    return list(members.order_by("player_id").values_list("player_id", flat=True))


def _check_open(round_: Round) -> None:
    if round_.tables.exists():
        raise DrawError("round_published", "this round has tables already: its draw is published", status=409)


def _check_players(players: list) -> list[int]:
    if any(type(p) is not int for p in players):
        raise DrawError("bad_players", "players must be a list of player ids", field="players")
    if len(set(players)) != len(players):
        raise DrawError("bad_players", "a player is listed twice", field="players")
    known = set(Player.objects.filter(pk__in=players, anonymised=False).values_list("pk", flat=True))
    unknown = [p for p in players if p not in known]
    if unknown:
        raise DrawError("unknown_players", f"no such players: {unknown}", field="players")
    return players


def _document(round_: Round, seed: int, players: list[int], draw: seating.Draw, history: seating.MeetingHistory) -> dict:
    tables = [{"players": list(t.players), "first_dealer": t.dealer} for t in draw.tables]
    return {
        "round": round_.pk, "seed": seed, "players": players, "byes": list(draw.byes), "tables": tables,
        "quality": _quality(tables, history), "drawn_at": timezone.now().isoformat(),
    }


def _quality(tables: list[dict], history: seating.MeetingHistory) -> dict:
    report = seating.quality([[seating.DrawTable(tuple(t["players"]), t["first_dealer"]) for t in tables]], history)
    return {key: ({str(k): v for k, v in value.items()} if isinstance(value, dict) else value) for key, value in report.items()}


def draw_preview(round_: Round, *, by_user, players: list | None = None, add=(), remove=(), seed: int | None = None) -> dict:
    """Draw the round (again) and keep it as its draft; returns the draft."""
    with transaction.atomic():
        round_ = Round.objects.select_for_update().select_related("event").get(pk=round_.pk)
        _check_open(round_)
        if players is None:
            players = round_.draft["players"] if round_.draft else default_players(round_)
            players = [p for p in players if p not in set(remove)] + [p for p in add if p not in players]
        players = _check_players(list(players))
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        history = event_history(round_)
        rng = random.Random(seed)
        game = round_.event.game
        byes, sizes = seating.plan_byes(game, players, history.byes, rng=rng)
        if not sizes:
            raise DrawError("too_few_players", f"{len(players)} players cannot fill a table of this game", field="players")
        seated = [p for p in players if p not in set(byes)]
        clubs = dict(Membership.objects.filter(player__in=seated).order_by("club_id").values_list("player", "club"))
        draw = seating.draw_round(
            seated, sizes, history, rng, clubs=clubs,
            separate_clubs=history.rounds == 0 and len(set(clubs.values())) > 1, byes=byes,
        )
        round_.draft = _document(round_, seed, players, draw, history)
        round_.save(update_fields=["draft"])
        AuditEntry.objects.create(actor=by_user, action="draw_previewed", event=round_.event, object_type="round",
                                  object_id=round_.pk, data={"seed": seed, "players": len(players)})
        return round_.draft


def draw_swap(round_: Round, *, by_user, a: int, b: int) -> dict:
    """Exchange two players of the draft (either may have a bye)."""
    with transaction.atomic():
        round_ = Round.objects.select_for_update().select_related("event").get(pk=round_.pk)
        _check_open(round_)
        draft = round_.draft
        if not draft:
            raise DrawError("no_draw", "draw the round first", status=409)
        places = {}
        for index, table in enumerate(draft["tables"]):
            for seat, player in enumerate(table["players"]):
                places[player] = ("table", index, seat)
        for index, player in enumerate(draft["byes"]):
            places[player] = ("bye", index, None)
        for name, player in (("a", a), ("b", b)):
            if player not in places:
                raise DrawError("not_in_draw", f"player {player} is not in this draw", field=name)
        if a == b:
            raise DrawError("same_player", "swap two different players", field="b")
        for player, (kind, index, seat) in ((b, places[a]), (a, places[b])):
            if kind == "table":
                draft["tables"][index]["players"][seat] = player
            else:
                draft["byes"][index] = player
        draft["quality"] = _quality(draft["tables"], event_history(round_))
        round_.draft = draft
        round_.save(update_fields=["draft"])
        AuditEntry.objects.create(actor=by_user, action="draw_swapped", event=round_.event, object_type="round",
                                  object_id=round_.pk, data={"a": a, "b": b})
        return draft


def draw_publish(round_: Round, *, by_user) -> list[Table]:
    """Create the round's tables and seats from its draft."""
    with transaction.atomic():
        round_ = Round.objects.select_for_update().select_related("event").get(pk=round_.pk)
        _check_open(round_)
        if not round_.draft:
            raise DrawError("no_draw", "draw the round first", status=409)
        players = {p.pk: p for p in Player.objects.filter(pk__in=round_.draft["players"])}
        if len(players) != len(round_.draft["players"]):
            raise DrawError("unknown_players", "a player of the draw no longer exists; draw again", status=409)
        tables = []
        for number, entry in enumerate(round_.draft["tables"], start=1):
            table = Table.objects.create(round=round_, number=number, first_dealer=entry["first_dealer"])
            table_seat_players(table=table, players=[players[p] for p in entry["players"]])
            tables.append(table)
        round_.byes = round_.draft["byes"]
        round_.save(update_fields=["byes"])
        AuditEntry.objects.create(actor=by_user, action="draw_published", event=round_.event, object_type="round",
                                  object_id=round_.pk, data={"tables": len(tables), "byes": round_.byes})
        return tables
