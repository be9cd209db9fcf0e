"""URLs of the score sheet and the table cards (namespace ``sheet``)."""
from django.urls import path

from . import player, views

app_name = "sheet"

urlpatterns = [
    path("t/<str:token>/", views.table_sheet, name="table"),
    path("t/<str:token>/running/", views.table_running, name="table_running"),
    path("t/<str:token>/clock/", views.table_clock, name="table_clock"),
    path("my-table/", views.my_table, name="my_table"),
    path("my-table/<int:pk>/", views.my_table_sheet, name="my_table_sheet"),
    path("my-table/<int:pk>/running/", views.my_table_running, name="my_table_running"),
    # A player's phone (tournaments/sheet/player.py).
    path("p/<str:key>/", player.bind_link, name="bind_link"),
    path("me/", player.home, name="me"),
    path("me/pin/", player.bind_pin, name="bind_pin"),
    path("me/tables/<int:pk>/", player.table_sheet, name="me_table"),
    path("me/tables/<int:pk>/running/", player.table_running, name="me_table_running"),
    path("me/phones/", player.phones, name="me_phones"),
    path("me/phones/<int:pk>/unbind/", player.unbind, name="me_unbind"),
    path("rounds/<int:pk>/cards/", views.table_cards, name="cards"),
    # At the root, so that its scope covers the sheet's pages (/t/…, /my-table/…).
    path("sheet-sw.js", views.service_worker, name="service_worker"),
]
