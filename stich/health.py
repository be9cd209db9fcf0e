"""``/healthz``: is the database reachable, and the broker (or are tasks run in-process)?"""
from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import JsonResponse


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        return {"ok": False, "vendor": connection.vendor, "error": str(exc)}
    return {"ok": True, "vendor": connection.vendor}


def _broker() -> dict:
    if not settings.REDIS_URL:
        return {"ok": True, "mode": "in-process (eager)"}
    try:
        import redis

        client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
        client.ping()
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "mode": "redis", "error": str(exc)}
    return {"ok": True, "mode": "redis"}


def healthz(request):
    checks = {"database": _database(), "broker": _broker()}
    healthy = all(check["ok"] for check in checks.values())
    return JsonResponse({"status": "ok" if healthy else "unavailable", **checks}, status=200 if healthy else 503)
