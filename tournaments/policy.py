"""Who may do what. Plain functions over users and objects, used by the API and the pages.

- Staff create clubs; a club's organisers change it, create its players and events, and name an
  event's organisers.
- An event's organisers (and its club's) change the event, its rounds and tables.
- Anyone reads what is published; an unpublished event is seen by those who may change it.
"""
from __future__ import annotations

from django.db.models import Q, QuerySet

from .models import Club, Event, Player


def is_staff(user) -> bool:
    return bool(user and user.is_authenticated and user.is_staff)


def organises_club(user, club: Club) -> bool:
    if not (user and user.is_authenticated):
        return False
    return is_staff(user) or club.organisers.filter(pk=user.pk).exists()


def organises_event(user, event: Event) -> bool:
    if not (user and user.is_authenticated):
        return False
    return (
        is_staff(user)
        or event.organisers.filter(pk=user.pk).exists()
        or event.club.organisers.filter(pk=user.pk).exists()
    )


def may_change_player(user, player: Player) -> bool:
    if is_staff(user):
        return True
    if not (user and user.is_authenticated):
        return False
    return player.clubs.filter(organisers=user).exists()


def visible_events(user) -> QuerySet[Event]:
    events = Event.objects.all()
    if is_staff(user):
        return events
    if user and user.is_authenticated:
        return events.filter(Q(published=True) | Q(organisers=user) | Q(club__organisers=user)).distinct()
    return events.filter(published=True)


def visible_rounds(user) -> QuerySet:
    """Rounds of visible events; a round whose results are held back is missing for everyone but
    the event's organisers and staff (pages, API, exports), until it is released."""
    from .models import Round

    rounds = Round.objects.filter(event__in=visible_events(user))
    if is_staff(user):
        return rounds
    organised = Q(event__organisers=user.pk) | Q(event__club__organisers=user.pk) if user and user.is_authenticated else Q(pk__in=[])
    return rounds.filter(Q(results_held=False) | organised).distinct()
