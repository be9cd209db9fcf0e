"""The public pages in a real browser: headless Chromium (Debian's) driven by Playwright.

On the demo (with results added where it has none): the event standings equal the API's, the
leaderboards' order equals the API's, the rating chart has one point per rating event, held-back
rounds are invisible, and a German browser gets German. Every page is photographed at phone
(375 px) and desktop width into artifacts/screenshots/ (git-ignored).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .csp import WatchedBrowser
from .demo import build_demo

# Playwright's sync API runs an event loop in this thread; Django's ORM would refuse to run in it.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

pytestmark = pytest.mark.browser

# Debian's headless shell of Chromium (the engine of /usr/bin/chromium without the browser's own
# windows and services, what Playwright itself runs for headless tests): the same Blink and V8, and
# about 40 % less of Chromium's CPU in a browser walk (the console evening: 28.7 → 17.0 CPU-seconds).
# The whole browser where it is missing.
CHROMIUM = next((path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if os.path.exists(path)),
                "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
GAMES = ("mu", "maumau", "lut")


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed")
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except Exception as error:  # noqa: BLE001 - any launch failure means: no browser here
        playwright.stop()
        pytest.skip(f"Playwright cannot launch {CHROMIUM}: {error}")
    yield WatchedBrowser(browser)  # reports Content-Security-Policy violations (tests/conftest.py)
    browser.close()
    playwright.stop()


@pytest.fixture
def site(live_server, transactional_db):
    """The demo with results and a held-back round per event, served by the live server: built
    for the test, which may change it (the server sees its writes), and emptied after it."""
    events = build_demo()
    return live_server.url, events


@pytest.fixture(scope="module")
def _demo_server(_demo_events, django_db_blocker):
    """A server of the module's demo (tests/pages/conftest.py: built once, committed, emptied at
    the module's end), in a thread of this process as pytest-django's ``live_server`` is, without
    the latter's emptying of the database after each test."""
    from pytest_django.live_server_helper import LiveServer

    with django_db_blocker.unblock():
        server = LiveServer("localhost")
    yield server.url
    server.stop()


@pytest.fixture
def demo_site(_demo_server, demo):
    """As ``site``, for the tests that only read: the demo is built once for the module."""
    return _demo_server, demo


@pytest.fixture
def open_page(browser):
    """``open_page(url, phone=False, locale="en-GB")``: a page in a fresh browser context."""
    contexts = []

    def opener(url: str, *, phone: bool = False, locale: str = "en-GB"):
        context = browser.new_context(locale=locale, **(PHONE if phone else DESKTOP))
        contexts.append(context)
        page = context.new_page()
        response = page.goto(url)
        assert response is not None and response.status == 200, url
        return page

    yield opener
    for context in contexts:
        context.close()


def api(page, url: str):
    response = page.request.get(url)
    assert response.ok, url
    return response.json()


def leaderboard_api(page, base: str, game: str) -> list[dict]:
    url, rows = f"{base}/api/v1/ratings/leaderboard/?game={game}", []
    while url:
        body = api(page, url)
        rows += body["results"]
        url = body["next"]
    return rows


def as_number(text: str) -> float:
    return float(text.replace("\u2212", "-").replace(",", "."))


def screenshots(open_page, url: str, name: str, *, locale: str = "en-GB") -> None:
    """Photograph ``url`` at phone and desktop width; the phone page must not scroll sideways."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for kind, phone in (("phone", True), ("desktop", False)):
        page = open_page(url, phone=phone, locale=locale)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{kind}.png"), full_page=True, scale="css")
        if phone:
            # Wide tables scroll inside their own box; the page itself fits the phone.
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, f"{name}: the page is {width} px wide on a 375 px phone"


STANDINGS_JS = """rows => rows.map(row => ({
    player: Number(row.dataset.player),
    cells: Array.from(row.cells, cell => cell.innerText.trim()),
    cents: row.querySelector('[data-cents]') ? Number(row.querySelector('[data-cents]').dataset.cents) : null,
}))"""


def test_event_standings_equal_the_api(demo_site, open_page):
    base, events = demo_site
    for game, event in events.items():
        url = f"{base}/events/{event.pk}/"
        page = open_page(url)
        document = api(page, f"{base}/api/v1/events/{event.pk}/standings/")
        assert document["standings"], game
        rows = page.eval_on_selector_all("#standings tbody tr", STANDINGS_JS)
        assert [row["player"] for row in rows] == [entry["player"] for entry in document["standings"]]
        for row, entry in zip(rows, document["standings"]):
            rank, name, played, *values = row["cells"]
            assert (int(rank), name, int(played)) == (entry["rank"], entry["name"], entry["played"])
            assert [as_number(v) for v in values[:len(document["metrics"])]] == [round(entry[m], 2) for m in document["metrics"]]
            if game == "maumau":
                assert row["cents"] == entry["cents"]
        assert page.locator("section.round").count() >= 1
        screenshots(open_page, url, f"event-{game}")


def test_leaderboard_order_equals_the_api(demo_site, open_page):
    base, _ = demo_site
    for game in GAMES:
        url = f"{base}/leaderboard/{game}/"
        page = open_page(url)
        expected = leaderboard_api(page, base, game)
        rows = page.eval_on_selector_all("#leaderboard tbody tr", STANDINGS_JS)
        assert [row["player"] for row in rows] == [entry["player"] for entry in expected]
        shown = [(int(rank), name, int(rating), int(sessions)) for rank, name, rating, sessions, _ in
                 (row["cells"] for row in rows)]
        assert shown == [(entry["rank"], entry["name"], entry["rating"], entry["sessions"]) for entry in expected]
        if game != "maumau":
            assert expected, game  # rated on the demo
        screenshots(open_page, url, f"leaderboard-{game}")


def test_rating_chart_has_one_point_per_rating_event(demo_site, open_page):
    base, _ = demo_site
    page = open_page(f"{base}/leaderboard/mu/")
    players = [entry["player"] for entry in leaderboard_api(page, base, "mu")][:4]
    assert players
    for player in players:
        url = f"{base}/players/{player}/"
        page = open_page(url)
        ratings = api(page, f"{base}/api/v1/players/{player}/ratings/")["ratings"]
        assert "mu" in ratings
        for game, rating in ratings.items():
            chart = page.locator(f'svg.rating-chart[data-game="{game}"]')
            assert chart.count() == 1
            box = chart.bounding_box()
            assert box and box["width"] > 200 and box["height"] > 60  # drawn, not just present
            circles = chart.locator("circle.point")
            assert circles.count() == len(rating["history"]) >= 1
            values = [int(v) for v in circles.evaluate_all("cs => cs.map(c => c.dataset.value)")]
            assert values == [point["rating_after"] for point in rating["history"]]
            shown = page.locator(f'article.rating[data-game="{game}"] strong.value').inner_text()
            assert shown == str(rating["rating"])
    screenshots(open_page, f"{base}/players/{players[0]}/", "player")


def test_a_held_back_round_is_not_visible_to_anonymous_users(demo_site, open_page):
    from tournaments.models import Round, Session

    base, events = demo_site
    held = list(Round.objects.filter(results_held=True))
    assert held
    for round_ in held:
        page = open_page(f"{base}/events/{round_.event_id}/")
        assert page.locator(f'[data-round="{round_.number}"]').count() == 0
        # Its seating is shown (issue 38: where everybody sits), under a heading that says its
        # results are held back, and nothing of its results.
        shown = page.locator("main").inner_text().replace(f"Round {round_.number}: results held back", "")
        assert f"Round {round_.number}" not in shown
        sessions = list(Session.objects.filter(table__round=round_).values_list("pk", flat=True))
        assert sessions
        for session in sessions:
            assert page.locator(f'[data-session="{session}"]').count() == 0
        # Released rounds are shown, so the absence is not an empty page's.
        released = Round.objects.filter(event=round_.event_id, results_held=False).count()
        assert page.locator("section.round:not(.round-held)").count() == released >= 1
        seated = Session.objects.get(pk=sessions[0]).table.seats.first().player_id
        player_page = open_page(f"{base}/players/{seated}/")
        for session in sessions:
            assert player_page.locator(f'[data-session="{session}"]').count() == 0


def test_german_for_a_german_browser(demo_site, open_page):
    base, events = demo_site
    event = events["mu"]
    page = open_page(f"{base}/events/{event.pk}/", locale="de-DE")
    assert page.locator("html").get_attribute("lang") == "de"
    assert page.locator("#standings-section h2").inner_text() == "Tabelle"
    assert page.locator("section.round h3").first.inner_text() == "Runde 1"
    assert "Spieler" in page.locator("#standings thead").inner_text()
    assert page.locator("#standings-section h2").inner_text() != "Standings"
    board = open_page(f"{base}/leaderboard/lut/", locale="de-DE")
    assert board.locator("h1").inner_text() == "Bestenliste Mit List und Tücke"
    english = open_page(f"{base}/events/{event.pk}/", locale="en-US")
    assert english.locator("#standings-section h2").inner_text() == "Standings"
    screenshots(open_page, f"{base}/events/{event.pk}/", "event-mu-de", locale="de-DE")


def test_the_language_switch_overrides_the_browser(demo_site, open_page):
    base, _ = demo_site
    page = open_page(f"{base}/", locale="en-GB")
    assert page.locator("h1").inner_text() == "Rankings"
    page.select_option("#language", "de")
    with page.expect_navigation():
        page.click(".language button")
    assert page.locator("h1").inner_text() == "Ranglisten"
    assert re.search(r"/$", page.url)


def test_home_page(demo_site, open_page):
    base, events = demo_site
    page = open_page(f"{base}/")
    for event in events.values():
        assert page.locator(f'a[data-event="{event.pk}"]').count() == 1
    with page.expect_navigation():
        page.click(f'a[data-event="{events["maumau"].pk}"]')
    assert page.locator("#money").count() == 1  # Maumau: money per player and transfers per series
    screenshots(open_page, f"{base}/", "home")


def test_the_policy_watch_sees_an_inline_script_and_the_site_breaks_none(demo_site, browser):
    # the watch (tests/pages/csp.py) that every browser test relies on reports a violation ...
    base, events = demo_site
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    page.route(f"{base}/probe/", lambda route: route.fulfill(
        status=200, content_type="text/html", headers={"Content-Security-Policy": "script-src 'self'"},
        body="<!DOCTYPE html><p>probe</p><script>document.title = 'ran'</script>"))
    page.goto(f"{base}/probe/")
    page.wait_for_timeout(300)
    assert page.title() != "ran"
    assert any(v.get("directive", "").startswith("script-src") or "Content Security Policy" in v.get("console", "")
               for v in browser.violations)
    browser.violations.clear()
    # ... and the site's own pages send the policy and break none of it
    response = page.goto(base + "/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.goto(f"{base}/events/{next(iter(events.values())).pk}/")
    page.wait_for_timeout(300)
    assert browser.violations == []
    context.close()
