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

**Changing.** The permissions are predicates registered with ``rules`` under Django's permission
names (``tournaments.change_event`` ...), so the API (``PolicyPermission``), the pages and the
admin ask ``user.has_perm(name, obj)`` and get the same answer:

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
  organisers.
- A club's organisers create, change and delete its series (a club's season over its events) and
  attach events to them or detach them (``change_series`` on the series, besides ``change_event``).
- An open club night's organisers open its tables and see who is free (``open_table_at_event``).

**Series.** A series is seen by whoever sees one of its events, and by its club's organisers
(an empty one or one of unpublished events only by them). Its standings read the events and
rounds this user sees: unpublished events and held rounds count for their organisers only.
"""
from __future__ import annotations

import rules
from django.db.models import Exists, OuterRef, Q, QuerySet

from .models import Club, Event, Hand, Membership, Player, Round, Series, Session, Table, Transfer


# --- predicates -------------------------------------------------------------------------------

def _authenticated(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active)


@rules.predicate
def is_staff(user) -> bool:
    return _authenticated(user) and user.is_staff


@rules.predicate
def organises_club(user, club: Club) -> bool:
    if not _authenticated(user) or club is None:
        return False
    return user.is_staff or club.organisers.filter(pk=user.pk).exists()


@rules.predicate
def organises_event(user, event: Event) -> bool:
    if not _authenticated(user) or event is None:
        return False
    return (
        user.is_staff
        or event.organisers.filter(pk=user.pk).exists()
        or event.club.organisers.filter(pk=user.pk).exists()
    )


def _event_of(obj) -> Event | None:
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
    raise TypeError(f"no event for {type(obj).__name__}")


@rules.predicate
def organises_event_of(user, obj) -> bool:
    """Organises the event that ``obj`` (round, table, session, hand, transfer) belongs to."""
    return organises_event(user, _event_of(obj))


@rules.predicate
def organises_club_of_event(user, event: Event) -> bool:
    return event is not None and organises_club(user, event.club)


@rules.predicate
def organises_club_of_series(user, series: Series) -> bool:
    return series is not None and organises_club(user, series.club)


@rules.predicate
def organises_every_club_of(user, player: Player) -> bool:
    """Changes a player's own data: staff, or whoever organises every club he belongs to."""
    if not _authenticated(user) or player is None:
        return False
    if user.is_staff:
        return True
    clubs = list(player.clubs.all())
    return bool(clubs) and all(organises_club(user, club) for club in clubs)


@rules.predicate
def organises_a_club_of(user, player: Player) -> bool:
    if not _authenticated(user) or player is None:
        return False
    return user.is_staff or player.clubs.filter(organisers=user).exists()


@rules.predicate
def is_seated_at(user, table: Table) -> bool:
    return _authenticated(user) and table is not None and table.seats.filter(player__user=user).exists()


# Django permission names, so the admin and ``user.has_perm`` answer the same as the API.
rules.add_perm("tournaments.add_club", is_staff)
rules.add_perm("tournaments.change_club", organises_club)
rules.add_perm("tournaments.delete_club", is_staff)
rules.add_perm("tournaments.add_player_to_club", organises_club)  # obj: the club
rules.add_perm("tournaments.change_player", organises_every_club_of)
rules.add_perm("tournaments.delete_player", organises_every_club_of)
rules.add_perm("tournaments.add_event_to_club", organises_club)  # obj: the club
rules.add_perm("tournaments.change_event", organises_event)
rules.add_perm("tournaments.name_event_organisers", organises_club_of_event)
rules.add_perm("tournaments.delete_event", organises_event)
rules.add_perm("tournaments.add_round_to_event", organises_event)  # obj: the event
rules.add_perm("tournaments.change_round", organises_event_of)
rules.add_perm("tournaments.delete_round", organises_event_of)
rules.add_perm("tournaments.add_table_to_round", organises_event_of)  # obj: the round
rules.add_perm("tournaments.change_table", organises_event_of)
rules.add_perm("tournaments.delete_table", organises_event_of)
rules.add_perm("tournaments.submit_hand", organises_event_of | is_seated_at)  # obj: the table
rules.add_perm("tournaments.change_hand", organises_event_of)  # correct, void
rules.add_perm("tournaments.change_session", organises_event_of)  # abandon
rules.add_perm("tournaments.change_transfer", organises_event_of)  # mark paid
rules.add_perm("tournaments.add_series_to_club", organises_club)  # obj: the club
rules.add_perm("tournaments.change_series", organises_club_of_series)  # also: attach and detach events
rules.add_perm("tournaments.delete_series", organises_club_of_series)
rules.add_perm("tournaments.open_table_at_event", organises_event)  # open club nights; obj: the event
# Read-only models in the admin: staff view them.
for _model in ("hand", "handversion", "transfer", "auditentry", "session", "seat", "membership"):
    rules.add_perm(f"tournaments.view_{_model}", is_staff)


def may(user, permission: str, obj=None) -> bool:
    return bool(user is not None and user.has_perm(f"tournaments.{permission}", obj))


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
        return events.filter(Q(published=True) | Q(pk__in=self.organised_event_ids()))

    def rounds(self) -> QuerySet[Round]:
        """Rounds whose tables and results this user sees (held rounds only for organisers)."""
        rounds = Round.objects.filter(event__in=self.events())
        if self.staff:
            return rounds
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

    def sees_results_of(self, round_: Round) -> bool:
        return not round_.results_held or self.staff or organises_event(self.user, round_.event)

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
        if player.anonymised:
            return False
        if self.staff or not player.initials_only:
            return True
        if not self.authenticated:
            return False
        return player.user_id == self.user.pk or player.clubs.filter(
            Q(organisers=self.user.pk) | Q(events__organisers=self.user.pk)
        ).exists()

    def name(self, player: Player) -> str:
        return player.name if self.sees_real_name(player) else player.public_name

    def names(self, players) -> dict[int, str]:
        """Player id → ``name``, namesakes told apart (``tournaments/names.py``): the names every
        page, sheet, card and export shows people."""
        from .names import shown_names

        return shown_names(self, players)

    def filter_by_name(self, players: QuerySet[Player], text: str) -> QuerySet[Player]:
        """``name`` contains ``text``, on the real name only where this user sees it."""
        return players.filter((Q(name__icontains=text) & self.real_names_q()) | Q(shown_name__icontains=text))


def visibility(user) -> Visibility:
    return Visibility(user)


def public() -> Visibility:
    """What anyone sees: the public pages, the ratings (only public results are rated) and the
    anonymous API."""
    return Visibility(None)
