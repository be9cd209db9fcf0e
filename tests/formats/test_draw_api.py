"""The seating methods over the API (``POST /api/v1/rounds/{id}/draw/`` with ``method``), rounds
after rounds with results, and the seating script (``/api/v1/events/{id}/seating-script/``)."""
from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict

import pytest


class Tally:
    """The standings computed by hand from the totals the test gave: total, then wins (sessions
    with the table's best total), shared ranks for players level on both."""

    def __init__(self):
        self.total, self.wins = defaultdict(int), defaultdict(int)
        self.rounds = []

    def record(self, tables, totals):
        for table in tables:
            best = max(totals[p] for p in table)
            for p in table:
                self.total[p] += totals[p]
                self.wins[p] += totals[p] == best
        self.rounds.append(tables)

    def ranks(self, players):
        key = {p: (self.total[p], self.wins[p]) for p in players}
        order = sorted(players, key=lambda p: key[p], reverse=True)
        return {p: 1 + sum(1 for q in players if key[q] > key[p]) for p in order}

    def met(self):
        pairs = Counter()
        for tables in self.rounds:
            for table in tables:
                pairs.update(frozenset(pair) for pair in itertools.combinations(table, 2))
        return pairs


def play_round(day, round_, tally, rng):
    tables = day.publish(round_)
    totals = {p: rng.randrange(0, 60, 5) for t in tables for p in t}
    day.finish(round_, totals.__getitem__)
    tally.record(tables, totals)
    return tables


@pytest.mark.parametrize("count", [8, 17, 24, 60])
def test_five_rounds_varied_then_by_standings(day_of, count):
    day = day_of("mu", count)
    rng, tally = random.Random(count), Tally()
    everyone = [p.pk for p in day.players]
    for number in range(1, 6):
        round_ = day.new_round()
        method = "varied" if number <= 2 else "standings"
        response = day.draw(round_, method, seed=number)
        assert response.status_code == 200, response.content
        draft = response.json()
        assert draft["method"] == method and draft["quality"]["method"] == method
        assert draft["quality"]["optimised"] == ("fewest_repeats" if method == "varied" else "standings_order")
        tables = [t["players"] for t in draft["tables"]]
        assert sorted(p for t in tables for p in t) == sorted(everyone)  # 8–60 Mü players: no bye
        assert all(len(t) in (4, 5) or count < 8 for t in tables)
        # The repeats the report counts, counted by hand from the rounds played.
        met = tally.met()
        assert draft["quality"]["repeated_pairs"] == sum(
            1 for t in tables for pair in itertools.combinations(t, 2) if met[frozenset(pair)])
        if method == "standings":
            ranks = tally.ranks(everyone)
            for upper, lower in zip(tables, tables[1:]):
                assert max(ranks[p] for p in upper) <= min(ranks[p] for p in lower)
        play_round(day, round_, tally, rng)


def test_interval_over_the_api_spreads_the_standings(day_of):
    day = day_of("maumau", 16)
    rng, tally = random.Random(3), Tally()
    round_ = day.new_round()
    day.draw(round_, "varied", seed=1)
    tables = day.publish(round_)
    # Distinct totals: the standings have no tie.
    totals = {p: 100 - 5 * i for i, p in enumerate(rng.sample([p for t in tables for p in t], 16))}
    day.finish(round_, totals.__getitem__)
    tally.record(tables, totals)
    second = day.new_round()
    response = day.draw(second, "interval", seed=2)
    assert response.status_code == 200, response.content
    order = sorted(totals, key=totals.get, reverse=True)
    expected = [[order[i] for i in (t, t + 4, t + 8, t + 12)] for t in range(4)]  # 1-5-9-13, 2-6-10-14 …
    assert [sorted(t["players"]) for t in response.json()["tables"]] == [sorted(t) for t in expected]
    assert response.json()["quality"]["optimised"] == "standings_spread"


def test_byes_stay_as_today_with_a_method_by_standings(day_of):
    day = day_of("lut", 7)  # Mit List und Tücke: tables of 4 to 6, so seven players: a table of 6 and a bye
    for method in ("standings", "interval", "varied"):
        round_ = day.new_round()
        draft = day.draw(round_, method, seed=4).json()
        assert [len(t["players"]) for t in draft["tables"]] == [6] and len(draft["byes"]) == 1
        byes = draft["byes"]
        day.publish(round_)
    # Byes go to those with the fewest so far: three rounds, three different players sat out.
    from tournaments.models import Round

    sat_out = [p for r in Round.objects.filter(event=day.event) for p in r.byes]
    assert len(set(sat_out)) == 3 and byes[0] in sat_out


def test_an_unknown_method_is_400(day_of):
    day = day_of("mu", 8)
    round_ = day.new_round()
    response = day.draw(round_, "alphabetical")
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert "method" in response.json()["fields"]
    assert round_.__class__.objects.get(pk=round_.pk).draft is None


# --- the seating script ---------------------------------------------------------------------------

def script_url(day):
    return f"/api/v1/events/{day.event.pk}/seating-script/"


def test_a_script_with_errors_is_refused_whole_with_one_error_per_line(day_of):
    day = day_of("mu", 12)
    text = "1,1,1,2,3,4\n1,2,5,6,7,99\n1,3,9,10\n2,1,1,2,3,4\n2,2,4,5,6,7\n"
    response = day.client.put(script_url(day), {"script": text}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "bad_script"
    assert body["fields"]["script"] == [
        "line 2: no player has the number 99 in this event",
        "line 3: a table of 2 players: the game is played by 3, 4, 5, 6",
        "line 5: player 4 is seated twice in round 2 (also on line 4)",
    ]
    assert day.client.get(script_url(day)).status_code == 404  # nothing stored
    day.event.refresh_from_db()
    assert day.event.seating_script is None


def test_the_script_seats_its_round_by_start_numbers(day_of):
    day = day_of("mu", 13)
    text = "round;table;players\n1;1;1;2;3;4\n1;2;5;6;7;8\n1;3;9;10;11;12;13\n2;1;13;9;5;1\n2;2;2;6;10\n"
    response = day.client.put(script_url(day), {"script": text}, format="json")
    assert response.status_code == 200, response.content
    player = {n: p.pk for p, n in zip(day.players, range(1, 14))}
    assert response.json()["rounds"]["2"][0]["players"] == [player[13], player[9], player[5], player[1]]
    assert day.client.get(script_url(day)).json()["text"] == text
    # The check-in list names each player's number.
    checkins = day.client.get(f"/api/v1/events/{day.event.pk}/checkins/").json()["players"]
    assert {c["player"]: c["number"] for c in checkins} == {p.pk: i + 1 for i, p in enumerate(day.players)}
    first = day.new_round()
    draft = day.draw(first, "script").json()
    assert [t["players"] for t in draft["tables"]] == [
        [player[n] for n in (1, 2, 3, 4)], [player[n] for n in (5, 6, 7, 8)],
        [player[n] for n in (9, 10, 11, 12, 13)]]
    assert draft["byes"] == [] and draft["quality"]["optimised"] == "as_scripted"
    day.publish(first)
    second = day.new_round()
    draft = day.draw(second, "script").json()
    # Round 2 seats seven of the thirteen: the others are present, so they sit out (byes).
    assert [t["players"] for t in draft["tables"]] == [[player[n] for n in (13, 9, 5, 1)],
                                                        [player[n] for n in (2, 6, 10)]]
    assert sorted(draft["byes"]) == sorted(player[n] for n in (3, 4, 7, 8, 11, 12))
    # A round the script does not cover: 409 no_script.
    day.publish(second)
    third = day.new_round()
    response = day.draw(third, "script")
    assert response.status_code == 409 and response.json()["code"] == "no_script"


def test_a_scripted_player_who_is_not_here_is_named(day_of):
    from tournaments import services

    day = day_of("mu", 8)
    assert day.client.put(script_url(day), {"script": "1,1,1,2,3,4\n1,2,5,6,7,8"}, format="json").status_code == 200
    services.player_check_out(event=day.event, player=day.players[6], by_user=day.organiser)
    response = day.draw(day.new_round(), "script")
    assert response.status_code == 400 and response.json()["code"] == "script_absent"
    assert "7" in response.json()["message"]


def test_the_script_can_be_removed_and_is_for_organisers_only(day_of):
    from tests.conftest import client_for, make_user

    day = day_of("mu", 8)
    assert day.client.put(script_url(day), {"script": "1,1,1,2,3,4\n1,2,5,6,7,8"}, format="json").status_code == 200
    stranger = client_for(make_user("stranger"))
    assert stranger.get(script_url(day)).status_code == 403
    assert stranger.put(script_url(day), {"script": "1,1,1,2,3,4"}, format="json").status_code == 403
    assert day.client.delete(script_url(day)).status_code == 204
    assert day.client.get(script_url(day)).status_code == 404
