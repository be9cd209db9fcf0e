"""Fixtures of the score sheet's tests: the public pages' browser (Debian's Chromium through
Playwright, skipped where it is missing) and a club evening."""
from __future__ import annotations

import pytest

from tests.pages.test_browser import browser  # noqa: F401 - the same Chromium, launched the same way


@pytest.fixture
def evening(db):
    from .world import build_evening

    return build_evening()
