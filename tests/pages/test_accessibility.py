"""Every page passes axe-core (no serious or critical violation) at 375 and 1280 px, in German,
English and Finnish.

``PAGES`` names each page's URL (``namespace:name``) with the addresses that show it in its states
(the sheet of every game: not begun, under way, finished, a hand to confirm); ``NOT_PAGES`` names
the URLs that are no page (a form's POST, a fragment, a script) and why. A URL of the pages, the
sheet, the console or the accounts that is in neither fails ``test_every_page_url_is_checked``, so
a new page cannot go without its axe-core check.

One browser, one tab per language: the data is made once, each page is loaded once per language and
checked at both widths (the viewport changes, the page is not reloaded). axe-core comes with every
document of the tab (an init script, given through the DevTools protocol like ``page.evaluate``
and, like it, not governed by the page's Content-Security-Policy) instead of being sent to each
page after it loaded: a tenth of the test's time. Screenshots of each page
at both widths, in English, go to artifacts/screenshots/a11y/.
"""
from __future__ import annotations

import json
import os
import time

import pytest

from .axe import AXE_SCRIPT, report, violations
from .test_browser import DESKTOP, SCREENSHOTS, browser  # noqa: F401 - the one Chromium fixture
from .wait import appear

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop runs in this thread

LANGUAGES = ("de-DE", "en-GB", "fi-FI")
WIDTHS = ((375, 812), (1280, 900))
SHOTS = SCREENSHOTS / "a11y"

# The URLs that show no page of their own, and why.
NOT_PAGES = {
    "pages:set_language": "the language form's POST",
    "pages:club_calendar": "the club's calendar feed (iCalendar, not HTML)",
    "sheet:table_running": "the running sheet alone, a fragment the sheet reloads into itself",
    "sheet:my_table_running": "the running sheet alone, a fragment the sheet reloads into itself",
    "sheet:service_worker": "the sheet's service worker (a script)",
    "console:event_publish": "a POST from the event page",
    "console:event_organiser_add": "a POST from the event page",
    "console:attendance": "a POST from the players page",
    "console:player_distinction": "a POST from the players page",
    "console:round_new": "a POST from the event page",
    "console:open_table": "a POST from the event page",
    "console:round_draw": "a POST from the round page",
    "console:round_swap": "a POST from the round page",
    "console:round_publish": "a POST from the round page",
    "console:round_hold": "a POST from the round page",
    "console:hand_void": "a POST from the table page",
    "console:transfer_paid": "a POST from the money page",
    "console:transfer_unpaid": "a POST from the money page",
    "console:series_event": "a POST from the series page",
    "console:series_delete": "a POST from the series page",
    "logout": "a POST from the console's header",
    "console:registration_confirm": "a POST from the registrations page",
    "console:registration_withdraw": "a POST from the registrations page",
    "console:registration_match": "a POST from the registrations page",
    "console:registration_check_in": "a POST from the registrations page",
    "console:round_clock": "a POST from the round page",
    "console:seating_script_remove": "a POST from the seating-script page",
    "sheet:table_clock": "the sheet's clock as JSON (read by static/stich/clock.js)",
    # Django's own account pages beyond the login: no link of the site leads there (accounts are
    # made by the organisers and staff, passwords changed in the admin).
    "password_change": "Django's page, not linked by the site",
    "password_change_done": "Django's page, not linked by the site",
    "password_reset": "Django's page, not linked by the site",
    "password_reset_done": "Django's page, not linked by the site",
    "password_reset_confirm": "Django's page, not linked by the site",
    "password_reset_complete": "Django's page, not linked by the site",
    "rest_framework:login": "the browsable API's login (the API's pages, like Swagger UI; people log in at /accounts/login/)",
    "rest_framework:logout": "the browsable API's logout (a POST)",
    # A player's own pages need his bound phone: tests/people/test_player_evening_browser.py checks
    # them with axe-core in the three languages at both widths (the code's link in English).
    "sheet:me": "a bound phone's page: tests/people/test_player_evening_browser.py",
    "sheet:bind_pin": "the PIN form (also /me/ unbound): tests/people/test_player_evening_browser.py",
    "sheet:bind_link": "a personal code's link: tests/people/test_player_evening_browser.py",
    "sheet:me_table": "the sheet at a bound phone's seat: tests/people/test_player_evening_browser.py",
    "sheet:me_phones": "a bound phone's page: tests/people/test_player_evening_browser.py",
    "pages:me_stats": "a bound phone's page: tests/people/test_player_evening_browser.py",
    "pages:me_vs": "a bound phone's page: tests/people/test_player_evening_browser.py",
    "pages:me_privacy": "a bound phone's page: tests/people/test_player_evening_browser.py",
    "pages:me_delete": "a bound phone's page: tests/people/test_player_evening_browser.py",
    "pages:me_export": "his data, a JSON file",
    "sheet:me_table_running": "the running sheet alone, a fragment the sheet reloads into itself",
    "sheet:me_unbind": "a POST from his phones' page",
    "console:round_codes": "a POST from the round page (its answer: the slips to print)",
    "console:player_code": "a POST from the players page (its answer: the slip to print)",
}

# The URLs checked: each with a function of the world giving the addresses to visit (label, path).
PAGES = {
    "pages:home": lambda w: [("home", "/")],
    "pages:event": lambda w: [(f"event-{g}", f"/events/{e.pk}/") for g, e in w.events.items()]
    + [("event-upcoming-tables", f"/events/{w.sheet_event.pk}/")],
    "pages:screen": lambda w: [(f"screen-{g}", f"/events/{e.pk}/screen/") for g, e in w.events.items()],
    "pages:standings_print": lambda w: [("standings-print", f"/events/{w.events['maumau'].pk}/standings/print/")],
    "pages:leaderboard": lambda w: [(f"leaderboard-{g}", f"/leaderboard/{g}/") for g in w.events],
    "pages:player": lambda w: [("player", f"/players/{w.player.pk}/")],
    "pages:player_stats": lambda w: [("player-stats", f"/players/{w.player.pk}/stats/")],
    "pages:calibration": lambda w: [("calibration", "/calibration/")],
    "pages:club": lambda w: [("club", f"/clubs/{w.events['mu'].club.slug}/")],
    "pages:series": lambda w: [("series", f"/series/{w.series.pk}/")],
    "pages:series_screen": lambda w: [("series-screen", f"/series/{w.series.pk}/screen/")],
    "sheet:table": lambda w: [(f"sheet-{g}-{state}", f"/t/{t.scorer_token}/")
                              for (g, state), t in w.sheet_tables.items()],
    "sheet:my_table": lambda w: [("my-tables", "/my-table/")],
    "sheet:my_table_sheet": lambda w: [("my-table-sheet", f"/my-table/{w.sheet_tables['maumau', 'under-way'].pk}/")],
    "sheet:cards": lambda w: [("table-cards", f"/rounds/{w.sheet_round.pk}/cards/")],
    "login": lambda w: [("login", "/accounts/login/")],
    "console:home": lambda w: [("console-home", "/console/")],
    "console:event_new": lambda w: [("console-event-new", "/console/events/new/")],
    "console:event": lambda w: [("console-event", f"/console/events/{w.events['mu'].pk}/"),
                                ("console-event-drawing", f"/console/events/{w.evening.pk}/")],
    "console:event_edit": lambda w: [("console-event-edit", f"/console/events/{w.events['mu'].pk}/edit/")],
    "console:players": lambda w: [("console-players", f"/console/events/{w.evening.pk}/players/")],
    "console:plan": lambda w: [("console-plan", f"/console/events/{w.evening.pk}/plan/")],
    "console:schedule": lambda w: [("console-schedule", f"/console/events/{w.events['mu'].pk}/schedule/")],
    "console:money": lambda w: [("console-money", f"/console/events/{w.events['maumau'].pk}/money/")],
    "console:round": lambda w: [("console-board", f"/console/rounds/{w.draft_round.pk}/"),
                                ("console-round", f"/console/rounds/{w.events['lut'].rounds.first().pk}/")],
    "console:table": lambda w: [(f"console-table-{g}", f"/console/tables/{t.pk}/") for g, t in w.played_tables.items()],
    "console:hand_correct": lambda w: [
        (f"console-correct-{g}", f"/console/hands/{hand.pk}/correct/") for g, hand in w.first_hands.items()
    ],
    "console:series_list": lambda w: [("console-series-list", "/console/series/")],
    "console:series_new": lambda w: [("console-series-new", "/console/series/new/")],
    "console:series": lambda w: [("console-series", f"/console/series/{w.series.pk}/")],
    "console:registrations": lambda w: [("console-registrations", f"/console/events/{w.evening.pk}/registrations/")],
    "console:players_import": lambda w: [("console-players-import", f"/console/events/{w.evening.pk}/players/import/")],
    "console:seating_script": lambda w: [("console-seating-script", f"/console/events/{w.evening.pk}/seating-script/")],
    "pages:register": lambda w: [("register", f"/events/{w.evening.pk}/register/")],
    "pages:withdraw": lambda w: [("withdraw", f"/withdraw/{w.registration.token}/")],
}

# Visited before logging in (the login pages) and as the organiser, who is also seated at the
# sheet's tables (``my-table``).
ANONYMOUS = ("login",)


def page_url_names() -> set[str]:
    """The named URLs of the pages, the sheet, the console and the accounts (not the API, the admin)."""
    from django.urls import URLPattern, URLResolver, get_resolver

    skipped = ("admin/", "api/", "healthz", "livez", "readyz")  # the probes answer JSON, not pages
    names = set()

    def walk(patterns, namespace, top=True):
        for entry in patterns:
            if top and str(entry.pattern).startswith(skipped):
                continue
            if isinstance(entry, URLResolver):
                inner = entry.namespace or namespace
                walk(entry.url_patterns, inner, top=False)
            elif isinstance(entry, URLPattern) and entry.name:
                names.add(f"{namespace}:{entry.name}" if namespace else entry.name)

    walk(get_resolver().url_patterns, None)
    return names


def test_every_page_url_is_checked():
    names = page_url_names()
    assert not set(PAGES) & set(NOT_PAGES)
    unchecked = names - set(PAGES) - set(NOT_PAGES)
    assert not unchecked, f"pages without an axe-core check (add them to PAGES or NOT_PAGES): {sorted(unchecked)}"
    assert not (set(PAGES) | set(NOT_PAGES)) - names, "names of URLs that no longer exist"
    assert {"pages:home", "sheet:table", "console:event", "login"} <= set(PAGES)


class World:
    pass


def build_world() -> World:
    """The demo (results, a held-back round), a series, an evening whose first round is drawn but
    not published, and a sheet event per game whose tables are not begun, under way and waiting for
    a confirmation; the organiser is the first player (seated at several open tables: ``my-table``)."""
    from django.contrib.auth import get_user_model

    from tests.sheet.world import play_hands
    from tournaments import services
    from tournaments.draws.services import draw_preview
    from tournaments.models import Event, Hand, Player, Session, Table

    from .demo import build_demo

    w = World()
    w.events = build_demo()
    organiser = get_user_model().objects.get(username="organiser")
    club = w.events["mu"].club
    w.series = services.series_create(by_user=organiser, club=club, name="Wintercup", game="mu")
    services.event_update(event=w.events["mu"], by_user=organiser, series=w.series)
    w.evening = Event.objects.get(club=club, rounds__isnull=True, game="mu")
    w.draft_round = services.round_create(event=w.evening, by_user=organiser)
    draw_preview(w.draft_round, by_user=organiser, seed=1)
    players = list(Player.objects.filter(clubs=club).order_by("pk"))
    players[0].user = organiser
    players[0].save(update_fields=["user"])
    w.player = players[0]
    w.played_tables = {g: Table.objects.filter(round__event=e).order_by("round__number", "number").first()
                       for g, e in w.events.items()}
    w.first_hands = {g: Hand.objects.filter(session__table=t).order_by("pk").first() for g, t in w.played_tables.items()}

    w.sheet_tables = {}
    for game, event in w.events.items():
        w.sheet_tables[game, "finished"] = Session.objects.filter(
            table__round__event=event, status=Session.Status.FINISHED).first().table
    w.sheet_event = services.event_create(by_user=organiser, club=club, name="Abend der Zettel", game="mu",
                                          published=True, mu_fixed_deals=8)
    w.sheet_round = services.round_create(event=w.sheet_event, by_user=organiser)
    for game in ("mu", "maumau", "lut"):
        event = w.sheet_event if game == "mu" else services.event_create(
            by_user=organiser, club=club, name=f"Zettel {game}", game=game, published=True, confirm_hands=True)
        round_ = w.sheet_round if game == "mu" else services.round_create(event=event, by_user=organiser)
        fresh = services.table_create(round_=round_, players=players[0:4] if game == "mu" else players[4:8],
                                      by_user=organiser, first_dealer=1)
        running = services.table_create(round_=round_, players=players[0:4] if game != "mu" else players[4:8],
                                        by_user=organiser, first_dealer=0)
        w.sheet_tables[game, "new"] = fresh
        w.sheet_tables[game, "under-way"] = running
        # Mü: two hands entered; Maumau and LuT (hands confirmed by a second player): one waiting.
        play_hands(running, 2 if game == "mu" else 1, seed=7, by_user=None)
    # Registration by link on the evening: one registration that waits, one confirmed and listed.
    from tournaments.entry import registration as registrations

    w.evening.registration_open, w.evening.capacity = True, 1
    w.evening.save(update_fields=["registration_open", "capacity"])
    listed = registrations.register(event=w.evening, name="Berta Neu", show_name=True)
    registrations.confirm(registration=listed, by_user=organiser)
    w.registration = registrations.register(event=w.evening, name="Carl Still", contact="carl@example.org")
    return w


def _shoot(page, label: str, width: int) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{label}-{width}.png"), full_page=True, scale="css")


@pytest.mark.browser
def test_every_page_passes_axe_core_in_three_languages_at_two_widths(live_server, transactional_db, browser):
    from django.urls import resolve

    started = time.monotonic()
    world = build_world()
    built = time.monotonic()
    base = live_server.url
    visits = [(name, label, path) for name, addresses in PAGES.items() for label, path in addresses(world)]
    for name, _label, path in visits:
        match = resolve(path)
        assert (f"{match.namespace}:{match.url_name}" if match.namespace else match.url_name) == name, path
    found, checked = [], 0
    for locale in LANGUAGES:
        context = browser.new_context(locale=locale, **DESKTOP)
        context.add_init_script(script=AXE_SCRIPT)
        context.set_default_timeout(15_000)
        page = context.new_page()
        for anonymous in (True, False):
            if not anonymous:
                page.goto(f"{base}/accounts/login/")
                page.fill("#id_username", "organiser")
                page.fill("#id_password", "organiser")
                with page.expect_navigation():
                    page.click("#log-in")
            for name, label, path in visits:
                if (name in ANONYMOUS) != anonymous:
                    continue
                response = page.goto(base + path)
                assert response is not None and response.status == 200, (path, response and response.status)
                if name in ("sheet:table", "sheet:my_table_sheet"):
                    appear(page, "html[data-ready]", state="attached")
                for width, height in WIDTHS:
                    page.set_viewport_size({"width": width, "height": height})
                    where = f"{label} ({locale}, {width} px, {path})"
                    found += [report([v], where=where) for v in violations(page)]
                    checked += 1
                    if locale == "en-GB":
                        _shoot(page, label, width)
        context.close()
    assert checked == len(visits) * len(LANGUAGES) * len(WIDTHS)
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS.parent.parent / "a11y-figures.json").write_text(json.dumps({
        "pages": len(visits), "checks": checked, "violations": len(found),
        "data_seconds": round(built - started, 1), "browser_seconds": round(time.monotonic() - built, 1)}, indent=2))
    assert not found, f"{len(found)} serious or critical axe-core violations:\n" + "\n".join(found)
