from django.urls import path

from . import api, people

urlpatterns = [
    path("ratings/leaderboard/", api.LeaderboardView.as_view(), name="leaderboard"),
    path("players/<int:pk>/ratings/", api.PlayerRatingsView.as_view(), name="player-ratings"),
    path("tables/<int:pk>/chances/", api.TableChancesView.as_view(), name="table-chances"),
    path("me/player/export/", people.ExportView.as_view(), name="me-player-export"),
]
