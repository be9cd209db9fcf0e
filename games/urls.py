from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api

router = SimpleRouter()
router.register("hands", api.HandViewSet, basename="hand")

urlpatterns = [
    path("tables/<int:pk>/hands/", api.TableHandsView.as_view(), name="table-hands"),
    path("records/validate", api.DryRunView.as_view(), name="records-validate"),
    path("records/schema/", api.RecordSchemaView.as_view(), name="record-schemas"),
    path("records/schema/<str:name>.json", api.RecordSchemaView.as_view(), name="record-schema"),
    *router.urls,
]
