"""A championship day's formats in the console, in Chromium: the final set up in the event form,
a round drawn by standings with the draw form's method, a final round for the top four drawn and
shown apart from the preliminary ranking. axe-core on each page; the draw form and the final
ranking photographed at 375 and 1280 px (artifacts/screenshots/formats-*.png)."""
from __future__ import annotations

import pytest

from tests.conftest import make_user
from tests.pages.axe import assert_accessible

from .conftest import SCREENSHOTS, click_and_wait, log_in

pytestmark = pytest.mark.browser


def finish(event, round_, totals_of) -> None:
    """Each table of ``round_`` finished with the totals ``totals_of(player)`` (the kept sums rebuilt)."""
    from tournaments.models import Session
    from tournaments.standings import sums

    for table in round_.tables.all():
        seats = list(table.seats.order_by("position").values_list("player_id", flat=True))
        Session.objects.create(table=table, number=1, status="finished", hand_count=1,
                               totals=[totals_of(p) for p in seats])
    sums.rebuild([event.pk])


def both_widths(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((375, 812), (1280, 900)):
        page.set_viewport_size({"width": width, "height": height})
        assert_accessible(page, where=f"{name} at {width} px")
        page.screenshot(path=str(SCREENSHOTS / f"formats-{name}-{width}.png"), full_page=True, scale="css")
        if width == 375:
            assert page.evaluate("document.documentElement.scrollWidth") <= 375, name


def test_a_round_by_standings_and_a_final_of_four_in_the_console(asgi_server, new_page):
    from tournaments import services
    from tournaments.draws import services as draws
    from tournaments.models import Event, Player, Round

    organiser = make_user("turnier")
    organiser.set_password("turnier-pw")
    organiser.save()
    club = services.club_create(by_user=None, name="Skatfreunde Bonn", city="Bonn", organisers=[organiser])
    event = services.event_create(by_user=organiser, club=club, name="Meisterschaft", game="mu",
                                  standings_metrics="total,wins", published=True)
    players = []
    for index in range(12):
        player = services.player_create(by_user=organiser, name=f"Spielerin {index + 1:02d}", clubs=[club])
        services.player_check_in(event=event, player=player, by_user=organiser)
        players.append(player)
    first = services.round_create(event=event, by_user=organiser)
    draws.draw_preview(first, by_user=organiser, seed=7)
    draws.draw_publish(first, by_user=organiser)
    finish(event, first, lambda p: p % 9 * 10)

    page = new_page()
    log_in(page, asgi_server, "turnier", "turnier-pw")
    # The final: the top four, half of their preliminary points carried over.
    page.goto(f"{asgi_server}/console/events/{event.pk}/edit/")
    page.fill("#id_final_size", "4")
    page.select_option("#id_final_carry", "half")
    assert_accessible(page, where="event form with the final")
    click_and_wait(page, "#event-form button[type=submit]")
    event.refresh_from_db()
    assert (event.final_size, event.final_carry) == (4, "half")
    assert page.is_visible("#final-rule")
    # The seating-script page: a script with a faulty line comes back with the line's error.
    click_and_wait(page, "#script-link")
    page.fill("#id_text", "1, 1, 1, 2, 3, 4\n1, 2, 5, 6, 7, 40")
    click_and_wait(page, "#store-script")
    assert "line 2: no player has the number 40 in this event" in page.inner_text("#script-form")
    both_widths(page, "script-refused")
    # Round 2 by standings: the leaders at table 1.
    page.goto(f"{asgi_server}/console/events/{event.pk}/")
    click_and_wait(page, "#new-round")
    page.select_option("#id_method", "standings")
    both_widths(page, "draw-form")
    click_and_wait(page, "#draw")
    assert "Seated by standings" in page.inner_text("#draw-report")
    second = Round.objects.get(event=event, number=2)
    totals = {p.pk: p.pk % 9 * 10 for p in players}
    tables = [t["players"] for t in second.draft["tables"]]
    assert min(totals[p] for p in tables[0]) >= max(totals[p] for p in tables[-1])
    click_and_wait(page, "#publish-round")
    finish(event, second, lambda p: (p * 7) % 11 * 5)
    # The final round for the top four.
    page.goto(f"{asgi_server}/console/events/{event.pk}/")
    click_and_wait(page, "#new-final-round")
    assert page.input_value("#id_method") == "standings"
    click_and_wait(page, "#draw")
    final = Round.objects.get(event=event, stage="final")
    assert [len(t["players"]) for t in final.draft["tables"]] == [4]
    click_and_wait(page, "#publish-round")
    finish(event, final, lambda p: p % 4 * 10)
    page.goto(f"{asgi_server}/console/events/{event.pk}/")
    shown = page.eval_on_selector_all("#final-standings tbody tr", "rows => rows.map(r => Number(r.dataset.player))")
    assert sorted(shown) == sorted(final.draft["tables"][0]["players"])
    assert page.is_visible("text=Preliminary ranking")
    both_widths(page, "final-ranking")
    assert Player.objects.count() == 12 and Event.objects.count() == 1
