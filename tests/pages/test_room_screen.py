"""The room screen's server side (tournaments/standings/room.py, the screen view): the change of rank since
the previous round (shared ranks, newcomers, held rounds hidden), the round's progress table by
table, the latest finished sessions with their winners, and the series' top."""
from __future__ import annotations

import datetime
import re

import pytest
from django.test import Client
from django.utils import timezone

from tests.conftest import make_user

pytestmark = pytest.mark.django_db

NAMES = ["Anna Becker", "Bernd Fischer", "Conny Hahn", "Dagmar Koch", "Emil Lang", "Frieda Maier",
         "Gustav Neumann", "Hanna Otto", "Ilse Peters"]


def played(table, totals, *, finished=True, hands=4, minutes=0):
    """A session of ``table`` as ``tournaments.results.services`` leaves it: its kept totals and hand count
    (and the event's standings sums, as written around the services: ``aggregates.rebuild``)."""
    from tournaments.models import Session
    from tournaments.standings import sums as aggregates

    moment = timezone.now() + datetime.timedelta(minutes=minutes)
    session = Session.objects.create(
        table=table, number=1, totals=totals, hand_count=hands,
        status=Session.Status.FINISHED if finished else Session.Status.OPEN, finished_at=moment if finished else None)
    aggregates.rebuild([table.round.event_id])
    return session


@pytest.fixture
def evening():
    """A published Mü event ranked by total alone (so the ranks are easy to follow) with two
    played rounds and a third that is held back:

    round 1: A 10, B 5, F -20 | C 5, D 0, G -20
             -> A 1st, B and C 2nd (shared), D 4th, F and G 5th (shared)
    round 2: A 0, C 6, F 0 (finished) | B 0, D 12, E 1 (playing) | G, H, I (not started)
             -> D 12, C 11, A 10, B 5, E 1, F and G -20 (shared 6th)
    round 3 (held): D 0, E 437, F 0    -> would put E first
    """
    from tournaments import services

    organiser = make_user("room_organiser")
    club = services.club_create(by_user=None, name="Room Club", organisers=[organiser])
    a, b, c, d, e, f, g, h, i = (services.player_create(by_user=organiser, name=name, clubs=[club]) for name in NAMES)
    event = services.event_create(by_user=organiser, club=club, name="Room Cup", game="mu", published=True,
                                  mu_fixed_deals=4, standings_metrics="total")
    rounds = [services.round_create(event=event, by_user=organiser) for _ in range(3)]

    def table(round_, players):
        return services.table_create(round_=round_, players=players, by_user=organiser)

    played(table(rounds[0], [a, b, f]), [10, 5, -20], minutes=1)
    played(table(rounds[0], [c, d, g]), [5, 0, -20], minutes=2)
    played(table(rounds[1], [a, c, f]), [0, 6, 0], minutes=3)
    played(table(rounds[1], [b, d, e]), [0, 12, 1], finished=False, hands=2)
    table(rounds[1], [g, h, i])  # not started
    played(table(rounds[2], [d, e, f]), [0, 437, 0], minutes=9)
    rounds[2].results_held = True
    rounds[2].save()
    return {"event": event, "organiser": organiser, "players": dict(zip("abcdefg", (a, b, c, d, e, f, g))), "rounds": rounds}


def test_change_since_the_previous_round_counts_shared_ranks_and_newcomers(evening):
    from tournaments import policy
    from tournaments.standings.room import standings_moves
    from tournaments.standings.selectors import session_results

    p = {key: player.pk for key, player in evening["players"].items()}
    previous, moves = standings_moves(evening["event"], session_results(evening["event"], visibility=policy.public()))
    assert previous == 1
    # D 4th -> 1st; C shared 2nd -> 2nd (no move); A 1st -> 3rd; B shared 2nd -> 4th; E new;
    # F and G shared 5th -> shared 6th.
    assert moves == {p["d"]: 3, p["c"]: 0, p["a"]: -2, p["b"]: -2, p["e"]: None, p["f"]: -1, p["g"]: -1}


def test_a_held_round_counts_in_neither_standings_the_change_compares(evening):
    from tournaments import policy
    from tournaments.standings.room import standings_moves
    from tournaments.standings.selectors import session_results
    from tournaments.standings.tables import round_progress

    event, p = evening["event"], {key: player.pk for key, player in evening["players"].items()}
    # The organiser sees round 3: there the change is since round 2 and E leads.
    organiser = policy.visibility(evening["organiser"])
    previous, moves = standings_moves(event, session_results(event, visibility=organiser))
    assert previous == 2 and moves[p["e"]] == 4
    assert round_progress(event, visibility=organiser).round_number == 3
    # The public does not: its progress is round 2's.
    assert round_progress(event, visibility=policy.public()).round_number == 2

    html = Client().get(f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "± since round 1" in html and "since round 2" not in html
    assert not re.search(r"(?<![\w/-])437(?!\d)", html)  # round 3's total appears nowhere (an id like 1437 may)
    assert 'data-round="3"' not in html


def test_no_change_is_shown_before_a_second_round_has_results():
    from tournaments import policy, services
    from tournaments.standings.room import standings_moves
    from tournaments.standings.selectors import session_results

    organiser = make_user("room_single")
    club = services.club_create(by_user=None, name="Single Club", organisers=[organiser])
    a, b, c = (services.player_create(by_user=organiser, name=name, clubs=[club]) for name in NAMES[:3])
    event = services.event_create(by_user=organiser, club=club, name="One round", game="mu", published=True)
    round_ = services.round_create(event=event, by_user=organiser)
    played(services.table_create(round_=round_, players=[a, b, c], by_user=organiser), [3, 1, 0])
    services.round_create(event=event, by_user=organiser)  # round 2 drawn, nothing played yet
    assert standings_moves(event, session_results(event, visibility=policy.public())) == (None, {})
    html = Client().get(f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "data-move=" not in html and "since round" not in html


def test_round_progress_counts_finished_tables_and_says_each_tables_state(evening):
    from tournaments import policy
    from tournaments.standings.tables import round_progress

    progress = round_progress(evening["event"], visibility=policy.public())
    assert progress.finished == 1 and len(progress.tables) == 3
    assert [(t.number, t.state, t.hands, t.due) for t in progress.tables] == [
        (1, "finished", 4, 4), (2, "playing", 2, 4), (3, "waiting", 0, 4)]
    assert progress.tables[1].totals == [0, 12, 1]


def test_the_screen_shows_progress_moves_and_latest_results(evening):
    event, p = evening["event"], {key: player.pk for key, player in evening["players"].items()}
    html = Client().get(f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-finished="1" data-tables="3"' in html
    assert "Round 2:" in html and "1 of 3 tables finished" in html
    assert 'data-table="2" data-state="playing"' in html and "2 hands of 4" in html
    assert 'data-table="3" data-state="waiting"' in html
    # The table not started shows its players' chances to win (three new players: even chances).
    waiting = html.split('data-table="3" data-state="waiting"')[1].split("</article>")[0]
    assert waiting.count('class="pct"') == 3 and "Hanna Otto" in waiting
    rows = html.split('<tbody>')[1].split('</tbody>')[0].split('<tr data-player="')[1:]
    shown = {int(row.split('"')[0]): row.split('data-move="')[1].split('"')[0] for row in rows}
    assert shown == {p["d"]: "up", p["c"]: "same", p["a"]: "down", p["b"]: "down", p["e"]: "new",
                     p["f"]: "down", p["g"]: "down"}
    assert "up 3 places" in html and "▲3" in html and "▼2" in html
    # The latest results: round 2 table 1 first (finished last), C won it with 6.
    latest = html.split('id="screen-latest"')[1]
    assert latest.index('data-round="2" data-table="1"') < latest.index('data-round="1" data-table="2"')
    assert "Conny Hahn wins with 6" in latest
    # The fragment the live page fetches is the same screen.
    fragment = Client().get(f"/events/{event.pk}/screen/?fragment=screen", HTTP_ACCEPT_LANGUAGE="en")
    assert 'id="screen-progress"' in fragment.content.decode() and b"<html" not in fragment.content


@pytest.mark.parametrize("language, words", [
    ("de", ["Runde 2:", "1 von 3 Tischen fertig", "3 Plätze nach oben", "Neueste Ergebnisse"]),
    ("fi", ["Kierros 2:", "1/3 pöydästä valmiina", "3 sijaa ylöspäin", "Viimeisimmät tulokset"]),
])
def test_the_screen_speaks_german_and_finnish(evening, language, words):
    html = Client().get(f"/events/{evening['event'].pk}/screen/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for word in words:
        assert word in html


def test_the_series_top_is_shown_when_the_event_counts_for_a_series(evening):
    from tournaments import services

    event, organiser = evening["event"], evening["organiser"]
    html = Client().get(f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="screen-series"' not in html
    series = services.series_create(by_user=organiser, club=event.club, name="Winter 2026", game="mu")
    services.event_update(event=event, by_user=organiser, series=series)
    html = Client().get(f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    top = html.split('id="screen-series"')[1]
    assert "Series: Winter 2026" in top
    # Five rows at most, best first: D, C, A, B, E by the event's public ranks.
    names = [item.split('class="who">')[1].split("<")[0] for item in top.split("</ol>")[0].split("<li")[1:]]
    assert names == ["Dagmar Koch", "Conny Hahn", "Anna Becker", "Bernd Fischer", "Emil Lang"]
    # It is a live region of the series (its version, pushed to the event's socket as series-top,
    # fetched from the series' room screen when the socket is down), not part of the event's.
    assert f'data-live-series="{series.pk}"' in top.split(">")[0] and 'data-live-push="series-top"' in top.split(">")[0]
    event_region = html.split('id="screen"')[1].split('id="screen-series"')[0]
    assert "Winter 2026" not in event_region
    fetched = Client().get(f"/series/{series.pk}/screen/?fragment=top", HTTP_ACCEPT_LANGUAGE="en")
    assert fetched.status_code == 200 and fetched["X-Live-Version"]
    assert "Series: Winter 2026" in fetched.content.decode() and "Dagmar Koch" in fetched.content.decode()


def test_a_held_round_still_shows_where_everybody_sits(evening):
    """Holding a round back hides its results, not its seating: the room screen and the event page
    show its tables with their players, no total, no hand count, no chance."""
    event = evening["event"]
    d, e, f = (evening["players"][key] for key in "def")
    screen = Client().get(f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    seating = screen.split('id="screen-seating"', 1)[1].split("</section>", 1)[0]
    assert 'data-held-round="3"' in screen and "results held back" in seating
    assert all(player.name in seating for player in (d, e, f)) and not re.search(r"(?<![\w/-])437(?!\d)", screen)
    assert 'data-held-table="1"' in seating and "%" not in seating
    page = Client().get(f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    held = page.split('data-held-round="3"', 1)[1].split("</section>", 1)[0]
    assert all(player.name in held for player in (d, e, f)) and not re.search(r"(?<![\w/-])437(?!\d)", page)


def test_a_held_rounds_seating_speaks_german_and_finnish(evening):
    """The held round's heading and the seating's note in the reader's language."""
    event = evening["event"]
    for language, heading, note in (("de", "Runde 3: Ergebnisse zurückgehalten", "Wer wo sitzt:"),
                                    ("fi", "Kierros 3: tulokset pidätetty", "Kuka istuu missäkin:")):
        screen = Client().get(f"/events/{event.pk}/screen/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert heading in screen, language
        page = Client().get(f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert heading in page and note in page, language


def test_the_screen_reads_the_names_of_the_players_outside_the_standings_only(evening, monkeypatch):
    """The standings rows carry their players' names (namesakes told apart, the same rule
    everywhere): the screen looks up only the other players it shows (a table's newcomers), and
    shows them as the standings do."""
    from stich.pages import views
    from tournaments import policy

    asked = []
    names = policy.Visibility.names
    monkeypatch.setattr(policy.Visibility, "names", lambda self, players: asked.append(set(players)) or names(self, players))
    context = views.screen_context(evening["event"])
    standing = {row["player_id"] for row in context["standings"]}
    assert asked[0] == standing  # the standings' own lookup
    assert asked[1] and not asked[1] & standing  # the screen's: the newcomers at a table only
    seats = {seat["name"] for table in context["progress"]["tables"] for seat in table["seats"]}
    assert "Hanna Otto" in seats  # a newcomer, named
    assert seats & {row["name"] for row in context["standings"]}  # the others as the standings name them
