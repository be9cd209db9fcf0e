"""An organiser sets a season's options in the console on his phone: a Tuesday Mü and Friday
Maumau season, ranked by average with a qualification from half of the evenings held, adds the
evenings of both games (the console lists them all), and the public series page at 375 px shows
rank, name, score, move and the latest event with the rest of each row folded, no sideways scroll,
axe-core clean; what it shows is the API's document. Screenshots at 375 and 1280 px."""
from __future__ import annotations

import datetime
import random

import pytest

from tests.conftest import make_user
from tests.pages.axe import assert_accessible
from tournaments import services
from tournaments.models import Club, Round, Seat, Series, Session, Table
from tournaments.standings.series_standings import rebuild

from .conftest import api, click_and_wait, log_in

pytestmark = pytest.mark.browser

NAMES = ["Anna Becker", "Bernd Fischer", "Conny Hahn", "Dagmar Koch", "Emil Lang", "Frieda Maier",
         "Gustav Neumann", "Hanna Otto", "Ida Petersen", "Jonas Quast"]


def _evening(organiser, club, players, game: str, number: int, rng: random.Random):
    """A published evening of ``game`` with two finished tables (sessions written directly)."""
    day = datetime.date(2026, 3, 3) + datetime.timedelta(days=3 * number)
    event = services.event_create(by_user=organiser, club=club, name=f"{'Mü' if game == 'mu' else 'Maumau'} "
                                  f"{day:%d.%m.}", game=game, published=True, starts_on=day.isoformat())
    round_ = Round.objects.create(event=event, number=1)
    present = rng.sample(players, 8 - 2 * (number % 2))
    half = len(present) // 2
    for index, seated in enumerate((present[:half], present[half:])):
        table = Table.objects.create(round=round_, number=index + 1)
        for position, player in enumerate(seated):
            Seat.objects.create(table=table, round=round_, player=player, position=position)
        totals = [(-1 if game == "maumau" else 1) * rng.choice([0, 5, 10, 15]) for _ in seated]
        Session.objects.create(table=table, number=1, status=Session.Status.FINISHED, totals=totals, hand_count=6)
    rebuild([event.pk])
    return event


def test_the_season_options_set_in_the_console_and_the_page_at_375_px(asgi_server, new_page, photograph):
    base = asgi_server
    organiser = make_user("kassenwart")
    club = Club.objects.create(name="Stammtisch Dienstag & Freitag")
    club.organisers.add(organiser)
    players = [services.player_create(by_user=organiser, name=name, clubs=[club]) for name in NAMES]
    rng = random.Random(41)
    evenings = [_evening(organiser, club, players, "mu" if n % 2 == 0 else "maumau", n, rng) for n in range(6)]

    page = new_page(phone=True)
    log_in(page, base, "kassenwart", "pw-kassenwart")
    page.goto(f"{base}/console/series/")
    click_and_wait(page, "#new-series")
    page.fill("#id_name", "Jahreswertung 2026")
    page.select_option("#id_game", "mu")
    page.check('#series-games input[value="mu"]')
    page.check('#series-games input[value="maumau"]')
    page.check('input[name="aggregate"][value="average"]')
    page.fill("#id_drop_worst", "1")
    page.fill("#id_min_events", "1")
    page.fill("#id_qualify_percent", "50")
    page.fill("#id_absence_deduction", "0")
    assert_accessible(page, where="console: new series at 375 px")
    click_and_wait(page, "#series-form button[type=submit]")
    series = Series.objects.get()
    assert (series.games, series.aggregate, series.drop_worst, series.qualify_percent) == \
        (["mu", "maumau"], "average", 1, 50)

    # Both games' evenings are offered: add each.
    page.goto(f"{base}/console/series/{series.pk}/")
    assert page.locator("#other-events [data-event]").count() == len(evenings)
    for event in evenings:
        click_and_wait(page, f'#other-events [data-event="{event.pk}"] button')
    assert page.locator("#attached-events [data-event]").count() == len(evenings)
    assert_accessible(page, where="console: series at 375 px")

    public = new_page(phone=True)
    public.goto(f"{base}/series/{series.pk}/")
    document = api(base, f"/api/v1/series/{series.pk}/standings/")
    rows = public.locator("#series-standings tbody tr[data-player]")
    assert rows.count() == len(document["standings"])
    shown = {int(row.get_attribute("data-player")): row.locator(".rank").inner_text() for row in rows.all()}
    assert shown == {row["player"]: str(row["rank"]) if row["rank"] else "–" for row in document["standings"]}
    # On the phone: rank, name, score, move and the latest event; the event and game columns fold.
    assert public.locator("#series-standings th.latest-col").is_visible()
    assert not public.locator("#series-standings th.event-col").first.is_visible()
    assert not public.locator("#series-standings th.game-col").first.is_visible()
    first = rows.first
    first.locator("details.fold summary").click()
    assert first.locator(".fold-list").is_visible() and "Events played" in first.locator(".fold-list").inner_text()
    # Not everybody played half of the six evenings: they stand apart under their heading.
    if any(not row["qualified"] for row in document["standings"]):
        assert public.locator("#series-standings tr.group").is_visible()
    assert public.evaluate("document.documentElement.scrollWidth") <= 375
    assert_accessible(public, where="series page at 375 px")

    desktop = new_page()
    desktop.goto(f"{base}/series/{series.pk}/")
    assert desktop.locator("#series-standings th.event-col").count() == len(evenings)
    assert desktop.locator("#series-standings th.game-col").count() == 2
    assert_accessible(desktop, where="series page at 1280 px")

    photograph(f"{base}/series/{series.pk}/", "season-options")
    photograph(f"{base}/console/series/{series.pk}/", "console-season-options", login=("kassenwart", "pw-kassenwart"))
