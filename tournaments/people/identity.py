"""Who a request's player is: the phone bound to him (its signed cookie) or the logged-in user's
own player. The interfaces (sheet, pages, API) ask here; the policy gets the player they found
(``policy.Credentials.player``) and decides what he may do.

The phone keeps its key in ``COOKIE``, signed (``django.core.signing``, salt ``COOKIE_SALT``),
HTTP-only, SameSite=Lax, for ``COOKIE_DAYS``; the service keeps the key's hash (``codes``). A
write that a bound phone makes over the API must carry the page's CSRF token, as a logged-in
session's does (``tournaments/api/people.py``).
"""
from __future__ import annotations

from django.conf import settings

from .. import policy
from ..models import Player, PlayerDevice
from . import services

COOKIE = "stich_player"
COOKIE_SALT = "stich.people.device"
COOKIE_DAYS = 400


def device_of(request) -> PlayerDevice | None:
    """The bound phone this request comes from (None: no cookie, a bad signature, or unbound)."""
    cached = getattr(request, "_stich_device", False)
    if cached is not False:
        return cached
    key = request.get_signed_cookie(COOKIE, default=None, salt=COOKIE_SALT, max_age=COOKIE_DAYS * 86400)
    device = services.device_by_key(key) if key else None
    request._stich_device = device
    return device


def login_player(user) -> Player | None:
    if user is None or not user.is_authenticated:
        return None
    return Player.objects.filter(user=user.pk, anonymised=False).first()


def player_of(request) -> Player | None:
    """The request's player: the bound phone's, else the logged-in user's."""
    device = device_of(request)
    if device is not None:
        return device.player
    return login_player(getattr(request, "user", None))


def keep_on_phone(response, key: str) -> None:
    response.set_signed_cookie(COOKIE, key, salt=COOKIE_SALT, max_age=COOKIE_DAYS * 86400, httponly=True,
                               samesite="Lax", secure=settings.SESSION_COOKIE_SECURE)


def forget_on_phone(response) -> None:
    response.delete_cookie(COOKIE, samesite="Lax")


def phone_label(request) -> str:
    """A phone's label in its player's list: the browser and system its User-Agent names."""
    agent = request.META.get("HTTP_USER_AGENT", "")
    system = next((name for token, name in (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"),
                                            ("Windows", "Windows"), ("Mac OS", "Mac"), ("Linux", "Linux"))
                   if token in agent), "")
    browser = next((name for token, name in (("Firefox", "Firefox"), ("Edg/", "Edge"), ("Chrome", "Chrome"),
                                             ("Safari", "Safari")) if token in agent), "")
    return " · ".join(part for part in (browser, system) if part)


def own(request, permission: str = "view_own_player") -> Player | None:
    """The request's own player if the policy lets it ``permission`` (``view_own_player``,
    ``change_own_player``) on him; None otherwise (the pages answer 404)."""
    device = device_of(request)
    bound = device.player if device is not None else None
    player = bound or login_player(getattr(request, "user", None))
    if player is None or not policy.may(getattr(request, "user", None), permission, policy.Own(player, bound)):
        return None
    return player
