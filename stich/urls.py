from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerView,
)

from .asyncapi import asyncapi_json, asyncapi_yaml
from .guide import guide
from .health import healthz, livez, readyz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("livez", livez, name="livez"),
    path("readyz", readyz, name="readyz"),
    path("api/v1/", include("games.urls")),
    path("api/v1/", include("ratings.urls")),
    path("api/v1/", include("tournaments.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/asyncapi.yaml", asyncapi_yaml, name="asyncapi-yaml"),
    path("api/asyncapi.json", asyncapi_json, name="asyncapi-json"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("api-auth/", include("rest_framework.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("console/", include("tournaments.console.urls")),
    re_path(r"^guide/(?P<path>.*)$", guide),  # the guide's static files (MkDocs, docs/)
    path("", include("tournaments.sheet.urls")),
    path("", include("stich.pages.urls")),
]

handler400 = "stich.errors.bad_request"
handler404 = "stich.errors.not_found"
handler500 = "stich.errors.server_error"
