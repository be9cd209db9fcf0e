"""Writes of the tournament domain: clubs, players, events, rounds and tables.

HackSoft style: keyword-only functions, each one transaction that writes its audit row
(``tournaments.audit``), announces side effects on commit and raises domain errors
(``tournaments.errors``). The API, the admin, the pages, the management commands and the demo
loader all write through here; who may call what is ``tournaments.policy``'s to say.

Results are never deleted: an event, round or table that has hands cannot be deleted (void the
hands, hold the round back, or unpublish the event instead); an empty one can.
"""
from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from typing import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from games.catalog import GAMES

from . import audit
from .errors import Conflict, Error, Invalid
from .models import (
    EVENT_OPTION_BOUNDS,
    SERIES_OPTION_BOUNDS,
    Attendance,
    ClockRule,
    Club,
    Event,
    Hand,
    Membership,
    Player,
    Round,
    Seat,
    Series,
    Table,
)
from .signals import announce_event_shown_changed, announce_results_visibility_changed
from .standings import outbox as series_outbox
from .standings import series_standings
from .standings.metrics import METRICS

EVENT_FIELDS = (
    "name", "game", "starts_on", "published", "mu_target_score", "mu_fixed_deals",
    "maumau_games_per_series", "maumau_stake_cents", "standings_metrics", "confirm_hands", "format",
    "final_size", "final_carry",
    "place", "registration_open", "capacity", "clock_rule",
)
SERIES_FIELDS = ("name", "game", "season_from", "season_to", "scoring", "points_table", "best_of", "min_events",
                 "games", "aggregate", "drop_worst", "qualify_percent", "absence_deduction")
_UNCHANGED = object()


def _snapshot(obj: Model, fields: Iterable[str]) -> dict:
    values = {}
    for name in fields:
        value = getattr(obj, name)
        values[name] = value.isoformat() if hasattr(value, "isoformat") else value
    return values


def _apply(obj: Model, changes: dict, allowed: Iterable[str]) -> dict:
    """Set the ``changes`` on ``obj``; returns the changed fields' old values."""
    unknown = set(changes) - set(allowed)
    if unknown:
        raise Invalid(f"cannot change {', '.join(sorted(unknown))} here", field=sorted(unknown)[0])
    before = {}
    for name, value in changes.items():
        if getattr(obj, name) != value:
            before[name] = getattr(obj, name)
            setattr(obj, name, value)
    return before


def _plain(values: dict) -> dict:
    return {name: audit.plain(value) for name, value in values.items()}


# --- clubs --------------------------------------------------------------------------------------

@transaction.atomic
def club_create(*, by_user, name: str, city: str = "", organisers: Iterable = (), via: str = "api") -> Club:
    if Club.objects.filter(name=name).exists():
        raise Invalid(f"a club named {name!r} exists already", code=Error.DUPLICATE, field="name")
    club = Club.objects.create(name=name, city=city)
    club.organisers.set(organisers)
    audit.record(actor=by_user, via=via, action=audit.Action.CLUB_CREATED, obj=club,
                 after={"name": name, "city": city, "organisers": sorted(u.pk for u in club.organisers.all())})
    return club


@transaction.atomic
def club_update(*, club: Club, by_user, via: str = "api", organisers: Iterable | None = None, **changes) -> Club:
    club = Club.objects.select_for_update().get(pk=club.pk)
    if "name" in changes and Club.objects.filter(name=changes["name"]).exclude(pk=club.pk).exists():
        raise Invalid(f"a club named {changes['name']!r} exists already", code=Error.DUPLICATE, field="name")
    before = _apply(club, changes, ("name", "city"))
    club.save()
    after = {name: getattr(club, name) for name in before}
    if organisers is not None:
        old = sorted(club.organisers.values_list("pk", flat=True))
        club.organisers.set(organisers)
        new = sorted(club.organisers.values_list("pk", flat=True))
        if old != new:
            before["organisers"], after["organisers"] = old, new
    if before:
        audit.record(actor=by_user, via=via, action=audit.Action.CLUB_CHANGED, obj=club, before=before, after=after)
    return club


@transaction.atomic
def club_delete(*, club: Club, by_user, via: str = "api") -> None:
    if club.events.exists():
        raise Conflict("this club has events; it cannot be deleted", code=Error.HAS_EVENTS)
    if club.players.exists():
        raise Conflict("this club has players; remove their memberships first", code=Error.HAS_PLAYERS)
    audit.record(actor=by_user, via=via, action=audit.Action.CLUB_DELETED, obj=club, before={"name": club.name})
    club.delete()


# --- players ------------------------------------------------------------------------------------

@transaction.atomic
def player_create(
    *, by_user, name: str, clubs: Iterable[Club], initials_only: bool = False, user=None, via: str = "api",
    distinction: str = "",
    same_name_ok: bool = True,
) -> Player:
    """A new player in ``clubs``. With ``same_name_ok`` False, a name that a player of one of the
    clubs has already (``same_name``) is refused (409 ``same_name``): the console asks first."""
    clubs = list(clubs)
    if not clubs:
        raise Invalid("a player belongs to at least one club", field="clubs")
    if not same_name_ok:
        for club in clubs:
            same = same_name(club, name)
            if same:
                raise Conflict(f"{len(same)} player(s) of {club.name} have this name already", code=Error.SAME_NAME,
                               field="name")
    _check_account(user, None)
    player = Player.objects.create(name=name, initials_only=initials_only, user=user, distinction=distinction)
    for club in clubs:
        Membership.objects.create(player=player, club=club)
    audit.record(actor=by_user, via=via, action=audit.Action.PLAYER_CREATED, obj=player,
                 after={"name": name, "initials_only": initials_only, "clubs": sorted(c.pk for c in clubs),
                        "user": getattr(user, "pk", None), **({"distinction": distinction} if distinction else {})})
    return player


def folded_name(name: str) -> str:
    """A name compared for duplicates: case, accents and spacing ignored (ß as ss: case-folded first)."""
    text = unicodedata.normalize("NFKD", name.casefold()).encode("ascii", "ignore").decode()
    return re.sub(r"\s+", " ", text).strip().casefold()


def same_name(club: Club, name: str) -> list[Player]:
    """The club's players (not deleted) whose name is ``name`` as ``folded_name`` compares them."""
    wanted = folded_name(name)
    return [player for player in Player.objects.filter(clubs=club, anonymised=False) if folded_name(player.name) == wanted]


def _check_account(user, player: Player | None) -> None:
    if user is None:
        return
    linked = Player.objects.filter(user=user).exclude(pk=getattr(player, "pk", None))
    if linked.exists():
        raise Invalid("this account is already linked to another player", field="user")


@transaction.atomic
def player_update(*, player: Player, by_user, via: str = "api", **changes) -> Player:
    """Change a player's own data (name, initials only, linked account, what tells him apart)."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    if player.anonymised:
        raise Conflict("this player was deleted; only the results remain", code=Error.ANONYMISED)
    if "user" in changes:
        _check_account(changes["user"], player)
    before = _apply(player, changes, ("name", "initials_only", "user", "distinction"))
    if not before:
        return player
    player.save()
    after = {name: getattr(player, name) for name in before}
    for values in (before, after):
        if "user" in values:
            values["user"] = getattr(values["user"], "pk", None)
    audit.record(actor=by_user, via=via, action=audit.Action.PLAYER_CHANGED, obj=player, before=before, after=after)
    if {"name", "initials_only", "distinction"} & set(before):
        announce_event_shown_changed(*_events_seating(player))  # the pages show him by his name
    return player


def _events_seating(player: Player) -> list[int]:
    """The events whose pages show the player: those where he sits at a table."""
    return list(Round.objects.filter(tables__seats__player=player).values_list("event_id", flat=True).distinct())


@transaction.atomic
def player_join_club(*, player: Player, club: Club, by_user, via: str = "api") -> Membership:
    membership, created = Membership.objects.get_or_create(player=player, club=club)
    if created:
        audit.record(actor=by_user, via=via, action=audit.Action.PLAYER_JOINED_CLUB, obj=player,
                     after={"club": club.pk})
        # His clubs tell namesakes apart, and his real name shows to the organisers of his clubs'
        # events (the console's board): the pages that show him move.
        announce_event_shown_changed(*_events_seating(player))
    return membership


@transaction.atomic
def player_leave_club(*, player: Player, club: Club, by_user, via: str = "api") -> None:
    if player.clubs.count() == 1 and player.clubs.filter(pk=club.pk).exists():
        raise Conflict("a player belongs to at least one club; delete the player instead", code=Error.LAST_CLUB)
    deleted, _ = Membership.objects.filter(player=player, club=club).delete()
    if deleted:
        audit.record(actor=by_user, via=via, action=audit.Action.PLAYER_LEFT_CLUB, obj=player,
                     before={"club": club.pk})
        announce_event_shown_changed(*_events_seating(player))  # as player_join_club


@transaction.atomic
def player_anonymise(*, player: Player, by_user=None, via: str = "api") -> Player:
    """Deleting a player keeps every standing and rating: the person goes, the results stay."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    if player.anonymised:
        return player
    before = {"name": player.name, "initials_only": player.initials_only,
              "clubs": sorted(player.clubs.values_list("pk", flat=True)), "user": player.user_id}
    player.name = ""
    player.distinction = ""
    player.user = None
    player.anonymised = True
    player.initials_only = True
    player.save(update_fields=["name", "distinction", "user", "anonymised", "initials_only"])
    player.clubs.clear()
    # The audit row keeps who it was only as the action; the name itself is gone on purpose.
    audit.record(actor=by_user, via=via, action=audit.Action.PLAYER_ANONYMISED, obj=player,
                 before={key: value for key, value in before.items() if key != "name"},
                 after={"anonymised": True})
    announce_event_shown_changed(*_events_seating(player))
    return player


# --- events -------------------------------------------------------------------------------------

def _has_results(**lookup) -> bool:
    return Hand.objects.filter(**lookup).exists()


@transaction.atomic
def event_create(
    *, by_user, club: Club, organisers: Iterable = (), series: Series | None = None, via: str = "api", **options,
) -> Event:
    """Create an event; it starts unpublished unless ``published`` says otherwise, and its
    creator organises it. ``series``: the club's series of the same game it counts for."""
    unknown = set(options) - set(EVENT_FIELDS)
    if unknown:
        raise Invalid(f"unknown event option {sorted(unknown)[0]}", field=sorted(unknown)[0])
    options.setdefault("published", False)
    event = Event(club=club, series=series, **options)
    _check_event(event)
    event.save()
    organisers = list(organisers)
    if getattr(by_user, "is_authenticated", False) and by_user not in organisers:
        organisers.append(by_user)
    event.organisers.set(organisers)
    audit.record(actor=by_user, via=via, action=audit.Action.EVENT_CREATED, obj=event, event=event,
                 after={**_snapshot(event, EVENT_FIELDS), "club": club.pk, "series": event.series_id,
                        "organisers": sorted(u.pk for u in organisers)})
    return event


def _check_event(event: Event) -> None:
    if event.game not in GAMES:
        raise Invalid(f"unknown game {event.game!r}", field="game")
    if not event.name:
        raise Invalid("an event needs a name", field="name")
    if event.mu_target_score < 1:
        raise Invalid("the target score must be positive", field="mu_target_score")
    if event.mu_fixed_deals is not None and event.mu_fixed_deals < 1:
        raise Invalid("a fixed number of deals must be positive", field="mu_fixed_deals")
    if event.maumau_games_per_series < 1:
        raise Invalid("a series needs at least one game", field="maumau_games_per_series")
    for name in EVENT_OPTION_BOUNDS:  # the model's validators: the API, console and admin share them
        value = getattr(event, name)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            raise Invalid(f"{name} must be a whole number", field=name)
        try:
            Event._meta.get_field(name).run_validators(value)
        except ValidationError as error:
            raise Invalid(" ".join(error.messages), field=name) from None
    names = [name for name in event.standings_metrics.split(",") if name]
    if not names or any(name not in METRICS for name in names):
        raise Invalid(f"unknown standings metric; known: {', '.join(METRICS)}", field="standings_metrics")
    if event.clock_rule not in ClockRule.values:
        raise Invalid(f"unknown clock rule; known: {', '.join(ClockRule.values)}", field="clock_rule")
    if not isinstance(event.place, str) or len(event.place) > 200:
        raise Invalid("the place is a text of at most 200 characters", field="place")
    if not isinstance(event.registration_open, bool):
        raise Invalid("registration_open is true or false", field="registration_open")
    if event.format not in Event.Format.values:
        raise Invalid(f"unknown format {event.format!r}; known: {', '.join(Event.Format.values)}", field="format")
    _check_final(event)
    series = event.series
    if series is not None and (series.club_id != event.club_id or event.game not in series.game_codes):
        raise Invalid("an event counts only for a series of its own club and game", code=Error.SERIES_MISMATCH,
                      field="series")


def final_size_allowed(game: str, size: int) -> bool:
    """Whether ``size`` finalists fill tables of one size the game allows (``size`` a multiple
    of such a size)."""
    info = GAMES[game]
    return any(size % k == 0 for k in range(info.min_players, info.max_players + 1) if k <= size)


def _check_final(event: Event) -> None:
    """The final stage's options: ``final_size`` a multiple of a table size the game allows (at
    most 1,000), ``final_carry`` none, half or all."""
    if event.final_carry not in Event.FinalCarry.values:
        raise Invalid(f"final_carry is one of {', '.join(Event.FinalCarry.values)}", field="final_carry")
    size = event.final_size
    if size is None:
        return
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= 1000 or \
            not final_size_allowed(event.game, size):
        info = GAMES[event.game]
        raise Invalid(f"final_size must be a multiple of a table size the game is played with "
                      f"({info.min_players}–{info.max_players}), at most 1000", code=Error.BAD_FINAL_SIZE,
                      field="final_size")


@transaction.atomic
def event_update(
    *, event: Event, by_user, via: str = "api", club: Club | None = None, organisers: Iterable | None = None,
    series=_UNCHANGED, **changes,
) -> Event:
    """Change an event. ``series``: attach it to a series of its club and game, or detach it (None)."""
    if series is not _UNCHANGED:
        # Hands being written finish first, and new ones wait: each then requests the sync of its
        # event's series as it is after this change (tournaments/standings/series_standings.py). Before the
        # event's row lock: a hand's write may need that row (its new sums rows refer to the event).
        series_standings.lock_tables([event.pk])
    # FOR NO KEY UPDATE: the rows that a hand's write adds refer to the event (their keys are
    # checked at its commit) and must not wait on this lock; a hold or release reading the event's
    # series (FOR SHARE) waits for it.
    event = Event.objects.select_for_update(no_key=True).get(pk=event.pk)
    if "format" in changes and changes["format"] != event.format and event.rounds.exists():
        raise Conflict("the format cannot change once rounds exist", code=Error.HAS_ROUNDS, field="format")
    if "game" in changes and changes["game"] != event.game and Table.objects.filter(round__event=event).exists():
        raise Conflict("the game cannot change once tables are set", code=Error.HAS_TABLES, field="game")
    rules_changed = {"mu_target_score", "mu_fixed_deals", "maumau_games_per_series", "maumau_stake_cents"}
    if rules_changed & {k for k, v in changes.items() if getattr(event, k) != v} and _has_results(
        session__table__round__event=event
    ):
        raise Conflict("the session rules cannot change once hands are played", code=Error.HAS_RESULTS,
                       field=sorted(rules_changed & set(changes))[0])
    before = _apply(event, changes, EVENT_FIELDS)
    if club is not None and club.pk != event.club_id:
        before["club"] = event.club_id
        event.club = club
    old_series = event.series_id
    if series is not _UNCHANGED and getattr(series, "pk", None) != event.series_id:
        before["series"] = event.series_id
        event.series = series
    _check_event(event)
    event.save()
    if {"series", "published", "standings_metrics", "starts_on"} & set(before):
        series_outbox.request_sync([old_series, event.series_id])  # synced after the commit
    ids = {"club": event.club_id, "series": event.series_id}
    after = {name: ids[name] if name in ids else getattr(event, name) for name in before}
    if organisers is not None:
        old = sorted(event.organisers.values_list("pk", flat=True))
        event.organisers.set(organisers)
        new = sorted(event.organisers.values_list("pk", flat=True))
        if old != new:
            before["organisers"], after["organisers"] = old, new
    if before:
        audit.record(actor=by_user, via=via, action=audit.Action.EVENT_CHANGED, obj=event, event=event,
                     before=_plain(before), after=_plain(after))
    if before:
        # Its pages; the series' pages (and the series' top on its events' room screens, a region
        # of the series) move with the series' sync request above.
        announce_event_shown_changed(event.pk)
    if "published" in before:
        # Only public results are rated (tournaments/policy.py): publishing or unpublishing an
        # event changes its game's pool.
        announce_results_visibility_changed(event.pk)
    return event


@transaction.atomic
def event_delete(*, event: Event, by_user, via: str = "api") -> None:
    if _has_results(session__table__round__event=event):
        raise Conflict("this event has results, which are never deleted; unpublish it instead",
                       code=Error.HAS_RESULTS)
    audit.record(actor=by_user, via=via, action=audit.Action.EVENT_DELETED, obj=event, event=event,
                 before={**_snapshot(event, EVENT_FIELDS), "club": event.club_id})
    event.delete()


# --- attendance ---------------------------------------------------------------------------------

@transaction.atomic
def player_check_in(*, event: Event, player: Player, by_user, via: str = "api") -> Attendance:
    """Mark ``player`` present at ``event`` (again, after leaving): the next draw seats him.

    Only members of the event's club are seated (tournaments/policy.py), so only they check in.
    Checking in a present player changes nothing."""
    if player.anonymised:
        raise Conflict("a deleted player cannot take part", code=Error.ANONYMISED, field="player")
    if not Membership.objects.filter(player=player, club=event.club_id).exists():
        raise Invalid("only members of the event's club take part; add him to the club first",
                      code=Error.NOT_A_MEMBER, field="player")
    attendance, created = Attendance.objects.select_for_update().get_or_create(
        event=event, player=player, defaults={"present": False},
    )
    if attendance.present and not created:
        return attendance
    attendance.present, attendance.checked_in_at, attendance.checked_out_at = True, timezone.now(), None
    attendance.save()
    audit.record(actor=by_user, via=via, action=audit.Action.PLAYER_CHECKED_IN, obj=player, event=event,
                 after={"present": True})
    return attendance


@transaction.atomic
def player_check_out(*, event: Event, player: Player, by_user, via: str = "api") -> Attendance | None:
    """Mark ``player`` gone from ``event`` (a dropout): later draws leave him out; his tables and
    results stay as they are."""
    attendance = Attendance.objects.select_for_update().filter(event=event, player=player).first()
    if attendance is None or not attendance.present:
        return attendance
    attendance.present, attendance.checked_out_at = False, timezone.now()
    attendance.save(update_fields=["present", "checked_out_at"])
    audit.record(actor=by_user, via=via, action=audit.Action.PLAYER_CHECKED_OUT, obj=player, event=event,
                 before={"present": True}, after={"present": False})
    return attendance


# --- rounds -------------------------------------------------------------------------------------

@transaction.atomic
def round_create(*, event: Event, by_user, number: int | None = None, via: str = "api",
                 stage: str = Round.Stage.PRELIMINARY) -> Round:
    """A new round (the next number unless given). A final round (``stage="final"``) needs the
    event's final stage (``final_size``); its draw seats the finalists."""
    if stage not in Round.Stage.values:
        raise Invalid(f"stage is one of {', '.join(Round.Stage.values)}", field="stage")
    if stage == Round.Stage.FINAL and not event.final_size:
        raise Conflict("this event has no final stage: set the number of finalists first", code=Error.NO_FINAL,
                       field="stage")
    if number is None:
        number = (event.rounds.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    if event.rounds.filter(number=number).exists():
        raise Invalid(f"this event already has a round {number}", code=Error.DUPLICATE, field="number")
    round_ = Round.objects.create(event=event, number=number, stage=stage)
    audit.record(actor=by_user, via=via, action=audit.Action.ROUND_CREATED, obj=round_, event=event,
                 after={"number": number, **({"stage": stage} if stage != Round.Stage.PRELIMINARY else {})})
    announce_event_shown_changed(event.pk)
    return round_


@transaction.atomic
def round_set_results_held(*, round_: Round, held: bool, by_user, reason: str = "", via: str = "api") -> Round:
    """Hold a round's results back from the public (and the ratings), or release them."""
    round_ = Round.objects.select_for_update(no_key=True).get(pk=round_.pk)  # as event_update's
    if round_.results_held == held:
        return round_
    round_.results_held = held
    round_.save(update_fields=["results_held"])
    # The public's series standings gain or lose the round; the event's series read under a share
    # lock of its row, so that a move of the event to another series is read once committed.
    series_outbox.request_for_events([round_.event_id], share=True)
    audit.record(actor=by_user, via=via, action=audit.Action.ROUND_HELD if held else audit.Action.ROUND_RELEASED,
                 obj=round_, event=round_.event_id, reason=reason,
                 before={"results_held": not held}, after={"results_held": held})
    announce_results_visibility_changed(round_.event_id)
    return round_


@transaction.atomic
def round_delete(*, round_: Round, by_user, via: str = "api") -> None:
    if _has_results(session__table__round=round_):
        raise Conflict("this round has results, which are never deleted; hold it back or void its hands",
                       code=Error.HAS_RESULTS)
    audit.record(actor=by_user, via=via, action=audit.Action.ROUND_DELETED, obj=round_, event=round_.event_id,
                 before={"number": round_.number, "tables": round_.tables.count()})
    announce_event_shown_changed(round_.event_id)
    round_.delete()


# --- tables -------------------------------------------------------------------------------------

def _check_seating(round_: Round, players: list[Player], table: Table | None) -> None:
    event = round_.event
    info = GAMES[event.game]
    if not info.min_players <= len(players) <= info.max_players:
        raise Invalid(
            f"{info.name} is played by {info.min_players} to {info.max_players} players, not {len(players)}",
            code=Error.BAD_PLAYER_COUNT, field="players",
        )
    ids = [p.pk for p in players]
    if len(set(ids)) != len(ids):
        raise Invalid("a player is seated twice", field="players")
    if any(p.anonymised for p in players):
        raise Invalid("a deleted player cannot be seated", field="players")
    members = set(Membership.objects.filter(club=event.club_id, player__in=ids).values_list("player_id", flat=True))
    strangers = sorted(set(ids) - members)
    if strangers:
        raise Invalid(
            f"only members of the event's club are seated; not members: {', '.join(map(str, strangers))}",
            code=Error.NOT_A_MEMBER, field="players",
        )
    elsewhere = set(
        Seat.objects.filter(round=round_, player__in=ids).exclude(table=table).values_list("player_id", flat=True)
    ) if table is not None else set(Seat.objects.filter(round=round_, player__in=ids).values_list("player_id", flat=True))
    if elsewhere:
        raise Invalid(
            f"already seated at another table of this round: {', '.join(map(str, sorted(elsewhere)))}",
            code=Error.SEATED_ELSEWHERE, field="players",
        )


def _seat(table: Table, players: list[Player]) -> None:
    table.seats.all().delete()
    Seat.objects.bulk_create(
        Seat(table=table, round_id=table.round_id, player=player, position=position)
        for position, player in enumerate(players)
    )


@transaction.atomic
def table_create(
    *, round_: Round, players: list[Player], by_user, number: int | None = None, first_dealer: int | None = None,
    via: str = "api",
) -> Table:
    round_ = Round.objects.select_for_update().select_related("event").get(pk=round_.pk)
    if number is None:
        number = (round_.tables.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    if round_.tables.filter(number=number).exists():
        raise Invalid(f"this round already has a table {number}", code=Error.DUPLICATE, field="number")
    players = list(players)
    _check_seating(round_, players, None)
    if first_dealer is not None and not 0 <= first_dealer < len(players):
        raise Invalid("the first dealer is a seat of the table", field="first_dealer")
    table = Table.objects.create(round=round_, number=number, first_dealer=first_dealer)
    _seat(table, players)
    audit.record(actor=by_user, via=via, action=audit.Action.TABLE_CREATED, obj=table, event=round_.event_id,
                 after={"number": number, "players": [p.pk for p in players], "first_dealer": first_dealer})
    announce_event_shown_changed(round_.event_id)
    return table


@transaction.atomic
def table_update(
    *, table: Table, by_user, players: list[Player] | None = None, number: int | None = None,
    first_dealer: int | None = None, via: str = "api",
) -> Table:
    """Renumber a table or seat it anew. Once a hand is stored its seats are final: results
    belong to the players who played them."""
    table = Table.objects.select_for_update().select_related("round__event").get(pk=table.pk)
    # A hand read before this change (without the lock: results.sql.read_table) is made again
    # under the lock: it sees the seats and the first dealer this change leaves.
    table.revision += 1
    Table.objects.filter(pk=table.pk).update(revision=table.revision)
    before, after = {}, {}
    if number is not None and number != table.number:
        if table.round.tables.filter(number=number).exclude(pk=table.pk).exists():
            raise Invalid(f"this round already has a table {number}", code=Error.DUPLICATE, field="number")
        before["number"], after["number"] = table.number, number
        table.number = number
    started = Hand.objects.filter(session__table=table).exists()
    old_players = list(table.seats.order_by("position").values_list("player_id", flat=True))
    if players is not None and [p.pk for p in players] != old_players:
        if started:
            raise Conflict("this table has results; its players can no longer change", code=Error.HAS_RESULTS,
                           field="players")
        _check_seating(table.round, list(players), table)
        _seat(table, list(players))
        before["players"], after["players"] = old_players, [p.pk for p in players]
    if first_dealer is not None and first_dealer != table.first_dealer:
        if started:
            raise Conflict("this table has results; its first dealer is fixed", code=Error.HAS_RESULTS,
                           field="first_dealer")
        if not 0 <= first_dealer < table.seats.count():
            raise Invalid("the first dealer is a seat of the table", field="first_dealer")
        before["first_dealer"], after["first_dealer"] = table.first_dealer, first_dealer
        table.first_dealer = first_dealer
        table.sessions.filter(hands__isnull=True).update(first_dealer=first_dealer)
    if before:
        table.save()
        audit.record(actor=by_user, via=via, action=audit.Action.TABLE_CHANGED, obj=table,
                     event=table.round.event_id, before=before, after=after)
        announce_event_shown_changed(table.round.event_id)
    return table


@transaction.atomic
def table_delete(*, table: Table, by_user, via: str = "api") -> None:
    if _has_results(session__table=table):
        raise Conflict("this table has results, which are never deleted; void its hands instead",
                       code=Error.HAS_RESULTS)
    audit.record(actor=by_user, via=via, action=audit.Action.TABLE_DELETED, obj=table, event=table.round.event_id,
                 before={"number": table.number,
                         "players": list(table.seats.order_by("position").values_list("player_id", flat=True))})
    announce_event_shown_changed(table.round.event_id)
    table.delete()


def _link_id(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:8]


@transaction.atomic
def table_rotate_scorer_token(*, table: Table, by_user, via: str = "api") -> Table:
    """A new scorer link for the table: the old link stops working at once."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    old = table.scorer_token
    table.scorer_token = secrets.token_urlsafe(24)
    table.revision += 1  # a hand read with the old link before is made again under the lock: refused
    table.save(update_fields=["scorer_token", "revision"])
    # The secrets themselves stay out of the trail: a short hash tells the links apart.
    audit.record(actor=by_user, via=via, action=audit.Action.SCORER_LINK_ROTATED, obj=table,
                 event=table.round.event_id, before={"link": _link_id(old)}, after={"link": _link_id(table.scorer_token)})
    announce_event_shown_changed(table.round.event_id)  # the console's board links the table's score sheet
    return table


# --- series -------------------------------------------------------------------------------------

def _check_series(series: Series) -> None:
    if not series.name:
        raise Invalid("a series needs a name", field="name")
    if series.game not in GAMES:
        raise Invalid(f"unknown game {series.game!r}", field="game")
    if series.scoring not in Series.Scoring.values:
        raise Invalid(f"unknown scoring; known: {', '.join(Series.Scoring.values)}", field="scoring")
    table = series.points_table
    if not isinstance(table, list) or any(type(p) is not int or p < 0 for p in table):
        raise Invalid("the points table is a list of points (whole numbers, not negative) by rank",
                      field="points_table")
    if series.scoring == Series.Scoring.TABLE and not table:
        raise Invalid("table scoring needs a points table", field="points_table")
    if series.best_of is not None and series.best_of < 1:
        raise Invalid("best of counts at least one event (empty: all)", field="best_of")
    if series.min_events is None or series.min_events < 0:
        raise Invalid("the minimum of events is zero or more", field="min_events")
    for name in SERIES_OPTION_BOUNDS:  # the model's validators: the API, console and admin share them
        value = getattr(series, name)
        if value is None:
            continue
        if name != "points_table" and (not isinstance(value, int) or isinstance(value, bool)):
            raise Invalid(f"{name} must be a whole number", field=name)
        try:
            Series._meta.get_field(name).run_validators(value)
        except ValidationError as error:
            raise Invalid(" ".join(error.messages), field=name) from None
    if series.season_from and series.season_to and series.season_from > series.season_to:
        raise Invalid("the season ends before it starts", field="season_to")
    if series.aggregate not in Series.Aggregate.values:
        raise Invalid(f"unknown aggregate; known: {', '.join(Series.Aggregate.values)}", field="aggregate")
    try:
        Series._meta.get_field("games").run_validators(series.games)
    except ValidationError as error:
        raise Invalid(" ".join(error.messages), field="games") from None
    if series.games and series.game not in series.games:
        raise Invalid("a mixed series' games include its own game", field="games")
    if series.mixed and series.scoring == Series.Scoring.TOTAL:
        raise Invalid("a series of several games scores by placement or points table: game totals are not "
                      "comparable across games", field="scoring")
    if series.best_of is not None and series.drop_worst:
        raise Invalid("either the best N events count or the N worst are dropped, not both", field="drop_worst")


def _check_series_games(series: Series) -> None:
    """A series keeps a game while an event of it counts for the series."""
    if series.pk is not None and series.events.exclude(game__in=series.game_codes).exists():
        raise Conflict("an event of a game the series no longer takes counts for it", code=Error.HAS_EVENTS,
                       field="games")


@transaction.atomic
def series_create(*, by_user, club: Club, via: str = "api", **options) -> Series:
    """Create a club's series (its events are attached through ``event_update``)."""
    unknown = set(options) - set(SERIES_FIELDS)
    if unknown:
        raise Invalid(f"unknown series option {sorted(unknown)[0]}", field=sorted(unknown)[0])
    series = Series(club=club, **options)
    _check_series(series)
    series.save()
    audit.record(actor=by_user, via=via, action=audit.Action.SERIES_CREATED, obj=series,
                 after={**_snapshot(series, SERIES_FIELDS), "club": club.pk})
    return series


@transaction.atomic
def series_update(*, series: Series, by_user, via: str = "api", **changes) -> Series:
    """Change a series' name, season or scoring; its game only while it has no events."""
    # FOR NO KEY UPDATE: the key does not change; a sync of the series (outbox.sync) waits for it.
    series = Series.objects.select_for_update(no_key=True).get(pk=series.pk)
    if "game" in changes and changes["game"] != series.game and series.events.exists():
        raise Conflict("the game cannot change while events count for the series", code=Error.HAS_EVENTS,
                       field="game")
    before = _apply(series, changes, SERIES_FIELDS)
    if not before:
        return series
    _check_series(series)
    _check_series_games(series)
    series.save()
    if set(series_standings.OPTIONS) & set(before):
        series_outbox.request_sync([series.pk])
    audit.record(actor=by_user, via=via, action=audit.Action.SERIES_CHANGED, obj=series,
                 before=_plain(before), after=_plain({name: getattr(series, name) for name in before}))
    announce_event_shown_changed(*series.events.values_list("pk", flat=True))  # their screens show its top
    return series


@transaction.atomic
def series_delete(*, series: Series, by_user, via: str = "api") -> None:
    """Delete a series without events (detach them first: the events and their results stay)."""
    series = Series.objects.select_for_update().get(pk=series.pk)
    if series.events.exists():
        raise Conflict("this series has events; detach them first", code=Error.HAS_EVENTS)
    audit.record(actor=by_user, via=via, action=audit.Action.SERIES_DELETED, obj=series,
                 before={**_snapshot(series, SERIES_FIELDS), "club": series.club_id})
    series.delete()
