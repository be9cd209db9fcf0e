"""An organiser corrects a hand in the console through the score sheet's own form, in Chromium: the
form comes filled with the stored hand; a refused correction keeps what he entered and says why at
the field; fixed, it is saved and the standings change. In English, German and Finnish (the
correction step of the evening walks, tests/console/test_evening_languages.py)."""
from __future__ import annotations

import os

import pytest

from tests.pages.test_browser import PHONE, SCREENSHOTS

from .conftest import log_in

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop runs in this thread

pytestmark = pytest.mark.browser

# The seed's Mü summary example (records.md), five players: Dagmar (seat 4) is the Chef.
SUMMARY = {"bids": [3, 1, 3, 4, 1], "chef": 3, "vice": 2, "vice_trump": "G", "chef_trump": "1", "partner": 0,
           "card_points": [10, 12, 9, 19, 10]}
WORDS = {
    "en-GB": {"seat": "Seat 1: Anna Muster", "reason": "The card points must add up to 60, not 59.",
              "saved": "Hand 2 corrected.", "kept": "What you entered is kept."},
    "de-DE": {"seat": "Sitz 1: Anna Muster", "reason": "Die Kartenpunkte ergeben zusammen 60, nicht 59.",
              "saved": "Spiel 2 berichtigt.", "kept": "Ihre Eingaben bleiben erhalten."},
    "fi-FI": {"seat": "Paikka 1: Anna Muster", "reason": "Korttipisteiden summa on 60, ei 59.",
              "saved": "Jako 2 korjattu.", "kept": "Syöttämäsi tiedot säilyvät."},
}


@pytest.fixture
def evening(live_server, transactional_db):
    """The sheet tests' club evening, its Mü table's four deals entered as the sheet enters them."""
    from tests.sheet.world import build_evening
    from tournaments import results

    evening = build_evening()
    table = evening.tables["mu"]
    dealer = 0
    for _ in range(4):
        record = {"game": "mu", "players": 5, "dealer": dealer, "summary": SUMMARY}
        receipt = results.hand_submit(table_id=table.pk, entry=results.Entry(record), by_user=evening.organiser).receipt
        dealer = (receipt["session"].get("next") or {}).get("dealer", dealer)
    return live_server.url, evening


def _totals(page, base: str, event) -> dict:
    document = page.request.get(f"{base}/api/v1/events/{event.pk}/standings/").json()
    return {row["player"]: row["total"] for row in document["standings"]}


@pytest.mark.parametrize("locale", ["en-GB", "de-DE", "fi-FI"])
def test_a_refused_correction_keeps_the_entries_and_says_why_at_the_field_then_the_fix_is_saved(
        evening, browser, locale):
    from tournaments.models import Hand

    base, world = evening
    words = WORDS[locale]
    event, table = world.events["mu"], world.tables["mu"]
    hand = Hand.objects.get(session__table=table, number=2)
    context = browser.new_context(locale=locale, **PHONE)
    context.set_default_timeout(15000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, base, "organiser", "pw-organiser")
    before = _totals(page, base, event)

    # From the table's page to the hand's correction: the sheet's form, filled with the stored hand.
    page.goto(f"{base}/console/tables/{table.pk}/")
    page.click(f"#hand-{hand.pk} + tr summary")
    with page.expect_navigation():
        page.click(f"#hand-{hand.pk} + tr a.correct-hand")
    assert words["seat"] in page.inner_text(".meta")
    assert page.locator('input[name="bid-3"][value="4"]').is_checked()
    assert page.locator('input[name="partner"][value="0"]').is_checked()
    assert [page.input_value(f"#points-{seat}") for seat in range(5)] == ["10", "12", "9", "19", "10"]
    assert page.locator("textarea").count() == 0  # no JSON to edit

    # A refused correction: 59 card points. The reason at the card points, the entries kept.
    page.fill("#points-4", "9")
    page.fill("#correct-reason", "points written in the wrong column")
    with page.expect_navigation():
        page.click("#save-correction")
    note = page.locator('#card-points .field-error[data-for="/summary/card_points"]')
    note.wait_for()
    assert note.inner_text() == words["reason"]
    assert words["kept"] in page.inner_text("#correct-refused")
    assert page.input_value("#points-4") == "9" and page.input_value("#points-3") == "19"
    assert page.input_value("#correct-reason") == "points written in the wrong column"
    assert page.locator('input[name="bid-3"][value="4"]').is_checked()
    hand.refresh_from_db()
    assert hand.version == 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"console-correct-refused-{locale}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375

    # Fixed: Dagmar's 19 were 15, Anna's 10 were 14 (60 again). Saved; the standings change.
    page.fill("#points-0", "14")
    page.fill("#points-3", "15")
    page.fill("#points-4", "10")
    with page.expect_navigation():
        page.click("#save-correction")
    assert words["saved"] in page.inner_text(".messages")
    hand.refresh_from_db()
    assert hand.version == 2 and hand.record["summary"]["card_points"] == [14, 12, 9, 15, 10]
    assert hand.record["dealer"] == 1 or hand.record["dealer"] == hand.dealer
    after = _totals(page, base, event)
    assert after != before
    assert not errors
    context.close()
