"""Seasons as clubs keep them, built by hand: averages, the worst events dropped, a qualification
that grows with the events held, deductions for missed events, and seasons over several games
(placement points per event, per-game columns). Every option's standings must equal a computation
written here from each event's own standings (``/api/v1/events/{id}/standings/``), as
``test_season.py`` does for the options before them; for the public (the kept rows) and for an
organiser (computed over what he sees)."""
from __future__ import annotations

import datetime
import math
import random
from fractions import Fraction

import pytest

from tests.conftest import client_for, make_user
from tests.series.test_season import game_totals
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
from tournaments.standings.series_standings import rebuild

POINTS_TABLE = [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]
GAMES_OF = {"mu": "mu", "maumau": "maumau", "lut": "lut"}


def _totals(game: str, rng: random.Random, seated: int) -> list[int]:
    """A finished session's totals on a coarse grid (so that players tie): Maumau's minus points
    stored negative (tournaments/standings/metrics.py), Mü's and LuT's points positive."""
    if game == "maumau":
        return [-rng.choice([0, 4, 8, 12]) for _ in range(seated)]
    return [rng.choice([0, 10, 20, 30]) for _ in range(seated)]


def _evening(event: Event, rng: random.Random, present: list[Player]) -> None:
    """One round of two tables; one more session left without hands (it does not count)."""
    round_ = Round.objects.create(event=event, number=1)
    order = present[:]
    rng.shuffle(order)
    half = len(order) // 2
    for number, seated in enumerate((order[:half], order[half:])):
        table = Table.objects.create(round=round_, number=number + 1)
        for position, player in enumerate(seated):
            Seat.objects.create(table=table, round=round_, player=player, position=position)
        Session.objects.create(table=table, number=1, status=Session.Status.FINISHED,
                               totals=_totals(event.game, rng, len(seated)), hand_count=5)
        if number == 0:
            Session.objects.create(table=table, number=2, status=Session.Status.OPEN)


def _build(games: list[str], *, evenings: int = 9, seed: int = 41, **options) -> dict:
    """A club's season of ``evenings`` evenings cycling through ``games``: 10 regulars who miss
    some evenings, two who join at the 5th evening, a guest of one evening; the 8th evening is
    unpublished (its organisers see it, the public does not)."""
    rng = random.Random(seed)
    organiser = make_user(f"organiser_{seed}_{'_'.join(games)}")
    club = Club.objects.create(name=f"Club {seed}")
    club.organisers.add(organiser)
    players = [Player.objects.create(name=f"Spieler {seed}-{i}") for i in range(13)]
    for player in players:
        Membership.objects.create(player=player, club=club)
    series = Series.objects.create(club=club, name="Jahreswertung", game=games[0],
                                   games=games if len(games) > 1 else [], **options)
    events = []
    for index in range(evenings):
        game = games[index % len(games)]
        day = datetime.date(2026, 1, 6) + datetime.timedelta(days=3 * ((index * 4) % evenings))
        event = Event.objects.create(club=club, name=f"Abend {index + 1}", game=game, starts_on=day,
                                     published=index != 7, series=series)
        pool = players[:10] if index < 4 else players[:12]
        present = [p for p in pool if rng.random() < 0.7]
        present = present if len(present) >= 6 else pool[:6]
        if index == 5:
            present.append(players[12])  # the guest
        _evening(event, rng, present)
        events.append(event)
    rebuild([event.pk for event in events])  # sessions written around the services: sums and kept rows
    return {"series": series, "events": events, "players": players, "organiser": organiser, "club": club}


# --- the computation written here ----------------------------------------------------------------

def _half_up(value: Fraction) -> float:
    """Two decimals, ties away from zero (as a club's list is rounded)."""
    sign = -1 if value < 0 else 1
    return sign * math.floor(abs(value) * 100 + Fraction(1, 2)) / 100


def _points(series: Series, rank: int, n: int, total: int) -> int:
    if series.scoring == "placement":
        return n - rank + 1
    if series.scoring == "table":
        return series.points_table[rank - 1] if rank <= len(series.points_table) else 0
    return total


def _event_list(series: Series, client) -> list[dict]:
    events = client.get("/api/v1/events/", {"club": series.club_id, "page_size": 100}).json()["results"]
    events = [e for e in events if e["series"] == series.pk]
    return sorted(events, key=lambda e: (e["starts_on"] or "9999", e["id"]))


def expected(series: Series, client, *, events: list[dict] | None = None) -> dict:
    """The season computed from the events' own standings documents, with the series' options."""
    events = _event_list(series, client) if events is None else events
    per_player: dict[int, dict] = {}
    held = 0
    for event in events:
        rows = client.get(f"/api/v1/events/{event['id']}/standings/").json()["standings"]
        totals = game_totals(event["id"], organiser=True) if series.scoring == "total" else {}
        if rows:
            held += 1
        for row in rows:
            total = totals.get(row["player"], 0)
            entry = per_player.setdefault(row["player"], {"results": [], "wins": 0})
            entry["results"].append((str(event["id"]), event["game"], _points(series, row["rank"], len(rows), total)))
            entry["wins"] += row["rank"] == 1
    need = max(series.min_events, math.ceil(Fraction(held * series.qualify_percent, 100)))
    table = []
    for player, entry in per_player.items():
        results = entry["results"]
        best_first = sorted(range(len(results)), key=lambda i: (-results[i][2], i))
        if series.best_of:
            kept = best_first[:series.best_of]
        elif series.drop_worst:
            kept = best_first[:max(1, len(results) - series.drop_worst)]
        else:
            kept = best_first
        counted = set(kept)
        points = sum(results[i][2] for i in counted)
        value = Fraction(points, len(counted)) if series.aggregate == "average" else Fraction(points)
        absences = held - len(results)
        score = value - series.absence_deduction * absences
        per_game = {}
        for i, (_, game, p) in enumerate(results):
            cell = per_game.setdefault(game, {"points": 0, "events": 0, "counted": 0})
            cell["events"] += 1
            if i in counted:
                cell["points"] += p
                cell["counted"] += 1
        table.append({"player": player, "points": points, "exact": score, "played": len(results),
                      "counted": len(counted), "absences": absences, "wins": entry["wins"],
                      "qualified": len(results) >= need, "per_game": per_game,
                      "per_event": {event: {"points": p, "counted": i in counted}
                                    for i, (event, _, p) in enumerate(results)}})
    qualified = [row for row in table if row["qualified"]]
    for row in table:
        if not row["qualified"]:
            row["rank"] = None
            continue
        key = (row["exact"], row["wins"], row["played"])
        row["rank"] = 1 + sum((o["exact"], o["wins"], o["played"]) > key for o in qualified)
    for row in table:
        row["score"] = _half_up(row.pop("exact")) if series.aggregate == "average" else int(row["exact"])
    return {"held": held, "required_events": need, "events": [e["id"] for e in events], "standings": table}


KEYS = ("rank", "points", "score", "played", "counted", "absences", "wins", "qualified", "per_game", "per_event")


def _compare(got: dict, want: dict) -> None:
    assert got["events"] == want["events"]
    assert got["held"] == want["held"] and got["required_events"] == want["required_events"]
    mine = {row["player"]: {key: row[key] for key in KEYS} for row in got["standings"]}
    theirs = {row["player"]: {key: row[key] for key in KEYS} for row in want["standings"]}
    assert mine == theirs
    # Ranked players first, by rank; the unqualified after them, without a rank.
    ranks = [row["rank"] for row in got["standings"]]
    ranked = [rank for rank in ranks if rank is not None]
    assert ranks[:len(ranked)] == ranked == sorted(ranked)


OPTION_SETS = {
    "average, half of the events held": {"aggregate": "average", "qualify_percent": 50, "min_events": 1},
    "sum, two worst dropped": {"drop_worst": 2, "min_events": 3},
    "average, worst dropped, deduction": {"aggregate": "average", "drop_worst": 1, "absence_deduction": 1,
                                              "qualify_percent": 40},
    "sum, deduction per absence": {"absence_deduction": 3, "min_events": 0},
    "table, average, growing qualification": {"scoring": "table", "points_table": POINTS_TABLE, "aggregate": "average",
                                                  "qualify_percent": 60, "min_events": 2},
    "total, average, best of": {"scoring": "total", "aggregate": "average", "best_of": 5, "qualify_percent": 34},
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(OPTION_SETS))
@pytest.mark.parametrize("reader", ["public", "organiser"])
def test_each_option_equals_the_computation_by_hand(name, reader):
    season = _build(["mu"], **OPTION_SETS[name])
    series = season["series"]
    client = client_for(season["organiser"] if reader == "organiser" else None)
    got = client.get(f"/api/v1/series/{series.pk}/standings/").json()
    _compare(got, expected(series, client))
    assert got["aggregate"] == series.aggregate and got["drop_worst"] == series.drop_worst
    # The season has what the option is about.
    rows = got["standings"]
    if series.qualify_percent or series.min_events > 1:
        assert any(not row["qualified"] for row in rows) and any(row["qualified"] for row in rows)
    if series.drop_worst or series.best_of:
        assert any(not entry["counted"] for row in rows for entry in row["per_event"].values())
    if series.absence_deduction:
        assert any(row["absences"] for row in rows)
    if series.aggregate == "average":
        assert any(row["score"] != int(row["score"]) for row in rows)


@pytest.mark.django_db
@pytest.mark.parametrize("reader", ["public", "organiser"])
@pytest.mark.parametrize("options", [
    {"aggregate": "average", "qualify_percent": 50},
    {"scoring": "table", "points_table": POINTS_TABLE, "drop_worst": 1, "absence_deduction": 2},
], ids=["placement-average-half", "table-drop-deduction"])
def test_a_season_of_three_games_ranks_by_placement_with_a_column_per_game(reader, options):
    season = _build(["mu", "maumau", "lut"], evenings=9, seed=7, **options)
    series = season["series"]
    client = client_for(season["organiser"] if reader == "organiser" else None)
    got = client.get(f"/api/v1/series/{series.pk}/standings/").json()
    want = expected(series, client)
    _compare(got, want)
    assert got["games"] == ["mu", "maumau", "lut"]
    assert {column["game"] for column in got["event_columns"]} == {"mu", "maumau", "lut"}
    # Per-game points add up to the counted points.
    for row in got["standings"]:
        assert sum(cell["points"] for cell in row["per_game"].values()) == row["points"]


@pytest.mark.django_db
def test_the_move_since_the_latest_event_is_kept_with_new_and_unchanged():
    season = _build(["mu"], evenings=6, seed=3, aggregate="average", qualify_percent=50)
    series = season["series"]
    client = client_for()
    events = _event_list(series, client)
    now = expected(series, client, events=events)
    before = {row["player"]: row["rank"] for row in expected(series, client, events=events[:-1])["standings"]}
    got = {row["player"]: row for row in client.get(f"/api/v1/series/{series.pk}/standings/").json()["standings"]}
    for row in now["standings"]:
        was = before.get(row["player"])
        mine = got[row["player"]]
        if row["rank"] is None:
            assert mine["trend"] is None and mine["new"] is False
        elif was is None:
            assert mine["new"] is True and mine["trend"] is None
        else:
            assert mine["new"] is False and mine["trend"] == was - row["rank"]
    assert any(row["trend"] == 0 for row in got.values()) or any(row["new"] for row in got.values())
    # The CSV writes "=" for the same place and "new" for a newcomer.
    import csv
    import io

    rows = list(csv.reader(io.StringIO(client.get(f"/api/v1/series/{series.pk}/standings.csv",
                                                  HTTP_ACCEPT_LANGUAGE="en").content.decode())))
    move = rows[0].index("move")
    shown = {int(r[1]): r[move] for r in rows[1:]}
    for player, row in got.items():
        if row["new"]:
            assert shown[player] == "new"
        elif row["trend"] == 0:
            assert shown[player] == "="
        elif row["trend"]:
            assert shown[player] == (f"▲{row['trend']}" if row["trend"] > 0 else f"▼{-row['trend']}")


@pytest.mark.django_db
def test_the_kept_rows_are_read_without_recomputation():
    """The public's read is the projection: a constant number of queries, and no event's sums read."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    season = _build(["mu", "maumau"], evenings=6, seed=5, aggregate="average", qualify_percent=50)
    series = season["series"]
    with CaptureQueriesContext(connection) as read:
        client_for().get(f"/api/v1/series/{series.pk}/standings/")
    sql = " ".join(query["sql"] for query in read.captured_queries)
    assert "seriesstanding" in sql and "eventstanding" not in sql and "roundstanding" not in sql


def test_the_readme_example():
    """README, "Seasons as clubs keep them": four evenings, Anna 5, 3, –, 6; Bernd 4 each;
    Conny 6 at the first only: the points of a 6-player evening's ranks (a table 6, 5, … 1, as
    placement gives them when six play)."""
    from tournaments.standings.series import EventResult, series_standings

    points = {"anna": [5, 3, None, 6], "bernd": [4, 4, 4, 4], "conny": [6, None, None, None]}
    # Rank r gives 6 − r + 1 points, so the rank is 7 − points.
    results = [EventResult(n, {p: 7 - got[n] for p, got in points.items() if got[n] is not None}, {}, "mu")
               for n in range(4)]

    def scores(**options):
        rows = series_standings(results, scoring="table", points_table=[6, 5, 4, 3, 2, 1], **options)
        return {row.player: (row.rank, float(row.score)) for row in rows}

    assert scores() == {"bernd": (1, 16), "anna": (2, 14), "conny": (3, 6)}
    assert scores(aggregate="average") == {"conny": (1, 6), "anna": (2, 14 / 3), "bernd": (3, 4)}
    assert scores(aggregate="average", qualify_percent=50) == {"anna": (1, 14 / 3), "bernd": (2, 4),
                                                               "conny": (None, 6)}
    assert scores(drop_worst=1) == {"bernd": (1, 12), "anna": (2, 11), "conny": (3, 6)}
    assert scores(drop_worst=1, aggregate="average") == {"conny": (1, 6), "anna": (2, 5.5), "bernd": (3, 4)}
    assert scores(absence_deduction=2) == {"bernd": (1, 16), "anna": (2, 12), "conny": (3, 0)}
    rank, score = scores(absence_deduction=2, aggregate="average")["anna"]
    assert rank == 2 and round(score, 2) == 2.67
