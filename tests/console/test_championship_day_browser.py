"""A championship day of 24 Mü players run in the console alone, in Chromium (issue 40's "Judged by").

The club has two members already (Anna Alt, Bernd Alt) and an event open for registration; the
organiser sets its final (the top four, half of the preliminary points carried over) in the event
form, and the registration page's format says so. Four people register on the event's public page
on a phone (its form laid out as the console's: labels above full-width inputs); the organiser
confirms them in the
console's registrations page, matches Anna Alt to the existing player and creates the three others,
and checks them in from the registered list. The rest of the field comes from a Windows-1252 CSV
file (";") through the console's import page (file input): the preview lists a new player per row,
Bernd Alt as existing, and a repeated line as an error; the import stores 19 new players; the 20
are checked in on the players' page. Rounds 1 and 2 are drawn `varied`, round 3 by `standings`
(the draw form's method), each published; round 1 runs with the round clock (45 minutes, started,
extended). The preliminary results are seeded through the models (typing them is not the point);
the final round is drawn for the top four, published, and its table plays its two deals on a
phone through the score sheet. The final ranking is shown above the preliminary one on the console
and the public event page, in the order computed here by hand (final points plus half the
preliminary ones).

The walk is in English (the console at 1280 px, the registration and the sheet on a phone);
axe-core checks every page it visits. The key pages — the registration page, the import preview,
the draw form with its method, the final ranking (console and public) — are also opened in German
and Finnish; every key page is checked by axe-core and photographed at 375 and 1280 px in each
language: artifacts/screenshots/champday-{lang}-{page}-{width}.png.
"""
from __future__ import annotations

import datetime
import re
from fractions import Fraction
from urllib.parse import urlsplit

import pytest
from django.utils import translation

from tests.conftest import make_user
from tests.pages.axe import assert_accessible
from tests.pages.wait import appear
from tests.sheet.test_sheet_browser import Finger, enter, mu_deal

from .conftest import SCREENSHOTS, click_and_wait, log_in

pytestmark = pytest.mark.browser

REGISTRANTS = ["Anna Alt", "Carla Dorn", "Dieter Eck", "Edda Funk"]  # Anna Alt is a member already
IMPORTED = [f"{first} {last}" for first, last in zip(
    ["Jörg", "Käthe", "Lutz", "Maren", "Nils", "Olga", "Paul", "Quirin", "Rita", "Sören",
     "Tanja", "Uwe", "Vera", "Willi", "Xenia", "Yusuf", "Zora", "Ägidius", "Ömer"],
    ["Weiß", "Groß", "Haas", "Iser", "Jahn", "Kühn", "Lenz", "Mohr", "Nagel", "Ott",
     "Pohl", "Quast", "Roth", "Sauer", "Thiel", "Ulm", "Vogt", "Wirth", "Zeh"])]
MEMBER_IN_FILE = "Bernd Alt"  # a member already: the file's row is "existing"


def csv_bytes() -> bytes:
    """The field as a German spreadsheet saves it: ";" and Windows-1252, a line repeated by mistake."""
    lines = ["Name;Verein;Zusatz", f"{MEMBER_IN_FILE};;"] + [f"{name};;" for name in IMPORTED] + [f"{IMPORTED[0]};;"]
    return ("\r\n".join(lines) + "\r\n").encode("cp1252")


def say(language: str, text: str) -> str:
    with translation.override(language):
        said = translation.gettext(text)
    assert language == "en" or said != text, f"{text!r} is not translated to {language}"
    return said


class Visits:
    """axe-core on every page visited (once per path, state and width), and the key pages
    photographed at 375 and 1280 px (axe-core at both)."""

    def __init__(self) -> None:
        self.checked: set = set()

    def check(self, page, state: str = "") -> None:
        width = page.viewport_size["width"]
        key = (re.sub(r"/\d+/", "/…/", urlsplit(page.url).path), state, width)
        if key not in self.checked:
            self.checked.add(key)
            assert_accessible(page, where=f"{page.url} ({state or 'as loaded'}, {width} px)")

    def photograph(self, page, language: str, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        own = page.viewport_size
        for width, height in ((375, 812), (1280, 900)):
            page.set_viewport_size({"width": width, "height": height})
            self.check(page, f"{name} {language}")
            page.screenshot(path=str(SCREENSHOTS / f"champday-{language}-{name}-{width}.png"), full_page=True,
                            scale="css")
            if width == 375:
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= 375, f"{name} ({language}) is {wide} px wide on a 375 px phone"
        page.set_viewport_size(own)


def finish(event, round_, totals_of) -> None:
    """Each table of ``round_`` finished with the totals ``totals_of(player)`` (the kept sums rebuilt)."""
    from tournaments.models import Session
    from tournaments.standings import sums

    for table in round_.tables.all():
        seats = list(table.seats.order_by("position").values_list("player_id", flat=True))
        Session.objects.create(table=table, number=1, status="finished", hand_count=2,
                               totals=[totals_of(p) for p in seats])
    sums.rebuild([event.pk])


def drafted(round_) -> list[list[int]]:
    round_.refresh_from_db()
    return [table["players"] for table in round_.draft["tables"]]


def test_a_championship_day_of_24_players_in_the_console(asgi_server, new_page, tmp_path):
    from tournaments import services
    from tournaments.models import Attendance, Player, Registration, Round, Session

    base = asgi_server
    visits = Visits()
    organiser = make_user("meister")
    organiser.set_password("meister-pw")
    organiser.save()
    club = services.club_create(by_user=None, name="Skatfreunde Bonn", city="Bonn", organisers=[organiser])
    anna = services.player_create(by_user=organiser, name="Anna Alt", clubs=[club])
    bernd = services.player_create(by_user=organiser, name=MEMBER_IN_FILE, clubs=[club])
    event = services.event_create(by_user=organiser, club=club, name="Bonner Meisterschaft", game="mu",
                                  published=True, mu_fixed_deals=2, standings_metrics="total,wins",
                                  registration_open=True, capacity=30, place="Gasthaus Zur Post",
                                  starts_on=datetime.date(2026, 12, 5))

    # The German and Finnish organisers' desks, for the key pages.
    desks = {}
    for locale in ("de-DE", "fi-FI"):
        other = new_page(locale=locale)
        log_in(other, base, "meister", "meister-pw")
        desks[locale[:2]] = other

    def in_other_languages(name: str, url: str, then=None) -> None:
        for language, other in desks.items():
            other.goto(url)
            assert other.locator("html").get_attribute("lang") == language
            if then:
                then(other, language)
            visits.photograph(other, language, name)

    # --- the format: a final of the top four, half of the preliminary points carried over ------------
    desk = new_page()
    desk.goto(f"{base}/accounts/login/")
    visits.check(desk)
    log_in(desk, base, "meister", "meister-pw")
    visits.check(desk)
    desk.goto(f"{base}/console/events/{event.pk}/edit/")
    visits.check(desk)
    desk.fill("#id_final_size", "4")
    desk.select_option("#id_final_carry", "half")
    click_and_wait(desk, "#event-form button[type=submit]")
    assert desk.is_visible("#final-rule")
    visits.check(desk)

    def final_rule(language: str) -> str:
        return say(language, "The top %(size)s of the preliminary rounds play the final; they keep %(carry)s.") % {
            "size": 4, "carry": say(language, "half of the preliminary points")}

    # --- registration on the public page, on a phone ---------------------------------------------
    phone = new_page(phone=True)
    register_url = f"{base}/events/{event.pk}/register/"
    for name in REGISTRANTS:
        phone.goto(register_url)
        visits.check(phone)
        assert "Gasthaus Zur Post" in phone.inner_text("#event-facts")
        assert phone.inner_text("#event-facts #final-rule") == final_rule("en")  # the format says it
        phone.fill("#id_name", name)
        phone.fill("#id_contact", f"{name.split()[0].lower()}@example.org")
        click_and_wait(phone, "#register")
        visits.check(phone, "registered")
        assert re.search(r"/withdraw/[\w-]{30,}/$", phone.inner_text("#withdraw-link"))
    phone.goto(register_url)
    # A form as on the console: each label above its input, the input as wide as the form.
    label, field, form = (phone.locator(selector).bounding_box()
                          for selector in ("label[for=id_name]", "#id_name", "#register-form"))
    assert label["y"] + label["height"] <= field["y"] and field["width"] >= form["width"] - 2
    visits.photograph(phone, "en", "register")

    def states_the_final(other, language: str) -> None:
        assert other.inner_text("#event-facts #final-rule") == final_rule(language)

    in_other_languages("register", register_url, states_the_final)
    assert Registration.objects.filter(event=event, status="registered").count() == 4

    # --- the console: confirm, match or create, check in -------------------------------------------
    desk.goto(f"{base}/console/events/{event.pk}/registrations/")
    visits.check(desk)
    for registration in Registration.objects.filter(event=event).order_by("pk"):
        row = f"#registration-{registration.pk}"
        click_and_wait(desk, f"{row} button[aria-label='Confirm {registration.name}']")
        if registration.name == "Anna Alt":  # a member already: matched to her, not created again
            desk.select_option(f"{row} form.match select", str(anna.pk))
        else:
            assert desk.input_value(f"{row} form.match select") == ""  # a new player by this name
        click_and_wait(desk, f"{row} form.match button")
        click_and_wait(desk, f"{row} button[aria-label='Check in {registration.name}']")
    visits.check(desk, "checked in")
    registered = dict(Registration.objects.filter(event=event).values_list("name", "player_id"))
    assert registered["Anna Alt"] == anna.pk and len(set(registered.values())) == 4
    assert Player.objects.filter(name="Anna Alt").count() == 1
    assert set(Attendance.objects.filter(event=event, present=True).values_list("player_id", flat=True)) \
        == set(registered.values())

    # --- the rest of the field from a CSV file -----------------------------------------------------
    upload = tmp_path / "teilnehmer.csv"
    upload.write_bytes(csv_bytes())
    import_url = f"{base}/console/events/{event.pk}/players/import/"
    desk.goto(import_url)
    visits.check(desk)

    def preview(page, language: str = "en") -> None:
        page.set_input_files("#id_file", str(upload))
        click_and_wait(page, "#import-preview")
        fates = page.eval_on_selector_all("tr[data-line]", "rows => rows.map(r => r.dataset.fate)")
        assert fates == ["existing"] + ["new"] * len(IMPORTED) + ["error"]
        error = page.inner_text("tr[data-fate='error']")
        # The column as the file names it ("Name"), not the import's key ("name").
        assert say(language, "the same player as an earlier line") in error and "Name" in error and "name" not in error

    preview(desk)
    visits.photograph(desk, "en", "import-preview")
    in_other_languages("import-preview", import_url, preview)
    assert not Player.objects.filter(name=IMPORTED[0]).exists()  # a preview stores nothing
    click_and_wait(desk, "#import-store")
    assert Player.objects.filter(clubs=club).count() == 2 + 3 + len(IMPORTED)
    imported = {p.name: p for p in Player.objects.filter(name__in=IMPORTED + [MEMBER_IN_FILE])}
    assert len(imported) == 20 and imported[MEMBER_IN_FILE] == bernd

    # --- check-in on the players' page ---------------------------------------------------------------
    assert desk.url.endswith(f"/console/events/{event.pk}/players/")
    visits.check(desk)
    for player in imported.values():
        click_and_wait(desk, f"#player-{player.pk} button[aria-label='Check in {player.name}']")
    assert desk.inner_text("#present-count").startswith("24 players are here tonight.")
    visits.check(desk, "all here")
    field = set(Attendance.objects.filter(event=event, present=True).values_list("player_id", flat=True))
    assert len(field) == 24

    # --- three preliminary rounds: varied, varied, by standings --------------------------------------
    # Round 1's totals are 20 apart, rounds 2 and 3 add less than 10 each: every preliminary total
    # differs, and half of the leaders' is close enough for the final to change their order.
    order = sorted(field, key=lambda p: (p * 7) % 31)
    totals = [lambda p: 20 * order.index(p), lambda p: (p * 3) % 10, lambda p: (p * 7) % 10]
    event_url = f"{base}/console/events/{event.pk}/"
    for number, method in ((1, "varied"), (2, "varied"), (3, "standings")):
        desk.goto(event_url)
        click_and_wait(desk, "#new-round")
        round_ = Round.objects.get(event=event, number=number)
        assert desk.input_value("#id_method") == "varied"  # the default
        desk.select_option("#id_method", method)
        if number == 3:
            visits.photograph(desk, "en", "draw-form")
            in_other_languages("draw-form", desk.url,
                               lambda other, language: other.select_option("#id_method", "standings"))
        else:
            visits.check(desk, f"round {number}")
        click_and_wait(desk, "#draw")
        visits.check(desk, f"drawn {method}")
        tables = drafted(round_)
        assert sorted(p for table in tables for p in table) == sorted(field)
        assert all(3 <= len(table) <= 6 for table in tables)
        if method == "standings":
            assert "Seated by standings" in desk.inner_text("#draw-report")
            so_far = {p: totals[0](p) + totals[1](p) for p in field}
            leaders = sorted(field, key=lambda p: -so_far[p])[:len(tables[0])]
            assert sorted(tables[0]) == sorted(leaders)
        click_and_wait(desk, "#publish-round")
        assert round_.tables.count() == len(tables)
        if number == 1:  # the round clock: 45 minutes, started, extended by 5
            desk.fill(f"#clock-minutes-{round_.pk}", "45")
            click_and_wait(desk, "#clock-set")
            click_and_wait(desk, "#clock-start")
            appear(desk, ".round-clock[data-state='running']")
            visits.check(desk, "clock running")
            desk.fill(f"#clock-extend-{round_.pk}", "5")
            click_and_wait(desk, "#clock-extend")
            left = [int(part) for part in desk.inner_text(".round-clock .clock-time").strip().split(":")]
            assert 49 * 60 <= sum(value * 60 ** index for index, value in enumerate(reversed(left))) <= 50 * 60
        finish(event, round_, totals[number - 1])
    preliminary = {p: sum(total(p) for total in totals) for p in field}
    ranked = sorted(field, key=lambda p: -preliminary[p])
    assert len(set(preliminary.values())) == 24

    # --- the final round for the top four, played on the table's phone -------------------------------
    desk.goto(event_url)
    click_and_wait(desk, "#new-final-round")
    assert desk.input_value("#id_method") == "standings"
    visits.check(desk, "final round")
    click_and_wait(desk, "#draw")
    final = Round.objects.get(event=event, stage="final")
    assert [sorted(table) for table in drafted(final)] == [sorted(ranked[:4])]
    click_and_wait(desk, "#publish-round")
    visits.check(desk, "final published")
    sheet = new_page(phone=True)
    sheet.goto(base + desk.get_attribute('#board .links a[href^="/t/"]', "href"))
    appear(sheet, "html[data-ready]")
    visits.check(sheet)
    finger = Finger(sheet)
    mu_deal(finger, [3, 1, 2, 0], vice_trump="G", chef_trump="1", partner=1, points=[20, 15, 15, 10])
    enter(finger, 1)
    mu_deal(finger, [0, 3, 1, 2], vice_trump="R", chef_trump="B", partner=0, points=[10, 20, 12, 18])
    enter(finger, 2)
    appear(sheet, "#session-end")
    visits.check(sheet, "over")
    table = final.tables.get()
    session = Session.objects.get(table=table)
    assert session.status == "finished"
    seats = list(table.seats.order_by("position").values_list("player_id", flat=True))
    in_final = dict(zip(seats, session.totals))

    # The final ranking by hand: the final's total plus half the preliminary one; ties (none
    # expected) to the better preliminary rank.
    points = {p: in_final[p] + Fraction(preliminary[p], 2) for p in seats}
    expected = sorted(seats, key=lambda p: (-points[p], ranked.index(p)))
    for url, name in ((event_url, "final-console"), (f"{base}/events/{event.pk}/", "final-public")):
        desk.goto(url)
        shown = desk.eval_on_selector_all("#final-standings tbody tr", "rows => rows.map(r => Number(r.dataset.player))")
        if len(set(points.values())) == 4:
            assert shown == expected
        else:
            assert sorted(shown) == sorted(expected)
        preliminary_shown = desk.eval_on_selector_all("#standings tbody tr",
                                                      "rows => rows.map(r => Number(r.dataset.player))")
        assert preliminary_shown == ranked, name  # the preliminary ranking apart, all 24
        text = desk.inner_text("main")
        assert text.index("Final ranking") < text.index("Preliminary ranking")
        visits.photograph(desk, "en", name)

        def apart(other, language, shown=shown):
            shown_there = other.eval_on_selector_all("#final-standings tbody tr",
                                                     "rows => rows.map(r => Number(r.dataset.player))")
            assert shown_there == shown
            said = other.inner_text("main")
            assert said.index(say(language, "Final ranking")) < said.index(say(language, "Preliminary ranking"))

        in_other_languages(name, url, apart)
