from django.urls import path

from . import api

urlpatterns = [
    path("records/validate", api.DryRunView.as_view(), name="records-validate"),
    path("records/schema/", api.RecordSchemaView.as_view(), name="record-schemas"),
    path("records/schema/<str:name>.json", api.RecordSchemaDocumentView.as_view(), name="record-schema"),
]
