"""Registration by link: a person registers for an event on its public page, without an account.

- An event takes registrations while ``registration_open`` is on. A registration holds a place
  (``registered``, until the organisers confirm it: ``confirmed``) while fewer than ``capacity``
  places are held (no capacity: always); past it, it waits (``waiting``), in the order of
  registration.
- A registration is withdrawn by its private link (``token``: unguessable, shown only to the person
  who registered, never on a public page, kept out of the audit trail) or by the organisers. A
  place given back goes to the first who waits: he moves up to ``registered`` (the organisers
  confirm him like the others). An organiser confirms one who waits, too: he then holds a place
  beyond the capacity (the organisers decide).
- The organisers match a registration to an existing player of the event's club, or create one for
  him (the namesake check of ``services.player_create``: a player of the club with the same name
  is refused until the organiser says it is another person). A matched and confirmed registration
  is checked in on the evening like any player (``services.player_check_in``).
- The public sees the capacity, the places held and the waiting count, and the names of those
  confirmed who ticked "show my name" — nothing else (``public_list``).
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from .. import audit, services
from ..errors import Conflict, Error, Invalid, NotFound
from ..models import Attendance, Event, Player, Registration
from ..signals import announce_event_shown_changed

Status = Registration.Status
HOLDING = (Status.REGISTERED, Status.CONFIRMED)  # the statuses that hold a place
NAME_MAX, CONTACT_MAX = 120, 200


def _clean(text, field: str, most: int, *, required: bool) -> str:
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise Invalid(f"{field} is text", field=field)
    text = " ".join(text.split())
    if required and not text:
        raise Invalid("a name is needed", field=field)
    if len(text) > most:
        raise Invalid(f"at most {most} characters", field=field)
    if "\x00" in text:
        raise Invalid("text with a NUL character", code=Error.BAD_TEXT, field=field)
    return text


def held_places(event: Event) -> int:
    return Registration.objects.filter(event=event, status__in=HOLDING).count()


@transaction.atomic
def register(*, event: Event, name: str, contact: str = "", show_name: bool = False, by_user=None,
             via: str = "page") -> Registration:
    """A registration for ``event`` (open for registrations): a place while one is free, else the
    waiting list. 409 ``registration_closed`` when the event does not take registrations."""
    name = _clean(name, "name", NAME_MAX, required=True)
    contact = _clean(contact, "contact", CONTACT_MAX, required=False)
    if not isinstance(show_name, bool):
        raise Invalid("show_name is true or false", field="show_name")
    # The event's row serialises registrations: two cannot take the last place.
    event = Event.objects.select_for_update(no_key=True).get(pk=event.pk)
    if not event.registration_open:
        raise Conflict("this event does not take registrations", code=Error.REGISTRATION_CLOSED)
    full = event.capacity is not None and held_places(event) >= event.capacity
    registration = Registration.objects.create(
        event=event, name=name, contact=contact, show_name=show_name,
        status=Status.WAITING if full else Status.REGISTERED)
    # Who registered is the person's data: the trail keeps the status, not the name or contact.
    audit.record(actor=by_user, via=via, action=audit.Action.REGISTRATION_CREATED, obj=registration, event=event,
                 after={"status": registration.status, "show_name": show_name})
    announce_event_shown_changed(event.pk)
    return registration


def _locked(registration: Registration) -> tuple[Event, Registration]:
    event = Event.objects.select_for_update(no_key=True).get(pk=registration.event_id)
    return event, Registration.objects.select_for_update().get(pk=registration.pk)


def _move_up(event: Event, *, by_user, via: str) -> list[Registration]:
    """Give the free places to those who wait, first come first served."""
    moved = []
    while event.capacity is None or held_places(event) < event.capacity:
        first = Registration.objects.filter(event=event, status=Status.WAITING).order_by("created_at", "pk").first()
        if first is None:
            break
        first.status = Status.REGISTERED
        first.save(update_fields=["status"])
        audit.record(actor=by_user, via=via, action=audit.Action.REGISTRATION_MOVED_UP, obj=first, event=event,
                     before={"status": Status.WAITING}, after={"status": Status.REGISTERED})
        moved.append(first)
    return moved


@transaction.atomic
def withdraw(*, registration: Registration, by_user=None, via: str = "page") -> Registration:
    """Withdraw a registration (its link, or the organisers): its place goes to the first who
    waits. Withdrawing twice changes nothing."""
    event, registration = _locked(registration)
    if registration.status == Status.WITHDRAWN:
        return registration
    before = registration.status
    registration.status, registration.withdrawn_at = Status.WITHDRAWN, timezone.now()
    registration.save(update_fields=["status", "withdrawn_at"])
    audit.record(actor=by_user, via=via, action=audit.Action.REGISTRATION_WITHDRAWN, obj=registration, event=event,
                 before={"status": before}, after={"status": Status.WITHDRAWN})
    _move_up(event, by_user=by_user, via=via)
    announce_event_shown_changed(event.pk)
    return registration


def by_token(token) -> Registration:
    """The registration of a withdrawal link (404 for any other text)."""
    if not isinstance(token, str) or not 20 <= len(token) <= 64:
        raise NotFound("no such registration")
    registration = Registration.objects.select_related("event").filter(token=token).first()
    if registration is None:
        raise NotFound("no such registration")
    return registration


@transaction.atomic
def confirm(*, registration: Registration, by_user, via: str = "api") -> Registration:
    """Confirm a registration (one that waits takes a place beyond the capacity). Confirming twice
    changes nothing; a withdrawn one is 409 ``registration_state``."""
    event, registration = _locked(registration)
    if registration.status == Status.CONFIRMED:
        return registration
    if registration.status == Status.WITHDRAWN:
        raise Conflict("this registration was withdrawn", code=Error.REGISTRATION_STATE)
    before = registration.status
    registration.status, registration.confirmed_at = Status.CONFIRMED, timezone.now()
    registration.save(update_fields=["status", "confirmed_at"])
    audit.record(actor=by_user, via=via, action=audit.Action.REGISTRATION_CONFIRMED, obj=registration, event=event,
                 before={"status": before}, after={"status": Status.CONFIRMED})
    announce_event_shown_changed(event.pk)
    return registration


@transaction.atomic
def match(*, registration: Registration, by_user, player: Player | None = None, create: bool = False,
          same_name_ok: bool = False, via: str = "api") -> Registration:
    """Match a registration to ``player`` (a member of the event's club), or ``create`` a player of
    the club by the registered name (refused with 409 ``same_name`` while a player of the club has
    that name, unless ``same_name_ok``: the organiser said it is another person)."""
    event, registration = _locked(registration)
    if registration.status == Status.WITHDRAWN:
        raise Conflict("this registration was withdrawn", code=Error.REGISTRATION_STATE)
    if (player is None) == (not create):
        raise Invalid("name a player, or create one", field="player")
    if create:
        player = services.player_create(by_user=by_user, name=registration.name, clubs=[event.club],
                                        same_name_ok=same_name_ok, via=via)
    else:
        if player.anonymised:
            raise Conflict("a deleted player cannot take part", code=Error.ANONYMISED, field="player")
        if not player.clubs.filter(pk=event.club_id).exists():
            raise Invalid("only members of the event's club take part; add him to the club first",
                          code=Error.NOT_A_MEMBER, field="player")
    if registration.player_id == player.pk:
        return registration
    taken = Registration.objects.filter(event=event, player=player).exclude(pk=registration.pk).exclude(
        status=Status.WITHDRAWN)
    if taken.exists():
        raise Invalid("this player is matched to another registration of the event", code=Error.DUPLICATE,
                      field="player")
    before = registration.player_id
    registration.player = player
    registration.save(update_fields=["player"])
    audit.record(actor=by_user, via=via, action=audit.Action.REGISTRATION_MATCHED, obj=registration, event=event,
                 before={"player": before}, after={"player": player.pk, "created": create})
    return registration


@transaction.atomic
def check_in(*, registration: Registration, by_user, via: str = "api") -> Attendance:
    """Check a confirmed, matched registration's player in (``services.player_check_in``)."""
    registration = Registration.objects.select_related("event", "player").get(pk=registration.pk)
    if registration.status != Status.CONFIRMED:
        raise Conflict("confirm the registration first", code=Error.REGISTRATION_STATE)
    if registration.player_id is None:
        raise Conflict("match the registration to a player first", code=Error.REGISTRATION_STATE)
    return services.player_check_in(event=registration.event, player=registration.player, by_user=by_user, via=via)


# --- reads --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PublicList:
    """What the public sees of an event's registrations."""

    capacity: int | None
    held: int
    confirmed: int
    waiting: int
    names: list[str]  # the confirmed who agreed to be listed, in order of registration

    @property
    def free(self) -> int | None:
        return None if self.capacity is None else max(0, self.capacity - self.held)

    @property
    def unnamed(self) -> int:
        return self.confirmed - len(self.names)


def public_list(event: Event) -> PublicList:
    counts = Registration.objects.filter(event=event).aggregate(
        held=Count("pk", filter=Q(status__in=HOLDING)),
        confirmed=Count("pk", filter=Q(status=Status.CONFIRMED)),
        waiting=Count("pk", filter=Q(status=Status.WAITING)))
    names = list(Registration.objects.filter(event=event, status=Status.CONFIRMED, show_name=True)
                 .order_by("created_at", "pk").values_list("name", flat=True))
    return PublicList(event.capacity, counts["held"], counts["confirmed"], counts["waiting"], names)


def waiting_position(registration: Registration) -> int | None:
    """His place on the waiting list (from 1), None when he does not wait."""
    if registration.status != Status.WAITING:
        return None
    return Registration.objects.filter(event=registration.event_id, status=Status.WAITING).filter(
        Q(created_at__lt=registration.created_at)
        | Q(created_at=registration.created_at, pk__lt=registration.pk)).count() + 1
