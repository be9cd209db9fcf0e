"""The tournament domain: clubs, players, events, rounds, tables, seats and sessions."""
from __future__ import annotations

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.catalog import GAME_CHOICES, GAMES


def new_scorer_token() -> str:
    return secrets.token_urlsafe(24)


class Club(models.Model):
    name = models.CharField(_("name"), max_length=120, unique=True)
    city = models.CharField(_("city"), max_length=120, blank=True)
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="organised_clubs", verbose_name=_("organisers")
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("club")
        verbose_name_plural = _("clubs")

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    name = models.CharField(_("name"), max_length=120)
    # Privacy: shown under initials only on public pages (rankings, exports).
    initials_only = models.BooleanField(_("initials only"), default=False)
    # Set when the player asked to be deleted: results and ratings stay, the person does not.
    anonymised = models.BooleanField(default=False, editable=False)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="player"
    )
    clubs = models.ManyToManyField(Club, through="Membership", related_name="players", blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        return self.name

    @property
    def public_name(self) -> str:
        if self.anonymised:
            return f"#{self.pk}"
        if self.initials_only:
            return "".join(part[0] + "." for part in self.name.split() if part)
        return self.name


class Membership(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE)
    club = models.ForeignKey(Club, on_delete=models.CASCADE)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "club"], name="membership_unique")]


class Event(models.Model):
    """A tournament of one game, with that game's rule options."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="events")
    name = models.CharField(_("name"), max_length=160)
    game = models.CharField(_("game"), max_length=10, choices=GAME_CHOICES)
    starts_on = models.DateField(_("starts on"), null=True, blank=True)
    published = models.BooleanField(_("published"), default=True)
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="organised_events", verbose_name=_("organisers")
    )
    # Mü: a session ends after the deal in which a total reaches the target, or after a fixed
    # number of deals when that is set (rules/mu.md §7).
    mu_target_score = models.PositiveIntegerField(default=200)
    mu_fixed_deals = models.PositiveIntegerField(null=True, blank=True)
    # Maumau: games per series and the stake per minus point (rules/maumau.md, Series and money).
    maumau_games_per_series = models.PositiveSmallIntegerField(default=8)
    maumau_stake_cents = models.PositiveIntegerField(default=10)
    # Standings: metric names in priority order (tournaments/standings.py).
    standings_metrics = models.CharField(max_length=200, default="placement,total,wins")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "name", "id"]
        verbose_name = _("event")
        verbose_name_plural = _("events")

    def __str__(self) -> str:
        return self.name

    @property
    def game_info(self):
        return GAMES[self.game]

    def clean(self) -> None:
        if self.mu_target_score == 0:
            raise ValidationError({"mu_target_score": _("The target score must be positive.")})
        if self.mu_fixed_deals == 0:
            raise ValidationError({"mu_fixed_deals": _("A fixed number of deals must be positive.")})
        if self.maumau_games_per_series == 0:
            raise ValidationError({"maumau_games_per_series": _("A series needs at least one game.")})


class Round(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField(_("number"))
    # An organiser may hold back a round's results until he releases them (public pages, API).
    results_held = models.BooleanField(_("results held back"), default=False)
    # The seating draw an organiser previews (and adjusts) before publishing it as tables; the
    # players who sat out (byes) stay on the round once published. See tournaments/draws.py.
    draft = models.JSONField(_("draw preview"), null=True, blank=True, editable=False)
    byes = models.JSONField(_("byes"), default=list, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["event", "number"]
        constraints = [models.UniqueConstraint(fields=["event", "number"], name="round_number_unique")]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")

    def __str__(self) -> str:
        return f"{self.event} – {_('round')} {self.number}"


class Table(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(_("number"))
    # The scorer token lets the table's device submit hands for this table only.
    scorer_token = models.CharField(max_length=64, unique=True, default=new_scorer_token, editable=False)
    # The seat that deals first, as the draw balanced it (a suggestion: the first record decides).
    first_dealer = models.PositiveSmallIntegerField(_("first dealer"), null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round", "number"]
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="table_number_unique")]
        verbose_name = _("table")
        verbose_name_plural = _("tables")

    def __str__(self) -> str:
        return f"{self.round} – {_('table')} {self.number}"

    @property
    def event(self) -> Event:
        return self.round.event


class Seat(models.Model):
    """A player at a table; ``position`` is the record's seat index (clockwise = increasing)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    # Denormalised so that the database itself refuses a player seated twice in one round.
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_position_unique"),
            models.UniqueConstraint(fields=["round", "player"], name="seat_player_once_per_round"),
        ]

    def save(self, *args, **kwargs):
        self.round_id = self.table.round_id
        super().save(*args, **kwargs)


class Session(models.Model):
    """A game played at a table: a Mü game, a Maumau series or a game of Mit List und Tücke."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        FINISHED = "finished", _("finished")
        ABANDONED = "abandoned", _("abandoned")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="sessions")
    number = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    first_dealer = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table", "number"]
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="session_number_unique")]
        verbose_name = _("session")
        verbose_name_plural = _("sessions")

    def __str__(self) -> str:
        return f"{self.table} – {_('session')} {self.number}"


class Transfer(models.Model):
    """A Maumau payment that settles a finished series; an organiser marks it paid."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="transfers")
    payer = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    payee = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    cents = models.PositiveIntegerField()
    paid = models.BooleanField(default=False)
    paid_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session", "-cents", "id"]


class AuditEntry(models.Model):
    """Who changed what, when and why (corrections, abandonments, payments, releases)."""

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    action = models.CharField(max_length=40)
    event = models.ForeignKey(Event, null=True, blank=True, on_delete=models.CASCADE, related_name="audit")
    object_type = models.CharField(max_length=40)
    object_id = models.PositiveBigIntegerField()
    reason = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"
