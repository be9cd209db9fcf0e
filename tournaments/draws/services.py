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

Seating methods (``method``, per draw; the draft and its quality report name it):
- ``varied`` (the default): fewest repeated meetings (the search of ``seating.draw_round``).
- ``standings``: tables filled in standings order, the top players together;
  ``interval``: players dealt round the tables in standings order (1-5-9-13 / 2-6-10-14 with
  four tables). The standings are those after the earlier preliminary rounds, every round
  counted (held ones too: the organisers draw); players level on every metric share a rank and
  trade tables to meet fewest again; players without a result yet come last, by start number.
  Byes and table sizes as for ``varied``.
- ``script``: the tables of the event's seating script for this round's number
  (``seating_script_set``), seat order as written, first dealer the one with fewest first deals.
  The present players not in the script have a bye; a scripted player who is not checked in is
  refused (``script_absent``), so the script is kept as written or the organiser changes it.
- A final round (``Round.stage``) seats the event's finalists whoever is checked in: the top
  ``final_size`` of the preliminary standings (``standings.selectors.finalists``), at tables of one
  size (``seating.uniform_sizes``), by ``standings`` unless another method is named.
"""
from __future__ import annotations

import random

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import audit
from ..errors import Conflict, Error, Invalid, ScriptRefused
from ..models import Event, Membership, Player, Round, Table
from ..services import round_create, table_create
from ..standings.selectors import finalists, present_players, ranking_before, start_numbers
from . import seating

METHODS = ("varied", "standings", "interval", "script")

# What each method optimised, as the quality report names it (``quality["optimised"]``).
OPTIMISED = {"varied": "fewest_repeats", "standings": "standings_order", "interval": "standings_spread",
             "script": "as_scripted"}


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
              method: str = "varied", **extra) -> dict:
    tables = [{"players": list(t.players), "first_dealer": t.dealer} for t in draw.tables]
    return {
        "round": round_.pk, "seed": seed, "method": method, "players": players, "byes": list(draw.byes),
        "tables": tables, "quality": _quality(tables, history, method), "drawn_at": timezone.now().isoformat(),
        **extra,
    }


def _quality(tables: list[dict], history: seating.MeetingHistory, method: str = "varied") -> dict:
    report = seating.quality([[seating.DrawTable(tuple(t["players"]), t["first_dealer"]) for t in tables]], history)
    report["repeated_pairs_lower_bound"] = seating.repeat_lower_bound(
        history, [len(t["players"]) for t in tables], [p for t in tables for p in t["players"]]
    )
    report["method"], report["optimised"] = method, OPTIMISED[method]
    return {key: ({str(k): v for k, v in value.items()} if isinstance(value, dict) else value) for key, value in report.items()}


def _standings_order(event: Event, number: int, players: list[int]) -> tuple[list[int], dict[int, int]]:
    """``players`` best first by the standings before round ``number``, with their ranks; players
    without a result yet share the rank after the last, ordered by start number."""
    rows = ranking_before(event, number)
    ranks = {row.player: row.rank for row in rows if row.player in set(players)}
    numbers = start_numbers(event)
    last = len(rows) + 1
    order = sorted(players, key=lambda p: (ranks.get(p, last), numbers.get(p, 10**9), p))
    return order, {p: ranks.get(p, last) for p in players}


def _script_tables(round_: Round, players: list[int]) -> tuple[list[list[int]], list[int]]:
    """The tables of the event's script for this round (player ids, seat order) and the byes:
    the present players the script leaves out."""
    script = round_.event.seating_script
    tables = (script or {}).get("rounds", {}).get(str(round_.number))
    if not tables:
        raise Conflict(f"the event's seating script has no tables for round {round_.number}",
                       code=Error.NO_SCRIPT, field="method")
    seated = [p for table in tables for p in table["players"]]
    absent = [n for table in tables for n, p in zip(table["numbers"], table["players"]) if p not in set(players)]
    if absent:
        raise Invalid(f"players of the script's round {round_.number} are not checked in (numbers "
                      f"{', '.join(map(str, absent))}): check them in, or change the script",
                      code=Error.SCRIPT_ABSENT, field="method")
    return [list(table["players"]) for table in tables], [p for p in players if p not in set(seated)]


def _final_players(round_: Round) -> tuple[list[int], list[int]]:
    event = round_.event
    if not event.final_size:
        raise Conflict("this event has no final stage: set the number of finalists first",
                       code=Error.NO_FINAL, field="final_size")
    players = finalists(event, round_.number)
    if len(players) < event.final_size:
        raise Conflict(f"the preliminary standings have {len(players)} players, fewer than the "
                       f"{event.final_size} finalists", code=Error.TOO_FEW_FINALISTS)
    sizes = seating.uniform_sizes(event.game, len(players))
    if not sizes:
        raise Invalid(f"{len(players)} finalists do not fill tables of one size",
                      code=Error.BAD_FINAL_SIZE, field="final_size")
    return players, sizes


def draw_preview(round_: Round, *, by_user, via: str = "api", players: list | None = None, add=(), remove=(),
                 seed: int | None = None, method: str | None = None) -> dict:
    """Draw the round (again) by ``method`` (see the module's docstring) and keep it as its
    draft; returns the draft."""
    final = round_.stage == Round.Stage.FINAL
    method = method or ("standings" if final else "varied")
    if method not in METHODS:
        raise Invalid(f"unknown seating method {str(method)[:40]!r}; known: {', '.join(METHODS)}",
                      code=Error.BAD_METHOD, field="method")
    with transaction.atomic():
        round_ = Round.objects.select_for_update().select_related("event").get(pk=round_.pk)
        _check_open(round_)
        if final and method != "script":
            players, sizes = _final_players(round_)
        elif players is None:
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
        if method == "script":
            groups, byes = _script_tables(round_, players)
            tables = []
            for group in groups:  # seat order as written; the first dealer: fewest first deals so far
                deals = [history.dealers.get(p, 0) for p in group]
                tables.append(seating.DrawTable(tuple(group), deals.index(min(deals))))
            draw = seating.Draw(tables, byes)
        else:
            if final:
                byes = []
            else:
                byes, sizes = seating.plan_byes(game, players, history.byes, rng=rng)
            if not sizes:
                raise Invalid(f"{len(players)} players cannot fill a table of this game", code=Error.TOO_FEW_PLAYERS, field="players")
            seated = [p for p in players if p not in set(byes)]
            if method == "varied":
                clubs = dict(Membership.objects.filter(player__in=seated).order_by("club_id").values_list("player", "club"))
                draw = seating.draw_round(
                    seated, sizes, history, rng, clubs=clubs,
                    separate_clubs=history.rounds == 0 and len(set(clubs.values())) > 1 and not final, byes=byes,
                )
            else:
                order, ranks = _standings_order(round_.event, round_.number, seated)
                place = seating.standings_groups if method == "standings" else seating.interval_groups
                draw = seating.Draw(seating.seat_tables(place(order, sizes, ranks, history), history, rng), byes)
        round_.draft = _document(round_, seed, players, draw, history, method)
        round_.save(update_fields=["draft"])
        audit.record(actor=by_user, via=via, action=audit.Action.DRAW_PREVIEWED, obj=round_, event=round_.event_id,
                     after={"seed": seed, "method": method, "players": players, "byes": round_.draft["byes"]})
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
        draft["quality"] = _quality(draft["tables"], event_history(round_), draft.get("method", "varied"))
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


# --- the seating script ---------------------------------------------------------------------------

def script_error_text(error: seating.ScriptError) -> str:
    """One line's error as a sentence in the active language: ``line N: …``."""
    p = error.params
    texts = {
        seating.script.NOT_A_NUMBER: lambda: _("“%(value)s” is not a number") % p,
        seating.script.TOO_SHORT: lambda: _("a line needs the round, the table and the players"),
        seating.script.BAD_SIZE: lambda: _("a table of %(size)s players: the game is played by %(allowed)s") % {
            "size": p["size"], "allowed": ", ".join(map(str, p["allowed"]))},
        seating.script.UNKNOWN_NUMBER: lambda: _("no player has the number %(number)s in this event") % p,
        seating.script.SEATED_TWICE: lambda: _("player %(number)s is seated twice in round %(round)s "
                                               "(also on line %(other_line)s)") % p,
        seating.script.TABLE_TWICE: lambda: _("table %(table)s of round %(round)s is on line %(other_line)s "
                                              "already") % p,
        seating.script.EMPTY: lambda: _("the script has no table"),
    }
    text = texts[error.code]()
    return _("line %(line)s: %(error)s") % {"line": error.line, "error": text} if error.line else text


MAX_SCRIPT_CHARS = 200_000


def seating_script_set(event: Event, *, text: str, by_user, via: str = "api") -> dict:
    """Check a seating script (``seating.read_script``) against the event's players (their
    start numbers, ``start_numbers``) and its game's table sizes and keep it on the event, or
    refuse it whole (``ScriptRefused``: one sentence per faulty line). Returns what is kept:
    ``{"text", "rounds": {"1": [{"table", "line", "numbers", "players"}, …]}}``."""
    if not isinstance(text, str) or len(text) > MAX_SCRIPT_CHARS:
        raise Invalid(f"a script is text of at most {MAX_SCRIPT_CHARS} characters", field="script")
    if "\x00" in text or not text.encode("utf-8", "surrogatepass").decode("utf-8", "ignore") == text:
        raise Invalid("the script holds a character that cannot be stored (NUL or a lone surrogate)", field="script")
    with transaction.atomic():
        event = Event.objects.select_for_update(no_key=True).get(pk=event.pk)
        if event.format == Event.Format.OPEN:
            raise Conflict("an open club night has no draw: open its tables as players arrive",
                           code=Error.OPEN_EVENT)
        numbers = start_numbers(event)
        by_number = {number: player for player, number in numbers.items()}
        rounds, errors = seating.read_script(text, by_number, seating.GAME_SIZES[event.game].allowed)
        if errors:
            lines = [script_error_text(error) for error in errors]
            raise ScriptRefused(_("The seating script was not stored: %(count)s line(s) have errors.")
                                % {"count": len(errors)}, lines)
        kept = {"text": text, "rounds": {
            str(number): [{"table": t.table, "line": t.line, "numbers": list(t.numbers),
                           "players": [by_number[n] for n in t.numbers]} for t in tables]
            for number, tables in rounds.items()}}
        before = event.seating_script
        event.seating_script = kept
        event.save(update_fields=["seating_script"])
        audit.record(actor=by_user, via=via, action=audit.Action.SEATING_SCRIPT_SET, obj=event, event=event,
                     before={"text": before["text"]} if before else None, after={"text": text})
        return kept


def seating_script_remove(event: Event, *, by_user, via: str = "api") -> None:
    """Forget the event's seating script (the rounds drawn from it stay as they are)."""
    with transaction.atomic():
        event = Event.objects.select_for_update(no_key=True).get(pk=event.pk)
        if event.seating_script is None:
            return
        before = event.seating_script
        event.seating_script = None
        event.save(update_fields=["seating_script"])
        audit.record(actor=by_user, via=via, action=audit.Action.SEATING_SCRIPT_REMOVED, obj=event, event=event,
                     before={"text": before["text"]})
