from django.urls import path
from rest_framework.routers import DefaultRouter

from . import (
    account as account_api,
)
from . import (
    entry as entry_api,
)
from . import (
    evening as evening_api,
)
from . import (
    hands as results_api,
)
from . import (
    open_nights as open_api,
)
from . import (
    people as people_api,
)
from . import (
    series as series_api,
)
from . import (
    views as api,
)

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
    path("events/<int:pk>/checkins/", evening_api.CheckinsView.as_view(), name="event-checkins"),
    path("events/<int:pk>/checkins/<int:player>/", evening_api.CheckoutView.as_view(), name="event-checkout"),
    path("events/<int:pk>/tables/", evening_api.EventTablesView.as_view(), name="event-tables"),
    path("events/<int:pk>/registration/", entry_api.EventRegistrationView.as_view(), name="event-registration"),
    path("events/<int:pk>/registrations/", entry_api.EventRegistrationsView.as_view(), name="event-registrations"),
    path("registrations/withdraw/", entry_api.WithdrawByTokenView.as_view(), name="registration-withdraw-token"),
    path("registrations/<int:pk>/confirm/", entry_api.ConfirmRegistrationView.as_view(), name="registration-confirm"),
    path("registrations/<int:pk>/match/", entry_api.MatchRegistrationView.as_view(), name="registration-match"),
    path("registrations/<int:pk>/withdraw/", entry_api.WithdrawRegistrationView.as_view(),
         name="registration-withdraw"),
    path("registrations/<int:pk>/check-in/", entry_api.CheckInRegistrationView.as_view(),
         name="registration-check-in"),
    path("clubs/<int:pk>/players/import/", entry_api.PlayersImportView.as_view(), name="club-players-import"),
    path("rounds/<int:pk>/clock/", entry_api.RoundClockView.as_view(), name="round-clock"),
    path("me/", account_api.MeView.as_view(), name="me"),
    path("me/player/", people_api.OwnPlayerView.as_view(), name="me-player"),
    path("me/player/head-to-head/<int:player>/", people_api.HeadToHeadView.as_view(), name="me-head-to-head"),
    path("me/player/devices/", people_api.DevicesView.as_view(), name="me-devices"),
    path("me/player/devices/<int:pk>/unbind/", people_api.DeviceUnbindView.as_view(), name="me-device-unbind"),
    path("players/<int:pk>/stats/", people_api.PlayerStatsView.as_view(), name="player-stats"),
    *router.urls,
]
