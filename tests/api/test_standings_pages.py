"""Long standings in pages (ranks of the whole standings, shared ranks across a page boundary),
the CSV streamed with every row, and standings read in a number of queries that does not grow
with the event's sessions."""
from __future__ import annotations

import csv
import io

import pytest
from django.db import connection
from django.http import StreamingHttpResponse
from django.test.utils import CaptureQueriesContext

from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _sessions(event, tables, totals):
    """Finished sessions written around the services (``totals`` per table), then the event's
    sums rebuilt, as an import does."""
    from tournaments.models import Session
    from tournaments.standings.series_standings import rebuild

    Session.objects.bulk_create(Session(table=table, status="finished", totals=list(totals), hand_count=4)
                                for table in tables)
    rebuild([event.pk])


@pytest.fixture
def tied(world):
    """The Mü event's three tables end alike: players share ranks 1, 4, 7 and 10 (three each)."""
    event = world.events["mu"]
    _sessions(event, event.rounds.get().tables.all(), [40, 30, 20, 10])
    return event


def test_pages_continue_the_ranks_and_a_shared_rank_spans_the_boundary(tied):
    client = client_for()
    url = f"/api/v1/events/{tied.pk}/standings/"
    whole = client.get(url).json()
    assert "count" not in whole and "page" not in whole  # a short standings keeps its shape
    assert [row["rank"] for row in whole["standings"]] == [1, 1, 1, 4, 4, 4, 7, 7, 7, 10, 10, 10]
    pages = [client.get(url, {"page": number, "page_size": 5}).json() for number in (1, 2, 3)]
    assert [page["count"] for page in pages] == [12] * 3 and [page["pages"] for page in pages] == [3] * 3
    assert [[row["rank"] for row in page["standings"]] for page in pages] == [[1, 1, 1, 4, 4], [4, 7, 7, 7, 10], [10, 10]]
    assert [row for page in pages for row in page["standings"]] == whole["standings"]
    assert pages[0]["previous"] is None and pages[0]["next"].endswith("page=2&page_size=5")
    assert pages[2]["next"] is None and "page=2" in pages[2]["previous"]
    assert client.get(pages[0]["next"]).json() == pages[1]


def test_bad_pages_are_refused_as_json(tied):
    client = client_for()
    url = f"/api/v1/events/{tied.pk}/standings/"
    assert client.get(url, {"page": 4, "page_size": 5}).status_code == 404
    for query in ({"page": 0}, {"page": "x"}, {"page_size": 0}, {"page_size": 1001}):
        response = client.get(url, query)
        assert response.status_code == 400, query
        assert response.json()["code"] == "invalid" and set(response.json()["fields"]) <= {"page", "page_size"}


def test_long_standings_come_in_pages_and_the_csv_streams_every_row(tied, monkeypatch):
    from tournaments.standings import selectors

    monkeypatch.setattr(selectors, "STANDINGS_PAGE_SIZE", 5)
    client = client_for()
    first = client.get(f"/api/v1/events/{tied.pk}/standings/").json()
    assert first["count"] == 12 and len(first["standings"]) == 5 and first["page"] == 1
    response = client.get(f"/api/v1/events/{tied.pk}/standings.csv")
    assert response.status_code == 200 and isinstance(response, StreamingHttpResponse) and response.streaming
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    whole = client.get(f"/api/v1/events/{tied.pk}/standings/", {"page_size": 1000}).json()["standings"]
    assert rows[0] == ["rank", "player", "name", "played", "placement", "total", "wins"]
    assert rows[1:] == [[str(row[key]) for key in ("rank", "player", "name", "played", "placement", "total", "wins")]
                        for row in whole]


def test_the_event_page_shows_standings_and_tables_a_page_at_a_time(tied, monkeypatch):
    from django.test import Client

    from stich.pages import views
    from tournaments.standings import selectors

    monkeypatch.setattr(selectors, "STANDINGS_PAGE_SIZE", 5)
    monkeypatch.setattr(views, "TABLES_PAGE", 2)
    client = Client()
    second = client.get(f"/events/{tied.pk}/", {"page": 2, "tables": 2})
    assert second.status_code == 200
    ranks = [row["rank"] for row in second.context["standings"]]
    assert ranks == [4, 7, 7, 7, 10]
    assert second.context["tables_page"]["number"] == 2 and second.context["tables_page"]["pages"] == 2
    assert [t["table"].number for r in second.context["rounds"] for t in r["tables"]] == [3]
    html = second.content.decode()
    assert "fragment=standings&amp;page=2" in html and "fragment=rounds&amp;tables=2" in html
    fragment = client.get(f"/events/{tied.pk}/", {"fragment": "standings", "page": 9})  # past the last: the last
    assert [row["rank"] for row in fragment.context["standings"]] == [10, 10]


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    if isinstance(response, StreamingHttpResponse):
        b"".join(response.streaming_content)
    return len(captured)


def test_standings_read_the_same_queries_for_ten_times_the_sessions(world):
    from tournaments.models import Round, Seat, Table

    event = world.events["lut"]
    client = client_for()
    urls = [f"/api/v1/events/{event.pk}/standings/", f"/api/v1/events/{event.pk}/standings.csv",
            f"/events/{event.pk}/", f"/events/{event.pk}/screen/"]
    counts = []
    for rounds in (1, 10):
        for number in range(event.rounds.count() + 1, rounds + 1):
            round_ = Round.objects.create(event=event, number=number)
            tables = Table.objects.bulk_create(Table(round=round_, number=n + 1) for n in range(3))
            Seat.objects.bulk_create(Seat(table=table, round=round_, player=world.players[4 * n + k], position=k)
                                     for n, table in enumerate(tables) for k in range(4))
        tables = [t for t in Table.objects.filter(round__event=event) if not t.sessions.exists()]
        _sessions(event, tables, [12, 7, 7, 0])
        counts.append([_queries(client, url) for url in urls])
    assert counts[0] == counts[1]
