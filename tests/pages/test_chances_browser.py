"""The win chances in a real browser: the table card, the score sheet before the first hand, the
room screen's round, the event page's upset and the calibration page, at 375 and 1280 px, in
English and German; screenshots in artifacts/screenshots/ (chances-*.png)."""
from __future__ import annotations

import re

import pytest

from .test_browser import DESKTOP, PHONE, SCREENSHOTS, browser, open_page, site  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser


def new_round(event):
    """A further round of ``event`` drawn from the demo's players, not begun: the tables a room
    looks at before it plays."""
    from tournaments.models import Round
    from tournaments.services import table_create

    first = event.rounds.order_by("number").first()
    players = [seat.player for table in first.tables.order_by("number") for seat in table.seats.order_by("position")]
    players = players[1::2] + players[::2]  # new neighbours
    number = event.rounds.order_by("-number").values_list("number", flat=True).first() + 1
    round_ = Round.objects.create(event=event, number=number)
    for index in range(0, len(players), 4):
        table_create(round_=round_, number=index // 4 + 1, players=players[index:index + 4], by_user=None)
    return round_


def shoot(page, name: str, phone: bool) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"chances-{name}-{'375' if phone else '1280'}.png"), full_page=True, scale="css")
    if phone:
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"{name}: the page is {width} px wide on a 375 px phone"


def log_in(page, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "organiser")
    page.fill("#id_password", "organiser")
    with page.expect_navigation():
        page.click("#log-in")


def test_card_sheet_and_room_screen_show_the_favourite(site, open_page):
    base, events = site
    event = events["mu"]
    round_ = new_round(event)
    table = round_.tables.order_by("number").first()
    for phone in (True, False):
        # the table cards (organisers)
        page = open_page(f"{base}/", phone=phone)
        log_in(page, base)
        page.goto(f"{base}/rounds/{round_.pk}/cards/")
        cards = page.locator(".table-card .chances")
        assert cards.count() == round_.tables.count()
        assert re.search(r"Favourite: .+ \d+ %", cards.first.locator(".favourite").inner_text())
        shoot(page, "cards", phone)

        # the score sheet before the first hand, in German
        sheet = open_page(f"{base}/t/{table.scorer_token}/", phone=phone, locale="de-DE")
        favourite = sheet.locator("header .chances .favourite").inner_text()
        assert re.search(r"Favorit: .+ \d+ %", favourite)
        percents = [int(text.strip(" %<>")) for text in sheet.locator("header .chances .pct").all_inner_texts()]
        assert 95 <= sum(percents) <= 105  # whole percents of chances that add up to one
        shoot(sheet, "sheet", phone)

        # the room screen: the new round's tables, each with its players' chances
        screen = open_page(f"{base}/events/{event.pk}/screen/", phone=phone)
        overview = screen.locator("#screen-progress")
        assert f"Round {round_.number}" in overview.locator("h2").inner_text()
        assert overview.locator("article").count() == round_.tables.count()
        assert overview.locator("article .pct").count() == sum(table.seats.count() for table in round_.tables.all())
        shoot(screen, "screen", phone)


def test_event_page_upset_and_calibration_page(site, open_page):
    from .test_chances_sheet import play_upset

    base, events = site
    event = events["lut"]
    round_ = new_round(event)
    play_upset(event, round_number=round_.number)
    for phone in (True, False):
        page = open_page(f"{base}/events/{event.pk}/", phone=phone, locale="de-DE")
        assert "Überraschung des Abends" in page.locator("#upset").inner_text()
        page.locator("#upset").scroll_into_view_if_needed()
        shoot(page, "event", phone)
        calibration = open_page(f"{base}/calibration/", phone=phone)
        assert calibration.locator("svg.reliability-chart").count() == 3
        shoot(calibration, "calibration", phone)
