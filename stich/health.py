"""``/healthz``: is the database reachable, and the broker (or are tasks run in-process)?

Anyone (a load balancer, the container's health check) learns ok or failing per dependency and
the status code; staff also see which database and broker mode answered and the error text, which
may name hosts and users and is nobody else's business.
"""
from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import JsonResponse

from tournaments import policy


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


def _sees_details(request) -> bool:
    # The database may be the failing part: a session that cannot be read is no staff.
    try:
        return policy.may(request.user, "view_service_details")
    except Exception:  # noqa: BLE001
        return False


def healthz(request):
    checks = {"database": _database(), "broker": _broker()}
    healthy = all(check["ok"] for check in checks.values())
    if not _sees_details(request):
        checks = {name: {"ok": check["ok"]} for name, check in checks.items()}
    return JsonResponse({"status": "ok" if healthy else "unavailable", **checks}, status=200 if healthy else 503)
