"""An organiser runs a club evening through the console and the score sheet alone, in Chromium — no
token, no JSON — in English, German and Finnish: the same walk on a browser that asks for each
language, every text it looks for taken from that language's catalogue (``say`` fails when a text
would fall back to English).

From an empty club (only his account and the club exist, as staff set them up): a Mü event of two
fixed deals with second-player confirmation, made in the event form; nine players, among them two
"Max Müller" (the second added anyway and told apart), eight checked in; the draw, then one
arrives and one leaves: drawn again, and a swap by tapping seats the namesakes at one table; the
tables and the event published, the table cards printed. Each table enters its deals on a phone
through its card's link, a second player confirming; the board and the room screen follow without
reloading. One hand the table left unconfirmed is corrected by the organiser on his phone through
the sheet's own form: refused first (the reason at the field, the entries kept), then fixed. The
standings agree on the console, the room screen, the public page, the CSV and the print page; the
round is held back and released, the public page following. Then a one-game Maumau series whose
payment is ticked and taken back.

axe-core checks every page the walk visits, at the width it is visited (tests/pages/axe.py); the
main pages are photographed at 375 and 1280 px: artifacts/screenshots/evening-{lang}-{page}-{width}.png.
"""
from __future__ import annotations

import csv
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.urls import reverse
from django.utils import translation

from tests.conftest import make_user
from tests.pages.axe import assert_accessible
from tests.pages.wait import appear
from tests.sheet.test_sheet_browser import Finger, enter, mu_deal

from .conftest import SCREENSHOTS, click_and_wait

pytestmark = pytest.mark.browser

LOCALES = ["en-GB", "de-DE", "fi-FI"]
PLAYERS = ["Anna Becker", "Bernd Fischer", "Conny Hahn", "Dagmar Koch", "Emil Lang", "Frieda Maier"]
NAMESAKE = "Max Müller"  # two of them, at one table
LATE = "Mia Zander"  # comes after the first draw
DROPOUT = "Emil Lang"  # leaves after the first draw
REASON = {"en": "card points written in the wrong column", "de": "Kartenpunkte in der falschen Spalte",
          "fi": "korttipisteet väärässä sarakkeessa"}
UNPAID = {"en": "ticked by mistake", "de": "falsch getippt", "fi": "väärä rasti"}


def say(language: str, text: str, plural: str | None = None, n: int | None = None, /, **params) -> str:
    """``text`` as the pages say it in ``language`` (``plural`` and ``n``: counted); outside English
    it fails when the text has no translation there."""
    with translation.override(language):
        said = translation.ngettext(text, plural, n) if plural else translation.gettext(text)
    if language != "en":
        assert said != (plural if plural and n != 1 else text), f"{text!r} is not translated to {language}"
    return said % params if params else said


def namesakes(text: str) -> set[str]:
    """The distinct ways "Max Müller" is shown in ``text`` (with the addition that tells him apart)."""
    return set(re.findall(rf"{NAMESAKE} \([^)]+\)", text))


def number(text: str) -> float:
    return float(text.strip().replace("\u2212", "-").replace("\u00a0", "").replace(",", "."))


def shown_standings(page, where: str = "") -> list[tuple]:
    """(player, rank, values…) of every row of the standings table on ``page``."""
    rows = page.eval_on_selector_all(f"{where} #standings tbody tr", """rows => rows.map(row => [
        Number(row.dataset.player), row.querySelector('td.rank').innerText,
        Array.from(row.querySelectorAll('td.metric'), cell => cell.innerText)])""")
    return [(player, int(rank), *[number(value) for value in values]) for player, rank, values in rows]


def expected_standings(event) -> list[tuple]:
    """The event's standings as the service computes them for the public, from the database."""
    from tournaments import policy
    from tournaments.standings.selectors import standings_document

    document = standings_document(event, visibility=policy.public())
    return [(row["player"], row["rank"], *[round(row[name], 2) for name in document["metrics"]])
            for row in document["standings"]]


def drafted(page) -> list[list[tuple[int, str]]]:
    """The drawn tables on the round page: per table, its seats' (player, shown name)."""
    return [[(player, name) for player, name in table] for table in page.eval_on_selector_all(
        "article.table-card.draft", """cards => cards.map(card => Array.from(
            card.querySelectorAll('button.seat'), seat => [Number(seat.dataset.player), seat.innerText]))""")]


class Visits:
    """axe-core on every page the walk visits (once per page, state and width), and photographs."""

    def __init__(self, language: str) -> None:
        self.language, self.checked = language, set()

    def check(self, page, state: str = "") -> None:
        width = page.viewport_size["width"]
        key = (re.sub(r"/[^/]*\d[^/]*/", "/…/", urlsplit(page.url).path), state, width)
        if key not in self.checked:
            self.checked.add(key)
            assert_accessible(page, where=f"{page.url} ({state or 'as loaded'}, {width} px, {self.language})")

    def photograph(self, page, name: str) -> None:
        """``page`` as it is now (axe-core at its own width) at 375 and 1280 px, then back to its
        own width; at 375 px it must not scroll sideways."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.check(page, name)
        own = page.viewport_size
        for width, height in ((375, 812), (1280, 900)):
            if page.viewport_size["width"] != width:
                page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(SCREENSHOTS / f"evening-{self.language}-{name}-{width}.png"), full_page=True, scale="css")
            if width == 375:
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= 375, f"{name} is {wide} px wide on a 375 px phone"
        page.set_viewport_size(own)


@pytest.mark.parametrize("locale", LOCALES)
def test_an_organiser_runs_an_evening_through_the_console(transactional_db, module_asgi_server, new_page, locale):
    from games.messages import message
    from games.rules import Code
    from tournaments import services
    from tournaments.models import Event, Hand, Player, Round, Table, Transfer

    base, language = module_asgi_server, locale[:2]
    visits = Visits(language)
    organiser = make_user(f"abend_{language}")
    login = (organiser.username, f"pw-{organiser.username}")
    club = services.club_create(by_user=None, name="Kortti Klubi", city="Tampere", organisers=[organiser])

    page = new_page(locale=locale)
    page.goto(f"{base}/accounts/login/")
    visits.check(page)
    page.fill("#id_username", login[0])
    page.fill("#id_password", login[1])
    click_and_wait(page, "#log-in")
    assert page.url == f"{base}/console/"
    assert page.locator("html").get_attribute("lang") == language
    visits.check(page)

    # --- the event: Mü, two deals, a second player confirms each hand ----------------------------
    click_and_wait(page, 'a[href="/console/events/new/"]')
    visits.check(page)
    page.fill("#id_name", f"Mü-Abend {language}")
    page.select_option("#id_game", "mu")
    page.fill("#id_mu_fixed_deals", "2")
    page.check("#id_confirm_hands")
    assert say(language, "A Mü game ends after the deal in which a player's total reaches this score.") \
        in page.inner_text("#event-form")
    click_and_wait(page, "#event-form button[type=submit]")
    event = Event.objects.get(name=f"Mü-Abend {language}")
    assert event.confirm_hands and event.mu_fixed_deals == 2 and not event.published
    assert say(language, "Not public yet.") in page.inner_text("#publication")
    assert say(language, "A second player confirms each hand.") in page.inner_text("#rules")
    visits.check(page)

    # --- players: eight here, one more who comes later; the second Max Müller added anyway ---------
    players_url = f"{base}/console/events/{event.pk}/players/"
    page.goto(players_url)
    visits.check(page)

    def add(name: str, *, here: bool = True) -> None:
        page.fill("#id_name", name)
        page.set_checked("#id_check_in", here)
        click_and_wait(page, "#add-player button[type=submit]")

    for name in PLAYERS + [NAMESAKE, NAMESAKE]:
        add(name)
    assert page.inner_text("#add-player .warning") == say(
        language, "There is already a %(name)s in %(club)s. Is this another person? Then add the new one anyway.",
        "There are already %(count)s players named %(name)s in %(club)s. Is this another person? Then add the new "
        "one anyway.", 1, name=NAMESAKE, club=club.name, count=1)
    visits.check(page, "same name")
    page.fill("#id_distinction", "Hervanta")
    click_and_wait(page, "#add-player button[type=submit]")
    assert Player.objects.filter(name=NAMESAKE).count() == 2
    add(LATE, here=False)
    assert page.inner_text("#present-count").startswith(say(
        language, "%(present)s player is here tonight.", "%(present)s players are here tonight.", 8, present=8))
    assert len(namesakes(page.inner_text("#members"))) == 2
    page.fill("#q", "fischer")
    click_and_wait(page, "form[role=search] button")
    assert page.locator("li.person").count() == 1
    visits.check(page, "found")

    # --- round 1: drawn; one arrives, one leaves: drawn again; the namesakes seated together -------
    page.goto(f"{base}/console/events/{event.pk}/")
    click_and_wait(page, "#new-round")
    visits.check(page)
    click_and_wait(page, "#draw")
    assert say(language, "Nobody meets anyone again: every pair at a table is new.") in page.inner_text("#draw-report")
    assert page.locator("button.seat").count() == 8
    assert LATE not in page.inner_text("main")
    visits.check(page, "drawn")
    round_ = Round.objects.get(event=event, number=1)
    late, dropout = Player.objects.get(name=LATE), Player.objects.get(name=DROPOUT)
    page.goto(players_url)
    click_and_wait(page, f"#player-{late.pk} button")
    click_and_wait(page, f"#player-{dropout.pk} button")
    page.goto(f"{base}/console/rounds/{round_.pk}/")
    warning = page.inner_text("#draw-report .warning")
    assert f"{say(language, 'Arrived since this draw:')} {LATE}" in warning
    assert f"{say(language, 'Left since this draw:')} {DROPOUT}" in warning
    visits.check(page, "arrived and left")
    click_and_wait(page, "#draw")
    drawn = drafted(page)
    seated = " ".join(name for table in drawn for _, name in table)
    assert len(drawn) == 2 and LATE in seated and DROPOUT not in seated

    # A swap by tapping: a Max Müller to the other's table (or, drawn together, two others).
    maxes = [[player for player, name in table if NAMESAKE in name] for table in drawn]
    together = next((index for index, found in enumerate(maxes) if len(found) == 2), None)
    if together is None:
        home = next(index for index, found in enumerate(maxes) if found)
        first, other = maxes[1 - home][0], next(p for p, name in drawn[home] if NAMESAKE not in name)
    else:
        first, other = next(p for p, name in drawn[together] if NAMESAKE not in name), drawn[1 - together][0][0]
    page.click(f'button.seat[data-player="{first}"]')
    with page.expect_navigation():
        page.click(f'button.seat[data-player="{other}"]')
    swapped = drafted(page)

    def table_of(seating, player: int) -> int:
        return next(index for index, table in enumerate(seating) if player in [p for p, _ in table])

    assert table_of(swapped, first) == table_of(drawn, other) and table_of(swapped, other) == table_of(drawn, first)
    assert sorted(sum(NAMESAKE in name for _, name in table) for table in swapped) == [0, 2]

    click_and_wait(page, "#publish-round")
    assert round_.tables.count() == 2
    # The table cards to print: a card per table with its QR code and the link the code holds.
    cards_url = page.get_attribute("#print-cards", "href")
    assert cards_url == reverse("sheet:cards", args=[round_.pk])
    page.goto(base + cards_url)
    visits.check(page)
    cards = page.locator("article.table-card")
    assert cards.count() == 2 and page.locator("article.table-card svg").count() == 2
    links = cards.locator(".link").all_inner_texts()
    told_apart = [len(namesakes(card)) for card in cards.all_inner_texts()]
    assert sorted(told_apart) == [0, 2]
    link_a, link_b = links[told_apart.index(2)], links[told_apart.index(0)]
    table_a = Table.objects.get(scorer_token=link_a.rstrip("/").rsplit("/", 1)[1])  # the namesakes' table
    a, b = table_a.number, 3 - table_a.number
    page.goto(f"{base}/console/events/{event.pk}/")
    click_and_wait(page, "#publish-event")
    event.refresh_from_db()
    assert event.published

    # --- the room screen and the board, before the first hand --------------------------------------
    screen = new_page(locale=locale)
    screen.set_viewport_size({"width": 1280, "height": 720})
    screen.goto(f"{base}/events/{event.pk}/screen/")
    appear(screen, "body[data-live-state=connected]")
    screen.evaluate("window.__notReloaded = true")
    visits.check(screen)
    progress = say(language, "Round %(number)s", number=1)
    assert screen.inner_text("#progress-title").startswith(progress)
    assert screen.inner_text(f'#screen-progress [data-table="{a}"] .badge') == say(language, "not started")
    assert len(namesakes(screen.inner_text(f'#screen-progress [data-table="{a}"]'))) == 2
    page.goto(f"{base}/console/rounds/{round_.pk}/")
    appear(page, "body[data-live-state=connected]")
    page.evaluate("window.__notReloaded = true")
    visits.check(page, "published")
    assert page.locator('#board [data-state="waiting"]').count() == 2
    assert len(namesakes(page.inner_text(f'#board [data-table="{a}"]'))) == 2
    board_a = f'#board [data-table="{a}"]'

    # --- the namesakes' table enters its deals on a phone, through its card's link -----------------
    sheet = new_page(phone=True, locale=locale)
    sheet.goto(link_a)
    appear(sheet, "html[data-ready]")
    assert sheet.locator("html").get_attribute("lang") == language
    assert len(namesakes(sheet.inner_text("body"))) == 2
    visits.check(sheet)
    finger = Finger(sheet)
    finger.pick("entered_by", 0)
    mu_deal(finger, [3, 1, 2, 0], vice_trump="G", chef_trump="1", partner=1, points=[20, 15, 15, 10])
    enter(finger, 1)
    assert sheet.locator('#running tr[data-hand="1"] .tag-unconfirmed').count() == 1
    appear(page, f'{board_a}[data-state="confirming"]')
    assert page.inner_text(f"{board_a} .badge") == say(language, "waiting for confirmation")
    visits.check(sheet, "a hand to confirm")
    # Handed over: the third player confirms; the hand counts, on the board too.
    finger.tap('#running button[data-action="confirm"]')
    finger.tap('#confirm-picks button[data-seat="2"]')
    appear(sheet, '#running tr[data-hand="1"]:not(.not-counted)')
    appear(page, f'{board_a}[data-state="playing"]')
    one_of_two = say(language, "%(entered)s of %(due)s", entered=say(
        language, "%(count)s hand", "%(count)s hands", 1, count=1), due=2)
    assert page.inner_text(f"{board_a} .progress") == one_of_two
    appear(screen, f'#screen-progress [data-table="{a}"][data-state="playing"]')
    # The second deal: nobody confirms it (the table disagrees about the card points).
    finger.pick("entered_by", 3)
    mu_deal(finger, [0, 3, 1, 2], vice_trump="R", chef_trump="B", partner=0, points=[10, 20, 12, 18])
    enter(finger, 2)
    visits.photograph(sheet, "sheet")

    # --- the other table, on the same phone: two deals, each confirmed ----------------------------
    sheet.goto(link_b)
    appear(sheet, "html[data-ready]")
    finger = Finger(sheet)
    for number_ in (1, 2):
        finger.pick("entered_by", 0)
        mu_deal(finger, [2, 2, 1, 0], provocateur=1)  # an Eklat: seats 1 and 2 tie on 2
        enter(finger, number_)
        finger.tap('#running button[data-action="confirm"]')
        finger.tap('#confirm-picks button[data-seat="1"]')
        appear(sheet, f'#running tr[data-hand="{number_}"]:not(.not-counted)')
    assert sheet.inner_text("#session-end") == say(language, "Session over: %(deals)s deals played.", deals=2)
    appear(page, f'#board [data-table="{b}"][data-state="finished"]')
    appear(screen, '#screen-progress[data-finished="1"]')
    assert screen.inner_text(f'#screen-progress [data-table="{a}"] .badge') == say(language, "waiting for confirmation")
    assert page.evaluate("window.__notReloaded") is True
    visits.photograph(page, "board")
    before = shown_standings(screen)

    # --- the unconfirmed hand corrected on the organiser's phone: refused, then fixed ---------------
    hand = Hand.objects.get(session__table=table_a, number=2)
    assert hand.unconfirmed
    phone = new_page(phone=True, locale=locale)
    errors = []
    phone.on("pageerror", lambda error: errors.append(str(error)))
    phone.goto(f"{base}/accounts/login/")
    visits.check(phone)
    phone.fill("#id_username", login[0])
    phone.fill("#id_password", login[1])
    click_and_wait(phone, "#log-in")
    visits.check(phone)
    phone.goto(f"{base}/console/tables/{table_a.pk}/")
    visits.check(phone)
    phone.click(f"#hand-{hand.pk} + tr summary")
    click_and_wait(phone, f"#hand-{hand.pk} + tr a.correct-hand")
    visits.check(phone)
    seats = phone.inner_text(".meta")
    assert f"{say(language, 'Seat')} 1: " in seats and len(namesakes(seats)) == 2
    # The sheet's form, filled with the stored hand; nothing to type but numbers.
    assert phone.locator('input[name="bid-1"][value="3"]').is_checked()
    assert phone.locator('input[name="partner"][value="0"]').is_checked()
    assert [phone.input_value(f"#points-{seat}") for seat in range(4)] == ["10", "20", "12", "18"]
    assert phone.locator("textarea").count() == 0
    # Seat 1's 10 were 14 — but seat 4's 18 left as they were: 64 card points, refused at the field.
    phone.fill("#points-0", "14")
    phone.fill("#correct-reason", REASON[language])
    click_and_wait(phone, "#save-correction")
    note = phone.locator('#card-points .field-error[data-for="/summary/card_points"]')
    note.wait_for()
    with translation.override(language):
        reason = message(Code.CARD_POINTS_SUM, "/summary/card_points", {"due": 60, "got": 64})
    assert "64" in reason and note.inner_text() == reason
    assert phone.inner_text("#correct-refused") == say(
        language, "Not saved: the reason is shown at the field. What you entered is kept.")
    assert phone.input_value("#points-0") == "14" and phone.input_value("#points-3") == "18"
    assert phone.input_value("#correct-reason") == REASON[language]
    assert phone.locator('input[name="bid-1"][value="3"]').is_checked()
    hand.refresh_from_db()
    assert hand.version == 1 and hand.unconfirmed
    visits.photograph(phone, "correction-refused")
    # Fixed: seat 4 had 14. Saved; the organiser's correction decides the unconfirmed hand.
    phone.fill("#points-3", "14")
    click_and_wait(phone, "#save-correction")
    assert say(language, "Hand %(number)s corrected.", number=2) in phone.inner_text(".messages")
    hand.refresh_from_db()
    assert hand.version == 2 and not hand.unconfirmed
    assert hand.record["summary"]["card_points"] == [14, 20, 12, 14] and hand.record["dealer"] == hand.dealer
    assert not errors

    # --- the board and the room screen follow: both tables finished --------------------------------
    page.wait_for_function("() => document.querySelectorAll('#board [data-state=finished]').length === 2")
    appear(screen, '#screen-progress[data-finished="2"]')
    assert screen.inner_text("#progress-title") == progress + ": " + say(
        language, "%(done)s of %(total)s table finished", "%(done)s of %(total)s tables finished", 2, done=2, total=2)
    # The latest results: the other table first (the namesakes' table ended with its second deal,
    # before it was confirmed).
    latest = screen.locator("#screen-latest li")
    assert [latest.nth(i).get_attribute("data-table") for i in range(latest.count())] == [str(b), str(a)]
    assert latest.first.inner_text().startswith(say(language, "Round %(round)s, table %(table)s", round=1, table=b))
    expected = expected_standings(event)
    assert len(expected) == 8 and expected != before
    screen.wait_for_function("rows => document.querySelectorAll('#standings tbody tr').length === rows", arg=8)
    assert shown_standings(screen) == expected
    assert len(namesakes(screen.inner_text("#standings"))) == 2
    assert screen.evaluate("window.__notReloaded") is True and page.evaluate("window.__notReloaded") is True
    visits.photograph(screen, "screen")

    # --- the standings in the console, as CSV and to print -----------------------------------------
    page.goto(f"{base}/console/events/{event.pk}/")
    assert shown_standings(page) == expected
    assert len(namesakes(page.inner_text("#standings"))) == 2
    visits.photograph(page, "standings")
    with page.expect_download() as download:
        page.click(".standings-links a[download]")
    rows = list(csv.reader(Path(download.value.path()).read_text(encoding="utf-8-sig").splitlines()))
    assert rows[0][:4] == ["rank", "player", "name", "played"] and len(namesakes(" ".join(row[2] for row in rows))) == 2
    assert [(int(player), int(rank), *[round(float(v), 2) for v in values])
            for rank, player, _name, _played, *values in rows[1:]] == expected
    click_and_wait(page, f'.standings-links a[href="{reverse("pages:standings_print", args=[event.pk])}"]')
    visits.check(page)
    assert shown_standings(page) == expected

    # --- held back until the prize-giving, then released: the public page follows ------------------
    page.goto(f"{base}/console/rounds/{round_.pk}/")
    page.fill("#hold-reason", "Siegerehrung")
    click_and_wait(page, "#hold-back")
    assert say(language, "Results held back.") in page.inner_text("#hold")
    public = new_page(locale=locale)
    public.goto(f"{base}/events/{event.pk}/")
    appear(public, "body[data-live-state=connected]")
    assert public.locator('section.round[data-round="1"]').count() == 0
    visits.check(public, "held")
    click_and_wait(page, "#release")
    appear(public, 'section.round[data-round="1"]')
    public.wait_for_function("() => document.querySelectorAll('#standings tbody tr').length === 8")
    assert shown_standings(public, "#standings-live") == expected
    visits.check(public)

    # --- a Maumau series of one game: its payment ticked, then taken back --------------------------
    page.goto(f"{base}/console/events/new/")
    page.fill("#id_name", f"Maumau {language}")
    page.select_option("#id_game", "maumau")
    page.fill("#id_maumau_games_per_series", "1")
    click_and_wait(page, "#event-form button[type=submit]")
    maumau = Event.objects.get(name=f"Maumau {language}")
    page.goto(f"{base}/console/events/{maumau.pk}/players/")
    for player in Player.objects.filter(name__in=PLAYERS[:4]):
        click_and_wait(page, f"#player-{player.pk} button")
    page.goto(f"{base}/console/events/{maumau.pk}/")
    click_and_wait(page, "#new-round")
    click_and_wait(page, "#draw")
    click_and_wait(page, "#publish-round")
    sheet.goto(base + page.get_attribute('#board .links a[href^="/t/"]', "href"))
    appear(sheet, "html[data-ready]")
    visits.check(sheet, "maumau")
    finger = Finger(sheet)
    finger.numbers("#minus-0", [0, 5, 12, 3])
    enter(finger, 1)
    assert sheet.inner_text("#session-end").startswith(say(language, "Series over: %(games)s games played.", games=1))
    page.goto(f"{base}/console/events/{maumau.pk}/money/")
    visits.check(page)
    transfer = Transfer.objects.filter(session__table__round__event=maumau).order_by("-cents", "id").first()
    item = f"#transfer-{transfer.pk}"
    click_and_wait(page, f"{item} button")
    assert say(language, "paid") in page.inner_text(f"{item} .tag")
    transfer.refresh_from_db()
    assert transfer.paid
    visits.check(page, "paid")
    page.fill(f"#unpaid-reason-{transfer.pk}", UNPAID[language])
    click_and_wait(page, f"{item} button")
    transfer.refresh_from_db()
    assert not transfer.paid
    assert page.locator(f"{item} .tag").count() == 0
    assert page.inner_text(f"{item} button") == say(language, "Paid")
    visits.photograph(page, "money")
