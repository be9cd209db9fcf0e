from django.urls import path

from . import api

urlpatterns = [
    path("records/validate", api.DryRunView.as_view(), name="records-validate"),
]
