"""URLs of the score sheet and the table cards (namespace ``sheet``)."""
from django.urls import path

from . import views

app_name = "sheet"

urlpatterns = [
    path("t/<str:token>/", views.table_sheet, name="table"),
    path("t/<str:token>/running/", views.table_running, name="table_running"),
    path("t/<str:token>/clock/", views.table_clock, name="table_clock"),
    path("my-table/", views.my_table, name="my_table"),
    path("my-table/<int:pk>/", views.my_table_sheet, name="my_table_sheet"),
    path("my-table/<int:pk>/running/", views.my_table_running, name="my_table_running"),
    path("rounds/<int:pk>/cards/", views.table_cards, name="cards"),
    # At the root, so that its scope covers the sheet's pages (/t/…, /my-table/…).
    path("sheet-sw.js", views.service_worker, name="service_worker"),
]
