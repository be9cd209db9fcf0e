"""The chances of a table card: those of the ratings when the table was published, kept after its
players are rated elsewhere and once the table has played; players marked provisional until they
have played enough rated sessions; the pool's fitted scale computed by the rating writer, never by
a page."""
from __future__ import annotations

import datetime

import pytest

from ratings import outlook
from ratings.calibration import PRIOR_SCALE
from ratings.chances import Scale, table_chances
from ratings.model import SIGMA
from ratings.models import Rating
from ratings.outlook import pool_scales, scale_is_warm, tables_outlook
from ratings.services import pool_sync
from tests.conftest import client_for
from tests.ratings.test_pool import START, finish_session

pytestmark = pytest.mark.django_db


def published_at(table, minutes: float):
    """Say the table was published (its draw) ``minutes`` after ``START``."""
    from tournaments.models import Table

    Table.objects.filter(pk=table.pk).update(created_at=START + datetime.timedelta(minutes=minutes))
    table.refresh_from_db()
    return table


def new_table(event, number: int, players, minutes: float):
    from tournaments.models import Round
    from tournaments.services import table_create

    round_ = Round.objects.create(event=event, number=number)
    table = table_create(round_=round_, number=1, players=players, by_user=None)
    return published_at(table, minutes)


def current(players, game):
    ratings = {r.player_id: (r.mu, r.sigma) for r in Rating.objects.filter(game=game)}
    return [ratings[p.pk] for p in players]


def wins(outlook_):
    return [seat.win for seat in outlook_.seats]


def test_a_card_keeps_its_chances_when_its_players_are_rated_elsewhere_and_after_it_has_played(world):
    event = world.events["lut"]
    first = event.rounds.get(number=1).tables.get(number=1)
    players = [seat.player for seat in first.seats.order_by("position")]
    finish_session(first, [[9, 6, 3, 0]], minutes=5)
    pool_sync("lut")
    # Round 2's table is published (its card printed) 10 minutes later: the current ratings.
    card_table = new_table(event, 2, players[::-1], minutes=10)
    card = tables_outlook([card_table])[card_table.pk]
    assert card.basis == "current"
    assert wins(card) == pytest.approx([c.win for c in table_chances(current(players[::-1], "lut"), PRIOR_SCALE)], abs=1e-12)

    # Meanwhile the favourite plays (and loses) a late session of another round: he is rated anew.
    others = world.players[4:7]
    late = new_table(event, 3, [players[0], *others], minutes=11)
    finish_session(late, [[0, 5, 6, 7]], minutes=20)
    pool_sync("lut")
    now = table_chances(current(players[::-1], "lut"), PRIOR_SCALE)
    assert abs(now[3].win - card.seats[3].win) > 0.01  # his rating moved
    again = tables_outlook([card_table])[card_table.pk]
    assert again.basis == "published"
    assert wins(again) == pytest.approx(wins(card), abs=1e-12)
    body = client_for().get(f"/api/v1/tables/{card_table.pk}/chances/").json()
    assert body["basis"] == "published"
    assert [row["win"] for row in body["players"]] == pytest.approx(wins(card), abs=1e-12)

    # The table plays and is rated: it keeps the card's chances, not the ratings after the late
    # session, nor those after its own.
    finish_session(card_table, [[1, 2, 3, 4]], minutes=40)
    pool_sync("lut")
    finished = tables_outlook([card_table])[card_table.pk]
    assert finished.basis == "before_session"
    assert wins(finished) == pytest.approx(wins(card), abs=1e-12)
    assert wins(finished) != pytest.approx([c.win for c in table_chances(current(players[::-1], "lut"), PRIOR_SCALE)], abs=1e-3)


def test_a_later_session_at_the_same_table_has_the_chances_after_the_one_before(world):
    """A table that plays again: its latest session's chances, from the ratings after the one
    before (what the sheet showed before its first hand)."""
    event = world.events["lut"]
    table = published_at(event.rounds.get(number=1).tables.get(number=1), minutes=0)
    players = [seat.player for seat in table.seats.order_by("position")]
    finish_session(table, [[9, 6, 3, 0]], minutes=5)
    pool_sync("lut")
    between = current(players, "lut")
    finish_session(table, [[1, 2, 3, 8]], minutes=30)
    pool_sync("lut")
    shown = tables_outlook([table])[table.pk]
    assert shown.basis == "before_session"
    assert wins(shown) == pytest.approx([c.win for c in table_chances(between, PRIOR_SCALE)], abs=1e-12)


def test_a_player_is_provisional_until_he_has_enough_rated_sessions(world, settings):
    event = world.events["lut"]
    first = published_at(event.rounds.get(number=1).tables.get(number=1), minutes=0)
    players = [seat.player for seat in first.seats.order_by("position")]
    others = world.players[4:8]
    settings.RATINGS_PROVISIONAL_SESSIONS = 3
    # players[0] plays three sessions, players[1:4] two (one at the first table), others none.
    finish_session(first, [[9, 6, 3, 0]], minutes=5)
    second = new_table(event, 2, players, minutes=6)
    finish_session(second, [[9, 6, 3, 0]], minutes=10)
    third = new_table(event, 3, [players[0], *others[:3]], minutes=11)
    finish_session(third, [[5, 6, 3, 0]], minutes=15)
    pool_sync("lut")
    sigmas = {r.player_id: r.sigma for r in Rating.objects.filter(game="lut")}
    assert all(sigmas[p.pk] < SIGMA - 0.01 for p in players)  # no longer the prior's sigma
    fresh = new_table(event, 4, [players[0], players[1], others[0], others[3]], minutes=20)
    shown = tables_outlook([fresh])[fresh.pk]
    assert [seat.provisional for seat in shown.seats] == [False, True, True, True]
    body = client_for().get(f"/api/v1/tables/{fresh.pk}/chances/").json()
    assert [row["provisional"] for row in body["players"]] == [False, True, True, True]
    # Once played, the table's chances keep the marks they had: players[1] had two sessions before.
    finish_session(fresh, [[5, 6, 3, 0]], minutes=25)
    pool_sync("lut")
    assert [seat.provisional for seat in tables_outlook([fresh])[fresh.pk].seats] == [False, True, True, True]
    # With the setting at 0, only a sigma at the prior's marks a player (others[3]: no session).
    settings.RATINGS_PROVISIONAL_SESSIONS = 0
    later = new_table(event, 5, [players[0], players[1], others[0], others[3]], minutes=60)
    assert [seat.provisional for seat in tables_outlook([later])[later.pk].seats] == [False, False, False, False]
    assert [seat.provisional for seat in tables_outlook([fresh])[fresh.pk].seats] == [False, False, False, True]


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of two sessions and a fit that counts its calls: the pool's scale machinery on a
    pool of a few sessions."""
    calls = []

    def fit(tables, outcomes):
        calls.append(len(tables))
        return Scale({4: 2.0}, 1.0)

    monkeypatch.setattr(outlook, "REFIT", 2)
    monkeypatch.setattr(outlook, "MIN_FIT", 2)
    monkeypatch.setattr(outlook, "fit_scale", fit)
    return calls


def play_sessions(world, count: int, django_capture_on_commit_callbacks):
    event = world.events["lut"]
    for number in range(count):
        table = new_table(event, 10 + number, world.players[4 * (number % 3):4 * (number % 3) + 4], minutes=100 * number)
        finish_session(table, [[number % 4, 3, 2, 1]], minutes=100 * number + 50)
        with django_capture_on_commit_callbacks(execute=True):
            pool_sync("lut")


def test_the_writer_fits_the_scale_and_a_page_never_does(world, small_blocks, django_capture_on_commit_callbacks):
    from django.core.cache import cache

    cache.clear()
    play_sessions(world, 4, django_capture_on_commit_callbacks)
    assert small_blocks and scale_is_warm("lut")  # fitted by the sync itself
    fits = len(small_blocks)
    table = world.events["lut"].rounds.get(number=1).tables.get(number=1)
    shown = tables_outlook([table])[table.pk]
    expected = table_chances([(seat.mu, seat.sigma) for seat in shown.seats], Scale({4: 2.0}, 1.0))
    assert wins(shown) == pytest.approx([c.win for c in expected], abs=1e-12)
    assert len(small_blocks) == fits  # the page fitted nothing
    # A cache emptied: the page does not fit either, it shows the prior's cautious scale.
    cache.clear()
    assert pool_scales(["lut"]) == {"lut": outlook.PRIOR_SCALE}
    assert client_for().get(f"/events/{table.round.event.pk}/").status_code == 200
    assert len(small_blocks) == fits
    # A recompute warms it again (and beat's catch-up does when it finds it cold).
    from django.core.management import call_command

    with django_capture_on_commit_callbacks(execute=True):
        call_command("recompute_ratings", "--game", "lut", "--no-progress")
    assert scale_is_warm("lut") and pool_scales(["lut"])["lut"] == Scale({4: 2.0}, 1.0)
    cache.clear()
    from ratings.tasks import catch_up

    catch_up()
    assert scale_is_warm("lut")


def test_the_pages_scale_with_the_cache_unreachable_is_the_priors(world, settings):
    finish_session(world.events["lut"].rounds.get(number=1).tables.get(number=1), [[9, 6, 3, 0]], minutes=5)
    pool_sync("lut")
    settings.CACHES = {"default": {  # Django's test signals drop the cache connections
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
    }}
    assert pool_scales(["lut", "mu"]) == {"lut": outlook.PRIOR_SCALE, "mu": outlook.PRIOR_SCALE}


def test_the_calibration_report_replays_generated_leagues_of_several_spreads():
    """``--spread`` (repeatable): one report per spread of the skills, in units of the noise."""
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    out = StringIO()
    call_command("calibration_report", "--generated", "--players", "40", "--sessions", "300", "--spread", "0.5",
                 "--spread", "2", stdout=out)
    text = out.getvalue()
    assert "skills spread 0.5 × the noise" in text and "skills spread 2 × the noise" in text
    assert text.count("reliability of the chances") == 2
    with pytest.raises(CommandError):
        call_command("calibration_report", "--generated", "--sessions", "10", "--spread", "0", stdout=StringIO())


def test_a_generated_league_has_the_spread_asked_for():
    import statistics

    from ratings.generated import generate_league
    from ratings.model import BETA

    for spread in (0.5, 0.8, 2.0):
        skills, _ = generate_league(players=4000, sessions=1, seed=3, spread=spread)
        assert statistics.pstdev(skills) == pytest.approx(spread * BETA, rel=0.05)
