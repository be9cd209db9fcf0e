"""The one Celery app. Settings come from Django's (``CELERY_*``); tasks are discovered per app.

Celery beat (one process, the compose file's ``beat`` service) runs ``CELERY_BEAT_SCHEDULE``: the
ratings' catch-up every ``RATINGS_CATCH_UP_SECONDS``, which syncs any pool a lost or never queued
task left behind (ratings/outbox.py), and the series' every ``SERIES_CATCH_UP_SECONDS``
(tournaments/standings/outbox.py).
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stich.settings")

app = Celery("stich")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
