"""The room screen in Chromium, as a projector shows it: after round 1 and during round 2 of a
12-player, 3-table Mü evening that counts for a series, it follows the hands a table enters (the
round's progress, the standings with the change since round 1, the latest results, the series'
top) without reloading, fits 1280×720 and 1920×1080 without scrolling, and stacks on a 375 px phone.
Screenshots: artifacts/screenshots/room-screen-{375,1280,1920}.png."""
from __future__ import annotations

import random

import pytest

from tests.pages.wait import appear

from .conftest import PHONE, SCREENSHOTS
from .test_live import post_hand

pytestmark = pytest.mark.browser


def play_out(base, table, token, rng, hands=4):
    for _ in range(hands):
        post_hand(base, table, token, rng)


def test_the_room_screen_follows_a_table_and_fits_a_projector(asgi_server, browser, published_round):
    from tournaments import services

    organiser, event, tables = published_round
    token, rng = organiser.auth_token.key, random.Random(25)
    for table in tables:  # round 1 is played out
        play_out(asgi_server, table, token, rng)
    series = services.series_create(by_user=organiser, club=event.club, name="Winterserie", game="mu")
    services.event_update(event=event, by_user=organiser, series=series)
    players = [seat.player for table in tables for seat in table.seats.order_by("position")]
    round_2 = services.round_create(event=event, by_user=organiser)
    tables_2 = [services.table_create(round_=round_2, players=players[i::3], by_user=organiser, first_dealer=0)
                for i in range(3)]

    context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 720})
    context.set_default_timeout(15000)
    page = context.new_page()
    url = f"{asgi_server}/events/{event.pk}/screen/"
    page.goto(url)
    appear(page, "body[data-live-state=connected]")
    page.evaluate("window.__notReloaded = true")
    assert page.inner_text("#progress-title") == "Round 2: 0 of 3 tables finished"
    assert page.locator('#screen-progress [data-state="waiting"]').count() == 3
    assert page.locator("#standings td.move").count() == 0  # nothing to compare with yet
    assert [li.get_attribute("data-round") for li in page.locator("#screen-latest li").all()] == ["1"] * 3
    assert page.locator("#screen-series li").count() == 5
    series_version = int(page.get_attribute("#screen-series", "data-live-version"))
    assert page.get_attribute("#screen-series", "data-live-updated") is None

    # Table 1 of round 2 enters its first hand: the table is in progress, the standings show the
    # change since round 1.
    post_hand(asgi_server, tables_2[0], token, rng)
    appear(page, '#screen-progress [data-table="1"][data-state="playing"]')
    assert "1 hand of 4" in page.inner_text('#screen-progress [data-table="1"]')
    # The series' top is a region of the series (the screens of all its events share one
    # rendering): the hand moved the series' version and the region was replaced in place.
    appear(page, "#screen-series[data-live-updated]")
    assert int(page.get_attribute("#screen-series", "data-live-version")) > series_version
    assert page.locator("#screen-series li").count() == 5 and "Series: Winterserie" in page.inner_text("#screen-series")
    appear(page, "#standings td.move")
    assert "± since round 1" in page.inner_text("#standings-title")
    assert page.locator("#standings tbody tr").count() == 12 == page.locator("#standings td.move").count()
    # It finishes: one table of three done, and it heads the latest results with its winner.
    play_out(asgi_server, tables_2[0], token, rng, hands=3)
    appear(page, '#screen-progress[data-finished="1"]')
    assert page.inner_text("#progress-title") == "Round 2: 1 of 3 tables finished"
    # (a fetch that straddled the last hand's commit may show the progress before the latest
    # results; the push that follows the commit brings the next fetch in line)
    appear(page, '#screen-latest li:first-child[data-round="2"][data-table="1"]')
    first = page.locator("#screen-latest li").first
    assert " wins with " in first.inner_text() or " win with " in first.inner_text()
    assert page.evaluate("window.__notReloaded") is True
    # The moves the screen shows are the server's, row by row (the API's ranks before and now).
    from tournaments import policy
    from tournaments.standings.room import standings_moves
    from tournaments.standings.selectors import session_results

    _, moves = standings_moves(event, session_results(event, visibility=policy.public()))
    shown = page.eval_on_selector_all("#standings tbody tr", """rows => rows.map(row => [
        Number(row.dataset.player), row.querySelector('td.move').dataset.move])""")
    kinds = {None: "new", 0: "same"}
    assert {player: kind for player, kind in shown} == {
        player: kinds.get(move, "up" if move and move > 0 else "down") for player, move in moves.items()}

    # A projector: everything in view, no scrolling, at 1280×720 and 1920×1080.
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 720), (1920, 1080)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(SCREENSHOTS / f"room-screen-{width}.png"), full_page=True, scale="css")
        size = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        assert size[0] <= width and size[1] <= height, f"the screen scrolls at {width}×{height}: {size}"
    # A phone: the parts stack, nothing runs off sideways.
    phone = browser.new_context(locale="en-GB", **PHONE).new_page()
    phone.goto(url)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    phone.screenshot(path=str(SCREENSHOTS / "room-screen-375.png"), full_page=True, scale="css")
    phone.context.close()
    context.close()
