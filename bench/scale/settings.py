"""The project's settings for the benchmark's web server: its URLs add a bare DRF endpoint (the
baseline of hand submission), and static files are served as in development (no collectstatic)."""
from stich.settings import *  # noqa: F403

ROOT_URLCONF = "bench.scale.urls"
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
