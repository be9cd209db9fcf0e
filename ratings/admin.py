"""Ratings in the admin: read-only. The pool task is their only writer (``recompute_ratings``
rebuilds them)."""
from django.contrib import admin

from tournaments.admin import ReadOnlyAdmin

from .models import Rating, RatingHistory


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ["player", "game", "mu", "sigma", "sessions", "last_finished_at"]
    list_filter = ["game"]
    search_fields = ["player__name"]


@admin.register(RatingHistory)
class RatingHistoryAdmin(ReadOnlyAdmin):
    list_display = ["player", "game", "position", "session", "mu_before", "mu_after", "sigma_after"]
    list_filter = ["game"]
