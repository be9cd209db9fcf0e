"""The public event page reads a constant number of queries whatever the number of its rounds and
the players' history (issue 37: its win chances' lookups made it grow). Inside a test's
transaction the page renders its regions every time (no cached fragment): the cold page, the
costly one. Its CPU is measured by ``python -m bench.event_page``."""
from __future__ import annotations

import random

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def _queries(client, url: str) -> tuple[int, str]:
    found = []

    def counted(execute, sql, params, many, context):
        found.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(counted):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    return len(found), response.content.decode()


def _evening(label: str, rounds: int, history: int):
    """An event of ``rounds`` rounds of 3 tables of 4 (sessions finished) after ``history``
    earlier evenings of the same players, its last round held back, the pool rated."""
    from bench.event_page import _club
    from ratings.services import pool_sync
    from tournaments.models import Round
    from tournaments.standings.series_standings import rebuild

    event = _club(label, rounds, 3, history, random.Random(len(label)))
    rebuild(list(type(event).objects.filter(club=event.club_id).values_list("pk", flat=True)))
    Round.objects.filter(event=event, number=rounds).update(results_held=True)
    pool_sync("mu")
    return event


def test_the_event_pages_queries_do_not_grow_with_its_rounds_and_history(client):
    short = _evening("Short", rounds=2, history=1)
    long = _evening("Long", rounds=6, history=3)  # a page of 12 tables over 4 rounds
    few, short_html = _queries(client, f"/events/{short.pk}/")
    many, long_html = _queries(client, f"/events/{long.pk}/")
    assert few == many
    # The event; its standings (the sums, the names); its tables' page (3: the page with the tables'
    # count, their seats, their sessions), names (1) and chances (the rating history, and the pool's
    # size when the cache holds its scale); the held round's seating and names (4).
    assert many <= 13
    # What was counted is the whole page: standings, every shown table with its chances, the held round.
    for html, tables in ((short_html, 3), (long_html, 12)):
        assert html.count('<article class="table-card" data-table=') == tables
        assert html.count('class="chances compact"') == tables
        assert html.count('data-held-table=') == 3
    assert long_html.count('class="round"') == 4 and 'rel="next"' in long_html


def test_the_tables_page_past_the_last_is_the_last(client):
    event = _evening("Paged", rounds=6, history=0)  # 15 public tables: two pages
    _, html = _queries(client, f"/events/{event.pk}/?tables=9")
    assert html.count('<article class="table-card" data-table=') == 3 and 'rel="prev"' in html and 'rel="next"' not in html
    assert "Page 2 of 2" in html


def _page_tables(event):
    from django.db.models import Prefetch

    from tournaments import policy
    from tournaments.models import Seat, Session

    return list(policy.public().tables().filter(round__event=event).select_related("round")
                .order_by("round__number", "number")
                .prefetch_related(Prefetch("seats", queryset=Seat.objects.order_by("position")),
                                  Prefetch("sessions", queryset=Session.objects.order_by("number"))))


@pytest.mark.django_db(transaction=True)  # outside a transaction, as a page is: the chances are kept
def test_a_tables_chances_are_kept_until_its_sessions_or_the_ratings_change():
    from django.test.utils import CaptureQueriesContext

    from bench.event_page import _club
    from ratings.outlook import kept_tables_outlook, tables_outlook
    from ratings.services import pool_sync
    from tournaments import live
    from tournaments.models import Session
    from tournaments.standings.selectors import tables_seats_and_sessions

    event = _club("Kept", 2, 3, 1, random.Random(7))
    pool_sync("mu")
    key = live.ratings_key("mu")

    def kept():
        tables = _page_tables(event)
        with CaptureQueriesContext(connection) as read:
            found = kept_tables_outlook(tables, game="mu", ratings_key=key)
        assert found == tables_outlook(tables, game="mu")  # the same chances as computed
        seats, sessions = tables_seats_and_sessions(tables)  # as the event page reads them: plain rows
        assert found == tables_outlook(tables, game="mu", seats=seats, sessions=sessions)
        return found, len(read)

    first, _ = kept()
    assert len(first) == 6 and {outlook.basis for outlook in first.values()} == {"before_session"}
    again, queries = kept()
    assert again == first and queries == 0  # read from the cache: no rating history, no pool
    # A table starts another session: the page's chances are computed again (and kept again).
    table = _page_tables(event)[0]
    Session.objects.create(table=table, number=2)
    _, queries = kept()
    assert queries > 0
    assert kept()[1] == 0
    # New ratings move the count: computed again.
    live.ratings_changed("mu")
    _, queries = kept()
    assert queries > 0


@pytest.mark.django_db(transaction=True)  # outside a transaction, as a page is: its regions are cached
def test_the_event_page_reads_the_cache_in_two_round_trips_once_its_regions_are_rendered(client, monkeypatch):
    import re

    from django.core.cache import cache

    from tournaments import live

    event = _evening("Trips", rounds=2, history=1)
    calls = []

    class Counted:  # the shared cache, each command counted
        def __getattr__(self, name):
            method = getattr(cache, name)

            def counted(*args, **kwargs):
                calls.append(name)
                return method(*args, **kwargs)
            return counted

    monkeypatch.setattr(live, "cache", Counted())
    url = f"/events/{event.pk}/"
    live.bump_version(event.pk)
    calls.clear()
    cold = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    # The version and the ratings' count in one read, both regions in one; each region rendered
    # then (one renderer across the processes: its lock) and stored.
    assert calls == ["get_many", "get_many", "add", "set", "add", "set"]
    calls.clear()
    warm = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert calls == ["get_many", "get_many"]  # nothing rendered: the regions stored by the first reader

    def regions(response):
        html = response.content.decode()
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    assert cold.status_code == warm.status_code == 200 and regions(warm) == regions(cold)
    assert regions(warm).count('class="chances compact"') == 3


def test_the_tables_take_their_players_names_from_the_standings_rendered_before_them(monkeypatch):
    """The event page's first reader after a change renders both regions: the tables' names come
    from the standings rendered before them (one lookup less), and the region is the same as when
    rendered alone (a player has the same name whatever else is asked: tournaments/names.py)."""
    from django.utils import translation

    from stich.pages import views
    from tournaments import policy

    event = _evening("Names", rounds=2, history=1)
    asked = []
    real = policy.shown_names

    def counted(visibility, players):
        players = list(players)
        asked.append(players)
        return real(visibility, players)

    monkeypatch.setattr(policy, "shown_names", counted)
    with translation.override("en"):
        names: dict[int, str] = {}
        views._render_standings(event, 1, names)
        assert len(asked) == 1 and names
        asked.clear()
        shared = views._render_rounds(event, 1, names)
        assert len(asked) == 1  # the held round's seating only: the shown tables' players were known
        asked.clear()
        alone = views._render_rounds(event, 1)
        assert len(asked) == 2  # the shown tables' players, then the held round's
    assert shared == alone and shared.count('<article class="table-card" data-table=') == 3
