"""The one Celery app. Settings come from Django's (``CELERY_*``); tasks are discovered per app."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stich.settings")

app = Celery("stich")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
