"""The club's public page (``/clubs/<slug>/``) and its calendar feed: what they show, that the feed
is iCalendar a phone reads, and that what the policy hides (unpublished events, held rounds,
real names of initials-only players, other clubs' players) stays hidden."""
from __future__ import annotations

import datetime
import re

import icalendar
import pytest

pytestmark = pytest.mark.django_db


def _play(table, scores: list[list[int]], finished_at):
    """A finished Mü session of ``table`` with hands of the given scores, stored as the services
    leave one (totals kept, marked for the rating pool), and the event's kept sums rebuilt."""
    from tournaments.models import Hand, Session
    from tournaments.standings.series_standings import rebuild

    session = Session.objects.create(table=table, number=1)
    seats = table.seats.count()
    for number, hand in enumerate(scores, start=1):
        Hand.objects.create(session=session, number=number, dealer=(number - 1) % seats, result={"scores": hand})
    session.status, session.finished_at = Session.Status.FINISHED, finished_at
    session.totals = [sum(hand[seat] for hand in scores) for seat in range(seats)]
    session.hand_count = len(scores)
    session.rating_dirty_at = finished_at
    session.save(update_fields=["status", "finished_at", "totals", "hand_count", "rating_dirty_at"])
    rebuild([table.round.event_id])
    return session


class World:
    pass


@pytest.fixture
def world(db):
    return build_club_world()


def build_club_world() -> World:
    """A club with six players (one shown by initials only), a running series, events past and
    upcoming, published and not, one past event played with a held-back round; another club whose
    rated player is no member."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from ratings.services import pool_sync
    from tournaments import services
    from tournaments.models import Club, Round

    w = World()
    w.today = timezone.localdate()
    organiser = get_user_model().objects.create_user("chef", password="pw")
    w.club = services.club_create(by_user=organiser, name="Mü-Freunde Köln", city="Köln", organisers=[organiser])
    names = ["Anna Berg", "Bruno Claus", "Carla Dorn", "Dieter Ernst", "Emma Fuchs", "Felix Graf"]
    w.players = [services.player_create(by_user=organiser, name=name, clubs=[w.club],
                                        initials_only=name == "Carla Dorn") for name in names]
    w.series = services.series_create(by_user=organiser, club=w.club, name="Winterwertung 2026", game="mu",
                                      season_from=w.today - datetime.timedelta(days=30),
                                      season_to=w.today + datetime.timedelta(days=60))
    w.old_series = services.series_create(by_user=organiser, club=w.club, name="Sommerwertung 2025", game="mu",
                                          season_from=w.today - datetime.timedelta(days=500),
                                          season_to=w.today - datetime.timedelta(days=400))

    def event(name, days, published=True, **options):
        return services.event_create(by_user=organiser, club=w.club, name=name, game=options.pop("game", "mu"),
                                     starts_on=w.today + datetime.timedelta(days=days), published=published,
                                     **options)

    w.upcoming = event("Adventsturnier", 3, series=w.series)
    w.upcoming_open = event("Offener Clubabend", 10, game="maumau", format="open")
    w.secret = event("Geheime Vorbereitung", 5, published=False)
    w.past = event("Herbstabend", -2)
    w.past_secret = event("Interne Probe", -3, published=False)
    w.far_past = event("Altes Turnier", -450, series=w.old_series)
    w.undated = services.event_create(by_user=organiser, club=w.club, name="Ohne Datum", game="lut",
                                      published=True)
    # Series the public does not see: one without events, one of an unpublished event only.
    services.series_create(by_user=organiser, club=w.club, name="Leere Wertung", game="mu")
    hidden = services.series_create(by_user=organiser, club=w.club, name="Geheime Wertung", game="mu")
    event("Geheimes Finale", 20, published=False, series=hidden)

    # The past evening: round 1 public (table of four: seat totals decide), round 2 held back with a
    # result that would change the winner.
    finished = timezone.now() - datetime.timedelta(days=2)
    round_1 = services.round_create(event=w.past, by_user=organiser)
    table = services.table_create(round_=round_1, players=w.players[:4], by_user=organiser)
    w.hands = [[10, 30, 25, -5], [5, 12, 20, 0]]
    _play(table, w.hands, finished)
    round_2 = services.round_create(event=w.past, by_user=organiser)
    held = services.table_create(round_=round_2, players=[w.players[0], w.players[3], w.players[4], w.players[5]],
                                 by_user=organiser)
    _play(held, [[90, 0, 0, 0]], finished + datetime.timedelta(hours=1))
    services.round_set_results_held(round_=Round.objects.get(pk=round_2.pk), held=True, by_user=organiser)

    # The secret past event has a result too: its winner must not be named anywhere.
    secret_round = services.round_create(event=w.past_secret, by_user=organiser)
    secret_table = services.table_create(round_=secret_round, players=w.players[2:6], by_user=organiser)
    _play(secret_table, [[0, 0, 0, 99]], finished - datetime.timedelta(days=1))

    # Another club, its own rated player (a member of it only).
    w.other = Club.objects.create(name="Maumau-Runde Bonn")
    outsiders = [services.player_create(by_user=organiser, name=f"Gast {n}", clubs=[w.other]) for n in range(4)]
    w.other.organisers.add(organiser)
    other_event = services.event_create(by_user=organiser, club=w.other, name="Bonner Abend", game="mu",
                                        starts_on=w.today - datetime.timedelta(days=1), published=True)
    other_table = services.table_create(round_=services.round_create(event=other_event, by_user=organiser),
                                        players=outsiders, by_user=organiser)
    _play(other_table, [[50, 0, 0, 0]], finished)
    w.outsider = outsiders[0]
    pool_sync("mu")
    return w


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_slug_is_made_from_the_name_and_unique(world):
    from tournaments.models import Club

    assert world.club.slug == "mu-freunde-koln"
    twin = Club.objects.create(name="Mu Freunde Koln")  # another name, the same address: numbered
    assert twin.slug == "mu-freunde-koln-2"
    world.club.name = "Mü-Freunde Köln e. V."
    world.club.save()
    world.club.refresh_from_db()
    assert world.club.slug == "mu-freunde-koln"  # kept when renamed: subscribed calendars keep working


def test_the_page_shows_upcoming_series_past_events_and_winners(client, world):
    from tournaments import policy

    response = client.get(f"/clubs/{world.club.slug}/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    text = _text(html)
    upcoming = html[html.index('id="upcoming"'):html.index('id="calendar"')]
    assert "Adventsturnier" in upcoming and "Offener Clubabend" in upcoming
    assert upcoming.index("Adventsturnier") < upcoming.index("Offener Clubabend")  # by date
    assert "Herbstabend" not in upcoming
    series = html[html.index('id="series"'):html.index('id="past"')]
    running = series[:series.index("Earlier seasons")]
    assert f'href="/series/{world.series.pk}/"' in running and "Sommerwertung" not in running
    assert "Sommerwertung 2025" in series[series.index("Earlier seasons"):]
    past = html[html.index('id="past"'):]
    assert past.index("Herbstabend") < past.index("Altes Turnier") < past.index("Ohne Datum")  # newest first
    # The winner of round 1 (the public result) computed here: the highest total of the table.
    totals = [sum(hand[seat] for hand in world.hands) for seat in range(4)]
    winner = world.players[totals.index(max(totals))]
    shown = policy.public().names([winner])[winner.pk]  # by initials when he chose so
    herbst = past[past.index("Herbstabend"):past.index("</li>", past.index("Herbstabend"))]
    assert f"Winner: <strong>{shown}</strong>" in herbst
    assert "No results yet." in past[past.index("Altes Turnier"):]
    assert "calendar.ics" in text


def test_the_page_hides_what_the_policy_hides(client, world):
    html = client.get(f"/clubs/{world.club.slug}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Geheime Vorbereitung" not in html and "Interne Probe" not in html  # unpublished
    assert "Geheimes Finale" not in html and "Geheime Wertung" not in html and "Leere Wertung" not in html
    past = html[html.index('id="past"'):]
    herbst = past[past.index("Herbstabend"):past.index("</li>", past.index("Herbstabend"))]
    # The held round would have made Anna Berg (90 more points) the winner: it is not counted.
    assert "Anna Berg" not in herbst
    # Carla Dorn is shown by her initials only, wherever she appears.
    assert "Carla Dorn" not in html and "Dorn" not in html
    assert "C.D." in html
    # The leaderboard: the club's members only, never the other club's player.
    board = html[html.index('id="leaderboards"'):]
    assert world.outsider.name not in board
    assert f"/players/{world.outsider.pk}/" not in board
    # The month view of the secret event's month shows no day for it.
    month = (world.secret.starts_on).strftime("%Y-%m")
    calendar = client.get(f"/clubs/{world.club.slug}/?month={month}").content.decode()
    assert "Geheime Vorbereitung" not in calendar
    assert f'data-day="{world.secret.starts_on.isoformat()}"' not in calendar or \
        world.secret.starts_on in (world.upcoming.starts_on, world.upcoming_open.starts_on)


def test_the_leaderboard_ranks_the_members_by_rating(client, world):
    from ratings.models import Rating

    html = client.get(f"/clubs/{world.club.slug}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    board = html[html.index('data-game="mu"'):]
    board = board[:board.index("</table>")]
    rows = re.findall(r'data-player="(\d+)".*?class="num rating">(-?\d+)<', board, re.S)
    members = {p.pk for p in world.players}
    expected = sorted(Rating.objects.filter(game="mu", player__in=members, sessions__gte=1),
                      key=lambda r: (-r.displayed, -r.mu, r.player_id))
    assert [int(p) for p, _ in rows] == [r.player_id for r in expected][:10]
    assert [int(shown) for _, shown in rows] == [r.displayed for r in expected][:10]
    assert len(rows) == 4  # the four who played a public round


def test_the_calendar_shows_the_month_with_its_events(client, world):
    month = world.upcoming.starts_on.strftime("%Y-%m")
    html = client.get(f"/clubs/{world.club.slug}/?month={month}", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    month_table = html[html.index('id="month"'):]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", month_table[:month_table.index("</table>")], re.S)
    assert len(cells) % 7 == 0 and len(cells) >= 28
    assert f'data-day="{world.upcoming.starts_on.isoformat()}"' in html
    assert f'id="day-{world.upcoming.starts_on.isoformat()}"' in html
    # Junk in ?month= shows this month, not an error.
    assert client.get(f"/clubs/{world.club.slug}/?month=2026-13").status_code == 200
    assert client.get(f"/clubs/{world.club.slug}/?month=x").status_code == 200


def test_the_feed_is_icalendar_with_the_public_events(client, world):
    from games.catalog import GAMES

    response = client.get(f"/clubs/{world.club.slug}/calendar.ics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    feed = icalendar.Calendar.from_ical(response.content)
    assert str(feed["X-WR-CALNAME"]) == "Mü-Freunde Köln"
    entries = {str(e["SUMMARY"]): e for e in feed.walk("VEVENT")}
    mu, maumau = GAMES["mu"].name, GAMES["maumau"].name
    assert set(entries) == {f"Adventsturnier ({mu})", f"Offener Clubabend ({maumau})", f"Herbstabend ({mu})"}
    advent = entries[f"Adventsturnier ({mu})"]
    assert advent.decoded("DTSTART") == world.upcoming.starts_on
    assert advent.decoded("DTEND") == world.upcoming.starts_on + datetime.timedelta(days=1)
    assert str(advent["URL"]).endswith(f"/events/{world.upcoming.pk}/")
    assert "Winterwertung 2026" in str(advent["DESCRIPTION"])
    assert str(advent["LOCATION"]) == "Köln"
    assert len({str(e["UID"]) for e in entries.values()}) == 3
    # The same feed twice: the same entries (a phone's refresh changes nothing).
    again = icalendar.Calendar.from_ical(client.get(f"/clubs/{world.club.slug}/calendar.ics").content)
    assert [str(e["UID"]) for e in again.walk("VEVENT")] == [str(e["UID"]) for e in feed.walk("VEVENT")]


def test_unknown_club_is_404(client, world):
    assert client.get("/clubs/no-such-club/").status_code == 404
    assert client.get("/clubs/no-such-club/calendar.ics").status_code == 404


@pytest.mark.parametrize("language, words", [
    ("de", ["Kommende Veranstaltungen", "Vergangene Veranstaltungen", "Kalender", "Sieger:"]),
    ("fi", ["Tulevat tapahtumat", "Menneet tapahtumat", "Kalenteri", "Voittaja:"]),
    ("en", ["Upcoming events", "Past events", "Calendar", "Winner:"]),
])
def test_the_page_speaks_the_browsers_language(client, world, language, words):
    html = client.get(f"/clubs/{world.club.slug}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for word in words:
        assert word in html, (language, word)


def test_the_home_page_and_the_event_page_link_the_club(client, world):
    home = client.get("/").content.decode()
    assert f'href="/clubs/{world.club.slug}/"' in home
    event = client.get(f"/events/{world.past.pk}/").content.decode()
    assert f'href="/clubs/{world.club.slug}/"' in event


def test_past_events_come_ten_a_page(client, world):
    from django.contrib.auth import get_user_model

    from stich.pages.clubs import PAST_PAGE
    from tournaments import services
    from tournaments.models import Event

    organiser = get_user_model().objects.get(username="chef")
    for day in range(12):
        services.event_create(by_user=organiser, club=world.club, name=f"Abend {day:02d}", game="mu", published=True,
                              starts_on=world.today - datetime.timedelta(days=100 + day))
    past = list(Event.objects.filter(club=world.club, published=True, starts_on__lt=world.today)
                .order_by("-starts_on")) + [world.undated]
    shown = []
    for number in (1, 2):
        html = client.get(f"/clubs/{world.club.slug}/?past={number}").content.decode()
        section = html[html.index('id="past"'):]
        shown.append([int(pk) for pk in re.findall(r'data-event="(\d+)"', section)])
    assert shown[0] == [e.pk for e in past[:PAST_PAGE]]
    assert shown[1] == [e.pk for e in past[PAST_PAGE:2 * PAST_PAGE]]
    assert client.get(f"/clubs/{world.club.slug}/?past=junk").status_code == 200
