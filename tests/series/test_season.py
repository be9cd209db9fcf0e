"""A season built by hand: 12 club evenings of Mü, players joining late and missing evenings,
shared ranks, ``best_of`` 8 and ``min_events`` 4, under each scoring. The series standings must
equal a computation written here from each event's own standings (``/api/v1/events/{id}/standings/``)."""
from __future__ import annotations

import datetime
import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import client_for, make_user
from tournaments import policy
from tournaments.models import (
    Club,
    Event,
    Membership,
    Player,
    Round,
    Seat,
    Series,
    Session,
    Table,
)
from tournaments.standings.series_standings import rebuild, series_document

POINTS_TABLE = [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]


def _evening(event: Event, rng: random.Random, present: list[Player], tables: int = 2) -> None:
    """Two rounds of tables of 3 to 5 players, sessions with totals on a coarse grid (so that
    players tie), one session left without hands and one abandoned (neither counts)."""
    for number in (1, 2):
        round_ = Round.objects.create(event=event, number=number)
        order = present[:]
        rng.shuffle(order)
        size, start = len(order) // tables, 0
        for table_number in range(tables):
            seated = order[start:start + size] if table_number < tables - 1 else order[start:]
            start += size
            table = Table.objects.create(round=round_, number=table_number + 1)
            for position, player in enumerate(seated):
                Seat.objects.create(table=table, round=round_, player=player, position=position)
            Session.objects.create(table=table, number=1, status=Session.Status.FINISHED,
                                   totals=[rng.choice([0, 10, 20, 30]) for _ in seated], hand_count=5)
            if number == 2 and table_number == 0:
                Session.objects.create(table=table, number=2, status=Session.Status.OPEN)
                Session.objects.create(table=table, number=3, status=Session.Status.ABANDONED,
                                       totals=[500] * len(seated), hand_count=3)


@pytest.fixture
def season(db):
    """12 evenings; players 8–9 join at the 6th evening, player 10 comes to two evenings only,
    everyone misses some evenings; the
    3rd evening is ranked by wins alone (many shared ranks); the 11th is unpublished and the
    12th has its second round held back."""
    rng = random.Random(24)
    organiser = make_user("season_organiser")
    club = Club.objects.create(name="Stammtisch")
    club.organisers.add(organiser)
    players = [Player.objects.create(name=f"Spieler {i}") for i in range(11)]
    for player in players:
        Membership.objects.create(player=player, club=club)
    series = Series.objects.create(club=club, name="Jahreswertung", game="mu", best_of=8, min_events=4)
    events = []
    for index in range(12):
        # Dates out of creation order: the series orders its events by date.
        day = datetime.date(2026, 1, 1) + datetime.timedelta(weeks=(index * 5) % 12)
        event = Event.objects.create(club=club, name=f"Abend {index + 1}", game="mu", starts_on=day,
                                     published=index != 10, series=series,
                                     standings_metrics="wins" if index == 2 else "placement,total,wins")
        pool = players[:8] if index < 5 else players[:10]
        present = [p for p in pool if rng.random() < 0.75]
        present = present if len(present) >= 6 else pool[:6]
        # A guest of two evenings: below min_events, listed unranked.
        _evening(event, rng, present + [players[10]] if index in (8, 9) else present)
        events.append(event)
    Round.objects.filter(event=events[11], number=2).update(results_held=True)
    rebuild([event.pk for event in events])  # sessions written around the services: their standings sums
    return {"series": series, "events": events, "players": players, "organiser": organiser, "club": club}


def game_totals(event_id: int, *, organiser: bool) -> dict:
    """Each player's game total in the event: his totals of the sessions with hands, not abandoned,
    of the rounds the reader sees (the public misses held rounds)."""
    sessions = Session.objects.filter(table__round__event=event_id, hand_count__gt=0).exclude(
        status=Session.Status.ABANDONED)
    if not organiser:
        sessions = sessions.exclude(table__round__results_held=True)
    totals: dict[int, int] = {}
    for session in sessions:
        seats = Seat.objects.filter(table=session.table_id).order_by("position").values_list("player", flat=True)
        for player, total in zip(seats, session.totals):
            totals[player] = totals.get(player, 0) + total
    return totals


def expected(series: Series, client, *, organiser: bool) -> dict:
    """The series' standings computed independently from the events' own standings documents."""
    events = sorted(client.get("/api/v1/events/", {"club": series.club_id}).json()["results"],
                    key=lambda e: (e["starts_on"] or "9999", e["id"]))
    events = [e["id"] for e in events if e["series"] == series.pk]
    per_player: dict[int, dict] = {}
    for event in events:
        rows = client.get(f"/api/v1/events/{event}/standings/").json()["standings"]
        n = len(rows)
        totals = game_totals(event, organiser=organiser)
        for row in rows:
            if series.scoring == "placement":
                points = n - row["rank"] + 1
            elif series.scoring == "table":
                points = series.points_table[row["rank"] - 1] if row["rank"] <= len(series.points_table) else 0
            else:
                points = totals[row["player"]]
            entry = per_player.setdefault(row["player"], {"name": row["name"], "results": [], "wins": 0})
            entry["results"].append((event, points))
            entry["wins"] += row["rank"] == 1
    table = []
    for player, entry in per_player.items():
        best = sorted(range(len(entry["results"])), key=lambda i: (-entry["results"][i][1], i))
        counted = set(best[:series.best_of] if series.best_of else best)
        table.append({
            "player": player, "name": entry["name"], "played": len(entry["results"]), "wins": entry["wins"],
            "points": sum(entry["results"][i][1] for i in counted),
            "per_event": {str(event): {"points": points, "counted": i in counted}
                          for i, (event, points) in enumerate(entry["results"])},
        })
    ranked = [row for row in table if row["played"] >= series.min_events]
    unranked = [row for row in table if row["played"] < series.min_events]
    for row in ranked:
        better = [o for o in ranked if (o["points"], o["wins"], o["played"]) > (row["points"], row["wins"], row["played"])]
        row["rank"] = len(better) + 1
    for row in unranked:
        row["rank"] = None
    return {"events": events, "standings": ranked + unranked}


KEYS = ("rank", "player", "name", "points", "played", "wins", "per_event")


def _by_player(rows):
    """The columns this season tests (the season options have their own: test_options.py)."""
    return {row["player"]: {key: row[key] for key in KEYS} for row in rows}


@pytest.mark.parametrize("scoring", ["placement", "table", "total"])
@pytest.mark.parametrize("reader", ["public", "organiser"])
def test_series_standings_equal_the_events_own_standings_scored_by_hand(season, scoring, reader):
    series = season["series"]
    series.scoring = scoring
    series.points_table = POINTS_TABLE if scoring == "table" else []
    series.save()
    client = client_for(season["organiser"] if reader == "organiser" else None)
    want = expected(series, client, organiser=reader == "organiser")
    got = client.get(f"/api/v1/series/{series.pk}/standings/").json()

    assert got["scoring"] == scoring and got["best_of"] == 8 and got["min_events"] == 4
    assert got["events"] == want["events"]
    assert len(got["events"]) == (12 if reader == "organiser" else 11)
    assert _by_player(got["standings"]) == _by_player(want["standings"])
    # The order: ranked players by rank, then the unranked ones.
    ranks = [row["rank"] for row in got["standings"]]
    ranked = [rank for rank in ranks if rank is not None]
    assert ranked == sorted(ranked) and ranks[:len(ranked)] == ranked
    # The season has what it is meant to test.
    assert any(row["rank"] is None for row in got["standings"])
    assert any(not entry["counted"] for row in got["standings"] for entry in row["per_event"].values())


def test_the_season_has_shared_event_ranks_late_joiners_and_absences(season):
    client = client_for()
    evening = client.get(f"/api/v1/events/{season['events'][2].pk}/standings/").json()["standings"]
    ranks = [row["rank"] for row in evening]
    assert len(ranks) > len(set(ranks))  # shared ranks
    got = _by_player(client.get(f"/api/v1/series/{season['series'].pk}/standings/").json()["standings"])
    late = season["players"][9].pk
    assert str(season["events"][0].pk) not in got[late]["per_event"]
    assert any(row["played"] < 11 for row in got.values())


def test_unpublished_events_and_held_rounds_count_for_organisers_only(season):
    series, events = season["series"], season["events"]
    public = client_for().get(f"/api/v1/series/{series.pk}/standings/").json()
    organised = client_for(season["organiser"]).get(f"/api/v1/series/{series.pk}/standings/").json()
    assert events[10].pk not in public["events"] and events[10].pk in organised["events"]
    last = str(events[11].pk)

    def points_of_last(document):
        return {row["player"]: row["per_event"][last]["points"] for row in document["standings"]
                if last in row["per_event"]}

    # The held round changes the 12th evening's points for the organiser only.
    assert points_of_last(public) != points_of_last(organised)
    assert not any(str(events[10].pk) in row["per_event"] for row in public["standings"])


def test_series_queries_do_not_grow_with_its_events(season):
    series = season["series"]
    visibility = policy.public()
    Event.objects.filter(pk__in=[e.pk for e in season["events"][2:]]).update(series=None)
    with CaptureQueriesContext(connection) as two:
        document = series_document(series, visibility=visibility)
    assert len(document["events"]) == 2
    Event.objects.filter(pk__in=[e.pk for e in season["events"][2:6]]).update(series=series)
    with CaptureQueriesContext(connection) as six:
        document = series_document(series, visibility=visibility)
    assert len(document["events"]) == 6
    assert len(six) == len(two)


def test_maumau_total_counts_minus_points_negative(db):
    club = Club.objects.create(name="Maumau club")
    players = [Player.objects.create(name=f"M {i}") for i in range(3)]
    series = Series.objects.create(club=club, name="Maumau-Cup", game="maumau", scoring="total")
    event = Event.objects.create(club=club, name="Abend", game="maumau", published=True, series=series)
    round_ = Round.objects.create(event=event, number=1)
    table = Table.objects.create(round=round_, number=1)
    for position, player in enumerate(players):
        Seat.objects.create(table=table, round=round_, player=player, position=position)
    # Stored totals are the minus points negated (tournaments/standings/metrics.py).
    Session.objects.create(table=table, status=Session.Status.FINISHED, totals=[0, -7, -12], hand_count=8)
    rebuild([round_.event_id])
    rows = client_for().get(f"/api/v1/series/{series.pk}/standings/").json()["standings"]
    assert [(row["player"], row["points"], row["rank"]) for row in rows] == [
        (players[0].pk, 0, 1), (players[1].pk, -7, 2), (players[2].pk, -12, 3)]
