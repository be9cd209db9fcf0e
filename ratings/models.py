"""Ratings per player and game (separate pools), their history, and the pool's applied order."""
from __future__ import annotations

from django.db import models

from games.catalog import GAME_CHOICES


class Pool(models.Model):
    """One row per game: locked while a worker applies or recomputes the pool's sessions."""

    game = models.CharField(max_length=10, choices=GAME_CHOICES, primary_key=True)
    # A fingerprint of the rounds of this game whose results the public does not see (held back,
    # or of unpublished events) when the pool was last synced: when it changes, sessions may have
    # come or gone anywhere in the pool, and the sync compares the whole pool (services.py).
    # Empty until the first sync.
    hidden = models.CharField(max_length=64, blank=True)
    updated_at = models.DateTimeField(auto_now=True)


class PoolSyncRequest(models.Model):
    """A pool that must be synced: written in the same transaction as the result that changed, and
    deleted by the sync that saw it (ratings/outbox.py). A request left over, because its task
    could not be queued or its worker died, is delivered by the periodic catch-up.

    No foreign key to ``Pool``: the reference would share-lock the pool's row, which a running
    sync holds, and submissions would wait for the sync."""

    game = models.CharField(max_length=10, choices=GAME_CHOICES, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)


class PoolEntry(models.Model):
    """The sessions applied to a pool, in order, with a fingerprint of the result they were rated
    on: a corrected, abandoned or held-back session no longer matches, and the pool is recomputed
    from there."""

    game = models.CharField(max_length=10, choices=GAME_CHOICES)
    position = models.PositiveIntegerField()
    session = models.OneToOneField("tournaments.Session", on_delete=models.CASCADE, related_name="rating_entry")
    fingerprint = models.CharField(max_length=64)
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["game", "position"]
        constraints = [models.UniqueConstraint(fields=["game", "position"], name="pool_position_unique")]


class Rating(models.Model):
    player = models.ForeignKey("tournaments.Player", on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=10, choices=GAME_CHOICES)
    mu = models.FloatField()
    sigma = models.FloatField()
    sessions = models.PositiveIntegerField(default=0)
    last_finished_at = models.DateTimeField(null=True, blank=True)
    # Kept with mu and sigma by the pool (services.py), so that a leaderboard is one ordered,
    # paginated query: the displayed rating, and its change over the player's last
    # ``selectors.TREND_EVENTS`` rating events.
    displayed = models.IntegerField(default=0)
    trend = models.IntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "-mu"]
        constraints = [models.UniqueConstraint(fields=["player", "game"], name="rating_player_game_unique")]
        indexes = [models.Index("game", models.F("displayed").desc(), models.F("mu").desc(), "player",
                                name="rating_leaderboard")]


class RatingHistory(models.Model):
    """One row per rating event of a player: before and after."""

    player = models.ForeignKey("tournaments.Player", on_delete=models.CASCADE, related_name="rating_history")
    game = models.CharField(max_length=10, choices=GAME_CHOICES)
    session = models.ForeignKey("tournaments.Session", on_delete=models.CASCADE, related_name="rating_history")
    position = models.PositiveIntegerField()
    finished_at = models.DateTimeField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()

    class Meta:
        ordering = ["game", "position"]
        constraints = [models.UniqueConstraint(fields=["player", "session"], name="history_player_session_unique")]
        indexes = [models.Index(fields=["player", "game", "position"])]
