"""The evening in German and in Finnish, through the console and the score sheet only — no token,
no JSON — on a browser that asks for that language. The whole evening walks in English
(tests/console/test_browser.py); here a shorter one per language, so that the suite does not run
it three times: create a Mü event, add and check in four players among them two "Max Müller"
(told apart by the namesake rule), draw, publish, one table's session entered on its phone,
the room screen following it, the standings; then a Maumau series whose payment is ticked and
taken back. Every text the walk looks for is the language's own translation (``say`` fails when a
text would fall back to English). Screenshots: artifacts/screenshots/evening-{lang}-*.png.
"""
from __future__ import annotations

import re

import pytest
from django.utils import translation

from tests.conftest import make_user

from .conftest import SCREENSHOTS, log_in

pytestmark = pytest.mark.browser

LOCALES = {"de": "de-DE", "fi": "fi-FI"}
PLAYERS = ["Anna Becker", "Bernd Fischer", "Max Müller"]
NAMESAKE = "Max Müller"


def say(language: str, text: str, plural: str | None = None, n: int | None = None, /, **params) -> str:
    """``text`` as the pages say it in ``language`` (``plural`` and ``n``: counted); fails when it
    has no translation there."""
    with translation.override(language):
        said = translation.ngettext(text, plural, n) if plural else translation.gettext(text)
    assert said != (plural if plural and n != 1 else text), f"{text!r} is not translated to {language}"
    return said % params if params else said


def namesakes(text: str) -> set[str]:
    """The distinct ways "Max Müller" is shown in ``text`` (with the addition that tells him apart)."""
    return set(re.findall(rf"{NAMESAKE} \([^)]+\)", text))


def click_and_wait(page, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)


def check_in_and_draw(page, base: str, event, language: str) -> object:
    """Draw round 1 of ``event`` with the players who are here and publish its tables."""
    from tournaments.models import Round

    page.goto(f"{base}/console/events/{event.pk}/")
    click_and_wait(page, "#new-round")
    click_and_wait(page, "#draw")
    assert page.locator("button.seat").count() == 4
    click_and_wait(page, "#publish-round")
    round_ = Round.objects.get(event=event, number=1)
    assert round_.tables.count() == 1
    return round_


@pytest.mark.parametrize("language", ["de", "fi"])
def test_a_short_evening_in_the_console_in(asgi_server, new_page, language):
    from tests.sheet.test_sheet_browser import Finger, enter, mu_deal
    from tournaments import services
    from tournaments.models import Event, Player, Transfer

    base, locale = asgi_server, LOCALES[language]
    organiser = make_user(f"abend_{language}")
    organiser.set_password("abend-pw")
    organiser.save()
    club = services.club_create(by_user=None, name="Kortti Klubi", city="Tampere", organisers=[organiser])

    page = new_page(locale=locale)
    log_in(page, base, f"abend_{language}", "abend-pw")
    assert page.url == f"{base}/console/"
    assert page.locator("html").get_attribute("lang") == language

    # --- the event -------------------------------------------------------------------------------
    click_and_wait(page, 'a[href="/console/events/new/"]')
    page.fill("#id_name", f"Mü {language}")
    page.select_option("#id_game", "mu")
    page.fill("#id_mu_fixed_deals", "1")
    click_and_wait(page, "#event-form button[type=submit]")
    event = Event.objects.get(name=f"Mü {language}")
    assert say(language, "Not public yet.") in page.inner_text("#publication")

    # --- four players, two of them Max Müller: the second is added anyway, told apart -----------
    page.goto(f"{base}/console/events/{event.pk}/players/")
    for name in PLAYERS + [NAMESAKE]:
        page.fill("#id_name", name)
        page.set_checked("#id_check_in", True)
        click_and_wait(page, "#add-player button[type=submit]")
    warning = page.inner_text("#add-player .warning")
    assert say(language, "There is already a %(name)s in %(club)s. Is this another person? Then add the new one anyway.",
               "There are already %(count)s players named %(name)s in %(club)s. Is this another person? Then add "
               "the new one anyway.", 1, name=NAMESAKE, club=club.name, count=1) == warning
    page.fill("#id_distinction", "Hervanta")
    click_and_wait(page, "#add-player button[type=submit]")
    assert Player.objects.filter(name=NAMESAKE).count() == 2
    assert page.inner_text("#present-count").startswith(say(
        language, "%(present)s player is here tonight.", "%(present)s players are here tonight.", 4, present=4))
    assert len(namesakes(page.inner_text("#members"))) == 2

    # --- draw, publish the tables and the event ---------------------------------------------------
    round_ = check_in_and_draw(page, base, event, language)
    table = round_.tables.get()
    page.goto(f"{base}/console/events/{event.pk}/")
    click_and_wait(page, "#publish-event")

    # --- the room screen follows the table's phone -----------------------------------------------
    screen = new_page(locale=locale)
    screen.set_viewport_size({"width": 1280, "height": 720})
    screen.goto(f"{base}/events/{event.pk}/screen/")
    screen.wait_for_selector("body[data-live-state=connected]")
    screen.evaluate("window.__notReloaded = true")
    progress = say(language, "Round %(number)s", number=1)
    assert screen.inner_text("#progress-title").startswith(progress)
    assert screen.inner_text('#screen-progress [data-table="1"] .badge') == say(language, "not started")
    assert len(namesakes(screen.inner_text("#screen-progress"))) == 2  # at one table, told apart

    sheet = new_page(phone=True, locale=locale)
    sheet.goto(f"{base}/t/{table.scorer_token}/")
    sheet.wait_for_selector("html[data-ready]")
    assert sheet.locator("html").get_attribute("lang") == language
    assert len(namesakes(sheet.inner_text("body"))) == 2
    finger = Finger(sheet)
    mu_deal(finger, [2, 2, 1, 0], provocateur=1)
    enter(finger, 1)

    screen.wait_for_selector('#screen-progress[data-finished="1"]')
    assert screen.inner_text("#progress-title") == progress + ": " + say(
        language, "%(done)s of %(total)s table finished", "%(done)s of %(total)s tables finished", 1, done=1, total=1)
    assert screen.inner_text('#screen-progress [data-table="1"] .badge') == say(language, "finished")
    latest = screen.locator("#screen-latest li").first
    assert latest.inner_text().startswith(say(language, "Round %(round)s, table %(table)s", round=1, table=1))
    assert screen.locator("#standings tbody tr").count() == 4
    assert len(namesakes(screen.inner_text("#standings"))) == 2
    assert screen.evaluate("window.__notReloaded") is True
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    screen.screenshot(path=str(SCREENSHOTS / f"evening-{language}-screen-1280.png"))
    phone_screen = new_page(phone=True, locale=locale)
    phone_screen.goto(f"{base}/events/{event.pk}/screen/")
    phone_screen.screenshot(path=str(SCREENSHOTS / f"evening-{language}-screen-375.png"), full_page=True)
    assert phone_screen.evaluate("document.documentElement.scrollWidth") <= 375

    # --- the standings in the console ----------------------------------------------------------------
    page.goto(f"{base}/console/events/{event.pk}/")
    assert page.locator("#standings tbody tr").count() == 4
    assert len(namesakes(page.inner_text("#standings"))) == 2

    # --- a correction refused, then fixed: walked in each language on its own evening by
    # tests/console/test_correct_browser.py (the sheet's form in the console, the reason at the field).

    # --- a Maumau series: its payment ticked, then taken back --------------------------------------
    page.goto(f"{base}/console/events/new/")
    page.fill("#id_name", f"Maumau {language}")
    page.select_option("#id_game", "maumau")
    page.fill("#id_maumau_games_per_series", "1")
    click_and_wait(page, "#event-form button[type=submit]")
    maumau = Event.objects.get(name=f"Maumau {language}")
    page.goto(f"{base}/console/events/{maumau.pk}/players/")
    for player in Player.objects.filter(clubs=club):
        click_and_wait(page, f"#player-{player.pk} button")
    round_ = check_in_and_draw(page, base, maumau, language)
    table = round_.tables.get()
    sheet.goto(f"{base}/t/{table.scorer_token}/")
    sheet.wait_for_selector("html[data-ready]")
    finger = Finger(sheet)
    finger.numbers("#minus-0", [0, 5, 12, 3])
    enter(finger, 1)
    page.goto(f"{base}/console/events/{maumau.pk}/money/")
    transfer = Transfer.objects.filter(session__table=table).order_by("-cents", "id").first()
    item = f"#transfer-{transfer.pk}"
    click_and_wait(page, f"{item} button")
    assert say(language, "paid") in page.inner_text(f"{item} .tag")
    page.fill(f"#unpaid-reason-{transfer.pk}", "väärä rasti" if language == "fi" else "falsch getippt")
    click_and_wait(page, f"{item} button")
    transfer.refresh_from_db()
    assert not transfer.paid
    assert page.locator(f"{item} .tag").count() == 0
    assert page.inner_text(f"{item} button") == say(language, "Paid")
    page.screenshot(path=str(SCREENSHOTS / f"evening-{language}-money.png"), full_page=True)
