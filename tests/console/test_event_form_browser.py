"""The console's event form in Chromium, in Finnish on a 375 px phone: only the chosen game's
options are shown (static/stich/event-form.js), confirmation is offered, and the language select
does not span the page. Screenshots in artifacts/screenshots/."""
from __future__ import annotations

import pytest

from tests.conftest import make_user

from .conftest import SCREENSHOTS, log_in

pytestmark = pytest.mark.browser


def test_the_event_form_follows_the_game_in_finnish(asgi_server, new_page):
    from tournaments import services
    from tournaments.models import Event

    organiser = make_user("ilta")
    organiser.set_password("ilta-pw")
    organiser.save()
    services.club_create(by_user=None, name="Helsingin Mü-kerho", city="Helsinki", organisers=[organiser])
    page = new_page(phone=True, locale="fi-FI")
    log_in(page, asgi_server, "ilta", "ilta-pw")
    page.goto(f"{asgi_server}/console/events/new/")
    assert page.locator("html").get_attribute("lang") == "fi"
    assert page.is_visible("#id_mu_target_score") and not page.is_visible("#id_maumau_stake_cents")
    assert page.is_visible("text=Toinen pelaaja vahvistaa jokaisen jaon")
    page.select_option("#id_game", "maumau")
    assert page.is_visible("#id_maumau_stake_cents") and not page.is_visible("#id_mu_target_score")
    page.select_option("#id_game", "lut")
    assert not page.is_visible("#id_maumau_stake_cents") and not page.is_visible("#id_mu_target_score")
    page.select_option("#id_game", "maumau")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "console-event-form-fi-phone.png"), full_page=True, scale="css")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    select = page.locator("#language").bounding_box()
    assert select["width"] < 300, select  # not the page's width
    page.fill("#id_name", "Maumau-sarja")
    page.fill("#id_maumau_stake_cents", "5")
    page.check("#id_confirm_hands")
    with page.expect_navigation():
        page.click("#event-form button[type=submit]")
    event = Event.objects.get(name="Maumau-sarja")
    assert event.game == "maumau" and event.maumau_stake_cents == 5 and event.confirm_hands
    assert "Toinen pelaaja vahvistaa jokaisen jaon." in page.inner_text("main")


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_an_open_club_night_is_created_and_saving_keeps_its_date(asgi_server, new_page, locale):
    """Issue 38: the format chosen is stored, and the date survives the edit form (rendered ISO,
    which the browser's date input shows; a localized value posts empty and erased it)."""
    import datetime

    from tournaments import services
    from tournaments.models import Event, Series

    organiser = make_user("abend")
    organiser.set_password("abend-pw")
    organiser.save()
    club = services.club_create(by_user=None, name="Kölner Mü-Runde", city="Köln", organisers=[organiser])
    page = new_page(phone=True, locale=locale)
    log_in(page, asgi_server, "abend", "abend-pw")
    page.goto(f"{asgi_server}/console/events/new/")
    page.fill("#id_name", "Offener Abend")
    page.fill("#id_starts_on", "2026-12-05")
    page.check('input[name="format"][value="open"]')
    with page.expect_navigation():
        page.click("#event-form button[type=submit]")
    event = Event.objects.get(name="Offener Abend")
    assert event.format == "open" and event.starts_on == datetime.date(2026, 12, 5)
    # Edit something else and save: the date stays, and so does the format.
    page.goto(f"{asgi_server}/console/events/{event.pk}/edit/")
    assert page.input_value("#id_starts_on") == "2026-12-05"
    assert page.is_checked('input[name="format"][value="open"]')
    page.fill("#id_name", "Offener Abend im Dezember")
    with page.expect_navigation():
        page.click("#event-form button[type=submit]")
    event.refresh_from_db()
    assert event.name == "Offener Abend im Dezember"
    assert event.starts_on == datetime.date(2026, 12, 5) and event.format == "open"
    # Back to rounds through the form (no round yet).
    page.goto(f"{asgi_server}/console/events/{event.pk}/edit/")
    page.check('input[name="format"][value="rounds"]')
    with page.expect_navigation():
        page.click("#event-form button[type=submit]")
    event.refresh_from_db()
    assert event.format == "rounds" and event.starts_on == datetime.date(2026, 12, 5)
    # The series form's season dates are date inputs too: saving keeps them.
    series = services.series_create(by_user=organiser, club=club, name="Wintersaison", game="mu",
                                    season_from=datetime.date(2026, 10, 1), season_to=datetime.date(2027, 3, 31))
    page.goto(f"{asgi_server}/console/series/{series.pk}/")
    assert page.input_value("#id_season_from") == "2026-10-01"
    page.fill("#id_name", "Wintersaison 2026/27")
    with page.expect_navigation():
        page.locator("#id_name").press("Enter")
    series = Series.objects.get(pk=series.pk)
    assert series.name == "Wintersaison 2026/27"
    assert (series.season_from, series.season_to) == (datetime.date(2026, 10, 1), datetime.date(2027, 3, 31))
