"""The pools in the database: incremental, idempotent, exact after corrections, and the API.

The sessions here are written straight into the database (finished, with their hands' results), so
these tests exercise the pool alone; tests/api/test_results.py and tests/integration rate sessions
played through the API.
"""
from __future__ import annotations

import datetime
import random

import pytest
from django.core.management import call_command
from django.utils import timezone
from openskill.models import PlackettLuce

from ratings.model import DecayConfig, Session, ranks_from_totals, rate_many
from ratings.models import PoolEntry, Rating, RatingHistory
from ratings.services import pool_sync
from tests.conftest import client_for

START = timezone.make_aware(datetime.datetime(2026, 11, 1, 18, 0))


def finish_session(table, scores_per_hand, minutes, status="finished"):
    """A finished session at ``table`` whose hands scored ``scores_per_hand``."""
    from tournaments.models import Hand, Session

    session = Session.objects.create(
        table=table, number=table.sessions.count() + 1, status=status,
        finished_at=START + datetime.timedelta(minutes=minutes) if status == "finished" else None,
    )
    for number, scores in enumerate(scores_per_hand, start=1):
        Hand.objects.create(session=session, number=number, dealer=(number - 1) % len(scores),
                            record={"game": "lut", "summary": {}}, result={"scores": scores})
    keep_result(session)
    return session


def keep_result(session):
    """What tournaments.results.services does with every hand: the session's totals kept, and the session
    marked for the pool."""
    from tournaments.results.services import session_rules, session_totals

    hands = list(session.hands.order_by("number"))
    session.totals, session.hand_count = session_totals(session_rules(session), hands), len(hands)
    session.rating_dirty_at = timezone.now()
    session.save(update_fields=["totals", "hand_count", "rating_dirty_at"])


def seats(table):
    return list(table.seats.order_by("position").values_list("player_id", flat=True))


def openskill_ratings(sessions):
    """(players, totals) in finish order, rated by the reference."""
    model = PlackettLuce()
    ratings = {}
    for players, totals in sessions:
        teams = [[ratings.get(player) or model.rating()] for player in players]
        for player, (rated,) in zip(players, model.rate(teams, ranks=ranks_from_totals(totals))):
            ratings[player] = rated
    return {player: (rated.mu, rated.sigma) for player, rated in ratings.items()}


def stored(game="lut"):
    return {r.player_id: (r.mu, r.sigma) for r in Rating.objects.filter(game=game)}


def assert_close(ours, reference):
    assert ours.keys() == reference.keys()
    for player, (mu, sigma) in reference.items():
        assert ours[player][0] == pytest.approx(mu, abs=1e-9)
        assert ours[player][1] == pytest.approx(sigma, abs=1e-9)


@pytest.fixture
def league(world):
    """Twelve finished LuT sessions over four rounds with ties; returns the event and its sessions."""
    from tournaments.models import Round
    from tournaments.services import table_create

    event = world.events["lut"]
    rng = random.Random(7)
    played = []
    minutes = 0
    for number in range(1, 5):
        round_ = event.rounds.get(number=1) if number == 1 else Round.objects.create(event=event, number=number)
        order = world.players[:]
        rng.shuffle(order)
        for index in range(3):
            if number == 1:
                table = round_.tables.get(number=index + 1)
            else:
                table = table_create(round_=round_, number=index + 1, players=order[4 * index:4 * index + 4], by_user=None)
            hands = [[rng.randint(0, 3) for _ in range(4)] for _ in range(4)]
            minutes += 7
            played.append(finish_session(table, hands, minutes))
    return event, played


def expected_sequence(sessions):
    ordered = sorted(sessions, key=lambda s: (s.finished_at, s.pk))
    return [(seats(s.table), [sum(h.result["scores"][i] for h in s.hands.all()) for i in range(4)]) for s in ordered]


def test_pool_equals_openskill_over_the_finish_order(league):
    _, sessions = league
    result = pool_sync("lut")
    assert result["rated"] == len(sessions)
    assert_close(stored(), openskill_ratings(expected_sequence(sessions)))
    # One history row per player and rating event, before and after chained.
    assert RatingHistory.objects.filter(game="lut").count() == 4 * len(sessions)
    for rating in Rating.objects.filter(game="lut"):
        rows = list(RatingHistory.objects.filter(game="lut", player=rating.player_id).order_by("position"))
        assert len(rows) == rating.sessions
        assert (rows[0].mu_before, rows[0].sigma_before) == (25.0, 25.0 / 3.0)
        for earlier, later in zip(rows, rows[1:]):
            assert (later.mu_before, later.sigma_before) == (earlier.mu_after, earlier.sigma_after)
        assert (rows[-1].mu_after, rows[-1].sigma_after) == (rating.mu, rating.sigma)


def test_applying_twice_changes_nothing(league):
    pool_sync("lut")
    before = stored()
    history = RatingHistory.objects.count()
    again = pool_sync("lut")
    assert again["rated"] == 0 and again["rolled_back"] == 0
    assert stored() == before
    assert RatingHistory.objects.count() == history


def test_a_corrected_past_session_is_rerated_from_there_and_equals_a_recompute(league):
    from tournaments.models import Hand

    _, sessions = league
    pool_sync("lut")
    before = stored()
    third = sorted(sessions, key=lambda s: s.finished_at)[2]
    hand = third.hands.get(number=1)
    hand.result = {"scores": [s + 20 * (i == 3) for i, s in enumerate(hand.result["scores"])]}
    hand.save()
    keep_result(third)
    result = pool_sync("lut")
    assert result["rolled_back"] == len(sessions) - 2
    assert result["rated"] == len(sessions) - 2
    incremental = stored()
    assert incremental != before
    assert_close(incremental, openskill_ratings(expected_sequence(sessions)))
    call_command("recompute_ratings", "--game", "lut", "--no-progress", stdout=open("/dev/null", "w"))
    assert stored() == incremental
    assert PoolEntry.objects.filter(game="lut").count() == len(sessions)


def test_a_late_session_is_put_in_its_finish_order(league):
    event, sessions = league
    from tournaments.models import Round
    from tournaments.services import table_create

    first = sorted(sessions, key=lambda s: s.finished_at)
    pool_sync("lut")
    round_ = Round.objects.create(event=event, number=9)
    table = table_create(round_=round_, number=1, players=[s.player for s in first[0].table.seats.order_by("position")], by_user=None)
    # It finished between the first and second sessions, but arrives last.
    late = finish_session(table, [[0, 1, 2, 3]], 10)
    assert first[0].finished_at < late.finished_at < first[1].finished_at
    pool_sync("lut")
    assert_close(stored(), openskill_ratings(expected_sequence(sessions + [late])))


def test_held_back_and_abandoned_sessions_are_not_rated_until_they_count(league):
    event, sessions = league
    held = event.rounds.get(number=4)
    held.results_held = True
    held.save()
    abandoned = finish_session(event.rounds.get(number=1).tables.get(number=1), [[9, 0, 0, 0]], 1, status="abandoned")
    pool_sync("lut")
    counted = [s for s in sessions if s.table.round_id != held.pk]
    assert PoolEntry.objects.filter(game="lut").count() == len(counted)
    assert not PoolEntry.objects.filter(session=abandoned).exists()
    assert_close(stored(), openskill_ratings(expected_sequence(counted)))
    held.results_held = False
    held.save()
    pool_sync("lut")
    assert_close(stored(), openskill_ratings(expected_sequence(sessions)))


def test_releasing_a_round_over_the_api_queues_the_rating(league, django_capture_on_commit_callbacks):
    event, sessions = league
    held = event.rounds.get(number=4)
    held.results_held = True
    held.save()
    pool_sync("lut")
    client = client_for(event.organisers.get())
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.patch(f"/api/v1/rounds/{held.pk}/", {"results_held": False}, format="json")
    assert response.status_code == 200, response.content
    assert callbacks, "the release is announced on commit"
    # Tasks run eagerly here, so the pool is in step once the callbacks ran.
    assert PoolEntry.objects.filter(game="lut").count() == len(sessions)


def test_decay_widens_sigma_by_the_days_between_sessions(league, settings):
    _, sessions = league
    settings.RATINGS_DECAY_PER_DAY = 0.5
    pool_sync("lut")
    # The sessions lie minutes apart: a few hundredths of a day, sigma grows a little and is capped.
    for row in RatingHistory.objects.filter(game="lut").order_by("player", "position"):
        assert row.sigma_before <= 25.0 / 3.0
    decayed = stored()
    # The numbers of the model's reference loop, with the finish times as the decay's clock.
    ordered = sorted(sessions, key=lambda s: (s.finished_at, s.pk))
    timed = [Session(players, totals, s.finished_at.timestamp())
             for (players, totals), s in zip(expected_sequence(sessions), ordered)]
    assert_close(decayed, rate_many({}, timed, decay=DecayConfig(0.5)))
    settings.RATINGS_DECAY_PER_DAY = 0.0
    call_command("recompute_ratings", "--game", "lut", "--no-progress", stdout=open("/dev/null", "w"))
    plain = stored()
    assert_close(plain, openskill_ratings(expected_sequence(sessions)))
    assert any(decayed[p][1] > plain[p][1] for p in plain)


def test_leaderboard_and_player_ratings_over_the_api(league, world):
    pool_sync("lut")
    anonymous = client_for()
    body = anonymous.get("/api/v1/ratings/leaderboard/", {"game": "lut"}).json()
    rows = body["results"]
    assert body["count"] == 12
    assert [row["rating"] for row in rows] == sorted((row["rating"] for row in rows), reverse=True)
    ranks = [row["rank"] for row in rows]
    assert ranks[0] == 1 and all(a <= b for a, b in zip(ranks, ranks[1:]))
    assert all(row["sessions"] == Rating.objects.get(game="lut", player=row["player"]).sessions for row in rows)
    many = anonymous.get("/api/v1/ratings/leaderboard/", {"game": "lut", "min_sessions": 5}).json()
    assert all(row["sessions"] >= 5 for row in many["results"])
    assert anonymous.get("/api/v1/ratings/leaderboard/", {"game": "lut", "club": world.empty_club.pk}).json()["count"] == 0
    assert anonymous.get("/api/v1/ratings/leaderboard/", {"game": "chess"}).status_code == 400
    player = rows[0]["player"]
    mine = anonymous.get(f"/api/v1/players/{player}/ratings/").json()
    history = mine["ratings"]["lut"]["history"]
    assert len(history) == RatingHistory.objects.filter(game="lut", player=player).count()
    assert history[-1]["rating_after"] == rows[0]["rating"]


@pytest.mark.django_db(transaction=True)
def test_the_rating_writer_warms_the_chances_scale_itself(league, monkeypatch):
    """``recompute_ratings`` (and every sync, not only the Celery task) fits the chances' scale
    after its commit, so the first page after it reads the fit from the cache; a warm-up that
    fails costs the sync nothing."""
    from ratings import outlook

    warmed = []
    monkeypatch.setattr(outlook, "warm_scale", lambda game: warmed.append(game))
    call_command("recompute_ratings", "--game", "lut", "--no-progress", stdout=open("/dev/null", "w"))
    assert warmed == ["lut"]

    def broken(game):
        raise ConnectionError("the cache is down")

    monkeypatch.setattr(outlook, "warm_scale", broken)
    assert pool_sync("lut")["game"] == "lut"
