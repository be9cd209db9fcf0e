from django.urls import path
from rest_framework.routers import DefaultRouter

from . import api, open_api, results_api, series_api

router = DefaultRouter()
router.register("clubs", api.ClubViewSet, basename="club")
router.register("players", api.PlayerViewSet, basename="player")
router.register("events", api.EventViewSet, basename="event")
router.register("rounds", api.RoundViewSet, basename="round")
router.register("tables", api.TableViewSet, basename="table")
router.register("sessions", api.SessionViewSet, basename="session")
router.register("transfers", api.TransferViewSet, basename="transfer")
router.register("hands", results_api.HandViewSet, basename="hand")
router.register("series", series_api.SeriesViewSet, basename="series")

urlpatterns = [
    path("tables/<int:pk>/hands/", results_api.TableHandsView.as_view(), name="table-hands"),
    path("events/<int:pk>/open-table/", open_api.OpenTableView.as_view(), name="event-open-table"),
    *router.urls,
]
