"""Reads of ratings: leaderboards and a player's ratings with their history.

Only released results are ever rated (held-back rounds and abandoned sessions are not in the
pools), so everything here is public as it stands.
"""
from __future__ import annotations

from django.db.models import F, QuerySet, Window
from django.db.models.functions import Rank

from .model import displayed_rating
from .models import Rating, RatingHistory

TREND_EVENTS = 5  # the trend is the change of the displayed rating over the last 5 rating events


def displayed(mu: float, sigma: float) -> int:
    return displayed_rating(mu, sigma)


def leaderboard(*, game: str, club: int | None = None, min_sessions: int = 0) -> QuerySet[Rating]:
    """The leaderboard, best first, as one query to paginate: ratings with ``rank`` (shared by
    equal displayed ratings, counted over the whole filtered board), ``name`` (the shown name),
    ``rating`` (displayed) and ``trend``, both kept by the pool (``services._show``).

    Order: displayed rating, then mu, then player id.
    """
    ratings = Rating.objects.filter(game=game, sessions__gte=max(min_sessions, 1))
    if club is not None:
        ratings = ratings.filter(player__clubs=club)
    return ratings.annotate(
        rank=Window(Rank(), order_by=F("displayed").desc()),
        name=F("player__shown_name"),
        rating=F("displayed"),
    ).order_by("-displayed", "-mu", "player_id")


def player_history(*, player: int, game: str) -> list[dict]:
    """One point per rating event, in order: the displayed rating after it, and mu/sigma."""
    return [
        {
            "session": entry.session_id, "finished_at": entry.finished_at.isoformat(),
            "mu_before": entry.mu_before, "sigma_before": entry.sigma_before,
            "mu_after": entry.mu_after, "sigma_after": entry.sigma_after,
            "rating_before": displayed(entry.mu_before, entry.sigma_before),
            "rating_after": displayed(entry.mu_after, entry.sigma_after),
        }
        for entry in RatingHistory.objects.filter(player=player, game=game).order_by("position")
    ]
