"""The live sockets described for integrators: the AsyncAPI document ``tournaments/api/asyncapi.yaml``
(the message shapes of ``/ws/events/{id}/`` and ``/ws/series/{id}/``, ``tournaments/live.py``),
served as written at ``/api/asyncapi.yaml`` and as JSON at ``/api/asyncapi.json``."""
from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

import yaml
from django.http import HttpResponse, JsonResponse
from django.views.decorators.http import require_safe


@lru_cache(maxsize=1)
def document_text() -> str:
    return (files("tournaments.api") / "asyncapi.yaml").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def document() -> dict:
    return yaml.safe_load(document_text())


@require_safe
def asyncapi_yaml(request):
    return HttpResponse(document_text(), content_type="application/yaml; charset=utf-8")


@require_safe
def asyncapi_json(request):
    return JsonResponse(document(), json_dumps_params={"ensure_ascii": False})
