"""An organiser runs a club evening through the console alone, in Chromium: 12 players, 3 rounds of
Mü, from an empty database (only his account and his club exist, as staff set them up).

Create the event, add and check in the players, draw round 1, publish the event and the tables,
watch the board fill while the tables enter their hands (through the API with the organiser's
token: the score sheet is another page), correct one hand; round 2 with a late arrival and a
dropout, a swap by tapping; hold round 3 back and release it. The standings at the end equal the
API's, on the console, the public page and the room screen. Screenshots at 375 and 1280 px.
"""
from __future__ import annotations

import json
import random
import urllib.request

import pytest
from django.urls import reverse

from tests.api.play import next_record
from tests.conftest import make_user

from .conftest import log_in

pytestmark = pytest.mark.browser

PLAYERS = [
    "Anna Becker", "Bernd Fischer", "Conny Hahn", "Dagmar Koch", "Emil Lang", "Frieda Maier",
    "Gustav Neumann", "Hanna Otto", "Ilse Peters", "Jonas Richter", "Karla Schulz", "Lukas Vogel",
]
LATE = "Mia Zander"  # arrives for round 2
DROPOUT = "Lukas Vogel"  # leaves after round 1


def api(base: str, path: str, token: str | None = None, body=None) -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    request = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode() if body is not None else None,
                                     headers=headers, method="POST" if body is not None else "GET")
    with urllib.request.urlopen(request, timeout=15) as response:
        return json.load(response)


def play_table(base: str, table, token: str, rng: random.Random, hands: int | None = None) -> None:
    """Enter the table's hands through the API until its session ends (or ``hands`` of them)."""
    session = api(base, f"/api/v1/tables/{table.pk}/hands/", token)["session"]
    entered = 0
    while (session is None or session["status"] == "open") and (hands is None or entered < hands):
        record = next_record("mu", rng, table.seats.count(), session, table.first_dealer)
        session = api(base, f"/api/v1/tables/{table.pk}/hands/", token, record)["session"]
        entered += 1


def click_and_wait(page, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)


def test_an_organiser_runs_an_evening_through_the_console(asgi_server, new_page, photograph):
    from tournaments import services
    from tournaments.models import Event, Hand, Player, Round

    base = asgi_server
    organiser = make_user("abend")
    organiser.set_password("abend-pw")
    organiser.save()
    services.club_create(by_user=None, name="Skatfreunde Köln", city="Köln", organisers=[organiser])
    token = organiser.auth_token.key
    rng = random.Random(2026)
    login = ("abend", "abend-pw")

    page = new_page()
    log_in(page, base, *login)
    assert page.url == f"{base}/console/"

    # --- the event ------------------------------------------------------------------------------
    click_and_wait(page, "text=New event")
    page.fill("#id_name", "Mü-Abend")
    page.select_option("#id_game", "mu")
    page.fill("#id_mu_fixed_deals", "4")
    assert "reaches this score" in page.inner_text("#event-form")
    photograph(page.url, "console-event-form", login=login)
    click_and_wait(page, "#event-form button[type=submit]")
    event = Event.objects.get(name="Mü-Abend")
    assert not event.published and "Not public yet." in page.inner_text("#publication")

    # --- players: twelve here tonight, one more who comes later ---------------------------------
    page.goto(f"{base}/console/events/{event.pk}/players/")
    for name in PLAYERS + [LATE]:
        page.fill("#id_name", name)
        page.set_checked("#id_check_in", name != LATE)
        click_and_wait(page, "#add-player button[type=submit]")
    assert "12 players are here tonight." in page.inner_text("#present-count")
    page.fill("#q", "hanna")
    click_and_wait(page, "form[role=search] button")
    assert page.locator("li.person").count() == 1
    photograph(f"{base}/console/events/{event.pk}/players/", "console-players", login=login)

    # --- round 1: draw, publish the event and the tables ----------------------------------------
    page.goto(f"{base}/console/events/{event.pk}/")
    click_and_wait(page, "#new-round")
    click_and_wait(page, "#draw")
    assert "Nobody meets anyone again" in page.inner_text("#draw-report")
    assert page.locator("button.seat").count() == 12
    assert LATE not in page.inner_text("main")
    click_and_wait(page, "#publish-round")
    round_1 = Round.objects.get(event=event, number=1)
    assert round_1.tables.count() == 3
    # The table cards to print: one card per table, each with its QR code.
    cards_url = page.get_attribute("#print-cards", "href")
    assert cards_url == reverse("sheet:cards", args=[round_1.pk])
    page.goto(base + cards_url)
    assert page.locator("article.table-card svg").count() == 3
    page.goto(f"{base}/console/events/{event.pk}/")
    click_and_wait(page, "#publish-event")
    event.refresh_from_db()
    assert event.published

    # --- watch the board while the tables play ---------------------------------------------------
    page.goto(f"{base}/console/rounds/{round_1.pk}/")
    page.wait_for_selector("body[data-live-state=connected]")
    page.evaluate("window.__notReloaded = true")
    tables = list(round_1.tables.order_by("number"))
    assert page.locator('#board [data-state="waiting"]').count() == 3
    # The first table enters two deals on its phone, through the score sheet (its private link).
    from tests.sheet.test_sheet_browser import Finger, enter, mu_deal

    sheet = new_page(phone=True)
    sheet.goto(f"{base}/t/{tables[0].scorer_token}/")
    sheet.wait_for_selector("html[data-ready]")
    finger = Finger(sheet)
    for number in (1, 2):
        mu_deal(finger, [2, 2, 1, 0], provocateur=1)  # an Eklat: seats 1 and 2 tie on 2
        enter(finger, number)
    page.wait_for_selector('#board [data-table="1"][data-state="playing"]')
    # The board follows the table's phone by itself (server push), hand by hand.
    # (a function, not an expression: Playwright evaluates an expression with eval, which the
    # page's Content-Security-Policy refuses)
    page.wait_for_function("""() => document.querySelector('#board [data-table="1"]').innerText.includes('2 hands of 4')""")
    for table in tables:
        play_table(base, table, token, rng)
    page.wait_for_function("() => document.querySelectorAll('#board [data-state=finished]').length === 3")
    assert page.evaluate("window.__notReloaded") is True
    photograph(page.url, "console-board", login=login)

    # --- correct one hand: the record pasted back with another dealer's deal ---------------------
    hand = Hand.objects.get(session__table=tables[1], number=2)
    page.goto(f"{base}/console/tables/{tables[1].pk}/")
    page.click(f"#hand-{hand.pk} + tr summary")
    click_and_wait(page, f"#hand-{hand.pk} + tr a.correct-hand")
    corrected = next_record("mu", random.Random(5), 4, {"next": {"dealer": hand.dealer, "direction": None}})
    # A hand the API stored in full (its cards) is corrected as its record; one the sheet entered,
    # through the sheet's form (tests/console/test_correct_browser.py).
    page.fill(f"#record-{hand.pk}", json.dumps(corrected))
    page.fill("#correct-reason", "scores swapped by the table")
    click_and_wait(page, "#save-correction")
    assert "Hand 2 corrected." in page.inner_text(".messages")
    hand.refresh_from_db()
    assert hand.version == 2 and hand.record == corrected
    photograph(page.url, "console-table", login=login)

    # --- round 2: drawn, then one arrives and one leaves: drawn again, a swap by tapping ---------
    page.goto(f"{base}/console/events/{event.pk}/")
    click_and_wait(page, "#new-round")
    round_2 = Round.objects.get(event=event, number=2)
    click_and_wait(page, "#draw")
    assert "3 pairs meet again — the fewest possible for 12 players in round 2." in page.inner_text("#draw-report")
    players_page = f"{base}/console/events/{event.pk}/players/"
    late, dropout = Player.objects.get(name=LATE), Player.objects.get(name=DROPOUT)
    page.goto(players_page)
    click_and_wait(page, f"#player-{late.pk} button")
    click_and_wait(page, f"#player-{dropout.pk} button")
    page.goto(f"{base}/console/rounds/{round_2.pk}/")
    warning = page.inner_text("#draw-report")
    assert f"Arrived since this draw: {LATE}" in warning and f"Left since this draw: {DROPOUT}" in warning
    click_and_wait(page, "#draw")
    round_2.refresh_from_db()
    assert late.pk in round_2.draft["players"] and dropout.pk not in round_2.draft["players"]
    photograph(page.url, "console-draw", login=login)
    first, other = round_2.draft["tables"][0]["players"][0], round_2.draft["tables"][1]["players"][0]
    page.click(f'button.seat[data-player="{first}"]')
    with page.expect_navigation():
        page.click(f'button.seat[data-player="{other}"]')
    round_2.refresh_from_db()
    assert round_2.draft["tables"][0]["players"][0] == other and round_2.draft["tables"][1]["players"][0] == first
    click_and_wait(page, "#publish-round")
    for table in round_2.tables.order_by("number"):
        play_table(base, table, token, rng)

    # --- round 3: held back while it is played, then released ------------------------------------
    page.goto(f"{base}/console/events/{event.pk}/")
    click_and_wait(page, "#new-round")
    round_3 = Round.objects.get(event=event, number=3)
    click_and_wait(page, "#draw")
    click_and_wait(page, "#publish-round")
    page.fill("#hold-reason", "until the prize-giving")
    click_and_wait(page, "#hold-back")
    for table in round_3.tables.order_by("number"):
        play_table(base, table, token, rng)
    public = new_page()
    public.goto(f"{base}/events/{event.pk}/")
    assert public.locator('section.round[data-round="3"]').count() == 0
    held_standings = api(base, f"/api/v1/events/{event.pk}/standings/")
    assert all(row["played"] <= 2 for row in held_standings["standings"])
    public.wait_for_selector("body[data-live-state=connected]")
    page.goto(f"{base}/console/rounds/{round_3.pk}/")
    click_and_wait(page, "#release")
    # The public page follows the release by itself.
    public.wait_for_selector('section.round[data-round="3"]')

    # --- the standings equal the API's -----------------------------------------------------------
    document = api(base, f"/api/v1/events/{event.pk}/standings/")
    assert len(document["standings"]) == 13 and max(row["played"] for row in document["standings"]) == 3
    expected = [
        (row["rank"], row["player"], row["played"], *[round(row[m], 2) for m in document["metrics"]])
        for row in document["standings"]
    ]
    screen = new_page()
    screen.goto(f"{base}/events/{event.pk}/screen/")
    for shown_on, where in ((public, "#standings-live"), (screen, "#screen-standings")):
        shown_on.reload()
        # (the room screen has a column more: the change since the previous round)
        rows = shown_on.eval_on_selector_all(f"{where} #standings tbody tr", """rows => rows.map(row => [
            Number(row.dataset.player), row.querySelector('td.rank').innerText, row.querySelector('td.played').innerText,
            Array.from(row.querySelectorAll('td.metric'), cell => cell.innerText.trim())])""")
        assert [
            (int(rank), player, int(played), *[float(v.replace(",", ".")) for v in metrics])
            for player, rank, played, metrics in rows
        ] == [(rank, player, played, *values) for rank, player, played, *values in expected]
    page.goto(f"{base}/console/events/{event.pk}/")
    console_rows = page.eval_on_selector_all("#standings tbody tr", "rows => rows.map(r => Number(r.dataset.player))")
    assert console_rows == [row["player"] for row in document["standings"]]
    photograph(f"{base}/console/events/{event.pk}/", "console-event", login=login)
    photograph(f"{base}/events/{event.pk}/screen/", "screen")
    photograph(f"{base}/events/{event.pk}/", "event-live")
