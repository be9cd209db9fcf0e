"""URLs of the public pages (namespace ``pages``), and the language switch they offer."""
from django.urls import include, path

from . import clubs, me, registration, series, views

app_name = "pages"

urlpatterns = [
    path("", views.home, name="home"),
    path("events/<int:pk>/", views.event_detail, name="event"),
    path("events/<int:pk>/screen/", views.event_screen, name="screen"),
    path("events/<int:pk>/register/", registration.register, name="register"),
    path("withdraw/<str:token>/", registration.withdraw, name="withdraw"),
    path("events/<int:pk>/standings/print/", views.standings_print, name="standings_print"),
    path("leaderboard/<str:game>/", views.leaderboard_page, name="leaderboard"),
    path("players/<int:pk>/", views.player_detail, name="player"),
    path("players/<int:pk>/stats/", me.public_stats, name="player_stats"),
    path("me/stats/", me.stats_page, name="me_stats"),
    path("me/head-to-head/", me.head_to_head_page, name="me_vs"),
    path("me/privacy/", me.privacy, name="me_privacy"),
    path("me/my-data.json", me.export, name="me_export"),
    path("me/delete/", me.delete, name="me_delete"),
    path("calibration/", views.calibration_page, name="calibration"),
    path("clubs/<slug:slug>/", clubs.club_detail, name="club"),
    path("clubs/<slug:slug>/calendar.ics", clubs.club_calendar, name="club_calendar"),
    path("series/<int:pk>/", series.series_detail, name="series"),
    path("series/<int:pk>/screen/", series.series_screen, name="series_screen"),
    # Django's set_language (POST): a choice that overrides the browser's Accept-Language.
    path("i18n/", include("django.conf.urls.i18n")),
]
