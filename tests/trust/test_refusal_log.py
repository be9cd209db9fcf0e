"""A refusal is logged on one line: the console's 403 (a page the policy does not allow) names
its path and reason, without the exception's traceback (stich/logs.py); a server error keeps
its traceback."""
from __future__ import annotations

import logging
import sys

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_a_console_403_is_one_line_in_the_log(world, caplog):
    browser = Client()
    browser.force_login(world.other_organiser)  # organises another event of the club, not this one
    event = world.events["mu"]
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = browser.post(f"/console/events/{event.pk}/edit/", {"name": "Taken over"})
    assert response.status_code == 403
    refusals = [record for record in caplog.records if record.name == "django.request"]
    assert len(refusals) == 1, refusals
    record = refusals[0]
    assert record.exc_info is None and record.exc_text is None
    line = record.getMessage()
    assert "Forbidden" in line and f"/console/events/{event.pk}/edit/" in line and "\n" not in line
    assert "Traceback" not in caplog.text


def test_other_errors_keep_their_traceback(caplog):
    from stich.logs import RefusalsOnOneLine

    try:
        raise RuntimeError("broken")
    except RuntimeError:
        record = logging.getLogger("django.request").makeRecord(
            "django.request", logging.ERROR, __file__, 1, "Internal Server Error: %s", ("/x",),
            exc_info=sys.exc_info(), extra={"status_code": 500})
    assert RefusalsOnOneLine().filter(record) and record.exc_info is not None
