"""The club's page in a browser: axe-core clean at 375 and 1280 px in German, English and Finnish,
nothing wider than a phone, the calendar's month moves, and screenshots of each
(artifacts/screenshots/club-{lang}-{width}.png)."""
from __future__ import annotations

import os

import pytest

from .axe import assert_accessible
from .test_browser import SCREENSHOTS, browser  # noqa: F401 - the one Chromium fixture
from .test_club_page import build_club_world

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop runs in this thread

pytestmark = pytest.mark.browser

LANGUAGES = {"de": "de-DE", "en": "en-GB", "fi": "fi-FI"}
WIDTHS = ((375, 812), (1280, 900))


def test_the_club_page_in_three_languages_at_two_widths(live_server, transactional_db, browser):
    world = build_club_world()
    url = f"{live_server.url}/clubs/{world.club.slug}/"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for code, locale in LANGUAGES.items():
        context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        response = page.goto(url)
        assert response is not None and response.status == 200
        assert page.locator("html").get_attribute("lang") == code
        for width, height in WIDTHS:
            page.set_viewport_size({"width": width, "height": height})
            assert_accessible(page, where=f"club page ({locale}, {width} px)")
            # Nothing wider than the window: the calendar and the leaderboards fit a phone.
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(SCREENSHOTS / f"club-{code}-{width}.png"), full_page=True, scale="css")
        # The next month and back: the calendar's caption changes and the page stays clean.
        caption = page.locator("#month caption").inner_text()
        with page.expect_navigation():
            page.click(".month-nav a[rel=next]")
        assert page.locator("#month caption").inner_text() != caption
        assert_accessible(page, where=f"club page, next month ({locale})")
        # A day with events leads to them in the list under the calendar.
        month = world.upcoming.starts_on.strftime("%Y-%m")
        page.goto(f"{url}?month={month}")
        page.click(f'[data-day="{world.upcoming.starts_on.isoformat()}"]')
        assert page.locator(f"#day-{world.upcoming.starts_on.isoformat()} a").first.inner_text() == "Adventsturnier"
        context.close()
