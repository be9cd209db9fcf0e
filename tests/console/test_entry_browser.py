"""Registration, a players' import and the round clock in Chromium, through the pages alone.

Three people register on the event's public page on a phone (two places: the third waits; one
agrees to be listed by name), the organiser confirms one in the console, imports a Windows-1252
CSV file of players through the console's file input (the preview lists each row's fate, a
namesake is resolved in its select, then the import), sets the round's clock, starts it and pauses
it: the room screen shows the same time left and follows the pause without reloading. axe-core
checks every page at the width it is visited; the pages are photographed at 375 and 1280 px:
artifacts/screenshots/entry-{page}-{phone|desktop}.png.
"""
from __future__ import annotations

import re

import pytest

from tests.conftest import make_user
from tests.pages.axe import assert_accessible
from tests.pages.wait import appear

from .conftest import click_and_wait, log_in

pytestmark = pytest.mark.browser

CSV = "Name;Verein;Zusatz\r\nJörg Weiß;;\r\nAnna Alt;;\r\n;Stichclub Köln;\r\nGerd Gast;Kein Verein;\r\n"


def seconds(text: str) -> int:
    parts = [int(part) for part in text.strip().split(":")]
    return sum(value * 60 ** index for index, value in enumerate(reversed(parts)))


def test_registration_import_and_clock(asgi_server, new_page, photograph, tmp_path):
    from tournaments import services
    from tournaments.models import Player, Registration

    organiser = make_user("abend")
    organiser.set_password("abend-pw")
    organiser.save()
    club = services.club_create(by_user=None, name="Stichclub Köln", organisers=[organiser])
    for distinction in ("Nord", "Süd"):  # two namesakes: the file's Anna Alt is to be resolved
        services.player_create(by_user=organiser, name="Anna Alt", clubs=[club], distinction=distinction)
    event = services.event_create(by_user=organiser, club=club, name="Skatabend", game="mu", published=True,
                                  registration_open=True, capacity=2, place="Gasthaus Zur Post")
    round_ = services.round_create(event=event, by_user=organiser)

    # Three register on their phones: two places, the third waits.
    phone = new_page(phone=True)
    for name, listed in (("Berta Neu", True), ("Carl Still", False), ("Dora Spät", False)):
        phone.goto(f"{asgi_server}/events/{event.pk}/register/")
        assert "Gasthaus Zur Post" in phone.inner_text("#event-facts")
        phone.fill("#id_name", name)
        phone.fill("#id_contact", f"{name.split()[0].lower()}@example.org")
        if listed:
            phone.check("#id_show_name")
        click_and_wait(phone, "#register")
        assert_accessible(phone, where=f"registered {name}")
        link = phone.inner_text("#withdraw-link")
        assert re.search(r"/withdraw/[\w-]{30,}/$", link)
    assert "waiting list, number 1" in phone.inner_text("#registered")
    assert dict(Registration.objects.values_list("name", "status")) == {
        "Berta Neu": "registered", "Carl Still": "registered", "Dora Spät": "waiting"}

    # The organiser confirms Berta in the console; the public page then lists her, and only her.
    desk = new_page()
    log_in(desk, asgi_server, "abend", "abend-pw")
    desk.goto(f"{asgi_server}/console/events/{event.pk}/registrations/")
    assert_accessible(desk, where="console registrations")
    berta = Registration.objects.get(name="Berta Neu")
    click_and_wait(desk, f"#registration-{berta.pk} button[aria-label='Confirm Berta Neu']")
    assert desk.get_attribute(f"#registration-{berta.pk}", "data-status") == "confirmed"
    phone.goto(f"{asgi_server}/events/{event.pk}/register/")
    assert phone.inner_text("#registered-names") == "Berta Neu"
    assert "Carl Still" not in phone.inner_text("main") and "@example.org" not in phone.content()
    assert_accessible(phone, where="register page, full")

    # The import: a Windows-1252 file with ";", through the file input.
    upload = tmp_path / "spieler.csv"
    upload.write_bytes(CSV.encode("cp1252"))
    desk.goto(f"{asgi_server}/console/events/{event.pk}/players/import/")
    desk.set_input_files("#id_file", str(upload))
    click_and_wait(desk, "#import-preview")
    fates = desk.eval_on_selector_all("tr[data-line]", "rows => rows.map(r => [r.dataset.line, r.dataset.fate])")
    assert fates == [["2", "new"], ["3", "namesake"], ["4", "error"], ["5", "error"]]
    assert "Jörg Weiß" in desk.inner_text("#import-result")
    assert_accessible(desk, where="import preview")
    assert not Player.objects.filter(name="Jörg Weiß").exists()
    desk.select_option("#line-3", "new")
    click_and_wait(desk, "#import-store")
    assert Player.objects.filter(name="Jörg Weiß", clubs=club).exists()
    assert Player.objects.filter(name="Anna Alt").count() == 3

    # The clock: 45 minutes, started; the room screen shows the same time left.
    desk.goto(f"{asgi_server}/console/rounds/{round_.pk}/")
    desk.fill(f"#clock-minutes-{round_.pk}", "45")
    click_and_wait(desk, "#clock-set")
    click_and_wait(desk, "#clock-start")
    screen = new_page()
    screen.goto(f"{asgi_server}/events/{event.pk}/screen/")
    appear(screen, "#screen [data-clock][data-state='running']")
    console_left = seconds(desk.inner_text(".round-clock .clock-time"))
    screen_left = seconds(screen.inner_text("#screen .round-clock .clock-time"))
    assert 44 * 60 <= console_left <= 45 * 60 and abs(console_left - screen_left) <= 2
    assert_accessible(desk, where="console round clock")
    assert_accessible(screen, where="room screen clock")
    click_and_wait(desk, "#clock-pause")
    # The room screen hears of the pause over its socket, without reloading.
    appear(screen, "#screen [data-clock][data-state='paused']")
    paused = seconds(screen.inner_text("#screen .round-clock .clock-time"))
    screen.wait_for_timeout(1500)
    assert seconds(screen.inner_text("#screen .round-clock .clock-time")) == paused

    for url, name, login in (
            (f"{asgi_server}/events/{event.pk}/register/", "entry-register", None),
            (f"{asgi_server}/console/events/{event.pk}/registrations/", "entry-registrations", ("abend", "abend-pw")),
            (f"{asgi_server}/console/rounds/{round_.pk}/", "entry-clock", ("abend", "abend-pw")),
            (f"{asgi_server}/events/{event.pk}/screen/", "entry-screen", None)):
        photograph(url, name, login=login)


@pytest.mark.parametrize("locale", ["de-DE", "fi-FI"])
def test_the_registration_and_clock_pages_speak_german_and_finnish(asgi_server, new_page, locale):
    """The public registration page and the console's clock in German and Finnish (every text of
    theirs translated, tests/pages/test_languages.py), axe-core clean at 375 and 1280 px."""
    from django.utils import translation

    from tests.pages.test_browser import SCREENSHOTS
    from tournaments import services
    from tournaments.entry import clock

    language = locale[:2]
    organiser = make_user("abend")
    organiser.set_password("abend-pw")
    organiser.save()
    club = services.club_create(by_user=None, name="Stichclub Köln", organisers=[organiser])
    event = services.event_create(by_user=organiser, club=club, name="Skatabend", game="mu", published=True,
                                  registration_open=True, capacity=8, place="Gasthaus Zur Post")
    round_ = services.round_create(event=event, by_user=organiser)
    clock.change(round_=round_, action="set", minutes=45, by_user=organiser)
    clock.change(round_=round_, action="start", by_user=organiser)
    with translation.override(language):
        register = translation.gettext("Register")
        time_left = translation.gettext("Round %(number)s: time left") % {"number": 1}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for phone in (True, False):
        kind = "phone" if phone else "desktop"
        page = new_page(phone=phone, locale=locale)
        page.goto(f"{asgi_server}/events/{event.pk}/register/")
        assert page.locator("html").get_attribute("lang") == language
        assert page.inner_text("#register") == register
        assert_accessible(page, where=f"register {language} {kind}")
        page.screenshot(path=str(SCREENSHOTS / f"entry-register-{language}-{kind}.png"), full_page=True, scale="css")
        log_in(page, asgi_server, "abend", "abend-pw")
        page.goto(f"{asgi_server}/console/rounds/{round_.pk}/")
        assert page.is_visible("#clock-pause")
        assert_accessible(page, where=f"clock {language} {kind}")
        page.screenshot(path=str(SCREENSHOTS / f"entry-clock-{language}-{kind}.png"), full_page=True, scale="css")
        page.goto(f"{asgi_server}/events/{event.pk}/screen/")
        appear(page, "#screen [data-clock][data-state='running']")
        assert page.inner_text("#screen .clock-title") == time_left
        if phone:
            assert page.evaluate("document.documentElement.scrollWidth") <= 375
