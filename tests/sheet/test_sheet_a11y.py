"""The score sheet without a touch screen and for big fingers: a whole Mü hand entered with the
keyboard alone (Tab, arrow keys, Space, digits, Enter), and every control of the sheet at least
44 × 44 px on a 375-pixel phone (each game, with its pickers and panels open)."""
from __future__ import annotations

import os

import pytest

from tests.pages.axe import assert_accessible
from tests.pages.test_browser import PHONE, SCREENSHOTS
from tests.pages.wait import appear

from .world import play_hands

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop runs in this thread

pytestmark = pytest.mark.browser

TIMEOUT = 10_000
TARGET = 44  # px, WCAG 2.5.5's target size

FOCUSED = """() => { const e = document.activeElement;
  return e ? {tag: e.tagName, type: e.type || "", name: e.name || "", id: e.id, value: e.value || "",
              checked: !!e.checked} : null; }"""


@pytest.fixture
def live(live_server, transactional_db):
    from .world import build_evening

    return live_server.url, build_evening()


def open_sheet(browser, url: str, *, locale: str = "en-GB", **device):
    context = browser.new_context(locale=locale, **(device or PHONE))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    assert page.goto(url).status == 200
    appear(page, "html[data-ready]", state="attached", timeout=TIMEOUT)
    return context, page, errors


class Keyboard:
    """Moves through the sheet with Tab and sets controls with the keys a keyboard user has."""

    def __init__(self, page):
        self.page, self.presses = page, 0

    def press(self, key: str) -> dict:
        self.page.keyboard.press(key)
        self.presses += 1
        return self.page.evaluate(FOCUSED)

    def tab_to(self, test, what: str) -> dict:
        """Tab forward until the focused element passes ``test`` (at most 60 stops)."""
        focused = self.page.evaluate(FOCUSED)
        for _ in range(60):
            if focused and test(focused):
                return focused
            focused = self.press("Tab")
        raise AssertionError(f"Tab never reached {what}")

    def choose(self, name: str, value) -> None:
        """A radio group: Tab into it, then arrow keys (which check) or Space to the value."""
        focused = self.tab_to(lambda f: f["type"] == "radio" and f["name"] == name, name)
        values = self.page.eval_on_selector_all(
            f'input[type="radio"][name="{name}"]',
            "inputs => inputs.filter(i => i.offsetParent !== null || i.closest('label').offsetParent !== null)"
            ".map(i => i.value)")
        target = values.index(str(value))
        for _ in range(len(values) + 1):
            here = values.index(focused["value"])
            if here == target:
                if not focused["checked"]:
                    focused = self.press("Space")
                break
            focused = self.press("ArrowRight" if target > here else "ArrowLeft")
        assert self.page.locator(f'input[name="{name}"][value="{value}"]').is_checked(), (name, value)

    def numbers(self, first_id: str, values) -> None:
        """Tab to the first number field, then type each number and Enter to the next."""
        self.tab_to(lambda f: f["id"] == first_id, first_id)
        for index, value in enumerate(values):
            for digit in str(value):
                self.press(digit)
            if index < len(values) - 1:
                self.press("Enter")


def test_a_mu_hand_entered_with_the_keyboard_alone(live, browser):
    from tournaments.models import Hand

    base, evening = live
    table = evening.tables["mu"]
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/",
                                       viewport={"width": 1280, "height": 900})
    keys = Keyboard(page)
    # The seed's summary example (records.md): bids, the Vize and both trumps, the partner, the
    # card points; every control reached by Tab in the page's order.
    for seat, bid in enumerate([3, 1, 3, 4, 1]):
        keys.choose(f"bid-{seat}", bid)
    keys.choose("vice", 2)
    keys.choose("vice_trump", "G")
    keys.choose("chef_trump", "1")
    keys.choose("partner", 0)
    keys.numbers("points-0", [10, 12, 9, 19, 10])
    appear(page, "#check .scores", timeout=TIMEOUT)
    assert "+22" in page.inner_text("#check .scores")
    keys.tab_to(lambda f: f["id"] == "enter-hand", "the Enter button")
    keys.press("Enter")
    appear(page, '#queue li[data-hand="1"][data-state="sent"]', timeout=TIMEOUT)
    appear(page, '#running tr[data-hand="1"]', timeout=TIMEOUT)
    [hand] = Hand.objects.filter(session__table=table)
    summary = hand.record["summary"]
    assert summary["bids"] == [3, 1, 3, 4, 1] and summary["card_points"] == [10, 12, 9, 19, 10]
    assert (summary["vice"], summary["vice_trump"], summary["chef_trump"], summary["partner"]) == (2, "G", "1", 0)
    # The next deal starts again at the top of the form, still from the keyboard.
    keys.choose("bid-0", 2)
    assert keys.presses < 120
    assert_accessible(page)
    assert not errors
    context.close()


TARGETS_JS = """() => {
  const seen = new Set(), small = [];
  for (const element of document.querySelectorAll('button, input, select, textarea, summary')) {
    if (element.type === 'hidden') continue;
    // A radio is tapped through its label (the input itself is drawn as the label's box).
    const target = (element.type === 'radio' || element.type === 'checkbox') ? element.closest('label') : element;
    if (!target || seen.has(target)) continue;
    seen.add(target);
    const box = target.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // not shown
    if (box.width < %(px)d - 0.5 || box.height < %(px)d - 0.5)
      small.push({html: target.outerHTML.slice(0, 120), width: Math.round(box.width), height: Math.round(box.height)});
  }
  return {count: seen.size, small};
}""" % {"px": TARGET}


def measure(page, where: str) -> int:
    result = page.evaluate(TARGETS_JS)
    assert not result["small"], f"{where}: tap targets under {TARGET} px: {result['small']}"
    return result["count"]


def test_every_tap_target_of_the_sheet_is_at_least_44_px_on_a_phone(live, browser):
    base, evening = live
    for game in ("mu", "maumau", "lut"):
        table = evening.tables[game]
        play_hands(table, 1, seed=3, by_user=None)  # a running sheet with a hand in it
        context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="de-DE")
        assert page.evaluate("window.innerWidth") == 375
        count = measure(page, game)
        if game == "maumau":
            page.locator('input[name="mode"][value="cards"]').check(force=True)
            for picker in page.locator("details.card-picker summary").all():
                picker.click()
            count += measure(page, "maumau cards")
        page.locator("#upload summary").click()
        count += measure(page, f"{game} upload")
        page.screenshot(path=str(SCREENSHOTS / f"sheet-targets-{game}-375.png"), full_page=True, scale="css")
        assert count >= 20, game
        assert not errors
        context.close()


def test_a_hand_to_confirm_offers_big_targets(live_server, transactional_db, browser):
    from .world import build_evening

    evening = build_evening(confirm_hands=True)
    table = evening.tables["lut"]
    play_hands(table, 1, seed=4, by_user=None)
    context, page, errors = open_sheet(browser, f"{live_server.url}/t/{table.scorer_token}/")
    assert page.locator('#running button[data-action="confirm"]').count() == 1
    measure(page, "unconfirmed hand")
    page.click('#running button[data-action="confirm"]')
    appear(page, "#confirm-dialog:not([hidden])")
    measure(page, "confirm dialog")
    assert not errors
    context.close()


CLIPPED_JS = """() => {
  const cut = Array.from(document.querySelectorAll('#stacks th'))
    .filter(th => th.scrollWidth > th.clientWidth + 1 || th.scrollHeight > th.clientHeight + 1)
    .map(th => th.innerText);
  const legends = Array.from(document.querySelectorAll('#hand-form fieldset:not([hidden]) > legend')).map(legend => {
    const box = legend.getBoundingClientRect(), field = legend.parentElement.getBoundingClientRect();
    return {text: legend.innerText, inside: box.top > field.top && box.left >= field.left && box.right <= field.right,
            lines: Math.round(box.height / parseFloat(getComputedStyle(legend).lineHeight))};
  });
  return {cut, legends};
}"""


def test_lut_names_and_legends_fit_a_phone(live_server, transactional_db, browser):
    from tournaments.models import Player

    from .world import build_evening

    evening = build_evening()
    table = evening.tables["lut"]
    # A long name and a long word: they wrap, nothing is cut off.
    Player.objects.filter(pk=evening.players[1].pk).update(name="Bartholomäus Schmidt-Oberhausen")
    for locale in ("de-DE", "fi-FI", "en-GB"):
        context, page, errors = open_sheet(browser, f"{live_server.url}/t/{table.scorer_token}/", locale=locale)
        found = page.evaluate(CLIPPED_JS)
        assert not found["cut"], (locale, found["cut"])
        names = page.locator("#stacks tbody th.name").all_inner_texts()
        assert any("Bartholomäus" in name and "Oberhausen" in name for name in names), names
        assert found["legends"] and all(legend["inside"] for legend in found["legends"]), (locale, found["legends"])
        assert any(legend["lines"] >= 2 for legend in found["legends"]) or locale == "en-GB"
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        page.screenshot(path=str(SCREENSHOTS / f"sheet-lut-{locale[:2]}-375.png"), full_page=True, scale="css")
        assert not errors
        context.close()
