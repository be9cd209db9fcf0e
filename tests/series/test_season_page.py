"""The series page of a season with options: the kept rows read in the same queries for a long
season as for a short one, a window of event columns named by date and name (paged back), the
unqualified players apart under a heading that says why, and the phone's fold of each row."""
from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.conftest import client_for
from tests.series.test_options import _build, _event_list, expected
from tournaments.models import Event

pytestmark = pytest.mark.django_db


def _page(series, **params):
    return Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/series/{series.pk}/", params)


def test_the_page_of_a_long_season_makes_the_queries_of_a_short_one():
    season = _build(["mu", "maumau"], evenings=12, seed=11, aggregate="average", qualify_percent=50)
    series, events = season["series"], season["events"]
    from tournaments.standings.series_standings import refresh

    Event.objects.filter(pk__in=[e.pk for e in events[3:]]).update(series=None)
    refresh([series.pk])
    _page(series)
    with CaptureQueriesContext(connection) as short:
        assert _page(series).status_code == 200
    Event.objects.filter(pk__in=[e.pk for e in events[3:]]).update(series=series)
    refresh([series.pk])
    _page(series)
    with CaptureQueriesContext(connection) as long:
        html = _page(series).content.decode()
    assert len(long) == len(short)
    # Six event columns of the eleven the public sees, the latest ones; a link pages back.
    assert html.count('class="num wide event-col"') == 6
    assert "?page=1" in html


def test_the_page_names_columns_by_date_and_name_folds_rows_and_sets_the_unqualified_apart():
    season = _build(["mu", "lut"], evenings=9, seed=13, aggregate="average", qualify_percent=50)
    series = season["series"]
    client = client_for()
    want = expected(series, client)
    html = _page(series).content.decode()
    columns = _event_list(series, client)
    latest = columns[-1]
    day = latest["starts_on"]  # ISO; the page writes the English short date dd/mm/yyyy
    shown = f"{day[8:10]}/{day[5:7]}/{day[0:4]} {latest['name']}"
    assert f'title="{shown}"' in html
    # The unqualified: after a heading naming the events needed, without a rank.
    need = want["required_events"]
    assert f"Not qualified yet: fewer than {need} events" in html
    heading = html.index("Not qualified yet")
    for row in want["standings"]:
        at = html.index(f'data-player="{row["player"]}"')
        assert (at > heading) == (not row["qualified"])
    # Each row folds its details (the phone shows rank, name, score, move and the latest event).
    assert html.count('<details class="fold">') == len(want["standings"])
    assert html.count('class="num latest-points"') == len(want["standings"])
    # The per-game columns of a mixed season.
    assert 'data-game="mu"' in html and 'data-game="lut"' in html


def test_a_page_out_of_range_shows_the_earliest_window():
    season = _build(["mu"], evenings=9, seed=17)
    series = season["series"]
    first = _page(series, page="99").content.decode()
    junk = _page(series, page="x").content.decode()
    assert re.findall(r'data-event="(\d+)"', junk)  # the latest window
    assert "?page=0" in first and "Earlier events" not in first
