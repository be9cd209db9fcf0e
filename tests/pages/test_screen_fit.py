"""The room screen on a projector, which cannot scroll: every column of the standings in view at
1280×720, 1280×800 and 1920×1080, with namesakes whose labels are long (what tells them apart is
part of the name). A long name wraps inside its cell; no column is cut, no cell clipped."""
from __future__ import annotations

import pytest

from .test_browser import SCREENSHOTS, browser  # noqa: F401 - the one Chromium fixture

pytestmark = pytest.mark.browser

SIZES = ((1280, 720), (1280, 800), (1920, 1080))

# Every cell of the standings against its table's box and the viewport: the box does not scroll
# sideways, no cell reaches past the box's right edge or the window's, and no cell's text is wider
# than the cell (cut or hidden).
CLIPPED = """() => {
  const box = document.querySelector('#screen-standings .scroll');
  const edge = Math.min(box.getBoundingClientRect().right, document.documentElement.clientWidth) + 0.5;
  const found = [];
  if (box.scrollWidth > box.clientWidth + 1) found.push(`the box scrolls: ${box.scrollWidth} > ${box.clientWidth}`);
  for (const cell of document.querySelectorAll('#standings th, #standings td')) {
    const rect = cell.getBoundingClientRect();
    if (rect.right > edge) found.push(`${cell.className || cell.tagName} "${cell.innerText}" ends at ${rect.right} > ${edge}`);
    if (cell.scrollWidth > cell.clientWidth + 1) found.push(`${cell.className || cell.tagName} "${cell.innerText}" is cut`);
  }
  return found;
}"""


@pytest.fixture
def namesakes_evening(transactional_db):
    """A Maumau evening (the most columns: games, the ranking's metrics, the money) of twelve
    players, six of them namesakes told apart by long additions, after one round and during the
    second (one table finished: the change since round 1 shown)."""
    import random

    from django.utils import timezone

    from tests.pages.demo import add_results, play_table
    from tournaments import services

    club = services.club_create(by_user=None, name="Sportfreunde Oberkassel-Lüdenscheid 1923")
    long_names = [("Maximilian Müller-Lüdenscheidt", f"Kapitän der {which} Mannschaft")
                  for which in ("ersten", "zweiten", "dritten")]
    long_names += [("Aleksanteri Väinämöinen-Korhonen", f"Tampereen Pelaajat {year}") for year in (1987, 1990, 2001)]
    players = [services.player_create(by_user=None, name=name, distinction=distinction, clubs=[club])
               for name, distinction in long_names]
    players += [services.player_create(by_user=None, name=f"Spielerin {index:02d}", clubs=[club]) for index in range(6)]
    event = services.event_create(by_user=None, club=club, name="Herbstturnier", game="maumau", published=True)
    for number in (1, 2):
        round_ = services.round_create(event=event, by_user=None)
        order = players if number == 1 else players[1::2] + players[::2]
        tables = [services.table_create(round_=round_, players=order[4 * index:4 * index + 4], by_user=None)
                  for index in range(3)]
        if number == 1:
            add_results(event, seed=5)
    play_table(tables[0], rng=random.Random(6), finished_at=timezone.now())  # round 2 under way
    return event


def test_every_standings_column_fits_a_projector(live_server, namesakes_evening, browser):  # noqa: F811
    event = namesakes_evening
    context = browser.new_context(locale="de-DE", viewport={"width": 1280, "height": 720})
    page = context.new_page()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{live_server.url}/events/{event.pk}/screen/")
    names = page.locator("#standings td.name").all_inner_texts()
    assert len(names) == 12 and any("Kapitän der dritten Mannschaft" in name for name in names), names
    assert page.locator("#standings td.move").count() == 12  # the change since round 1: a column more
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        # (screen-fit.js makes the type smaller, on the window's resize, until the page fits)
        page.wait_for_function("document.documentElement.scrollHeight <= window.innerHeight", timeout=5000)
        clipped = page.evaluate(CLIPPED)
        assert not clipped, f"{width}×{height}: {clipped[:5]}"
        page.screenshot(path=str(SCREENSHOTS / f"room-screen-namesakes-{width}x{height}.png"), scale="css")
        size = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        assert size[0] <= width and size[1] <= height, f"the screen scrolls at {width}×{height}: {size}"
    context.close()
