"""URLs of the organisers' console (namespace ``console``), under ``/console/``."""
from django.urls import path

from . import entry, formats, people, series, views

app_name = "console"

urlpatterns = [
    path("", views.home, name="home"),
    path("events/new/", views.event_new, name="event_new"),
    path("events/<int:pk>/", views.event_detail, name="event"),
    path("events/<int:pk>/edit/", views.event_edit, name="event_edit"),
    path("events/<int:pk>/publish/", views.event_publish, name="event_publish"),
    path("events/<int:pk>/organisers/", views.event_organiser_add, name="event_organiser_add"),
    path("events/<int:pk>/players/", views.players, name="players"),
    path("events/<int:pk>/players/<int:player>/attendance/", views.attendance, name="attendance"),
    path("events/<int:pk>/players/<int:player>/distinction/", views.player_distinction, name="player_distinction"),
    path("events/<int:pk>/rounds/new/", views.round_new, name="round_new"),
    path("events/<int:pk>/open-table/", views.open_table, name="open_table"),
    path("events/<int:pk>/plan/", views.plan, name="plan"),
    path("events/<int:pk>/schedule/", views.schedule, name="schedule"),
    path("events/<int:pk>/money/", views.money_page, name="money"),
    path("events/<int:pk>/seating-script/", formats.seating_script, name="seating_script"),
    path("events/<int:pk>/seating-script/remove/", formats.seating_script_remove, name="seating_script_remove"),
    path("events/<int:pk>/registrations/", entry.registrations_page, name="registrations"),
    path("events/<int:pk>/players/import/", entry.players_import, name="players_import"),
    path("registrations/<int:pk>/confirm/", entry.registration_confirm, name="registration_confirm"),
    path("registrations/<int:pk>/withdraw/", entry.registration_withdraw, name="registration_withdraw"),
    path("registrations/<int:pk>/match/", entry.registration_match, name="registration_match"),
    path("registrations/<int:pk>/check-in/", entry.registration_check_in, name="registration_check_in"),
    path("rounds/<int:pk>/clock/", entry.round_clock, name="round_clock"),
    path("rounds/<int:pk>/", views.round_detail, name="round"),
    path("rounds/<int:pk>/draw/", views.round_draw, name="round_draw"),
    path("rounds/<int:pk>/swap/", views.round_swap, name="round_swap"),
    path("rounds/<int:pk>/publish/", views.round_publish, name="round_publish"),
    path("rounds/<int:pk>/hold/", views.round_hold, name="round_hold"),
    path("rounds/<int:pk>/player-codes/", people.round_codes, name="round_codes"),
    path("players/<int:pk>/code/", people.player_code, name="player_code"),
    path("tables/<int:pk>/", views.table_detail, name="table"),
    path("hands/<int:pk>/correct/", views.hand_correct, name="hand_correct"),
    path("hands/<int:pk>/void/", views.hand_void, name="hand_void"),
    path("transfers/<int:pk>/paid/", views.transfer_paid, name="transfer_paid"),
    path("transfers/<int:pk>/unpaid/", views.transfer_unpaid, name="transfer_unpaid"),
    path("series/", series.series_list, name="series_list"),
    path("series/new/", series.series_new, name="series_new"),
    path("series/<int:pk>/", series.series_detail, name="series"),
    path("series/<int:pk>/events/<int:event>/", series.series_event, name="series_event"),
    path("series/<int:pk>/delete/", series.series_delete, name="series_delete"),
]
