"""Seating draws over the API: preview, regenerate, swap, publish; organisers only."""
from __future__ import annotations

import itertools

import pytest

from tests.conftest import client_for


def check_in(event, players, by_user) -> None:
    from tournaments import services

    for player in players:
        services.player_check_in(event=event, player=player, by_user=by_user)


@pytest.fixture
def second_round(world):
    """Round 2 of the Mü event (round 1 has three tables of four), not drawn yet; the twelve
    players of round 1 are checked in."""
    from tournaments.models import Round

    check_in(world.events["mu"], world.players, world.organiser)
    return Round.objects.create(event=world.events["mu"], number=2)


def url(round_, tail=""):
    return f"/api/v1/rounds/{round_.pk}/draw/{tail}"


def pairs_of(tables):
    return {frozenset(pair) for table in tables for pair in itertools.combinations(table, 2)}


def test_preview_draws_the_checked_in_players_with_the_fewest_repeats(world, second_round):
    client = client_for(world.organiser)
    response = client.post(url(second_round), {"seed": 5}, format="json")
    assert response.status_code == 200, response.content
    draft = response.json()
    first_round = world.events["mu"].rounds.get(number=1)
    previous = [[s.player_id for s in t.seats.order_by("position")] for t in first_round.tables.order_by("number")]
    tables = [t["players"] for t in draft["tables"]]
    assert sorted(p for t in tables for p in t) == sorted(p.pk for p in world.players)
    assert all(len(t) in (4, 5) for t in tables)  # Mü: best 4 or 5
    # 12 players in tables of 4 after one round of three 4s: each new table takes four players from
    # three old tables, so one repeated pair per table is the fewest possible.
    repeats = pairs_of(tables) & pairs_of(previous)
    assert len(repeats) == 3
    assert draft["quality"]["repeated_pairs"] == 3
    assert draft["quality"]["repeats_from_previous_round"] == 3
    # The same seed draws the same; the preview is kept on the round, and nothing is published.
    again = client.post(url(second_round), {"seed": 5}, format="json").json()
    assert again["tables"] == draft["tables"]
    assert client.get(url(second_round)).json()["tables"] == draft["tables"]
    assert not second_round.tables.exists()


def test_late_arrivals_and_dropouts_redraw_before_publishing(world, second_round):
    from tournaments.models import Player

    client = client_for(world.organiser)
    client.post(url(second_round), {"seed": 1}, format="json")
    late = Player.objects.create(name="Late Arrival")
    late.clubs.add(world.club)  # only members of the event's club are seated (tournaments/policy.py)
    dropouts = [world.players[0].pk, world.players[1].pk]
    draft = client.post(url(second_round), {"seed": 2, "add": [late.pk], "remove": dropouts}, format="json").json()
    seated = {p for t in draft["tables"] for p in t["players"]} | set(draft["byes"])
    assert late.pk in seated and not seated & set(dropouts)
    assert len(seated) == 11
    assert sorted(len(t["players"]) for t in draft["tables"]) == [5, 6] or sorted(len(t["players"]) for t in draft["tables"]) == [3, 4, 4]


def test_byes_when_no_mix_of_tables_seats_everybody(world):
    from tournaments.models import Round

    event = world.events["lut"]  # tables of 4 to 6: seven players cannot all play
    round_ = Round.objects.create(event=event, number=2)
    seven = [p.pk for p in world.players[:7]]
    draft = client_for(world.organiser).post(url(round_), {"players": seven, "seed": 3}, format="json").json()
    # No mix seats 7; one bye leaves a table of 6.
    assert len(draft["byes"]) == 1 and len(draft["tables"]) == 1 and len(draft["tables"][0]["players"]) == 6
    published = client_for(world.organiser).post(url(round_, "publish/"))
    assert published.status_code == 201
    round_.refresh_from_db()
    assert round_.byes == draft["byes"]


def test_swap_two_players_by_hand_then_publish(world, second_round):
    from tournaments.models import AuditEntry

    client = client_for(world.organiser)
    draft = client.post(url(second_round), {"seed": 8}, format="json").json()
    a, b = draft["tables"][0]["players"][0], draft["tables"][1]["players"][2]
    swapped = client.post(url(second_round, "swap/"), {"a": a, "b": b}, format="json").json()
    assert swapped["tables"][0]["players"][0] == b and swapped["tables"][1]["players"][2] == a
    assert swapped["quality"]["repeated_pairs"] >= 0
    tables = client.post(url(second_round, "publish/")).json()
    assert [t["players"] for t in tables] == [t["players"] for t in swapped["tables"]]
    assert [t["first_dealer"] for t in tables] == [t["first_dealer"] for t in swapped["tables"]]
    assert client.get(f"/api/v1/tables/?round={second_round.pk}").json()["count"] == len(tables)
    # Published: no more drawing, swapping or publishing.
    assert client.post(url(second_round), {}, format="json").status_code == 409
    assert client.post(url(second_round, "swap/"), {"a": a, "b": b}, format="json").status_code == 409
    assert client.post(url(second_round, "publish/")).status_code == 409
    actions = list(AuditEntry.objects.filter(object_id=second_round.pk).values_list("action", flat=True))
    assert actions.count("draw_published") == 1 and "draw_swapped" in actions


def test_bad_requests_are_refused_and_change_nothing(world, second_round):
    client = client_for(world.organiser)
    assert client.post(url(second_round, "publish/")).status_code == 409  # nothing drawn yet
    assert client.post(url(second_round), {"players": [world.players[0].pk, world.players[0].pk]}, format="json").status_code == 400
    assert client.post(url(second_round), {"players": [999999]}, format="json").status_code == 400
    assert client.post(url(second_round), {"players": "everyone"}, format="json").status_code == 400
    second_round.refresh_from_db()
    assert second_round.draft is None
    client.post(url(second_round), {"seed": 1}, format="json")
    before = client.get(url(second_round)).json()
    assert client.post(url(second_round, "swap/"), {"a": world.players[0].pk, "b": 999999}, format="json").status_code == 400
    assert client.post(url(second_round, "swap/"), {"a": world.players[0].pk}, format="json").status_code == 400
    assert client.get(url(second_round)).json() == before


def test_only_the_events_organisers_draw(world, second_round):
    from tournaments.models import Player

    seated = Player.objects.get(pk=world.players[0].pk)
    seats = seated.seats.count()
    for user, status in ((None, 401), (world.other_organiser, 403), (world.player_user, 403)):
        client = client_for(user)
        assert client.post(url(second_round), {}, format="json").status_code == status
        assert client.get(url(second_round)).status_code == status
        assert client.post(url(second_round, "publish/")).status_code == status
    assert seated.seats.count() == seats
    second_round.refresh_from_db()
    assert second_round.draft is None


def test_without_players_the_draw_seats_the_checked_in_players_only(world):
    """As the console draws and as the check-in list says: not every member of the club."""
    from tournaments.models import Player, Round

    event = world.events["mu"]
    round_ = Round.objects.create(event=event, number=2)
    client = client_for(world.organiser)
    # Nobody checked in: refused, nothing drawn (never every member of the club).
    assert client.get(f"/api/v1/events/{event.pk}/checkins/").json()["players"] == []
    response = client.post(url(round_), {"seed": 4}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "too_few_players", response.content
    round_.refresh_from_db()
    assert round_.draft is None
    # Eight of the twelve members are here tonight; a thirteenth member stays at home.
    Player.objects.create(name="At Home").clubs.add(world.club)
    here = world.players[2:10]
    for player in here:
        assert client.post(f"/api/v1/events/{event.pk}/checkins/", {"player": player.pk}, format="json").status_code == 200
    listed = client.get(f"/api/v1/events/{event.pk}/checkins/").json()["players"]
    assert sorted(row["player"] for row in listed) == sorted(p.pk for p in here)
    draft = client.post(url(round_), {"seed": 4}, format="json").json()
    seated = [p for t in draft["tables"] for p in t["players"]] + draft["byes"]
    assert sorted(seated) == sorted(p.pk for p in here) == sorted(draft["players"])
    # One leaves, one more arrives: drawing again follows the check-in list.
    assert client.delete(f"/api/v1/events/{event.pk}/checkins/{here[0].pk}/").status_code == 204
    client.post(f"/api/v1/events/{event.pk}/checkins/", {"player": world.players[0].pk}, format="json")
    again = client.post(url(round_), {"seed": 4}, format="json").json()
    assert sorted(again["players"]) == sorted([p.pk for p in here[1:]] + [world.players[0].pk])
