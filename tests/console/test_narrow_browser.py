"""What outside checks found at 375 px and with axe-core, in a real browser: the console's players
page with namesakes' rows and the money page in German and Finnish do not run off a phone's
screen sideways; the series' room screen shows the players below the minimum of events legibly
(axe-core's contrast); no field points its description at an element that does not exist."""
from __future__ import annotations

import random

import pytest

from tests.pages.axe import report, violations

from .conftest import PHONE, SCREENSHOTS, log_in

pytestmark = pytest.mark.browser

LANGUAGES = ("de-DE", "en-GB", "fi-FI")


@pytest.fixture
def namesakes_money(transactional_db):
    """A Maumau evening of a club whose players include namesakes told apart by long additions,
    one table finished (its transfers owed), counting for a series of two events with a minimum
    of two (the players of one event only are listed below the minimum)."""
    from django.db import transaction
    from django.utils import timezone

    from tests.conftest import make_user
    from tests.pages.demo import play_table
    from tournaments import services

    organiser = make_user("narrow_organiser")
    club = services.club_create(by_user=None, name="Sportfreunde Oberkassel-Lüdenscheid 1923", organisers=[organiser])
    players = [services.player_create(by_user=organiser, name="Maximilian Müller-Lüdenscheidt",
                                      distinction=f"Kapitän der {which} Mannschaft", clubs=[club])
               for which in ("ersten", "zweiten", "dritten")]
    players += [services.player_create(by_user=organiser, name=f"Aleksanteri Väinämöinen-Korhonen {index}",
                                       clubs=[club]) for index in range(5)]
    series = services.series_create(by_user=organiser, club=club, name="Jahreswertung 2026", game="maumau",
                                    min_events=2)
    events = []
    for name, seated in (("Herbstturnier", players[:8]), ("Winterturnier", players[:4])):
        event = services.event_create(by_user=organiser, club=club, name=name, game="maumau", published=True)
        services.event_update(event=event, by_user=organiser, series=series)
        round_ = services.round_create(event=event, by_user=organiser)
        for index in range(0, len(seated), 4):
            table = services.table_create(round_=round_, players=seated[index:index + 4], by_user=organiser)
            with transaction.atomic():  # (it rebuilds the series' kept standings, under their lock)
                play_table(table, rng=random.Random(index + len(events)), finished_at=timezone.now())
        events.append(event)
    from tournaments.models import Transfer
    from tournaments.results.services import transfer_mark_paid

    transfer_mark_paid(transfer=Transfer.objects.filter(session__table__round__event=events[0]).first(), by_user=organiser)
    return organiser, events[0], series


# The elements that reach past a 375 px window's right edge (the last few: the innermost).
WIDEST = """() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 376)
  .slice(-4).map(e => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)"""


def _wide(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_players_and_money_fit_a_phone_in_three_languages(live_server, browser, namesakes_money):
    organiser, event, _ = namesakes_money
    for locale in LANGUAGES:
        context = browser.new_context(locale=locale, **PHONE)
        page = context.new_page()
        log_in(page, live_server.url, organiser.username, "pw-" + organiser.username)
        for path in (f"/console/events/{event.pk}/money/", f"/console/events/{event.pk}/players/"):
            page.goto(live_server.url + path)
            assert page.locator("li.person").count() >= 1, path
            assert _wide(page) <= 375, f"{path} in {locale}: {_wide(page)} px wide on a 375 px phone: " + str(page.evaluate(WIDEST))
            assert not page.evaluate(WIDEST), f"{path} in {locale}: cut at the phone's edge"  # (even where hidden)
            page.screenshot(path=str(SCREENSHOTS / f"narrow{path.replace('/', '-')}{locale}.png"), full_page=True)
            found = violations(page)
            assert not found, report(found, where=f"{path} {locale}")
        context.close()


def test_the_series_room_screen_passes_axe_core(live_server, browser, namesakes_money):
    _, _, series = namesakes_money
    for locale in LANGUAGES:
        context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.goto(f"{live_server.url}/series/{series.pk}/screen/")
        assert page.locator("tr.unranked").count() >= 1  # the players below the minimum are there
        found = violations(page)
        assert not found, report(found, where=f"series screen {locale}")
        context.close()


@pytest.mark.django_db
def test_every_described_field_names_an_element_that_exists(client, namesakes_money):
    """Django gives a field with help text ``aria-describedby="<id>_helptext"``: the console's forms
    show the help under that id, so no description points nowhere."""
    import re

    organiser, event, series = namesakes_money
    client.force_login(organiser)
    for path in ("/console/events/new/", f"/console/events/{event.pk}/edit/", f"/console/events/{event.pk}/players/",
                 "/console/series/new/"):
        html = client.get(path).content.decode()
        described = re.findall(r'aria-describedby="([^"]+)"', html)
        assert described, path
        ids = set(re.findall(r'\bid="([^"]+)"', html))
        for names in described:
            assert set(names.split()) <= ids, (path, names)
