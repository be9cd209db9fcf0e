from django.urls import path

from . import api

urlpatterns = [
    path("ratings/leaderboard/", api.LeaderboardView.as_view(), name="leaderboard"),
    path("players/<int:pk>/ratings/", api.PlayerRatingsView.as_view(), name="player-ratings"),
    path("tables/<int:pk>/chances/", api.TableChancesView.as_view(), name="table-chances"),
]
