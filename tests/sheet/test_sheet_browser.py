"""The score sheet in a real browser: a 375-pixel phone enters whole sessions by tapping and typing
numbers only, in German and English; the sheet's totals equal the API's standings.

Every tap and keystroke goes through ``Finger``, which counts them (the figure for entering the
seed's Mü summary example). Screenshots go to artifacts/screenshots/ (git-ignored), figures to
artifacts/sheet-figures.json.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import time
from pathlib import Path

import pytest

from tests.pages.test_browser import CHROMIUM_ARGS, PHONE, SCREENSHOTS  # noqa: F401
from tests.pages.wait import appear

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop runs in this thread

pytestmark = pytest.mark.browser

FIGURES = SCREENSHOTS.parent / "sheet-figures.json"
TIMEOUT = 10_000


class Finger:
    """Taps and keystrokes on the phone, counted."""

    def __init__(self, page):
        self.page, self.taps, self.keys = page, 0, 0

    def tap(self, selector: str) -> None:
        locator = self.page.locator(selector)
        locator.scroll_into_view_if_needed()
        locator.tap()
        self.taps += 1

    def pick(self, name: str, value) -> None:
        self.tap(f'label.pick:has(input[name="{name}"][value="{value}"])')

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)
        self.keys += len(text)

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.keys += 1

    def numbers(self, first: str, values) -> None:
        """Tap the first field, then type each number and Enter to move to the next field."""
        self.tap(first)
        for index, value in enumerate(values):
            self.type(str(value))
            if index < len(values) - 1:
                self.press("Enter")

    def count(self) -> int:
        return self.taps + self.keys


def open_sheet(browser, url: str, *, locale: str):
    context = browser.new_context(locale=locale, **PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    appear(page, "html[data-ready]", timeout=TIMEOUT)
    return context, page, errors


def wait_scores(page, root: str = "#check") -> str:
    appear(page, f"{root} .scores", timeout=TIMEOUT)
    return page.inner_text(f"{root} .scores")


def wait_error(page, path: str, *, at: str | None = None) -> str:
    """The engine's message for its JSON Pointer ``path``, shown next to the field ``at`` (the
    pointer's own field unless a row of the form stands for it)."""
    selector = f'.field-error[data-for="{path}"]'
    appear(page, selector, timeout=TIMEOUT)
    beside = page.eval_on_selector(selector, """note => {
        const row = note.closest('tr.field-error-row');
        return row ? row.previousElementSibling.dataset.path : note.parentElement.closest('[data-path]').dataset.path;
    }""")
    assert beside == (at or path), f"the message for {path} is shown at {beside}"
    return page.locator(selector).inner_text()


def enter(finger: Finger, number: int) -> None:
    wait_scores(finger.page)
    finger.tap("#enter-hand")
    appear(finger.page, f'#running tr[data-hand="{number}"]', timeout=TIMEOUT)
    appear(finger.page, f'#queue li[data-hand="{number}"][data-state="sent"]', timeout=TIMEOUT)


def sheet_totals(page) -> list[int]:
    return [int(v) for v in page.eval_on_selector_all("#running tfoot td[data-total]", "tds => tds.map(td => td.dataset.total)")]


def standings_totals(page, base: str, event, table) -> list[int]:
    document = page.request.get(f"{base}/api/v1/events/{event.pk}/standings/").json()
    by_player = {row["player"]: row["total"] for row in document["standings"]}
    return [by_player[seat.player_id] for seat in table.seats.order_by("position")]


def shoot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True, scale="css")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375, f"{name} scrolls sideways"


def record_figure(**figures) -> None:
    FIGURES.parent.mkdir(parents=True, exist_ok=True)
    known = json.loads(FIGURES.read_text()) if FIGURES.exists() else {}
    known.update(figures)
    FIGURES.write_text(json.dumps(known, indent=2, sort_keys=True))


def api_post(page, url: str, token: str, body: dict):
    return page.request.post(url, data=json.dumps(body), headers={
        "Authorization": f"Token {token}", "Content-Type": "application/json"})


def mu_deal(finger: Finger, bids, *, vice=None, vice_trump=None, chef_trump=None, partner=None, points=None,
            provocateur=None) -> None:
    for seat, bid in enumerate(bids):
        finger.pick(f"bid-{seat}", bid)
    if provocateur is not None:
        finger.pick("provocateur", provocateur)
        return
    if vice is not None:
        finger.pick("vice", vice)
    if vice_trump is not None:
        finger.pick("vice_trump", vice_trump)
    finger.pick("chef_trump", chef_trump)
    if partner is not None:
        finger.pick("partner", partner)
    if points is not None:
        finger.numbers("#points-0", points[:-1])
        finger.press("Enter")
        finger.tap("#card-points .remainder:not([hidden])")


@pytest.fixture
def live(live_server, transactional_db):
    from .world import build_evening

    return live_server.url, build_evening()


def test_a_mu_session_entered_by_tapping_in_german(live, browser):
    from tournaments.models import Hand

    base, evening = live
    table, event = evening.tables["mu"], evening.events["mu"]
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="de-DE")
    assert page.locator("html").get_attribute("lang") == "de"
    assert page.inner_text("#running-title") == "Laufender Zettel"
    assert "Anna Muster" in page.inner_text("#dealer-line")  # the drawn first dealer, by name
    finger = Finger(page)

    # Deal 1: the seed's summary example (records.md), counted tap by tap.
    mu_deal(finger, [3, 1, 3, 4, 1], vice=2, vice_trump="G", chef_trump="1", partner=0, points=[10, 12, 9, 19, 10])
    assert page.inner_text("#chef-out") == "Dagmar Muster"
    assert "Emma Muster" in wait_scores(page) and "+22" in wait_scores(page)
    enter(finger, 1)
    record_figure(mu_seed_example_taps=finger.taps, mu_seed_example_keystrokes=finger.keys,
                  mu_seed_example_actions=finger.count(), mu_paper_entries=5 + 1 + 1 + 2 + 1 + 5)
    shoot(page, "sheet-mu-de-after-deal-1")

    # Deal 2: an Eklat (Anna and Beate tie on 2; Beate provoked it).
    mu_deal(finger, [2, 2, 1, 0, 1], provocateur=1)
    assert page.inner_text("#chef-out") == "Eklat"
    assert page.locator("#mu-played").is_hidden()
    enter(finger, 2)

    # Deal 3: played normally; the organisers will void it (a misdeal found afterwards).
    mu_deal(finger, [1, 0, 2, 0, 0], chef_trump="none", vice_trump="R", partner=3, points=[12, 12, 12, 12, 12])
    assert page.locator('input[name="vice"][value="0"]').is_checked()  # the only second bidder: derived
    enter(finger, 3)

    # Deal 4: one mistake (59 card points), the engine's message next to the card points, fixed.
    for seat, bid in enumerate([0, 3, 0, 1, 2]):
        finger.pick(f"bid-{seat}", bid)
    finger.pick("vice_trump", "5")
    finger.pick("chef_trump", "B")
    finger.pick("partner", 0)
    finger.numbers("#points-0", [15, 10, 10, 10, 14])
    message = wait_error(page, "/summary/card_points")
    assert "60" in message and "59" in message
    shoot(page, "sheet-mu-de-mistake")
    finger.tap("#points-4")
    finger.press("Backspace")
    finger.press("Backspace")
    finger.type("15")
    enter(finger, 4)
    assert page.locator("#session-end").is_visible()

    response = api_post(page, f"{base}/api/v1/hands/{Hand.objects.get(session__table=table, number=3).pk}/void/",
                        evening.organiser.auth_token.key, {"reason": "Fehler beim Geben"})
    assert response.ok, response.text()
    page.reload()
    appear(page, "html[data-ready]")
    assert "void" in page.get_attribute('#running tr[data-hand="3"]', "class")
    assert page.locator('#running tr[data-hand="3"] .tag-void').inner_text() == "ungültig"
    assert page.locator('#running tr[data-hand="2"] .tag-eklat').count() == 1
    totals = sheet_totals(page)
    assert totals == standings_totals(page, base, event, table)
    assert totals == [10 + 10 + 15, 22 - 20 - 10, 19 + 0 + 20, -1 + 0 + 20, 20 + 0 + 25]
    assert Hand.objects.filter(session__table=table).count() == 4
    shoot(page, "sheet-mu-de-session")
    assert not errors
    context.close()


def test_a_maumau_series_ends_in_money(live, browser):
    base, evening = live
    table, event = evening.tables["maumau"], evening.events["maumau"]
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="en-GB")
    finger = Finger(page)

    finger.numbers("#minus-0", [0, 5, 12, 3])
    enter(finger, 1)
    # Game 2: the cards left, tapped from the picker; after a summary the table says who deals.
    assert page.locator("#dealer-pick").is_visible()
    assert page.locator('input[name="dealer"][value="1"]').is_checked()  # suggested: the next seat
    finger.pick("mode", "cards")
    for seat, cards in enumerate([["7H", "KD"], [], ["JC"], ["AS", "TS"]]):
        if not cards:
            continue
        finger.tap(f'details.card-picker[data-seat="{seat}"] summary')
        for card in cards:
            finger.tap(f'button.card[data-seat="{seat}"][data-card="{card}"]')
    assert page.inner_text('[data-chosen="3"]') == "A♠ 10♠"
    shoot(page, "sheet-maumau-cards")
    enter(finger, 2)
    # Game 3: a jack ended it with hearts wished.
    finger.pick("mode", "minus")
    finger.numbers("#minus-0", [4, 0, 6, 2])
    finger.pick("wish", "H")
    enter(finger, 3)
    assert page.locator('#running tr[data-hand="3"] .tag-jack').count() == 1
    # Game 4: a mistake (nobody went out: no 0), shown next to the minus points.
    finger.numbers("#minus-0", [3, 7, 1, 9])
    assert "0 minus points" in wait_error(page, "/summary/minus")
    finger.tap("#minus-0")
    finger.press("Backspace")
    finger.type("0")
    enter(finger, 4)

    assert "Series over" in page.inner_text("#session-end")
    money = page.request.get(f"{base}/api/v1/events/{event.pk}/money/").json()
    [series] = money["series"]
    shown = sorted(int(li) for li in page.eval_on_selector_all("#transfers li", "lis => lis.map(li => li.dataset.cents)"))
    assert shown == sorted(t["cents"] for t in series["transfers"]) and shown
    assert sheet_totals(page) == standings_totals(page, base, event, table) == [-6, -12, -21, -16]
    shoot(page, "sheet-maumau-money")
    assert not errors
    context.close()


def test_a_lut_game_in_english(live, browser):
    base, evening = live
    table, event = evening.tables["lut"], evening.events["lut"]
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="en-US")
    finger = Finger(page)
    rounds = [
        [{"B": 4, "G": 2}, {"R": 6, "Y": 4}, {"B": 2, "G": 4, "Y": 2}, {"R": 4, "Y": 2, "G": 2}],
        [{"R": 2, "Y": 2, "discarded": 4}, {"B": 6}, {"G": 6, "R": 2}, {"Y": 4, "B": 2, "G": 2}],
        [{"G": 8}, {"R": 4, "B": 2}, {"Y": 6}, {"B": 4, "R": 2, "Y": 2}],
        [{"Y": 2}, {"G": 4, "B": 4, "R": 2}, {"R": 4, "Y": 4}, {"B": 2, "G": 2, "discarded": 2}],
    ]
    for number, stacks in enumerate(rounds, start=1):
        for seat, stack in enumerate(stacks):
            for colour, count in stack.items():
                finger.tap(f'input[name="stack-{seat}-{colour}"]')
                finger.type(str(count))
        if number == 3:
            # The mistake: a discard pile of one card for Conny (it holds 0, or 2 and more).
            finger.tap('input[name="stack-2-discarded"]')
            finger.type("1")
            assert "discard" in wait_error(page, "/summary/stacks/2/discarded", at="/summary/stacks/2")
            finger.press("Backspace")
        enter(finger, number)
    assert page.locator("#session-end").is_visible()
    assert sheet_totals(page) == standings_totals(page, base, event, table) == [9, 40, 32, 14]
    shoot(page, "sheet-lut-en")
    assert not errors
    context.close()


def test_offline_hands_arrive_once_in_order(live, browser):
    from tournaments.models import Hand, IdempotentSubmission

    from .cable import Cable

    server, evening = live
    table = evening.tables["lut"]
    cable = Cable(server)  # pulled with the browser's offline switch: nothing reaches the server then
    base = cable.url
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="en-GB")
    finger = Finger(page)
    # On the phone, not sent: waiting for the connection, or retrying after a send that failed.
    kept = ':is([data-state="waiting"], [data-state="retrying"])'

    def round_(stacks):
        for seat, stack in enumerate(stacks):
            for colour, count in stack.items():
                finger.tap(f'input[name="stack-{seat}-{colour}"]')
                finger.type(str(count))

    round_([{"B": 4, "G": 2}, {"R": 6, "Y": 4}, {"B": 2, "G": 4, "Y": 2}, {"R": 4, "Y": 2, "G": 2}])
    enter(finger, 1)
    # The sheet keeps itself for a reload without a connection (the service worker serves it).
    page.wait_for_function("() => caches.open('stich-sheet-v1').then(c => c.match(location.href, {ignoreVary: true}))"
                           ".then(Boolean)", timeout=TIMEOUT)
    context.set_offline(True)
    cable.pull()
    round_([{"R": 2, "Y": 2, "discarded": 4}, {"B": 6}, {"G": 6, "R": 2}, {"Y": 4, "B": 2, "G": 2}])
    finger.tap("#enter-hand")  # offline: no check from the server, the hand waits on the phone
    appear(page, f'#queue li[data-hand="2"]{kept}', timeout=TIMEOUT)
    assert "Round 3" in page.inner_text("#entry-hand")  # LuT: a round, as its rules say
    round_([{"G": 8}, {"R": 4, "B": 2}, {"Y": 6}, {"B": 4, "R": 2, "Y": 2}])
    finger.tap("#enter-hand")
    appear(page, f'#queue li[data-hand="3"]{kept}', timeout=TIMEOUT)
    shoot(page, "sheet-offline-waiting")
    assert Hand.objects.filter(session__table=table).count() == 1

    page.reload()  # still offline: the service worker serves the sheet, localStorage the hands
    appear(page, "html[data-ready]", timeout=TIMEOUT)
    assert page.locator(f'#queue li{kept}').count() == 2
    assert Hand.objects.filter(session__table=table).count() == 1
    # The heading and the running sheet's "Next" line agree on the round and its dealer: the 4th,
    # dealt by the seat after the 3rd's dealer (the first dealer is Anna, seat 0).
    assert page.inner_text("#entry-hand") == "Round 4"
    assert page.inner_text("#dealer-line") == "Dagmar Muster deals"
    assert page.inner_text("#next-dealer") == "Next: round 4, dealt by Dagmar Muster."

    cable.plug()
    context.set_offline(False)
    appear(page, '#queue li[data-hand="3"][data-state="sent"]', timeout=15_000)
    appear(page, '#running tr[data-hand="3"]', timeout=TIMEOUT)
    hands = list(Hand.objects.filter(session__table=table).order_by("number"))
    assert [hand.number for hand in hands] == [1, 2, 3]
    assert [hand.record["summary"]["stacks"][0] for hand in hands] == [
        {"B": 4, "G": 2, "discarded": 0}, {"R": 2, "Y": 2, "discarded": 4}, {"G": 8, "discarded": 0}]
    assert IdempotentSubmission.objects.filter(table=table).count() == 3
    # Sending again (another reload) stores nothing twice.
    page.reload()
    appear(page, "html[data-ready]")
    time.sleep(0.5)
    assert Hand.objects.filter(session__table=table).count() == 3
    shoot(page, "sheet-offline-arrived")
    assert not errors
    context.close()
    cable.close()


def test_second_player_confirmation_on_a_shared_phone(live_server, transactional_db, browser):
    from tournaments.models import AuditEntry, Hand

    from .world import build_evening

    evening = build_evening(confirm_hands=True)
    base, table, event = live_server.url, evening.tables["lut"], evening.events["lut"]
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="en-GB")
    finger = Finger(page)
    finger.pick("entered_by", 1)  # Beate enters
    for seat, stack in enumerate([{"B": 4, "G": 2}, {"R": 6, "Y": 4}, {"B": 2, "G": 4, "Y": 2}, {"R": 4, "Y": 2, "G": 2}]):
        for colour, count in stack.items():
            finger.tap(f'input[name="stack-{seat}-{colour}"]')
            finger.type(str(count))
    enter(finger, 1)
    assert page.locator('#running tr[data-hand="1"] .tag-unconfirmed').count() == 1
    assert sheet_totals(page) == [0, 0, 0, 0]
    assert page.request.get(f"{base}/api/v1/events/{event.pk}/standings/").json()["standings"] == [] or \
        standings_totals(page, base, event, table) == [0, 0, 0, 0]
    hand = Hand.objects.get(session__table=table, number=1)
    # The same seat cannot confirm its own entry.
    refused = page.request.post(f"{base}/api/v1/hands/{hand.pk}/confirm/", data=json.dumps({"seat": 1}),
                                headers={"X-Scorer-Token": table.scorer_token, "Content-Type": "application/json"})
    assert refused.status == 403 and refused.json()["code"] == "same_seat"
    # Handed over: Conny taps Confirm and her name (Beate's name is not offered).
    finger.tap('#running button[data-action="confirm"]')
    assert page.locator('#confirm-picks button[data-seat="1"]').is_hidden()
    finger.tap('#confirm-picks button[data-seat="2"]')
    appear(page, '#running tr[data-hand="1"]:not(.not-counted)', timeout=TIMEOUT)
    assert sheet_totals(page) == standings_totals(page, base, event, table) == [8, 24, 4, 4]
    assert AuditEntry.objects.filter(action="hand_confirmed", object_id=hand.pk, via="scorer").count() == 1
    shoot(page, "sheet-confirmed")
    assert not errors
    context.close()


def test_table_cards_print_one_page_per_round_with_the_tables_link(live_server, transactional_db, browser):
    import segno

    from tournaments.models import Round, Seat
    from tournaments.services import table_create

    from .world import build_evening

    evening = build_evening()
    base, event = live_server.url, evening.events["maumau"]
    round_ = Round.objects.create(event=event, number=2)
    for number, players in ((1, evening.players[0:3]), (2, evening.players[3:6])):
        table_create(round_=round_, number=number, players=players, first_dealer=number, by_user=None)
    context = browser.new_context(locale="de-DE", viewport={"width": 1000, "height": 1400})
    page = context.new_page()
    page.goto(f"{base}/api-auth/login/")
    page.fill("#id_username", "organiser")
    page.fill("#id_password", "pw-organiser")
    with page.expect_navigation():  # logged in before the next page is asked for
        page.click('[type="submit"]')
    page.goto(f"{base}/rounds/{round_.pk}/cards/")
    cards = page.locator("article.table-card")
    assert cards.count() == 2
    for index, table in enumerate(round_.tables.order_by("number")):
        expected = f"{base}/t/{table.scorer_token}/"
        card = cards.nth(index)
        assert card.locator(".link").inner_text() == expected
        names = [seat.player.name for seat in Seat.objects.filter(table=table).select_related("player").order_by("position")]
        assert card.locator("ol.seats li").all_inner_texts() == names  # real names for the organiser
        assert names[table.first_dealer] in card.locator(".first-dealer").inner_text()
        # The code is segno's drawing of exactly the table's link: the same matrix drawn from the
        # expected URL (segno encodes only, so the comparison is the decoding).
        drawn = card.locator("svg.qr path.qrline").get_attribute("d")
        reference = segno.make(expected, error="m", micro=False).svg_inline(scale=1, border=4)
        assert f'd="{drawn}"' in reference
        # The API gives the organisers the same link.
        assert page.request.get(f"{base}/api/v1/tables/{table.pk}/").json()["scorer_url"] == expected
    pdf = page.pdf(format="A4", print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages == 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "table-cards.pdf").write_bytes(pdf)
    context.close()


def test_figures_transfer_size_and_load_time_on_fast_3g(live, browser):
    base, evening = live
    table = evening.tables["mu"]
    context = browser.new_context(locale="en-GB", **PHONE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    # Chromium DevTools' "Fast 3G" preset.
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 150 * 3.75,
        "downloadThroughput": 1.6 * 1000 * 1000 / 8 * 0.9, "uploadThroughput": 750 * 1000 / 8 * 0.9,
    })
    started = time.monotonic()
    page.goto(f"{base}/t/{table.scorer_token}/", wait_until="load")
    appear(page, "html[data-ready]", timeout=30_000)
    ready = time.monotonic() - started
    timing = page.evaluate("""() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const resources = performance.getEntriesByType('resource');
        return {
          load_ms: nav.loadEventEnd - nav.startTime,
          dom_ms: nav.domContentLoadedEventEnd - nav.startTime,
          bytes: nav.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
          requests: 1 + resources.length,
        };
    }""")
    # What a compressing server (whitenoise's precompressed statics, a gzip proxy) would send.
    urls = [page.url, *page.evaluate("performance.getEntriesByType('resource').map(r => r.name)")]
    gzipped = sum(len(gzip.compress(page.request.get(url).body(), 6)) for url in urls)
    record_figure(sheet_transfer_bytes=timing["bytes"], sheet_gzip_bytes=gzipped, sheet_requests=timing["requests"],
                  sheet_fast3g_load_ms=round(timing["load_ms"]), sheet_fast3g_domcontentloaded_ms=round(timing["dom_ms"]),
                  sheet_fast3g_ready_s=round(ready, 2))
    # Regression bounds, not targets: the page stays small and usable on a slow phone network.
    assert timing["bytes"] < 100_000
    assert timing["load_ms"] < 6_000
    context.close()
