"""Personal codes and phone keys: how they are made, hashed and guessed at.

A player's **PIN** is 8 random digits, his **link** a random URL-safe key of 24 bytes (printed as a
QR code); a bound phone keeps a random key of 32 bytes in a signed cookie. The service keeps only
each one's keyed hash (HMAC-SHA-256 under ``SECRET_KEY``, ``digest``): a PIN is looked up by its
hash (so two players never share one), and a database copy without the key opens nothing.

**Guessing** is counted like wrong passwords (django-axes' limits, ``AXES_FAILURE_LIMIT`` and
``AXES_COOLOFF_MINUTES``): the ``AXES_FAILURE_LIMIT``-th wrong code from one address locks that
address out for the cool-off, and ``GLOBAL_FAILURES`` wrong codes from all addresses within the
cool-off lock out typed PINs for everyone meanwhile (the guesser that spreads over many
addresses; the printed QR links, 192 random bits, still work). Counted in the shared cache with
its atomic ``add``/``incr``; a right code does not clear an address's failures.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets

from django.conf import settings
from django.core.cache import cache

PIN_DIGITS = 8
GLOBAL_FAILURES = 200


def digest(kind: str, secret: str) -> str:
    """The keyed hash of a PIN (``kind`` "pin"), a link key ("link") or a phone key ("device")."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, f"stich-player-{kind}:{secret}".encode(), hashlib.sha256).hexdigest()


def new_pin() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))


def new_link_key() -> str:
    return secrets.token_urlsafe(24)


def new_device_key() -> str:
    return secrets.token_urlsafe(32)


def typed_pin(text: str) -> str | None:
    """The PIN in what a person typed (spaces and dashes ignored), or None when it cannot be one."""
    digits = "".join(ch for ch in str(text) if ch not in " -\u00a0")
    if len(digits) != PIN_DIGITS or not digits.isascii() or not digits.isdigit():
        return None
    return digits


def _cooloff_seconds() -> int:
    return max(1, int(settings.AXES_COOLOFF_TIME * 3600))


def _key(address: str) -> str:
    return f"player-code-failures:{address}"


GLOBAL_KEY = "player-code-failures:*"


def _count(key: str) -> int:
    try:
        return int(cache.get(key) or 0)
    except Exception:  # noqa: BLE001 - a cache that cannot be reached counts as no failures
        return 0


def locked_out(address: str, *, pin: bool = True) -> bool:
    """Whether codes from ``address`` are refused now (and typed PINs from anyone, ``pin``)."""
    if _count(_key(address)) >= settings.AXES_FAILURE_LIMIT:
        return True
    return pin and _count(GLOBAL_KEY) >= GLOBAL_FAILURES


def failed(address: str) -> None:
    """Count one wrong code from ``address`` (and in the global count)."""
    for key in (_key(address), GLOBAL_KEY):
        try:
            if not cache.add(key, 1, _cooloff_seconds()):
                cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, _cooloff_seconds())
        except Exception:  # noqa: BLE001 - without the cache the lockout cannot count
            pass


def forget(address: str) -> None:
    """Lift the lockout of ``address`` and the global count (tests; an organiser's reset)."""
    cache.delete_many([_key(address), GLOBAL_KEY])
