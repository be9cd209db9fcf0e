"""An organiser creates a series in the console, adds two evenings (one an open club night, whose
table he opens from the console's suggestion), and the series page and its room screen show the
new ranks while the tables enter their hands, without a reload. Screenshots at 375 and 1280 px."""
from __future__ import annotations

import random

import pytest

from tests.conftest import make_user
from tests.pages.wait import appear
from tournaments import services
from tournaments.models import Club, Player, Series

from .conftest import click_and_wait, log_in, play_table

pytestmark = pytest.mark.browser

NAMES = ["Anna Becker", "Bernd Fischer", "Conny Hahn", "Dagmar Koch", "Emil Lang", "Frieda Maier",
         "Gustav Neumann", "Hanna Otto"]


def test_a_season_of_two_evenings_one_open_updates_the_series_page_live(asgi_server, new_page, photograph):
    base = asgi_server
    organiser = make_user("wart")
    club = Club.objects.create(name="Stammtisch Mü")
    club.organisers.add(organiser)
    players = [services.player_create(by_user=organiser, name=name, clubs=[club]) for name in NAMES]

    page = new_page(phone=True)
    log_in(page, base, "wart", "pw-wart")
    page.goto(f"{base}/console/series/")
    click_and_wait(page, "#new-series")
    page.fill("#id_name", "Jahreswertung 2026")
    page.select_option("#id_game", "mu")
    page.fill("#id_min_events", "1")
    click_and_wait(page, "#series-form button[type=submit]")
    series = Series.objects.get()

    # Two evenings of three deals a game: a drawn one and an open club night.
    drawn = services.event_create(by_user=organiser, club=club, name="Abend 1", game="mu", published=True,
                                  mu_fixed_deals=3, starts_on="2026-01-07")
    round_ = services.round_create(event=drawn, by_user=organiser)
    first_table = services.table_create(round_=round_, players=players[:4], by_user=organiser)
    open_night = services.event_create(by_user=organiser, club=club, name="Clubabend", game="mu", published=True,
                                       mu_fixed_deals=3, format="open", starts_on="2026-01-14")
    for player in players[2:7]:
        services.player_check_in(event=open_night, player=player, by_user=organiser)

    page.goto(f"{base}/console/series/{series.pk}/")
    for event in (drawn, open_night):
        click_and_wait(page, f'#other-events [data-event="{event.pk}"] button')
    assert page.locator("#attached-events [data-event]").count() == 2

    public, screen = new_page(), new_page()
    public.goto(f"{base}/series/{series.pk}/")
    screen.goto(f"{base}/series/{series.pk}/screen/")
    assert "No results yet" in public.inner_text("#series-live")

    token = organiser.auth_token.key
    play_table(base, first_table, token, random.Random(1))
    for shown, region in ((public, "#series-live"), (screen, "#screen-standings")):
        appear(shown, f'{region} tr[data-player="{players[0].pk}"]')
        assert shown.locator(f"{region} tbody tr").count() == 4

    page.goto(f"{base}/console/events/{open_night.pk}/")
    assert page.locator("#open-table-form input:checked").count() == 5
    click_and_wait(page, "#open-table")
    table = open_night.rounds.get().tables.get()
    play_table(base, table, token, random.Random(2))
    newcomer = next(p for p in players[4:7] if table.seats.filter(player=p).exists())
    for shown, region in ((public, "#series-live"), (screen, "#screen-standings")):
        appear(shown, f'{region} tr[data-player="{newcomer.pk}"]')
        assert shown.locator(f"{region} th.event-col").count() == 2

    # What the pages show is the API's document.
    import json
    import urllib.request

    with urllib.request.urlopen(f"{base}/api/v1/series/{series.pk}/standings/") as response:
        document = json.load(response)
    shown_ranks = {int(row.get_attribute("data-player")): row.locator(".rank").inner_text()
                   for row in public.locator("#series-live tbody tr").all()}
    assert shown_ranks == {row["player"]: str(row["rank"]) for row in document["standings"]}
    assert set(Player.objects.filter(seats__table__round__event__series=series).values_list("pk", flat=True)) \
        == set(shown_ranks)

    photograph(f"{base}/series/{series.pk}/", "series")
    photograph(f"{base}/series/{series.pk}/screen/", "series-screen")
    photograph(f"{base}/console/series/{series.pk}/", "console-series", login=("wart", "pw-wart"))
    photograph(f"{base}/console/events/{open_night.pk}/", "console-open-night", login=("wart", "pw-wart"))
