"""Fixtures of the public pages' tests."""
from __future__ import annotations

import pytest

from .demo import build_demo


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    # The manifest storage needs collectstatic; the tests read the files from static/ directly.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(scope="module")
def _demo_events(django_db_setup, django_db_blocker):
    """The demo, built once per module (loading it plays every session through the engine); each
    test then runs in a transaction that is rolled back, and the module's end empties the database."""
    from django.core.management import call_command

    from stich.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the ratings' sync runs here, not on a worker
    try:
        with django_db_blocker.unblock():
            events = {game: event.pk for game, event in build_demo().items()}
    finally:
        app.conf.task_always_eager = eager
    yield events
    with django_db_blocker.unblock():
        # Without numbering the rows from 1 again: the shared cache keeps the live pages' versions
        # and fragments of these events by their ids, which a later module must not inherit.
        call_command("flush", interactive=False, verbosity=0, reset_sequences=False)


@pytest.fixture
def demo(_demo_events, db):
    """The demo with results for every event, and a held-back round in each (made if missing)."""
    from tournaments.models import Event

    return {game: Event.objects.get(pk=pk) for game, pk in _demo_events.items()}
