"""The guide (``docs/``, ``mkdocs.yml``): its screenshots are taken here by the browser, on the
pages as they are today, into ``docs/img/`` (git-ignored), and the site is then built with
``mkdocs build --strict`` (a warning fails: a broken link, a missing picture, a page outside the
navigation). So a fresh clone's test run makes the pictures, and they never go stale.

``SHOTS`` is the one list of the guide's pictures: each with the page it shows, the width, and
whether the organiser is logged in; ``test_the_guide_shows_only_pictures_the_tests_take`` checks
that the guide names no other picture, without a browser.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
IMAGES = DOCS / "img"

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop runs in this thread


def _sheet(world, game, state):
    return f"/t/{world.sheet_tables[game, state].scorer_token}/"


# name: (address from the world, width, who looks: False the public, True the organiser logged in,
# "player" a phone bound with a player's personal code[, a CSS selector: only that part of the
# page; or "import": the CSV file IMPORT_CSV uploaded and its preview shown])
SHOTS = {
    "console-home.png": (lambda w: "/console/", 1280, True),
    "console-event.png": (lambda w: f"/console/events/{w.evening.pk}/", 1280, True),
    "console-event-edit.png": (lambda w: f"/console/events/{w.events['mu'].pk}/edit/", 1280, True),
    "console-players.png": (lambda w: f"/console/events/{w.evening.pk}/players/", 375, True),
    "console-draw.png": (lambda w: f"/console/rounds/{w.draft_round.pk}/", 1280, True),
    "table-cards.png": (lambda w: f"/rounds/{w.sheet_round.pk}/cards/", 1280, True),
    "console-board.png": (lambda w: f"/console/rounds/{w.sheet_round.pk}/", 1280, True),
    "sheet-new.png": (lambda w: _sheet(w, "mu", "new"), 375, False),
    "sheet-running.png": (lambda w: _sheet(w, "mu", "under-way"), 375, False),
    "sheet-confirm.png": (lambda w: _sheet(w, "maumau", "under-way"), 375, False),
    "room-screen.png": (lambda w: f"/events/{w.events['mu'].pk}/screen/", 1280, False),
    "event-page.png": (lambda w: f"/events/{w.events['mu'].pk}/", 375, False),
    "console-table.png": (lambda w: f"/console/tables/{w.played_tables['mu'].pk}/", 1280, True),
    "console-correct.png": (lambda w: f"/console/hands/{w.first_hands['mu'].pk}/correct/", 1280, True),
    "console-money.png": (lambda w: f"/console/events/{w.events['maumau'].pk}/money/", 375, True),
    "console-series.png": (lambda w: f"/console/series/{w.series.pk}/", 1280, True),
    "series-page.png": (lambda w: f"/series/{w.series.pk}/", 1280, False),
    "club-phone.png": (lambda w: f"/clubs/{w.events['mu'].club.slug}/", 375, False),
    "club-desktop.png": (lambda w: f"/clubs/{w.events['mu'].club.slug}/", 1280, False),
    "leaderboard.png": (lambda w: "/leaderboard/mu/", 1280, False),
    "api-docs.png": (lambda w: "/api/docs/", 1280, False),
    # The championship day's tools, the season's options, a player's own side.
    "register.png": (lambda w: f"/events/{w.evening.pk}/register/", 375, False),
    "console-import.png": (lambda w: f"/console/events/{w.evening.pk}/players/import/", 1280, True, "import"),
    "console-draw-method.png": (lambda w: f"/console/rounds/{w.draft_round.pk}/", 1280, True, "#draw-form"),
    "console-seating-script.png": (lambda w: f"/console/events/{w.day.pk}/seating-script/", 1280, True),
    "final-ranking.png": (lambda w: f"/events/{w.day.pk}/", 1280, False),
    "series-options.png": (lambda w: f"/console/series/{w.series.pk}/", 1280, True, "#series-settings"),
    "series-money.png": (lambda w: f"/series/{w.series.pk}/", 1280, True, "#series-money"),
    "me-pin.png": (lambda w: "/me/pin/", 375, False),
    "me-home.png": (lambda w: "/me/", 375, "player"),
    "me-stats.png": (lambda w: "/me/stats/", 1280, "player"),
}


FULL_PAGE_HEIGHT = 1600


def referenced_images() -> set[str]:
    """The pictures the guide's pages name (``img/…`` in Markdown images)."""
    found = set()
    for page in DOCS.rglob("*.md"):
        found.update(Path(m).name for m in re.findall(r"!\[[^\]]*\]\((?:\.\./)*img/([^)\s]+)\)", page.read_text()))
    return found


def test_the_guide_shows_only_pictures_the_tests_take():
    named = referenced_images()
    assert named, "the guide shows no screenshot"
    assert not named - set(SHOTS), f"pictures no test takes: {sorted(named - set(SHOTS))}"
    assert not set(SHOTS) - named, f"pictures taken that the guide does not show: {sorted(set(SHOTS) - named)}"


def build_guide_world():
    """The accessibility test's world (the demo with results, a series, an evening being drawn,
    score sheets of every game in every state), an upcoming published event for the club's
    calendar, and the organiser's tables."""
    import datetime

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from tests.pages.test_accessibility import build_world
    from tournaments import services

    world = build_world()
    organiser = get_user_model().objects.get(username="organiser")
    club = world.events["mu"].club
    services.event_create(by_user=organiser, club=club, name="Adventsturnier", game="mu", published=True,
                          starts_on=timezone.localdate() + datetime.timedelta(days=5), series=world.series)
    # The evening takes registrations (the world's two): published, so the public may register.
    services.event_update(event=world.evening, by_user=organiser, published=True, place="Vereinsheim, Saal 2")
    add_championship_day(world, organiser)
    add_season_options(world, organiser)
    world.code = issue_code(world.player, organiser)
    return world


def add_championship_day(world, organiser) -> None:
    """A Mü championship day of eight players: two preliminary rounds, a seating script, and a final
    of four (half the preliminary points carried over) whose table has finished."""
    from tournaments import services
    from tournaments.draws.services import draw_preview, draw_publish, seating_script_set
    from tournaments.models import Player, Round, Session
    from tournaments.standings import sums

    club = world.events["mu"].club
    day = services.event_create(by_user=organiser, club=club, name="Stadtmeisterschaft", game="mu",
                                published=True, final_size=4, final_carry="half")
    players = list(Player.objects.filter(clubs=club).order_by("pk")[:8])
    for player in players:
        services.player_check_in(event=day, player=player, by_user=organiser)
    # Totals by start number (1..8): round 1 and round 2, then the final's.
    seating_script_set(day, text="round;table;players\n1;1;1;2;3;4\n1;2;5;6;7;8\n2;1;1;5;2;6\n2;2;3;7;4;8\n",
                       by_user=organiser)
    totals = [{p.pk: 60 - 7 * i for i, p in enumerate(players)}, {p.pk: 40 - 3 * i for i, p in enumerate(players)}]
    for number, method in ((1, "script"), (2, "standings"), (3, None)):
        round_ = services.round_create(event=day, by_user=organiser,
                                       stage=Round.Stage.FINAL if method is None else Round.Stage.PRELIMINARY)
        draw_preview(round_, by_user=organiser, seed=number, method=method)
        for table in draw_publish(round_, by_user=organiser):
            seats = list(table.seats.order_by("position").values_list("player_id", flat=True))
            if method is None:  # the final, by seat
                row = [12, 25, 20, 41][:len(seats)]
            else:
                row = [totals[number - 1][p] for p in seats]
            Session.objects.create(table=table, number=1, status="finished", hand_count=1, totals=row)
        sums.rebuild([day.pk])  # sessions written around the services: the kept sums in step
    world.day = day


def add_season_options(world, organiser) -> None:
    """The series ranks by average over Mü and Maumau evenings, from half the evenings held on."""
    from tournaments import services

    world.series = services.series_update(series=world.series, by_user=organiser, games=["mu", "maumau"],
                                          aggregate="average", qualify_percent=50, absence_deduction=1)
    services.event_update(event=world.events["maumau"], by_user=organiser, series=world.series)


def issue_code(player, organiser) -> str:
    """A player's personal code; the link part of it, which his phone opens."""
    from tournaments.people.services import code_issue

    return code_issue(player=player, by_user=organiser).link_key


# The file the import's picture previews (German headings, ";", Windows-1252): a new player, one who
# exists, an empty name, an unknown club, the first row again.
IMPORT_CSV = "Name;Verein;Zusatz\nJörg Weiß;;\n{existing};;\n;{club};\nGerd Gast;Kein Verein;\njörg  weiss;;\n"


def take_screenshots(base: str, browser, world) -> list[Path]:
    from tests.pages.wait import appear

    IMAGES.mkdir(parents=True, exist_ok=True)
    taken = []
    for viewer in (False, True, "player"):
        context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 900})
        context.set_default_timeout(15_000)
        page = context.new_page()
        if viewer is True:
            page.goto(f"{base}/accounts/login/")
            page.fill("#id_username", "organiser")
            page.fill("#id_password", "organiser")
            with page.expect_navigation():
                page.click("#log-in")
        if viewer == "player":  # his phone opens his code's link and says "This is me"
            page.goto(f"{base}/p/{world.code}/")
            with page.expect_navigation():
                page.click("#this-is-me")
        for name, (address, width, shot_viewer, *part) in SHOTS.items():
            if shot_viewer != viewer:
                continue
            page.set_viewport_size({"width": width, "height": 720 if name == "room-screen.png" else
                                    812 if width == 375 else 900})
            response = page.goto(base + address(world))
            assert response is not None and response.status == 200, (name, response and response.status)
            if name.startswith("sheet-"):
                appear(page, "html[data-ready]", state="attached")
            if name == "api-docs.png":
                appear(page, ".swagger-ui .opblock-tag", state="visible")
            path = IMAGES / name
            if part == ["import"]:
                page.set_input_files("#id_file", files=[{
                    "name": "spieler.csv", "mimeType": "text/csv",
                    "buffer": IMPORT_CSV.format(existing=world.player.name, club=world.evening.club.name).encode("cp1252")}])
                with page.expect_navigation():
                    page.click("#import-preview")
                appear(page, "#import-confirm", state="visible")
            elif part:
                page.locator(part[0]).screenshot(path=str(path), scale="css")
                taken.append(path)
                continue
            # The whole page when it is not much longer than a screen, else the screen the reader
            # first sees (a guide's picture is read, not scrolled).
            height = page.evaluate("document.documentElement.scrollHeight")
            page.screenshot(path=str(path), full_page=height <= FULL_PAGE_HEIGHT, scale="css")
            taken.append(path)
        context.close()
    return taken


def build(site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.browser
def test_the_guide_builds_strict_with_fresh_screenshots(live_server, transactional_db, browser, tmp_path):
    import time

    started = time.time()
    world = build_guide_world()
    taken = take_screenshots(live_server.url, browser, world)
    assert sorted(p.name for p in taken) == sorted(SHOTS)
    assert all(p.stat().st_mtime >= started and p.stat().st_size > 1000 for p in taken)  # taken now

    site = tmp_path / "site"
    result = build(site)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    pages = list(site.rglob("*.html"))
    assert len(pages) >= 14
    for page in pages:
        html = page.read_text()
        # Nothing from the network: scripts, styles and fonts come with the site.
        remote = re.findall(r'<(?:script|link|img)\b[^>]*(?:src|href)="((?:https?:)?//[^"]+)"', html)
        assert not remote, (page.name, remote)
    for css in site.rglob("*.css"):
        assert not re.search(r"@import\s+url\(\s*['\"]?(?:https?:)?//|url\(\s*['\"]?(?:https?:)?//", css.read_text()), css
    for name in SHOTS:
        assert (site / "img" / name).exists(), name


def test_the_guide_is_served_under_guide(client, settings, tmp_path):
    """``/guide/`` serves the built site (as ``scripts/serve.sh`` builds it, pictures or not), and
    nothing outside it; without a built guide, a 404 that says how to build it."""
    site = tmp_path / "site"
    settings.GUIDE_DIR = site
    missing = client.get("/guide/")
    assert missing.status_code == 404 and b"mkdocs build" in missing.content
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(site)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    index = client.get("/guide/")
    assert index.status_code == 200
    body = b"".join(index.streaming_content).decode()
    assert "The organiser" in body and "integrator" in body
    page = client.get("/guide/organiser/first-evening.html")
    assert page.status_code == 200 and b"Draw the tables" in b"".join(page.streaming_content)
    assert client.get("/guide/organiser/").status_code == 200  # a folder: its index
    assert client.get("/guide/../manage.py").status_code == 404
    assert client.get("/guide/%2e%2e/manage.py").status_code == 404
    assert client.get("/guide/no-such-page.html").status_code == 404


# The browser's test above needs Chromium (from tests/pages/test_browser.py: skipped without it).
from tests.pages.test_browser import browser  # noqa: E402,F401 - the one Chromium fixture
