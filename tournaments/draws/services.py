"""Seating draws of a round: preview, adjust, publish (the service around ``seating``).

An organiser draws a round before publishing it: ``draw_preview`` draws the present players on
the history of the event's earlier rounds and keeps the result on the round (``Round.draft``)
with its quality report; drawing again (another seed, late arrivals, dropouts) replaces it;
``draw_swap`` exchanges two players by hand (a player with a bye included); ``draw_publish``
turns the draft into tables and seats. A round that has tables is published: its draw is final
(tables can still be edited one by one through the API, as before).

Decisions (the issue leaves them open):
- The present players are the players checked in at the event (``Attendance``, in check-in
  order: the console's check-in and ``/api/v1/events/{id}/checkins/``), whoever draws; nobody
  checked in is refused (400 ``too_few_players``), never every member of the club. An organiser
  may pass ``players`` instead, or ``add`` / ``remove`` for late arrivals and dropouts (to the
  current draft's players; without a draft, to the checked-in players).
- Club mates are kept apart in the first round when the players come from several clubs.
- Byes (only when no mix of table sizes seats everybody) go to the players with the fewest byes so
  far, ties by the draw's seed; how a bye scores is the event's rule (the standings count sessions
  played, so a bye simply plays one session fewer).
"""
from __future__ import annotations

import random

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .. import audit
from ..errors import Conflict, Error, Invalid
from ..models import Membership, Player, Round, Table
from ..services import round_create, table_create
from ..standings.selectors import present_players
from . import seating


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
    """The players a draw seats when none are named: the ones checked in at the event."""
    return present_players(round_.event)


def _check_open(round_: Round) -> None:
    if round_.event.format == "open":
        raise Conflict("an open club night has no draw: open its tables as players arrive",
                       code=Error.OPEN_EVENT)
    if round_.tables.exists():
        raise Conflict("this round has tables already: its draw is published", code=Error.ROUND_PUBLISHED)


def _check_players(players: list, club_id: int) -> list[int]:
    if any(type(p) is not int for p in players):
        raise Invalid("players must be a list of player ids", code=Error.BAD_PLAYERS, field="players")
    if len(set(players)) != len(players):
        raise Invalid("a player is listed twice", code=Error.BAD_PLAYERS, field="players")
    known = set(Player.objects.filter(pk__in=players, anonymised=False).values_list("pk", flat=True))
    unknown = [p for p in players if p not in known]
    if unknown:
        raise Invalid(f"no such players: {unknown}", code=Error.UNKNOWN_PLAYERS, field="players")
    # tournaments/policy.py: only members of the event's club are seated.
    members = set(Membership.objects.filter(club=club_id, player__in=players).values_list("player_id", flat=True))
    strangers = [p for p in players if p not in members]
    if strangers:
        raise Invalid(f"not members of the event's club: {strangers}", code=Error.NOT_A_MEMBER, field="players")
    return players


def _document(round_: Round, seed: int, players: list[int], draw: seating.Draw, history: seating.MeetingHistory,
              **extra) -> dict:
    tables = [{"players": list(t.players), "first_dealer": t.dealer} for t in draw.tables]
    return {
        "round": round_.pk, "seed": seed, "players": players, "byes": list(draw.byes), "tables": tables,
        "quality": _quality(tables, history), "drawn_at": timezone.now().isoformat(), **extra,
    }


def _quality(tables: list[dict], history: seating.MeetingHistory) -> dict:
    report = seating.quality([[seating.DrawTable(tuple(t["players"]), t["first_dealer"]) for t in tables]], history)
    report["repeated_pairs_lower_bound"] = seating.repeat_lower_bound(
        history, [len(t["players"]) for t in tables], [p for t in tables for p in t["players"]]
    )
    return {key: ({str(k): v for k, v in value.items()} if isinstance(value, dict) else value) for key, value in report.items()}


def draw_preview(round_: Round, *, by_user, via: str = "api", players: list | None = None, add=(), remove=(), seed: int | None = None) -> dict:
    """Draw the round (again) and keep it as its draft; returns the draft."""
    with transaction.atomic():
        round_ = Round.objects.select_for_update().select_related("event").get(pk=round_.pk)
        _check_open(round_)
        if players is None:
            adjusted = bool(add or remove) and round_.draft
            players = round_.draft["players"] if adjusted else default_players(round_)
            players = [p for p in players if p not in set(remove)] + [p for p in add if p not in players]
            if not players:
                raise Invalid("nobody is checked in at this event: check in the players who are here "
                              "(/api/v1/events/{id}/checkins/) or name them in players",
                              code=Error.TOO_FEW_PLAYERS, field="players")
        players = _check_players(list(players), round_.event.club_id)
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        history = event_history(round_)
        rng = random.Random(seed)
        game = round_.event.game
        byes, sizes = seating.plan_byes(game, players, history.byes, rng=rng)
        if not sizes:
            raise Invalid(f"{len(players)} players cannot fill a table of this game", code=Error.TOO_FEW_PLAYERS, field="players")
        seated = [p for p in players if p not in set(byes)]
        clubs = dict(Membership.objects.filter(player__in=seated).order_by("club_id").values_list("player", "club"))
        draw = seating.draw_round(
            seated, sizes, history, rng, clubs=clubs,
            separate_clubs=history.rounds == 0 and len(set(clubs.values())) > 1, byes=byes,
        )
        round_.draft = _document(round_, seed, players, draw, history)
        round_.save(update_fields=["draft"])
        audit.record(actor=by_user, via=via, action=audit.Action.DRAW_PREVIEWED, obj=round_, event=round_.event_id,
                     after={"seed": seed, "players": players, "byes": round_.draft["byes"]})
        return round_.draft


def draw_swap(round_: Round, *, by_user, a: int, b: int, via: str = "api") -> dict:
    """Exchange two players of the draft (either may have a bye)."""
    with transaction.atomic():
        round_ = Round.objects.select_for_update().select_related("event").get(pk=round_.pk)
        _check_open(round_)
        draft = round_.draft
        if not draft:
            raise Conflict("draw the round first", code=Error.NO_DRAW)
        places = {}
        for index, table in enumerate(draft["tables"]):
            for seat, player in enumerate(table["players"]):
                places[player] = ("table", index, seat)
        for index, player in enumerate(draft["byes"]):
            places[player] = ("bye", index, None)
        for name, player in (("a", a), ("b", b)):
            if player not in places:
                raise Invalid(f"player {player} is not in this draw", code=Error.NOT_IN_DRAW, field=name)
        if a == b:
            raise Invalid("swap two different players", code=Error.SAME_PLAYER, field="b")
        for player, (kind, index, seat) in ((b, places[a]), (a, places[b])):
            if kind == "table":
                draft["tables"][index]["players"][seat] = player
            else:
                draft["byes"][index] = player
        draft["quality"] = _quality(draft["tables"], event_history(round_))
        round_.draft = draft
        round_.save(update_fields=["draft"])
        audit.record(actor=by_user, via=via, action=audit.Action.DRAW_SWAPPED, obj=round_, event=round_.event_id,
                     data={"a": a, "b": b})
        return draft


def draw_publish(round_: Round, *, by_user, via: str = "api") -> list[Table]:
    """Create the round's tables and seats from its draft."""
    with transaction.atomic():
        round_ = Round.objects.select_for_update().select_related("event").get(pk=round_.pk)
        _check_open(round_)
        if not round_.draft:
            raise Conflict("draw the round first", code=Error.NO_DRAW)
        players = {p.pk: p for p in Player.objects.filter(pk__in=round_.draft["players"])}
        if len(players) != len(round_.draft["players"]):
            raise Conflict("a player of the draw no longer exists; draw again", code=Error.DRAW_OUTDATED)
        tables = []
        for number, entry in enumerate(round_.draft["tables"], start=1):
            tables.append(table_create(
                round_=round_, number=number, first_dealer=entry["first_dealer"], by_user=by_user, via=via,
                players=[players[p] for p in entry["players"]],
            ))
        round_.byes = round_.draft["byes"]
        round_.save(update_fields=["byes"])
        audit.record(actor=by_user, via=via, action=audit.Action.DRAW_PUBLISHED, obj=round_, event=round_.event_id,
                     after={"tables": [t.pk for t in tables], "byes": round_.byes})
        return tables


def plan_schedule(players: list[int], sizes: list[int], rounds: int, rng: random.Random,
                  history: seating.MeetingHistory) -> list[seating.Draw]:
    """The seating module's whole-schedule planner: the one place that calls it. It searches for
    at most ``SEATING_PLAN_SECONDS`` (a few seconds on a club's laptop)."""
    return seating.plan_schedule(players, sizes, rounds, rng=rng, history=history,
                                 time_limit=settings.SEATING_PLAN_SECONDS)


def draw_plan(event, *, by_user, players: list, rounds: int, seed: int | None = None, via: str = "api") -> list[Round]:
    """Plan the next ``rounds`` rounds of ``event`` for a fixed roster at once (a schedule to print
    in advance): the event's rounds without tables are used in order, and created as needed; each
    gets its planned draw as its draft, to be published (or drawn again) when its time comes.

    The whole-schedule planner spreads the meetings over all the rounds (no repeated pair at all
    where finite geometry allows it), which a round-by-round draw cannot promise. Everybody must be
    seated in every round: a roster that no mix of tables seats is refused."""
    if not 1 <= rounds <= 20:
        raise Invalid("plan between 1 and 20 rounds", code=Error.BAD_ROUNDS, field="rounds")
    if event.format == "open":
        raise Conflict("an open club night has no draw: open its tables as players arrive", code=Error.OPEN_EVENT)
    with transaction.atomic():
        players = _check_players(list(players), event.club_id)
        try:
            sizes = seating.table_sizes(event.game, len(players))
        except ValueError:
            raise Invalid(f"{len(players)} players do not fill whole tables of this game; a plan seats "
                          "everybody in every round", code=Error.TOO_FEW_PLAYERS, field="players") from None
        open_rounds = list(event.rounds.filter(tables__isnull=True).order_by("number"))
        published = event.rounds.filter(tables__isnull=False).order_by("-number").values_list("number", flat=True)
        last_published = published.first() or 0
        planned = [r for r in open_rounds if r.number > last_published][:rounds]
        while len(planned) < rounds:
            planned.append(round_create(event=event, by_user=by_user, via=via))
        planned = [Round.objects.select_for_update().get(pk=r.pk) for r in planned]
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        history = event_history(planned[0])
        draws = plan_schedule(players, sizes, rounds, random.Random(seed), history)
        for round_, draw in zip(planned, draws):
            round_.draft = _document(round_, seed, players, draw, history, planned=True)
            round_.save(update_fields=["draft"])
            history.add_round(draw.tables)
        audit.record(actor=by_user, via=via, action=audit.Action.DRAW_PLANNED, obj=event, event=event,
                     after={"seed": seed, "players": players, "rounds": [r.number for r in planned]})
        return planned
