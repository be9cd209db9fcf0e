"""The tournament domain: clubs, players, events, rounds, tables, seats and sessions."""
from __future__ import annotations

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from games.catalog import GAME_CHOICES, GAMES


def new_scorer_token() -> str:
    return secrets.token_urlsafe(24)


# The range of each numeric event option: the model's validators, so the API's serializer, the
# console's form and the admin refuse the same values (and the services check them for every
# caller). Maumau's money stays far inside a transfer's integer: games × 1,000 minus points ×
# stake < 2^31 cents.
EVENT_OPTION_BOUNDS = {
    "mu_target_score": (1, 10_000),
    "mu_fixed_deals": (1, 1_000),
    "maumau_games_per_series": (1, 100),
    "maumau_stake_cents": (0, 10_000),
    "capacity": (1, 10_000),
}


def _bounded(name: str) -> list:
    low, high = EVENT_OPTION_BOUNDS[name]
    return [MinValueValidator(low), MaxValueValidator(high)]


# The range of a series' options, kept the same way (model validators; the services check them for
# every caller): points per event rank, ranks in the points table, best-of and the minimum of
# events. A series' points stay far inside the kept standings' 64-bit integer (10,000 points ×
# any number of events), and best-of and the minimum fit their small integers: a points-table
# entry of 10^30 made every hand of the series' events fail where the standings are kept.
SERIES_OPTION_BOUNDS = {
    "points_table": (0, 10_000),  # each entry
    "best_of": (1, 1_000),
    "min_events": (0, 1_000),
    # Season options (README, "Seasons as clubs keep them"): the N worst events dropped, the share
    # of the events held a player needs to be ranked, the points taken per missed event.
    "drop_worst": (0, 1_000),
    "qualify_percent": (0, 100),
    "absence_deduction": (0, 10_000),
}
POINTS_TABLE_RANKS = 1_000


def _bounded_series(name: str) -> list:
    low, high = SERIES_OPTION_BOUNDS[name]
    return [MinValueValidator(low), MaxValueValidator(high)]


def validate_points_table(value) -> None:
    """A list of at most ``POINTS_TABLE_RANKS`` whole numbers, each in its bounds."""
    low, high = SERIES_OPTION_BOUNDS["points_table"]
    if not isinstance(value, list) or any(type(points) is not int for points in value):
        raise ValidationError(_("The points table is a list of whole numbers."), code="invalid")
    if len(value) > POINTS_TABLE_RANKS:
        raise ValidationError(_("The points table has at most %(most)s places.") % {"most": POINTS_TABLE_RANKS},
                              code="max_length")
    if any(not low <= points <= high for points in value):
        raise ValidationError(_("Each place scores %(low)s to %(high)s points.") % {"low": low, "high": f"{high:,}"},
                              code="out_of_range")


def unique_club_slug(name: str, *, taken) -> str:
    """The address of a club's public page (``/clubs/<slug>/``) made from its name: ASCII letters,
    digits and hyphens ("Mü-Freunde Köln" → ``mu-freunde-koln``), a number added when ``taken(slug)``
    says another club has it already (``-2``, ``-3``, …)."""
    base = slugify(name)[:50].strip("-") or "club"
    slug, number = base, 1
    while taken(slug):
        number += 1
        slug = f"{base}-{number}"
    return slug


class Club(models.Model):
    name = models.CharField(_("name"), max_length=120, unique=True)
    city = models.CharField(_("city"), max_length=120, blank=True)
    # The public page's address, made from the name when the club is created and kept when it is
    # renamed (calendars that phones subscribed to keep working): ``/clubs/<slug>/``.
    slug = models.SlugField(_("address"), max_length=60, unique=True, editable=False)
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

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = unique_club_slug(
                self.name, taken=lambda slug: Club.objects.filter(slug=slug).exclude(pk=self.pk).exists())
            update_fields = kwargs.get("update_fields")
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "slug"}
        super().save(*args, **kwargs)


class Player(models.Model):
    name = models.CharField(_("name"), max_length=120)
    # Privacy: shown under initials only on public pages (rankings, exports).
    initials_only = models.BooleanField(_("initials only"), default=False)
    # What tells him apart from another player of the same name (a nickname, a middle initial, the
    # town), set by an organiser; shown only beside namesakes (tournaments/names.py).
    distinction = models.CharField(_("told apart by"), max_length=40, blank=True, default="")
    # Set when the player asked to be deleted: results and ratings stay, the person does not.
    anonymised = models.BooleanField(default=False, editable=False)
    # ``public_name`` as stored, so that lists can be filtered and ordered by the name people may
    # see without touching the real one (tournaments/policy.py). Kept by ``save``.
    shown_name = models.CharField(max_length=120, blank=True, editable=False, db_index=True)
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

    def save(self, *args, **kwargs):
        self.shown_name = self.public_name
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "shown_name"}
        super().save(*args, **kwargs)

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


def validate_series_games(value) -> None:
    """The games of a mixed series: a list of distinct game codes (empty: the series' own game)."""
    if not isinstance(value, list) or any(not isinstance(code, str) or code not in GAMES for code in value):
        raise ValidationError(_("The games are a list of known games."), code="invalid")
    if len(set(value)) != len(value):
        raise ValidationError(_("Each game is named once."), code="duplicate")


class Series(models.Model):
    """A club's season over its events of one game, or of several (``games``): a "Jahreswertung"
    ranking players by series points per event (``tournaments/standings/series.py``). An event
    belongs to at most one series."""

    class Scoring(models.TextChoices):
        PLACEMENT = "placement", _("placement (n − rank + 1)")
        TABLE = "table", _("points table by rank")
        TOTAL = "total", _("game total")

    class Aggregate(models.TextChoices):
        SUM = "sum", _("sum of the counted events")
        AVERAGE = "average", _("average over the counted events")

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="series")
    name = models.CharField(_("name"), max_length=160)
    game = models.CharField(_("game"), max_length=10, choices=GAME_CHOICES)
    season_from = models.DateField(_("season from"), null=True, blank=True)
    season_to = models.DateField(_("season to"), null=True, blank=True)
    scoring = models.CharField(_("scoring"), max_length=10, choices=Scoring.choices, default=Scoring.PLACEMENT)
    # ``table`` scoring: the series points of event rank 1, 2, …; ranks past its end score 0.
    points_table = models.JSONField(_("points table"), default=list, blank=True, validators=[validate_points_table])
    # Only a player's best N event results count (null: all of them).
    best_of = models.PositiveSmallIntegerField(_("best of"), null=True, blank=True, validators=_bounded_series("best_of"))
    # Players with fewer events are listed after the ranked ones, without a rank.
    min_events = models.PositiveSmallIntegerField(_("minimum events"), default=1,
                                                  validators=_bounded_series("min_events"))
    # A mixed season: the games whose events count ([]: only ``game``; else ``game`` is one of
    # them). Its events score by placement or points table, never by game total.
    games = models.JSONField(_("games"), default=list, blank=True, validators=[validate_series_games])
    # ``average``: a player's score is his mean over his counted events instead of their sum.
    aggregate = models.CharField(_("aggregate"), max_length=10, choices=Aggregate.choices, default=Aggregate.SUM)
    # The player's N worst events do not count (he keeps at least one); not with ``best_of``.
    drop_worst = models.PositiveSmallIntegerField(_("drop worst"), default=0, validators=_bounded_series("drop_worst"))
    # Ranked from ceil(events held × percent / 100) events on (and at least ``min_events``).
    qualify_percent = models.PositiveSmallIntegerField(_("qualifying share of events (%)"), default=0,
                                                       validators=_bounded_series("qualify_percent"))
    # Points taken off a player's score per event of the season he missed.
    absence_deduction = models.PositiveIntegerField(_("deduction per missed event"), default=0,
                                                    validators=_bounded_series("absence_deduction"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-season_from", "name", "id"]
        verbose_name = _("series")
        verbose_name_plural = _("series")
        constraints = [
            models.CheckConstraint(condition=models.Q(aggregate__in=["sum", "average"]), name="series_aggregate_known"),
            models.CheckConstraint(condition=models.Q(drop_worst__gte=0, drop_worst__lte=1_000),
                                   name="series_drop_worst_bounds"),
            models.CheckConstraint(condition=models.Q(qualify_percent__gte=0, qualify_percent__lte=100),
                                   name="series_qualify_percent_bounds"),
            models.CheckConstraint(condition=models.Q(absence_deduction__gte=0, absence_deduction__lte=10_000),
                                   name="series_absence_deduction_bounds"),
            models.CheckConstraint(condition=models.Q(best_of__isnull=True) | models.Q(drop_worst=0),
                                   name="series_best_of_or_drop_worst"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def game_codes(self) -> list[str]:
        """The games whose events count for the series, its own first."""
        return [self.game, *(code for code in self.games if code != self.game)]

    @property
    def mixed(self) -> bool:
        return len(self.game_codes) > 1


class ClockRule(models.TextChoices):
    """What a table does when its round's time is up: play the deal under way to its end, or not
    start another one (the deal under way is played out either way)."""

    FINISH_DEAL = "finish_deal", _("finish the deal under way, then stop")
    NO_NEW_DEAL = "no_new_deal", _("no new deal once the time is up")


class Event(models.Model):
    """A tournament of one game, with that game's rule options."""

    class FinalCarry(models.TextChoices):
        NONE = "none", _("none of the preliminary points")
        HALF = "half", _("half of the preliminary points")
        ALL = "all", _("all of the preliminary points")

    class Format(models.TextChoices):
        ROUNDS = "rounds", _("rounds with a draw")
        OPEN = "open", _("open club night")

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="events")
    name = models.CharField(_("name"), max_length=160)
    # ``open``: no draw; the organisers open a table for the players who are here as they arrive,
    # each table a round of its own (services.open_table), so a player sits at several tables.
    format = models.CharField(_("format"), max_length=10, choices=Format.choices, default=Format.ROUNDS)
    game = models.CharField(_("game"), max_length=10, choices=GAME_CHOICES)
    starts_on = models.DateField(_("starts on"), null=True, blank=True)
    # New events start unpublished: the organisers prepare them before the public sees them.
    published = models.BooleanField(_("published"), default=False)
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="organised_events", verbose_name=_("organisers")
    )
    # Mü: a session ends after the deal in which a total reaches the target, or after a fixed
    # number of deals when that is set (rules/mu.md §7).
    mu_target_score = models.PositiveIntegerField(default=200, validators=_bounded("mu_target_score"))
    mu_fixed_deals = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("mu_fixed_deals"))
    # Maumau: games per series and the stake per minus point (rules/maumau.md, Series and money).
    maumau_games_per_series = models.PositiveSmallIntegerField(default=8,
                                                               validators=_bounded("maumau_games_per_series"))
    maumau_stake_cents = models.PositiveIntegerField(default=10, validators=_bounded("maumau_stake_cents"))
    # Standings: metric names in priority order (tournaments/standings/metrics.py).
    standings_metrics = models.CharField(max_length=200, default="placement,total,wins")
    # A hand entered at a table counts only once another seat of that table (or an organiser)
    # confirms it, as a Bridgemate's second player does (tournaments/results/services.py, ``counts``).
    confirm_hands = models.BooleanField(_("hands need a second player's confirmation"), default=False)
    # The club's series this event counts for (same club and game; services.event_update checks).
    series = models.ForeignKey(Series, null=True, blank=True, on_delete=models.PROTECT, related_name="events",
                               verbose_name=_("series"))
    # The seating script uploaded for the whole event (tournaments/draws/seating/script.py): its text
    # and its tables per round, players by their number in the event; the ``script`` method seats it.
    seating_script = models.JSONField(null=True, blank=True, editable=False)
    # The final stage (tournaments/standings/finals.py): the top ``final_size`` of the preliminary
    # rounds play the final rounds; ``final_carry`` is how much of their preliminary points they keep.
    final_size = models.PositiveSmallIntegerField(_("finalists"), null=True, blank=True)
    final_carry = models.CharField(_("carry-over into the final"), max_length=5, choices=FinalCarry.choices,
                                   default=FinalCarry.NONE)
    # Where it is played (shown on the registration page).
    place = models.CharField(_("place"), max_length=200, blank=True, default="")
    # Registration by link (tournaments/entry/registration.py): the public page takes registrations
    # while this is on; past ``capacity`` places (null: no limit) they wait in line.
    registration_open = models.BooleanField(_("registration open"), default=False)
    capacity = models.PositiveIntegerField(_("places"), null=True, blank=True, validators=_bounded("capacity"))
    # What a table does when its round's clock runs out (tournaments/entry/clock.py).
    clock_rule = models.CharField(_("when the round's time is up"), max_length=12, choices=ClockRule.choices,
                                  default=ClockRule.FINISH_DEAL)
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


class Attendance(models.Model):
    """Whether a player is present at an event tonight: the draw seats the present players.

    One row per player and event, kept when he leaves (``present`` off) so that late arrivals and
    dropouts stay visible to the organisers. Written by ``services.player_check_in/out``.
    """

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="attendance")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="attendance")
    present = models.BooleanField(_("present"), default=True)
    checked_in_at = models.DateTimeField(_("checked in at"), null=True, blank=True)
    checked_out_at = models.DateTimeField(_("left at"), null=True, blank=True)

    class Meta:
        ordering = ["event", "player__name", "player_id"]
        constraints = [models.UniqueConstraint(fields=["event", "player"], name="attendance_unique")]
        verbose_name = _("attendance")
        verbose_name_plural = _("attendance")

    def __str__(self) -> str:
        return f"{self.player} @ {self.event}"


def new_withdrawal_token() -> str:
    return secrets.token_urlsafe(24)


class Registration(models.Model):
    """A person's registration for an event through its public page (no account): the name he
    gives, how to reach him (seen by the organisers only), whether his name may be listed publicly,
    and where he stands. ``token`` is his private withdrawal link. Written by
    ``tournaments/entry/registration.py`` only."""

    class Status(models.TextChoices):
        REGISTERED = "registered", _("registered, to be confirmed")
        CONFIRMED = "confirmed", _("confirmed")
        WAITING = "waiting", _("on the waiting list")
        WITHDRAWN = "withdrawn", _("withdrawn")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="registrations")
    name = models.CharField(_("name"), max_length=120)
    contact = models.CharField(_("contact"), max_length=200, blank=True, default="")
    show_name = models.BooleanField(_("show my name on the public list"), default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.REGISTERED)
    token = models.CharField(max_length=64, unique=True, default=new_withdrawal_token, editable=False)
    # The player the organisers matched him to (an existing one, or one they created for him).
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="registrations")
    created_at = models.DateTimeField(auto_now_add=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["event", "created_at", "id"]
        indexes = [models.Index(fields=["event", "status"], name="registration_event_status")]
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")

    def __str__(self) -> str:
        return f"{self.name} @ {self.event}"


class Round(models.Model):
    class Stage(models.TextChoices):
        PRELIMINARY = "preliminary", _("preliminary round")
        FINAL = "final", _("final")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField(_("number"))
    # An organiser may hold back a round's results until he releases them (public pages, API).
    results_held = models.BooleanField(_("results held back"), default=False)
    # The seating draw an organiser previews (and adjusts) before publishing it as tables; the
    # players who sat out (byes) stay on the round once published. See tournaments/draws/services.py.
    draft = models.JSONField(_("draw preview"), null=True, blank=True, editable=False)
    byes = models.JSONField(_("byes"), default=list, blank=True, editable=False)
    # A final round seats the event's finalists (Event.final_size); its results make the final ranking.
    stage = models.CharField(_("stage"), max_length=12, choices=Stage.choices, default=Stage.PRELIMINARY)
    # The round's clock (tournaments/entry/clock.py): its length (extensions added), the start of the
    # stretch it runs now (null: not running), the milliseconds run before that stretch, and
    # whether an organiser ended it early. Written by ``clock`` services only.
    clock_seconds = models.PositiveIntegerField(_("length in seconds"), null=True, blank=True, editable=False)
    clock_running_since = models.DateTimeField(null=True, blank=True, editable=False)
    clock_used_ms = models.BigIntegerField(default=0, editable=False)
    clock_ended = models.BooleanField(default=False, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["event", "number"]
        constraints = [models.UniqueConstraint(fields=["event", "number"], name="round_number_unique")]
        # The few rounds held back, read by the rating pool's sync (policy.unseen_round_ids).
        indexes = [models.Index(fields=["event"], condition=models.Q(results_held=True), name="round_held")]
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
    # Counts the writes that took the table's lock (tournaments/results/sql.py: ``lock_table``,
    # and the table's own changes): a hand read without the lock is stored only while it is
    # unchanged (``sql.read_table``, ``sql.store_hand``'s guard).
    revision = models.BigIntegerField(default=0, db_default=0, editable=False)

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
    # The seat that deals the first hand: the table's drawn first dealer when the draw set one
    # (then hand 1 must be dealt by that seat), else the first hand's dealer once it is stored.
    first_dealer = models.PositiveSmallIntegerField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Kept by ``tournaments.results.services`` in the transaction that stores, corrects or voids a hand, so
    # that standings, money, player pages and ratings read a session's result without its hands:
    # the totals per seat over the hands that count (``results.counts``) and the hands stored.
    totals = models.JSONField(default=list, blank=True, editable=False)
    hand_count = models.PositiveIntegerField(default=0, editable=False)
    # Set when the session's rated result (finished or not, finish time, totals) may have changed;
    # the ratings pool takes the marked sessions into account and clears the mark, so an update
    # reads the changed sessions, not the whole pool (ratings/services.py).
    rating_dirty_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["table", "number"]
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="session_number_unique")]
        indexes = [
            # The pool's changed sessions: a handful of rows among all sessions.
            models.Index(fields=["rating_dirty_at"], name="session_rating_dirty",
                         condition=models.Q(rating_dirty_at__isnull=False)),
        ]
        verbose_name = _("session")
        verbose_name_plural = _("sessions")

    def __str__(self) -> str:
        return f"{self.table} – {_('session')} {self.number}"


class PlayerSums(models.Model):
    """A player's sums over counted sessions (``results.book.FIELDS``), per round or per event.
    ``placement`` is the placement points times ``results.book.PLACEMENT_SCALE`` (exact integers);
    ``cents`` Maumau's settled money (finished series only)."""

    seated = models.IntegerField(default=0)  # sessions with a hand, finished or under way
    played = models.IntegerField(default=0)  # finished sessions
    placement = models.BigIntegerField(default=0)
    total = models.BigIntegerField(default=0)
    wins = models.IntegerField(default=0)
    cents = models.BigIntegerField(default=0)

    class Meta:
        abstract = True


class RoundStanding(PlayerSums):
    """A player's sums over one round's counted sessions: what an event's and a series' standings
    add up instead of reading every session (``tournaments/standings/sums.py``).

    Kept by ``tournaments.results.services`` in the transaction that stores, corrects, voids, confirms a
    hand or abandons a session, as the session's totals are. Per round, not per event, so that a
    reader's visibility applies to them as to sessions (``Visibility.rounds``: rounds held back and
    unpublished events count for their organisers only) and holding or releasing a round changes
    nothing here; and a player sits at one table per round, so two tables never write one row.
    """

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")

    class Meta(PlayerSums.Meta):
        constraints = [models.UniqueConstraint(fields=["round", "player"], name="round_standing_unique")]
        indexes = [models.Index(fields=["event", "player"], name="round_standing_event")]


class EventStanding(PlayerSums):
    """A player's sums over every round of one event (``RoundStanding`` added up), kept with them
    in the same statement: standings read one row per player instead of one per player and round.
    Every round counts here, held ones too; a reader who may not see a held round gets these sums
    less that round's (``selectors.event_sums``), so holding or releasing a round changes nothing
    here either."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")

    class Meta(PlayerSums.Meta):
        constraints = [models.UniqueConstraint(fields=["event", "player"], name="event_standing_unique")]


class SeriesStanding(models.Model):
    """One row of a series' standings as the public reads them (``tournaments/standings/series.py`` over
    the events' public results), in ranking order (``position``): a projection kept by
    ``series_standings.refresh``, which a worker runs after every change that can move them (a
    hand of one of its events, holding a round, publishing, attaching or moving an event, the
    series' scoring) wrote a ``SeriesSyncRequest`` (``tournaments/standings/outbox.py``). Readers
    who see more than the public (an event's organisers) compute theirs, and so does everyone while
    a request for the series is pending."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    position = models.IntegerField()
    rank = models.IntegerField(null=True)
    points = models.BigIntegerField()
    played = models.IntegerField()
    wins = models.IntegerField()
    per_event = models.JSONField(default=dict)  # event id (text) -> {"points": int, "counted": bool}
    # The rest of the row (``series_standings.row_extra``): score, counted events, absences,
    # qualification, per-game points and the move since the latest event.
    extra = models.JSONField(default=dict)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["series", "player"], name="series_standing_unique"),
                       models.UniqueConstraint(fields=["series", "position"], name="series_standing_position")]


class SeriesStandingBasis(models.Model):
    """What a series' kept standings (``SeriesStanding``) were computed over: its scoring and the
    public's events, their metrics and held rounds (``series_standings.basis``). A reader uses the kept
    rows only while the series still matches it, so a change written around the services (an
    import, the admin) makes the standings computed again rather than read stale."""

    series = models.OneToOneField(Series, on_delete=models.CASCADE, primary_key=True, related_name="+")
    basis = models.JSONField()


class SeriesSyncRequest(models.Model):
    """A series whose kept standings (``SeriesStanding``) must be computed again: written in the
    transaction of the change that moves them, deleted by the sync that saw it
    (``tournaments/standings/outbox.py``). While one is pending, readers compute the series'
    standings instead of reading the kept rows, which it will replace.

    No foreign key to ``Series``: the reference would share-lock the series' row in every hand's
    transaction, the row a running sync holds (as ``ratings.PoolSyncRequest`` for pools)."""

    series_id = models.BigIntegerField(db_index=True)
    requested_at = models.DateTimeField(default=timezone.now)


class Transfer(models.Model):
    """A Maumau payment that settles a finished series; an organiser marks it paid."""

    session = models.ForeignKey(Session, on_delete=models.PROTECT, related_name="transfers")
    payer = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    payee = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    cents = models.PositiveIntegerField()
    paid = models.BooleanField(default=False)
    paid_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session", "-cents", "id"]


class AuditEntry(models.Model):
    """Who changed what, when, why, and the state before and after (written by ``tournaments.audit``).

    Audit rows outlive what they describe: ``event`` is kept as a plain reference (no cascade, no
    database constraint), so deleting an empty event leaves its history in place.
    """

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    # How the change came in: "api", "admin", "page", "command", "scorer" (a table's scorer link).
    via = models.CharField(max_length=20, default="api")
    action = models.CharField(max_length=40)
    event = models.ForeignKey(
        Event, null=True, blank=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="audit"
    )
    object_type = models.CharField(max_length=40)
    object_id = models.PositiveBigIntegerField()
    reason = models.TextField(blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["object_type", "object_id"])]

    def __str__(self) -> str:
        return f"{self.action} {self.object_type} {self.object_id}"


class Hand(models.Model):
    """A deal (Mü), a game (Maumau) or a round (Mit List und Tücke) of a session.

    ``record`` and ``result`` are the current version's; a voided hand keeps its slot (its dealer
    still moved) and has no result. Results are never deleted: a session with hands cannot be
    deleted, and a hand changes only through a new version.
    """

    # No index of its own: ``hand_number_unique`` (session, number) serves every lookup by session,
    # and each index is written with every hand.
    session = models.ForeignKey(Session, on_delete=models.PROTECT, related_name="hands", db_index=False)
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    record = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    voided = models.BooleanField(default=False)
    version = models.PositiveIntegerField(default=1)
    # Second-player confirmation (``Event.confirm_hands``): the seat that entered the hand, whether
    # it still waits for another seat's confirmation, and who confirmed it when. A disputed hand
    # waits for the organisers, who confirm, correct or void it.
    entered_by_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    unconfirmed = models.BooleanField(default=False)
    disputed = models.BooleanField(default=False)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    confirmed_by_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )  # indexed where set (``hand_confirmed_by``): a submission writes no entry for its empty value
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "games_hand"  # the table predates the move from the games app
        ordering = ["session", "number"]
        constraints = [models.UniqueConstraint(fields=["session", "number"], name="hand_number_unique")]
        indexes = [
            # A submission counts the hands that wait for a confirmation (tournaments/results/sql.py).
            models.Index(fields=["session"], name="hand_unconfirmed", condition=models.Q(unconfirmed=True)),
            # ... and the voided ones: they do not count toward a session's length (results/book.py).
            models.Index(fields=["session"], name="hand_voided", condition=models.Q(voided=True)),
            # A user's deletion clears his confirmations: found by this index, which holds only them.
            models.Index(fields=["confirmed_by"], name="hand_confirmed_by", condition=models.Q(confirmed_by__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"{self.session} – hand {self.number}"

    @property
    def scores(self) -> list[int] | None:
        return None if self.voided or not self.result else self.result["scores"]


class HandVersion(models.Model):
    """Every version of a hand, the first submission included: corrections lose no history."""

    # No index of its own: ``hand_version_unique`` (hand, version) serves every lookup by hand.
    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="versions", db_index=False)
    version = models.PositiveIntegerField()
    # The dealer of this version (a correction may change it); null only on versions stored
    # before the dealer was kept per version.
    dealer = models.PositiveSmallIntegerField(null=True, blank=True)
    record = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    voided = models.BooleanField(default=False)
    # Indexed where set (``hand_version_created_by``): a scorer link's versions have no user.
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   db_index=False)
    via_scorer_token = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_handversion"
        ordering = ["hand", "version"]
        constraints = [models.UniqueConstraint(fields=["hand", "version"], name="hand_version_unique")]
        indexes = [models.Index(fields=["created_by"], name="hand_version_created_by",
                                condition=models.Q(created_by__isnull=False))]


class IdempotentSubmission(models.Model):
    """The receipt of a submission made with an ``Idempotency-Key``, answered again on retries.

    A key belongs to one table (whoever sends it: a scorer device, a seated player or an
    organiser); ``fingerprint`` is the hash of what was submitted, so the same key with another
    record is refused instead of answered with the wrong hand.
    """

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    key = models.CharField(max_length=200)
    fingerprint = models.CharField(max_length=64, blank=True)
    session = models.ForeignKey(Session, on_delete=models.PROTECT, related_name="+")
    hand = models.ForeignKey(Hand, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_idempotentsubmission"
        constraints = [models.UniqueConstraint(fields=["table", "key"], name="idempotency_table_key_unique")]


class PlayerCode(models.Model):
    """A player's personal code, issued by an organiser (``tournaments/people/services.py``): a PIN
    to type and a link to scan (printed as a QR code). Only their keyed hashes are kept
    (``tournaments/people/codes.py``): the code itself is shown once, on the slip printed when it is
    issued. Issuing again replaces both, so a lost slip's code opens nothing."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, primary_key=True, related_name="code")
    pin_digest = models.CharField(max_length=64, unique=True)
    link_digest = models.CharField(max_length=64, unique=True)
    issued_at = models.DateTimeField(default=timezone.now)
    issued_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")


class PlayerDevice(models.Model):
    """A phone bound to a player by his code: the phone keeps a random key in a signed cookie, the
    service its keyed hash. The player sees his phones and unbinds one (a lost phone:
    ``revoked_at``); the row stays, so his list says when it was unbound."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="devices")
    digest = models.CharField(max_length=64, unique=True)
    label = models.CharField(max_length=120, blank=True)
    bound_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["player", "-bound_at", "-id"]
