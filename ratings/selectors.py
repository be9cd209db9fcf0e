"""Reads of ratings: leaderboards and a player's ratings with their history.

Only released results are ever rated (held-back rounds and abandoned sessions are not in the
pools), so everything here is public as it stands.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from .models import Rating, RatingHistory

TREND_EVENTS = 5  # the trend is the change of the displayed rating over the last 5 rating events


def displayed(mu: float, sigma: float) -> int:
    from .model import displayed_rating

    return displayed_rating(mu, sigma)


@dataclass
class LeaderboardRow:
    rank: int
    player_id: int
    name: str
    rating: int
    mu: float
    sigma: float
    sessions: int
    trend: int


def leaderboard(*, game: str, club: int | None = None, min_sessions: int = 0) -> list[LeaderboardRow]:
    ratings: QuerySet[Rating] = Rating.objects.filter(game=game, sessions__gte=max(min_sessions, 1)).select_related("player")
    if club is not None:
        ratings = ratings.filter(player__clubs=club)
    rows = []
    for rating in ratings:
        recent = list(
            RatingHistory.objects.filter(player=rating.player_id, game=game).order_by("-position")[:TREND_EVENTS]
        )
        start = displayed(recent[-1].mu_before, recent[-1].sigma_before) if recent else displayed(rating.mu, rating.sigma)
        now = displayed(rating.mu, rating.sigma)
        rows.append(LeaderboardRow(0, rating.player_id, rating.player.public_name, now, rating.mu, rating.sigma,
                                   rating.sessions, now - start))
    rows.sort(key=lambda row: (-row.rating, -row.mu, row.player_id))
    for index, row in enumerate(rows):
        row.rank = index + 1 if index == 0 or row.rating != rows[index - 1].rating else rows[index - 1].rank
    return rows


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
