"""The service's probes: ``/livez`` (the process answers), ``/readyz`` (this process can serve a
request) and ``/healthz`` (every dependency, for monitoring).

``/livez`` touches nothing: a liveness probe that asks the database or Redis restarts healthy
processes during someone else's outage. ``/readyz`` asks what a request needs: the database
reachable and every migration this code knows applied (a new release's pods wait for the
migration, an old pod keeps serving). It never asks the broker: hands are stored while Redis is
down (README.md, "When Redis is down"), so a Redis outage must not take the pods out of service.
``/healthz`` adds the broker and answers 503 when any dependency fails: for monitoring and
alerting, not for a probe that decides on traffic.

Anyone (a load balancer, the kubelet) learns ok or failing per dependency and the status code;
staff also see which database and broker mode answered and the error text, which may name hosts
and users and is nobody else's business.
"""
from __future__ import annotations

import threading

from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.http import JsonResponse

from tournaments import policy

# Once this process has seen every migration it knows applied, that stays true (migrations are
# applied forwards; a rollback is an operator's deliberate act and restarts the pods): later
# probes then only ask whether the database answers, without loading the migration graph again.
_migrated = threading.Event()


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        return {"ok": False, "vendor": connection.vendor, "error": str(exc)}
    return {"ok": True, "vendor": connection.vendor}


def _migrations() -> dict:
    """Whether every migration of this code is applied (as ``manage.py migrate --check``)."""
    if _migrated.is_set():
        return {"ok": True}
    try:
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as exc:  # noqa: BLE001 - no answer is no "applied"
        return {"ok": False, "error": str(exc)}
    if plan:
        return {"ok": False, "error": f"{len(plan)} migrations not applied, the first {plan[0][0].app_label}.{plan[0][0].name}"}
    _migrated.set()
    return {"ok": True}


def broker_url() -> str:
    """The broker's URL: ``CELERY_BROKER_URL`` when set apart, else ``REDIS_URL`` (none: eager)."""
    return settings.BROKER_URL or settings.REDIS_URL


def _broker() -> dict:
    url = broker_url()
    if not url:
        return {"ok": True, "mode": "in-process (eager)"}
    try:
        import redis

        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
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


def _answer(request, checks: dict) -> JsonResponse:
    healthy = all(check["ok"] for check in checks.values())
    if not _sees_details(request):
        checks = {name: {"ok": check["ok"]} for name, check in checks.items()}
    return JsonResponse({"status": "ok" if healthy else "unavailable", **checks}, status=200 if healthy else 503)


def livez(request):
    """The process answers HTTP: no dependency asked, no session read (liveness probes)."""
    return JsonResponse({"status": "ok"})


def readyz(request):
    """The database answers and the migrations are applied; the broker is not asked (readiness
    and start-up probes)."""
    database = _database()
    checks = {"database": database, "migrations": _migrations() if database["ok"] else {"ok": False}}
    return _answer(request, checks)


def healthz(request):
    """Every dependency, the broker included: 503 when one fails (monitoring)."""
    return _answer(request, {"database": _database(), "broker": _broker()})
