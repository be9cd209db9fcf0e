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
