"""A player's evening in a real browser: Beate scans her personal code (its link) and binds her
phone, sees her table and seat, opens the sheet at her seat and enters a Maumau game; Conny types
her PIN on her own phone, confirms the game as herself (the audit trail names her) and opens her
statistics. Then the player's pages in German, English and Finnish at 375 and 1280 pixels:
screenshots to artifacts/screenshots/ and axe-core clean."""
from __future__ import annotations

import os

import pytest

from tests.pages.axe import assert_accessible
from tests.pages.test_browser import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    browser,  # noqa: F401 - the same Chromium, launched the same way
)
from tests.pages.wait import appear
from tests.sheet.test_sheet_browser import Finger

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop runs in this thread

pytestmark = pytest.mark.browser
TIMEOUT = 10_000


def shoot(page, name: str, width: int) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True, scale="css")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{name} scrolls sideways"


def _phone(browser, locale: str = "en-GB", device=None):
    context = browser.new_context(locale=locale, **(device or PHONE))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, errors


def _type_pin(page, base: str, pin: str) -> None:
    page.goto(f"{base}/me/pin/")
    page.fill("#pin", f"{pin[:4]} {pin[4:]}")
    page.click('form.people-form button[type="submit"]')
    page.wait_for_url(f"{base}/me/")


def test_a_players_evening(live_server, transactional_db, browser):
    from tournaments.models import AuditEntry, Hand
    from tournaments.people import codes
    from tournaments.people import services as people

    from .conftest import build_club

    codes.forget("127.0.0.1")  # the browser's address: other tests' wrong codes are not its own
    club = build_club(confirm_hands=True)
    base, table = live_server.url, club.tables["maumau"]
    beate, conny = club.players[1], club.players[2]
    beates_code = people.code_issue(player=beate, by_user=club.organiser)
    connys_code = people.code_issue(player=conny, by_user=club.organiser)

    # Beate scans the QR code of her slip: its link names her; "This is me" binds the phone.
    context, page, errors = _phone(browser)
    page.goto(f"{base}/p/{beates_code.link_key}/")
    assert "Beate Berg" in page.inner_text("main")
    assert_accessible(page)
    shoot(page, "people-bind-en-375", 375)
    page.click("#this-is-me")
    page.wait_for_url(f"{base}/me/")
    mine = page.locator(f'.my-table[data-table="{table.pk}"]')
    assert "Seat 2" in mine.inner_text() and mine.locator("li.me").inner_text() == "Beate Berg"
    # Her sheet, opened at her seat: she enters game 1 (no "who enters?": it is hers).
    mine.locator("a.button-link").click()
    appear(page, "html[data-ready]", timeout=TIMEOUT)
    assert page.locator("#entered-by").count() == 0
    finger = Finger(page)
    finger.numbers("#minus-0", [0, 5, 12, 3])
    appear(page, "#check .scores", timeout=TIMEOUT)
    finger.tap("#enter-hand")
    appear(page, '#running tr[data-hand="1"] .tag-unconfirmed', timeout=TIMEOUT)
    hand = Hand.objects.get(session__table=table, number=1)
    assert hand.entered_by_seat == 1 and hand.unconfirmed
    # Her own entry offers her no confirmation.
    assert page.locator('#running button[data-action="confirm"]').is_hidden()
    assert not errors
    context.close()

    # Conny types her PIN on her phone, opens her sheet and confirms the game as herself.
    context, page, errors = _phone(browser)
    _type_pin(page, base, connys_code.pin)
    page.locator(f'.my-table[data-table="{table.pk}"] a.button-link').click()
    appear(page, "html[data-ready]", timeout=TIMEOUT)
    confirm = '#running tr[data-hand="1"] ~ tr button[data-action="confirm"], #running button[data-action="confirm"]'
    appear(page, confirm, timeout=TIMEOUT)
    page.wait_for_timeout(300)  # the running sheet is replaced once after the page is ready
    page.locator(confirm).first.click()
    appear(page, '#running tr[data-hand="1"]:not(.not-counted)', timeout=TIMEOUT)
    hand.refresh_from_db()
    assert not hand.unconfirmed and hand.confirmed_by_seat == 2
    row = AuditEntry.objects.get(action="hand_confirmed", object_id=hand.pk)
    assert row.via == "player" and row.data["player"] == conny.pk
    # Her statistics: one Maumau game, 12 minus points.
    page.goto(f"{base}/me/stats/")
    maumau = page.locator('.game-stats[data-game="maumau"]')
    assert "12.00" in maumau.inner_text()
    assert not errors
    context.close()

    # The player's pages in three languages, on a phone and a laptop.
    for locale, lang in (("de-DE", "de"), ("en-GB", "en"), ("fi-FI", "fi")):
        for device, width in ((PHONE, 375), (DESKTOP, 1280)):
            context, page, errors = _phone(browser, locale, device)
            page.goto(f"{base}/me/")
            assert page.evaluate("document.documentElement.lang") == lang
            assert_accessible(page)
            shoot(page, f"people-pin-{lang}-{width}", width)
            _type_pin(page, base, connys_code.pin)
            for name, path in (("home", "/me/"), ("stats", "/me/stats/"), ("phones", "/me/phones/"),
                               ("privacy", "/me/privacy/"), ("delete", "/me/delete/"),
                               ("head-to-head", f"/me/head-to-head/?player={beate.pk}")):
                page.goto(f"{base}{path}")
                assert_accessible(page, where=f"{path} {lang} {width}")
                shoot(page, f"people-{name}-{lang}-{width}", width)
            page.goto(f"{base}/me/tables/{table.pk}/")
            appear(page, "html[data-ready]", timeout=TIMEOUT)
            assert_accessible(page, where=f"sheet {lang} {width}")
            shoot(page, f"people-sheet-{lang}-{width}", width)
            assert not errors
            context.close()
