from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api

router = SimpleRouter()
router.register("hands", api.HandViewSet, basename="hand")

urlpatterns = [
    path("tables/<int:pk>/hands/", api.TableHandsView.as_view(), name="table-hands"),
    path("records/validate", api.DryRunView.as_view(), name="records-validate"),
    *router.urls,
]
