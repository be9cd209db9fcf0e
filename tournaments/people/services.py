"""The writes of a player's own side: his personal code, the phones it binds, and what he decides
about himself (initials only, deletion).

- ``code_issue``: an organiser issues a player's code (PIN and link) — or issues it again, which
  makes the old one dead. The code is returned once, to be printed; only its hashes are stored
  (``codes``) and the audit row says that a code was issued, never which.
- ``device_bind``: a PIN or a link binds a phone to its player: a new random phone key, kept by
  the phone in a signed cookie and here as a hash.
- ``device_revoke``: the player unbinds one of his phones (a lost one, from another phone or his
  login); an organiser who may change the player may too.
- ``player_privacy`` and ``player_forget``: the player's own choice of initials only, and his
  deletion (the anonymisation of ``tournaments.services``), both through the services an organiser
  uses, audited with ``via="player"`` when they come from a bound phone.

Each runs in one transaction with its audit row (``tournaments/audit.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from .. import audit, policy
from .. import services as core
from ..errors import Conflict, Error, NotAllowed
from ..models import Player, PlayerCode, PlayerDevice
from . import codes


@dataclass(frozen=True)
class IssuedCode:
    """A code as issued: shown once (the printed slip), never stored as it is."""

    player: Player
    pin: str
    link_key: str


def code_issue(*, player: Player, by_user, via: str = "page") -> IssuedCode:
    """A new PIN and link for ``player`` (whoever may change him: his clubs' organisers); the old
    code, if any, opens nothing from now on. Bound phones stay bound (he unbinds them himself)."""
    if not policy.may(by_user, "change_player", player):
        raise NotAllowed("only the organisers of the player's clubs issue his code")
    if player.anonymised:
        raise Conflict("this player was deleted; only the results remain", code=Error.ANONYMISED)
    for _attempt in range(5):  # a PIN already taken (8 digits: rare) is drawn again
        pin, link_key = codes.new_pin(), codes.new_link_key()
        try:
            with transaction.atomic():
                renewed = PlayerCode.objects.filter(player=player).exists()
                PlayerCode.objects.update_or_create(player=player, defaults={
                    "pin_digest": codes.digest("pin", pin), "link_digest": codes.digest("link", link_key),
                    "issued_at": timezone.now(), "issued_by": by_user if getattr(by_user, "is_authenticated", False)
                    else None,
                })
                audit.record(actor=by_user, via=via, action=audit.Action.PLAYER_CODE_ISSUED, obj=player,
                             after={"renewed": renewed})
            return IssuedCode(player, pin, link_key)
        except IntegrityError:
            continue
    raise Conflict("no free PIN was found; issue the code again")


def player_by_pin(pin: str) -> Player | None:
    code = PlayerCode.objects.select_related("player").filter(pin_digest=codes.digest("pin", pin)).first()
    return None if code is None or code.player.anonymised else code.player


def player_by_link(link_key: str) -> Player | None:
    code = PlayerCode.objects.select_related("player").filter(link_digest=codes.digest("link", link_key)).first()
    return None if code is None or code.player.anonymised else code.player


@transaction.atomic
def device_bind(*, player: Player, label: str = "", how: str = "pin", by_user=None) -> tuple[PlayerDevice, str]:
    """Bind a phone to ``player`` (his code was given: ``how`` is "pin" or "link"); returns the
    device and the phone key to keep in its cookie (never stored as it is). ``by_user``: whoever
    is logged in on that phone, if anyone."""
    key = codes.new_device_key()
    device = PlayerDevice.objects.create(player=player, digest=codes.digest("device", key), label=label[:120])
    audit.record(actor=by_user, via=_via(by_user), action=audit.Action.PLAYER_DEVICE_BOUND, obj=player,
                 after={"device": device.pk, "label": device.label, "by": how})
    return device, key


def device_by_key(key: str) -> PlayerDevice | None:
    """The bound (not unbound) phone whose key this is, with its player (not deleted)."""
    device = (PlayerDevice.objects.select_related("player")
              .filter(digest=codes.digest("device", key), revoked_at__isnull=True).first())
    return None if device is None or device.player.anonymised else device


@transaction.atomic
def device_revoke(*, device: PlayerDevice, player: Player | None = None, by_user=None) -> PlayerDevice:
    """Unbind ``device``: by its own player (``player``, from a bound phone or his login) or by
    someone who may change him. Unbinding twice changes nothing."""
    own = player is not None and player.pk == device.player_id
    if not own and not policy.may(by_user, "change_player", device.player):
        raise NotAllowed("a player unbinds only his own phones")
    device = PlayerDevice.objects.select_for_update().get(pk=device.pk)
    if device.revoked_at is not None:
        return device
    device.revoked_at = timezone.now()
    device.save(update_fields=["revoked_at"])
    audit.record(actor=by_user, via=_via(by_user),
                 action=audit.Action.PLAYER_DEVICE_REVOKED, obj=device.player,
                 before={"device": device.pk, "label": device.label}, after={"revoked": True})
    return device


def _via(by_user) -> str:
    return "page" if getattr(by_user, "is_authenticated", False) else "player"


@transaction.atomic
def player_privacy(*, player: Player, initials_only: bool, by_user=None) -> Player:
    """The player's own choice: shown by his initials only (or by his name) to those who may not
    see his real name (``policy.Visibility``)."""
    return core.player_update(player=player, by_user=by_user, via=_via(by_user), initials_only=bool(initials_only))


@transaction.atomic
def player_forget(*, player: Player, by_user=None) -> Player:
    """The player's deletion at his own request: the anonymisation an organiser does (his name,
    account and clubs go, his results stay), and his code and phones with them."""
    PlayerCode.objects.filter(player=player).delete()
    PlayerDevice.objects.filter(player=player, revoked_at__isnull=True).update(revoked_at=timezone.now())
    return core.player_anonymise(player=player, by_user=by_user, via=_via(by_user))
