"""Reads from kept totals equal the computation from every hand, at a cost that does not grow with
the history: the queries of each read are counted at two sizes of the data."""
from __future__ import annotations

import random
from collections import defaultdict

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.play import play_session
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def reference_results(event, visibility):
    """Session results as they were computed before totals were kept: from every hand."""
    from games.rules import validate_series
    from tournaments.models import Session
    from tournaments.results.book import SessionRules, totals
    from tournaments.results.services import played

    results = []
    sessions = visibility.sessions().filter(table__round__event=event).exclude(status=Session.Status.ABANDONED)
    for session in sessions.order_by("table__round__number", "table__number", "number"):
        seats = list(session.table.seats.order_by("position").values_list("player_id", flat=True))
        hands = list(session.hands.order_by("number"))
        rules = SessionRules.for_event(event, len(seats))
        nets = None
        if event.game == "maumau" and session.status == Session.Status.FINISHED:
            games = [{"game": "maumau", "players": len(seats), "dealer": h.dealer, "summary": {"minus": h.result["minus"]}}
                     for h in hands if not h.voided and h.result]
            nets = validate_series({"records": games, "stake_cents": event.maumau_stake_cents})["nets"] if games else [0] * len(seats)
        results.append((session.pk, seats, totals(rules, [played(h) for h in hands]), len(hands), nets))
    return results


def reference_standings(event, results):
    from tournaments.models import Session
    from tournaments.standings.metrics import SessionLine, standings

    finished = set(Session.objects.filter(pk__in=[r[0] for r in results], status=Session.Status.FINISHED)
                   .values_list("pk", flat=True))
    lines = [SessionLine(players, totals, pk in finished) for pk, players, totals, hands, _ in results if hands]
    return standings(lines, [name for name in event.standings_metrics.split(",") if name])


def play_event(world, game, rng, rounds=1):
    """Every table of ``rounds`` rounds played to the end over the API, with a correction and a
    void on the way."""
    from tournaments.models import Hand, Round
    from tournaments.services import table_create

    event = world.events[game]
    event.mu_fixed_deals, event.maumau_games_per_series = 4, 3
    event.save()
    client = client_for(world.organiser)
    for number in range(1, rounds + 1):
        round_ = Round.objects.get_or_create(event=event, number=number)[0]
        if not round_.tables.exists():
            order = world.players[:]
            rng.shuffle(order)
            for index in range(3):
                table_create(round_=round_, number=index + 1, players=order[4 * index:4 * index + 4], by_user=None)
        for table in round_.tables.order_by("number"):
            play_session(client, table, game, rng)
    hands = list(Hand.objects.filter(session__table__round__event=event).order_by("pk"))
    first, second = next(hand for hand in hands if not hand.voided), hands[-1]
    assert client.post(f"/api/v1/hands/{first.pk}/void/", {"reason": "misdeal"}, format="json").status_code == 200
    record = dict(second.record)
    assert client.post(f"/api/v1/hands/{second.pk}/correct/", {"record": record, "reason": "same"},
                       format="json").status_code == 200
    return event, client


@pytest.mark.parametrize("game", ["mu", "maumau", "lut"])
def test_kept_totals_standings_and_money_equal_a_computation_from_every_hand(world, game):
    from tournaments import policy
    from tournaments.models import Session
    from tournaments.results.services import session_rules, session_totals
    from tournaments.standings.selectors import (
        event_money,
        event_standings,
        session_results,
    )

    event, _ = play_event(world, game, random.Random(f"kept-{game}"), rounds=2)
    for session in Session.objects.filter(table__round__event=event):
        hands = list(session.hands.order_by("number"))
        assert (session.totals, session.hand_count) == (session_totals(session_rules(session), hands), len(hands))
    for visibility in (policy.public(), policy.Visibility(world.organiser)):
        reference = reference_results(event, visibility)
        ours = session_results(event, visibility=visibility)
        assert [(r.session.pk, r.players, r.totals, r.hands) for r in ours] == [row[:4] for row in reference]
        assert event_standings(event, visibility=visibility) == reference_standings(event, reference)
        if game == "maumau":
            money = event_money(event, visibility=visibility)
            cents = defaultdict(int)
            for _, players, _, _, nets in reference:
                for player, net in zip(players, nets or []):
                    cents[player] += net
            assert money["cents"] == dict(cents)
            assert [s["nets"] for s in money["series"]] == [dict(zip(p, n)) for _, p, _, _, n in reference if n is not None]


def queries(client, url):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured)


def test_reads_run_the_same_queries_whatever_the_history(world):
    """Standings, money, the event page, a player page and the leaderboard: the same number of
    queries with one round of history as with three."""
    from ratings.services import pool_sync

    rng = random.Random("queries")
    anonymous = client_for()
    counts = []
    for rounds in (1, 3):
        event, _ = play_event(world, "maumau", rng, rounds=rounds)
        pool_sync("maumau")
        player = world.players[1]
        urls = [f"/api/v1/events/{event.pk}/standings/", f"/api/v1/events/{event.pk}/money/",
                f"/events/{event.pk}/", f"/players/{player.pk}/",
                "/api/v1/ratings/leaderboard/?game=maumau", "/leaderboard/maumau/"]
        counts.append([queries(anonymous, url) for url in urls])
    assert counts[0] == counts[1]
    # The event page: standings, tables, money, namesakes told apart, its series, the win chances
    # (and the pools' sizes: their fitted scales).
    assert max(counts[0]) <= 18, counts


def test_leaderboard_equals_a_naive_computation_from_the_history(world):
    """Rank, rating and trend of every row as the history gives them, page by page."""
    from ratings.models import Rating, RatingHistory
    from ratings.selectors import TREND_EVENTS, displayed
    from ratings.services import pool_sync

    rng = random.Random("leaderboard")
    for game in ("lut", "mu"):
        play_event(world, game, rng, rounds=7 if game == "lut" else 2)
        pool_sync(game)
    for game in ("lut", "mu"):
        naive = []
        for rating in Rating.objects.filter(game=game, sessions__gte=1):
            recent = list(RatingHistory.objects.filter(player=rating.player_id, game=game).order_by("-position")[:TREND_EVENTS])
            now = displayed(rating.mu, rating.sigma)
            start = displayed(recent[-1].mu_before, recent[-1].sigma_before) if recent else now
            naive.append({"player": rating.player_id, "rating": now, "mu": rating.mu, "sessions": rating.sessions,
                          "trend": now - start})
        naive.sort(key=lambda row: (-row["rating"], -row["mu"], row["player"]))
        for index, row in enumerate(naive):
            row["rank"] = index + 1 if index == 0 or row["rating"] != naive[index - 1]["rating"] else naive[index - 1]["rank"]
        url, rows = f"/api/v1/ratings/leaderboard/?game={game}", []
        while url:
            body = client_for().get(url).json()
            rows += body["results"]
            url = body["next"]
        assert [{k: row[k] for k in ("player", "rating", "mu", "sessions", "trend", "rank")} for row in rows] == naive
        assert any(row["trend"] for row in naive)


def test_the_leaderboard_page_is_paginated_as_the_api_orders_it(world, monkeypatch):
    import re

    from ratings.services import pool_sync
    from stich.pages import views

    play_event(world, "lut", random.Random("pages"), rounds=1)
    pool_sync("lut")
    monkeypatch.setattr(views, "LEADERBOARD_PAGE", 5)
    api = [row["player"] for row in client_for().get("/api/v1/ratings/leaderboard/?game=lut").json()["results"]]
    shown = []
    for number in (1, 2, 3):
        html = client_for().get(f"/leaderboard/lut/?page={number}").content.decode()
        shown += [int(pk) for pk in re.findall(r'<tr data-player="(\d+)"', html)]
        assert f"Page {number} of 3" in html
    assert shown == api and len(api) == 12
