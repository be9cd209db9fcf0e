"""Who may see what and who may change what: the one home of both rules.

**Seeing.** ``Visibility(user)`` builds every queryset a reader gets (API, pages, exports,
filters, ratings reads): events, rounds whose results are shown, tables, sessions, hands,
transfers, players and the names they are shown by. Nothing else filters by publication, held
rounds or names.

- An event is seen when it is published, or by those who organise it (its organisers, its club's
  organisers) and staff.
- A round whose results are held back, with its tables, sessions, hands and money, is seen only by
  those who organise its event, until it is released.
- A player is listed by the name he agreed to show (initials, or ``#id`` once anonymised); the
  real name is seen by staff, by the organisers of one of his clubs or of one of its events (they
  seat him and print the table cards) and by the player himself.
  Filters and ordering by name work on the shown name for everyone else.
- The live pages render a fragment once per audience (``tournaments/live.py``): the public
  (``public()``) or an event's organisers (``event_organisers``: what every one of them sees, so a
  fragment shared between them shows no more than the least of them sees: the real names of
  the players who show them and of the members of the event's club, whoever reads).

**Changing.** The permissions are predicates registered with ``rules``, one name per act and
Django's own names where Django has one (``tournaments.add_event``, ``change_event``,
``delete_event`` ..., ``view_hand`` for the admin's pages; the domain's own verbs besides: ``submit_hand``,
``check_in_at_event``, ``open_table_at_event``, ``view_own_account``). The API
(``PolicyPermission``), the console and the admin ask ``user.has_perm(name, obj)`` (``may``) with
the same name for the same act and get the same answer:

- Staff create and delete clubs; a club's organisers change it, create its players and events.
- A player's own data (name, initials, account, deletion) is changed by those who organise every
  club he belongs to (or staff). A club's organisers add and remove memberships of their own club
  only; a player who already belongs to a club joins another only through someone who organises
  one of his clubs (or staff): no organiser can take over another club's players.
- An event's organisers (and its club's) change the event, its rounds and tables, draw, correct,
  void, abandon and mark payments; only the club's organisers name an event's organisers.
- Who may be seated: members of the event's club (so a player's rating moves only through events
  of his clubs, where an organiser answerable to him seated him). A guest from another club is
  first made a member by someone who organises one of his clubs.
- Hands are submitted by the table's seated players (logged in), its scorer link and the event's
  organisers; ``acting_party`` turns a scorer link, a seat and a user into the party that submits,
  confirms or disputes a hand.
- A club's organisers create, change and delete its series (a club's season over its events) and
  attach events to them or detach them (``change_series`` on the series, besides ``change_event``
  on the event's ``Change`` of its series).
- An open club night's organisers open its tables and see who is free (``open_table_at_event``).
- An event's organisers (and its club's) check players in and out and see who is checked in
  (``check_in_at_event``): who is here tonight is the organisers' data, as in the console.
- An event's organisers list, confirm, match and withdraw its registrations
  (``change_registration``); a club's organisers import players into it from a CSV file
  (``import_players``). Registering is open to anyone on a published event that takes
  registrations; the public sees only the names of those confirmed who agreed to be listed.
- A logged-in user reads his own account (``view_own_account``: his player and his clubs).
- A player reads and changes his own side (``view_own_player``, ``change_own_player``: his
  statistics, his data's export, his phones, initials only, his deletion), asked on ``Own``: the
  player and the player the request proves to be (a phone bound by his personal code, or his
  login; ``tournaments/people/identity.py``). A phone bound to a player seated at a table acts for
  his seat there, as his login does (``acting_party``).

An add or a change is decided on what it would write (``Change``: the object, None for an add, and
the data): which clubs a new player joins, whether a change names organisers or moves an event to
another club or series. The API builds it from the validated data, the console from its form's
cleaned data and the admin from its form's changed fields. Views name a permission and call
nothing else of this module's rules (tests/trust/test_views_decide_nothing.py).

**Series.** A series is seen by whoever sees one of its events, and by its club's organisers
(an empty one or one of unpublished events only by them). Its standings read the events and
rounds this user sees: unpublished events and held rounds count for their organisers only.
"""
from __future__ import annotations

import hmac
import re
from dataclasses import dataclass, field
from typing import Mapping

import rules
from django.db.models import Exists, OuterRef, Q, QuerySet

from .errors import Error, Invalid, NotAllowed, NotAuthenticated
from .models import (
    Club,
    Event,
    Hand,
    Membership,
    Player,
    Registration,
    Round,
    Series,
    Session,
    Table,
    Transfer,
)
from .names import plain_names, shown_names

# --- what a permission is asked on ------------------------------------------------------------

@dataclass(frozen=True)
class Change:
    """What an add (``target`` None) or a change (of ``target``) would write: the API serializer's
    validated ``data``, the console form's cleaned data, the admin form's changed fields. A
    permission asked on a ``Change`` decides on the data too; asked on the bare object it is asked
    on ``Change(obj)``: whether the user may change anything of it. Every predicate below takes
    either."""

    target: object = None
    data: Mapping = field(default_factory=dict)


def _change(subject) -> Change:
    return subject if isinstance(subject, Change) else Change(subject)


def _target(subject):
    """The object a permission is asked about (a ``Change``'s target, or the object itself)."""
    return subject.target if isinstance(subject, Change) else subject


# --- predicates -------------------------------------------------------------------------------

def _authenticated(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active)


@rules.predicate
def is_staff(user) -> bool:
    return _authenticated(user) and user.is_staff


@rules.predicate
def organises_club(user, club) -> bool:
    club = _target(club)
    if not _authenticated(user) or club is None:
        return False
    return user.is_staff or club.organisers.filter(pk=user.pk).exists()


@rules.predicate
def organises_event(user, event) -> bool:
    event = _target(event)
    if not _authenticated(user) or event is None:
        return False
    return (
        user.is_staff
        or event.organisers.filter(pk=user.pk).exists()
        or event.club.organisers.filter(pk=user.pk).exists()
    )


def _event_of(obj) -> Event | None:
    obj = _target(obj)
    if obj is None or isinstance(obj, Event):
        return obj
    if isinstance(obj, Round):
        return obj.event
    if isinstance(obj, Table):
        return obj.round.event
    if isinstance(obj, Session):
        return obj.table.round.event
    if isinstance(obj, Hand):
        return obj.session.table.round.event
    if isinstance(obj, Transfer):
        return obj.session.table.round.event
    if isinstance(obj, Registration):
        return obj.event
    raise TypeError(f"no event for {type(obj).__name__}")


@rules.predicate
def organises_event_of(user, obj) -> bool:
    """Organises the event that ``obj`` (round, table, session, hand, transfer) belongs to."""
    return organises_event(user, _event_of(obj))


@rules.predicate
def organises_club_of_event(user, event) -> bool:
    event = _target(event)
    return event is not None and organises_club(user, event.club)


@rules.predicate
def organises_club_of_series(user, series) -> bool:
    series = _target(series)
    return series is not None and organises_club(user, series.club)


@rules.predicate
def organises_every_club_of(user, player) -> bool:
    """Changes a player's own data: staff, or whoever organises every club he belongs to."""
    player = _target(player)
    if not _authenticated(user) or player is None:
        return False
    if user.is_staff:
        return True
    clubs = list(player.clubs.all())
    return bool(clubs) and all(organises_club(user, club) for club in clubs)


@rules.predicate
def organises_a_club_of(user, player) -> bool:
    player = _target(player)
    if not _authenticated(user) or player is None:
        return False
    return user.is_staff or player.clubs.filter(organisers=user).exists()


@rules.predicate
def is_himself(user, account) -> bool:
    """``account`` is the user's own (``GET /api/v1/me/``)."""
    account = _target(account)
    return _authenticated(user) and account is not None and account.pk == user.pk


@dataclass(frozen=True)
class Own:
    """A player's own side as a request asks for it: ``player`` and the player the request proves
    to be (``bound``: his bound phone's, else his login's; None: neither)."""

    player: Player
    bound: Player | None = None


@rules.predicate
def is_own_player(user, own) -> bool:
    """The request is the player himself: his bound phone, or his login (a user linked to him)."""
    own = _target(own)
    if not isinstance(own, Own) or own.player is None or own.player.anonymised:
        return False
    if own.bound is not None and own.bound.pk == own.player.pk:
        return True
    return _authenticated(user) and own.player.user_id == user.pk


@rules.predicate
def is_seated_at(user, table) -> bool:
    table = _target(table)
    return _authenticated(user) and table is not None and table.seats.filter(player__user=user).exists()


# --- adds and changes, decided on their data ----------------------------------------------------

def _keeps(change: Change, name: str) -> bool:
    """The change leaves ``name`` as it is (absent, or the same value)."""
    return name not in change.data or change.data[name] == getattr(change.target, name)


@rules.predicate
def may_add_player(user, change) -> bool:
    """A new player joins only clubs the user organises (at least one)."""
    clubs = _change(change).data.get("clubs") or []
    return bool(clubs) and all(organises_club(user, club) for club in clubs)


@rules.predicate
def may_add_event(user, change) -> bool:
    """In a club the user organises; only the club's organisers name an event's organisers, and
    they are the ones who create it. An event created into a series changes the series' ranking:
    the series' club's organisers do it (as ``change_series``)."""
    data = _change(change).data
    if data.get("series") is not None and not organises_club_of_series(user, data["series"]):
        return False
    return organises_club(user, data.get("club"))


@rules.predicate
def may_add_series(user, change) -> bool:
    """In a club the user organises."""
    return organises_club(user, _change(change).data.get("club"))


@rules.predicate
def may_change_series(user, change) -> bool:
    """The series' club's organisers (a series stays with its club: the views refuse a move)."""
    return organises_club_of_series(user, _change(change).target)


@rules.predicate
def may_add_round(user, change) -> bool:
    return organises_event(user, _change(change).data.get("event"))


@rules.predicate
def may_add_table(user, change) -> bool:
    return organises_event_of(user, _change(change).data.get("round"))


@rules.predicate
def may_change_club(user, change) -> bool:
    return organises_club(user, _change(change).target)


@rules.predicate
def may_change_player(user, change) -> bool:
    """The player's own data: whoever organises every club he belongs to. His memberships: a club
    joined or left is one the user organises, and a player who belongs to a club joins another only
    through an organiser of one of his clubs (no organiser takes over another club's players)."""
    change = _change(change)
    player, data = change.target, dict(change.data)
    clubs = data.pop("clubs", None)
    if not data and clubs is None:  # may he change anything of this player?
        return organises_every_club_of(user, player) or organises_a_club_of(user, player)
    if data and not organises_every_club_of(user, player):
        return False
    if clubs is not None:
        current, wanted = set(player.clubs.all()), set(clubs)
        if not all(organises_club(user, club) for club in current ^ wanted):
            return False
        if wanted - current and current and not organises_a_club_of(user, player):
            return False
    return True


@rules.predicate
def may_change_event(user, change) -> bool:
    """The event's organisers; moving it to another club needs that club's organisers, naming
    its organisers the club's organisers."""
    change = _change(change)
    event = change.target
    if not organises_event(user, event):
        return False
    if not _keeps(change, "club") and not organises_club(user, change.data["club"]):
        return False
    if not _keeps(change, "series"):
        # Attaching and detaching change the series' ranking: its club's organisers do it.
        for series in (event.series, change.data["series"]):
            if series is not None and not organises_club_of_series(user, series):
                return False
    organisers = change.data.get("organisers")
    if organisers is not None and set(organisers) != set(event.organisers.all()):
        return organises_club_of_event(user, event)
    return True


@rules.predicate
def may_change_round(user, change) -> bool:
    """The event's organisers; a round stays in its event with its number."""
    change = _change(change)
    return organises_event_of(user, change.target) and _keeps(change, "event") and _keeps(change, "number")


@rules.predicate
def may_change_table(user, change) -> bool:
    """The event's organisers; a table stays in its round."""
    change = _change(change)
    return organises_event_of(user, change.target) and _keeps(change, "round")


# One name per act, Django's own where Django has one (``add_``, ``change_``, ``delete_``, ``view_``
# and the model), so the API, the console, the admin and ``user.has_perm`` ask the same name and get
# the same answer. An add is asked on the ``Change`` it would write (``Change(None, data)``); a
# change on the object or on its ``Change``; everything else on the object.
rules.add_perm("tournaments.add_club", is_staff)
rules.add_perm("tournaments.change_club", may_change_club)
rules.add_perm("tournaments.delete_club", is_staff)
rules.add_perm("tournaments.add_player", may_add_player)  # data: clubs
rules.add_perm("tournaments.change_player", may_change_player)  # data: own fields, clubs
rules.add_perm("tournaments.delete_player", organises_every_club_of)  # anonymise
rules.add_perm("tournaments.add_event", may_add_event)  # data: club, series
rules.add_perm("tournaments.change_event", may_change_event)  # data: club, series, organisers
rules.add_perm("tournaments.delete_event", organises_event)
rules.add_perm("tournaments.add_round", may_add_round)  # data: event
rules.add_perm("tournaments.change_round", may_change_round)  # also: draw, hold back, release
rules.add_perm("tournaments.delete_round", organises_event_of)
rules.add_perm("tournaments.add_table", may_add_table)  # data: round
rules.add_perm("tournaments.change_table", may_change_table)  # also: a new scorer link
rules.add_perm("tournaments.delete_table", organises_event_of)
rules.add_perm("tournaments.add_series", may_add_series)  # data: club
rules.add_perm("tournaments.change_series", may_change_series)
rules.add_perm("tournaments.delete_series", organises_club_of_series)
rules.add_perm("tournaments.submit_hand", organises_event_of | is_seated_at)  # obj: the table
rules.add_perm("tournaments.change_hand", organises_event_of)  # correct, void
rules.add_perm("tournaments.change_session", organises_event_of)  # abandon
rules.add_perm("tournaments.change_transfer", organises_event_of)  # mark paid, take back
rules.add_perm("tournaments.open_table_at_event", organises_event)  # open club nights; obj: the event
rules.add_perm("tournaments.check_in_at_event", organises_event)  # check-in, check-out, who is here; obj: the event
# Registrations by link: the event's organisers list, confirm, match and withdraw them (obj: the
# event or the registration); anyone registers on a published event's page while it is open.
rules.add_perm("tournaments.change_registration", organises_event_of)
# Players from a CSV file into a club (obj: the club): its organisers, as ``add_player``.
rules.add_perm("tournaments.import_players", organises_club)
rules.add_perm("tournaments.view_own_account", is_himself)  # obj: the user
rules.add_perm("tournaments.view_own_player", is_own_player)  # obj: Own (statistics, export, phones)
rules.add_perm("tournaments.change_own_player", is_own_player)  # obj: Own (initials, phones, deletion)
# The service's health details (vendor, error text).
rules.add_perm("tournaments.view_service_details", is_staff)
# The admin's pages are for staff: what anyone sees elsewhere is ``Visibility``'s.
for _model in ("club", "player", "event", "round", "table", "hand", "handversion", "transfer", "auditentry",
               "session", "seat", "membership", "registration"):
    rules.add_perm(f"tournaments.view_{_model}", is_staff)


def may(user, permission: str, obj=None) -> bool:
    return bool(user is not None and user.has_perm(f"tournaments.{permission}", obj))


# --- who acts at a table: scorer link, seat, login ------------------------------------------------

@dataclass(frozen=True)
class Credentials:
    """What a request brings to act at a table besides its login: the table's scorer token
    (``X-Scorer-Token``) and, on the scorer link's shared device, the seat the player names."""

    scorer_token: str | None = None
    seat: object = None  # as given: a number, or a text of digits (a header)
    # The player whose bound phone sends the request (tournaments/people/identity.py), if any.
    player: Player | None = None


@dataclass(frozen=True)
class Party:
    """Who submits, confirms or disputes a hand: the user (if logged in), the seat he acts for
    (None: an organiser, or a scorer link without a seat), and the channel (``scorer`` or
    ``api``)."""

    user: object
    seat: int | None
    via: str
    # The player proven to act (his bound phone, ``via`` "player"): the audit names him.
    player: Player | None = None

    @property
    def via_scorer_token(self) -> bool:
        return self.via == "scorer"


def seat_of(user, table: Table) -> int | None:
    """The seat of ``user``'s player at ``table``, if he sits there."""
    if not _authenticated(user):
        return None
    return table.seats.filter(player__user=user).values_list("position", flat=True).first()


def _seat_number(value, field_name: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,2}", value):
        return int(value)
    raise Invalid("a seat is a number from 0", field=field_name)


def holds_scorer_link(credentials: Credentials, table: Table) -> bool:
    """Whether the credentials carry ``table``'s scorer token (compared in constant time); a token
    of another table is refused outright (403 ``bad_scorer_token``)."""
    if not credentials.scorer_token:
        return False
    if hmac.compare_digest(credentials.scorer_token.encode(), table.scorer_token.encode()):
        return True
    raise NotAllowed("this scorer token is not valid for this table", code=Error.BAD_SCORER_TOKEN)


def acting_party(user, table: Table, credentials: Credentials, *, action: str, hand: Hand | None = None) -> Party:
    """The party that ``action`` (``submit``, ``confirm``, ``dispute``) at ``table`` is done by,
    or a refusal (401, 403).

    - The table's scorer link acts for the seat the player names on the shared device: for a
      submission ``X-Scorer-Seat`` (optional), for a confirmation or dispute ``seat`` (required).
    - A phone bound to a player seated at the table acts for his seat (``via`` "player").
    - A logged-in player seated at the table acts for his own seat.
    - The event's organisers act without a seat (a hand they enter needs no confirmation).
    """
    if holds_scorer_link(credentials, table):
        if action == "submit":
            seat = None if credentials.seat in (None, "") else _seat_number(credentials.seat, "X-Scorer-Seat")
        else:
            seat = _seat_number(credentials.seat, "seat")
        return Party(user=user, seat=seat, via="scorer")
    if credentials.player is not None and not credentials.player.anonymised:
        seat = table.seats.filter(player=credentials.player.pk).values_list("position", flat=True).first()
        if seat is not None:
            return Party(user=user, seat=seat, via="player", player=credentials.player)
    if not _authenticated(user):
        raise NotAuthenticated("log in, or use the table's scorer link")
    if action == "submit":
        if may(user, "submit_hand", table):
            return Party(user=user, seat=seat_of(user, table), via="api")
        raise NotAllowed("only the players of this table, its scorer and the event's organisers submit here")
    seat = seat_of(user, table)
    if seat is not None or may(user, "change_hand", table if hand is None else hand):
        return Party(user=user, seat=seat, via="api")
    raise NotAllowed("only the players of this table, its scorer and the event's organisers confirm here")


def scorer_table(token: str) -> Table | None:
    """The table whose scorer link ``token`` is (with its round and event), or None; compared in
    constant time after the lookup, so a miss and a wrong token look alike."""
    table = Table.objects.select_related("round__event").filter(scorer_token=token).first()
    if table is None or not hmac.compare_digest(table.scorer_token.encode(), token.encode()):
        return None
    return table


# --- visibility ---------------------------------------------------------------------------------

class Visibility:
    """What ``user`` may see; every reader of the service builds its querysets here."""

    def __init__(self, user) -> None:
        self.user = user
        self.authenticated = _authenticated(user)
        self.staff = self.authenticated and user.is_staff

    # events and rounds
    def _organised_events_q(self, prefix: str = "") -> Q:
        if not self.authenticated:
            return Q(pk__in=[])
        return Q(**{f"{prefix}organisers": self.user.pk}) | Q(**{f"{prefix}club__organisers": self.user.pk})

    def organised_event_ids(self) -> QuerySet:
        return Event.objects.filter(self._organised_events_q()).values("pk")

    def events(self) -> QuerySet[Event]:
        events = Event.objects.all()
        if self.staff:
            return events
        if not self.authenticated:  # the public organises nothing (the same rows, a query less to build)
            return events.filter(published=True)
        return events.filter(Q(published=True) | Q(pk__in=self.organised_event_ids()))

    def rounds(self) -> QuerySet[Round]:
        """Rounds whose tables and results this user sees (held rounds only for organisers)."""
        rounds = Round.objects.filter(event__in=self.events())
        if self.staff:
            return rounds
        if not self.authenticated:
            return rounds.filter(results_held=False)
        return rounds.filter(Q(results_held=False) | Q(event__in=self.organised_event_ids()))

    def series(self) -> QuerySet[Series]:
        """The series with an event this user sees, and those of the clubs he organises."""
        series = Series.objects.all()
        if self.staff:
            return series
        seen = Exists(self.events().filter(series=OuterRef("pk")))
        if self.authenticated:
            return series.filter(seen | Q(club__organisers=self.user.pk)).distinct()
        return series.filter(seen)

    def sees_as_public(self, events) -> bool:
        """Whether of ``events`` (this user's, from ``events()``) he sees exactly what the public
        sees: all of them published and none of their held rounds shown to him. The public's
        series standings are kept (``tournaments/standings/series_standings.py``); he may read those."""
        if not self.authenticated:
            return True
        if any(not event.published for event in events):
            return False
        held = self.rounds().filter(event__in=[event.pk for event in events], results_held=True)
        return not held.exists()

    def unseen_round_ids(self, game: str) -> list[int]:
        """The ids of the rounds of ``game`` that ``rounds()`` leaves out, in order: found from the
        hidden side (rounds held back, events not shown), so the cost follows what is hidden and not
        the club's history (issue 17: the pool's sync asks this for every finished session)."""
        if self.staff:
            return []
        rounds = Round.objects.filter(event__game=game).order_by()
        unseen_events = Event.objects.filter(game=game).exclude(pk__in=self.events())
        held = rounds.filter(results_held=True)
        if self.authenticated:
            held = held.exclude(event__in=self.organised_event_ids())
        ids = set(held.values_list("pk", flat=True))
        ids.update(rounds.filter(event__in=unseen_events).values_list("pk", flat=True))
        return sorted(ids)

    def tables(self) -> QuerySet[Table]:
        return Table.objects.filter(round__in=self.rounds())

    def series_money_players(self, series: Series) -> list[int] | None:
        """Whose money over the season ``series`` this user sees: everyone's (None) as an organiser
        of its club (or staff), his own player's as a player, nobody's ([]) for the public."""
        if organises_club_of_series(self.user, series):
            return None
        if not self.authenticated:
            return []
        return list(Player.objects.filter(user=self.user.pk).values_list("pk", flat=True))

    def sessions(self) -> QuerySet[Session]:
        return Session.objects.filter(table__round__in=self.rounds())

    def hands(self) -> QuerySet[Hand]:
        return Hand.objects.filter(session__table__round__in=self.rounds())

    def transfers(self) -> QuerySet[Transfer]:
        return Transfer.objects.filter(session__table__round__in=self.rounds())

    def seated_tables(self) -> QuerySet[Table]:
        """The tables where this user's player is seated: he enters and reads their hands whether
        or not the event is published or the round held back (``is_seated_at``)."""
        if not self.authenticated:
            return Table.objects.none()
        return Table.objects.filter(seats__player__user=self.user.pk)

    def organised_clubs(self) -> QuerySet[Club]:
        """The clubs this user organises (every club for staff), by name."""
        clubs = Club.objects.order_by("name")
        if self.staff:
            return clubs
        if not self.authenticated:
            return clubs.none()
        return clubs.filter(organisers=self.user.pk)

    def organised_events(self) -> QuerySet[Event]:
        """The events this user organises (or his clubs'); every event for staff."""
        return self.events() if self.staff else self.events().filter(pk__in=self.organised_event_ids())

    def registrations(self) -> QuerySet[Registration]:
        """The registrations whose names and contacts this user sees: those of the events he
        organises (the public sees ``entry.registration.public_list`` only)."""
        return Registration.objects.filter(event__in=self.organised_events())

    def registering_events(self) -> QuerySet[Event]:
        """The events anyone may register for: seen and taking registrations."""
        return self.events().filter(registration_open=True)

    def organises(self, event: Event) -> bool:
        return organises_event(self.user, event)

    # players and names
    def players(self) -> QuerySet[Player]:
        return Player.objects.all()

    def real_names_q(self) -> Q:
        """The players whose real name this user sees."""
        if self.staff:
            return Q()
        shown = Q(initials_only=False, anonymised=False)
        if not self.authenticated:
            return shown
        organised = Membership.objects.filter(
            Q(club__organisers=self.user.pk) | Q(club__events__organisers=self.user.pk), player=OuterRef("pk"),
        )
        return shown | (Q(anonymised=False) & (Exists(organised) | Q(user=self.user.pk)))

    def sees_real_name(self, player: Player) -> bool:
        """``real_names_q`` for one player (the answers that need no query first: they are that
        rule's own)."""
        if player.anonymised:
            return False
        if self.staff or not player.initials_only:
            return True
        if not self.authenticated:
            return False
        return Player.objects.filter(pk=player.pk).filter(self.real_names_q()).exists()

    def name(self, player: Player) -> str:
        return player.name if self.sees_real_name(player) else player.public_name

    def plain_names(self, players) -> dict[int, str]:
        """Player id → ``name`` without the namesakes' addition, for many players in one query
        (the export's player lines; ``tournaments/names.py``, the rule of ``names``)."""
        return plain_names(self, players)

    def names(self, players) -> dict[int, str]:
        """Player id → ``name``, namesakes told apart (``tournaments/names.py``): the names every
        page, sheet, card and export shows people."""
        return shown_names(self, players)

    def filter_by_name(self, players: QuerySet[Player], text: str) -> QuerySet[Player]:
        """``name`` contains ``text``, on the real name only where this user sees it."""
        return players.filter((Q(name__icontains=text) & self.real_names_q()) | Q(shown_name__icontains=text))

    def search_players(self, players: QuerySet[Player], text: str) -> QuerySet[Player]:
        """Player search (``?search=``): every word of ``text`` (the first eight) is in the name this
        user is shown (``filter_by_name``): a hidden real name is never searched."""
        for word in text.split()[:8]:
            players = self.filter_by_name(players, word)
        return players


def visibility(user) -> Visibility:
    return Visibility(user)


class EventOrganisers:
    """The organisers of one event as one audience: what each of them sees of the event (its held
    rounds, its tables' score-sheet links), the players by the names all of them see. Every
    organiser of the event (one of its own, one of its club's) sees the real names of the
    players who show them and of the members of the event's club (``real_names_q``: the club
    organises, or has events organised by him); staff and organisers who also organise a guest's
    club see more elsewhere, not in a fragment they share with the others."""

    staff = False

    def __init__(self, event: Event) -> None:
        self.event = event

    def real_names_q(self) -> Q:
        members = Membership.objects.filter(club=self.event.club_id, player=OuterRef("pk"))
        return Q(initials_only=False, anonymised=False) | (Q(anonymised=False) & Exists(members))

    def names(self, players) -> dict[int, str]:
        """Player id → the name every organiser of the event sees, namesakes told apart."""
        return shown_names(self, players)


def event_organisers(event: Event) -> EventOrganisers:
    """The audience of the fragments shared by the event's organisers (the console's board)."""
    return EventOrganisers(event)


def public() -> Visibility:
    """What anyone sees: the public pages, the ratings (only public results are rated) and the
    anonymous API."""
    return Visibility(None)
