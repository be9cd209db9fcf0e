"""Stored hand records: one ``Hand`` per slot of a session, every version of it kept."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class Hand(models.Model):
    """A deal (Mü), a game (Maumau) or a round (Mit List und Tücke) of a session.

    ``record`` and ``result`` are the current version's; a voided hand keeps its slot (its dealer
    still moved) and has no result.
    """

    session = models.ForeignKey("tournaments.Session", on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    record = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    voided = models.BooleanField(default=False)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["session", "number"]
        constraints = [models.UniqueConstraint(fields=["session", "number"], name="hand_number_unique")]

    def __str__(self) -> str:
        return f"{self.session} – hand {self.number}"

    @property
    def scores(self) -> list[int] | None:
        return None if self.voided or not self.result else self.result["scores"]


class HandVersion(models.Model):
    """Every version of a hand, the first submission included: corrections lose no history."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    record = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    voided = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    via_scorer_token = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["hand", "version"]
        constraints = [models.UniqueConstraint(fields=["hand", "version"], name="hand_version_unique")]


class IdempotentSubmission(models.Model):
    """The first response to a submission with an ``Idempotency-Key``, answered again on retries."""

    key = models.CharField(max_length=200)
    # Whose key it is: "user:<id>" or "table:<id>" (a scorer token), so clients cannot collide.
    scope = models.CharField(max_length=64)
    session = models.ForeignKey("tournaments.Session", on_delete=models.CASCADE, related_name="+")
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "key"], name="idempotency_key_unique")]
