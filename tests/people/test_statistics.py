"""Statistics per game of hand-built sessions, computed here from the records the test built;
head-to-head; the export of a player's data (everything about him, nothing about others); the
API's answers say the same as the pages."""
from __future__ import annotations

import json

import pytest

from .conftest import NAMES, bind, issue

pytestmark = pytest.mark.django_db

MU_LOST = {"bids": [3, 1, 3, 4, 1], "chef": 3, "vice": 2, "provocateur": None, "vice_trump": "G", "chef_trump": "1",
           "partner": 0, "card_points": [10, 12, 9, 19, 10]}
MU_WON = {**MU_LOST, "card_points": [15, 12, 9, 19, 5]}
MU_EKLAT = {"bids": [3, 1, 3, 0, 1], "chef": None, "provocateur": 0}
MU_DEALS = [MU_LOST, MU_WON, MU_EKLAT]
MAUMAU_MINUS = [[3, 0, 1, 3], [0, 2, 4, 1]]


def play_evening(club):
    """Three Mü deals (a lost deal, a won one, an Eklat), two Maumau games and a whole game of Mit
    List und Tücke (the simulator's), each session finished."""
    from tests.sheet.world import play_hands
    from tournaments.results.services import Entry, hand_submit

    for dealer, summary in enumerate(MU_DEALS):
        record = {"game": "mu", "players": 5, "dealer": dealer, "summary": summary}
        hand_submit(table_id=club.tables["mu"].pk, entry=Entry(record), by_user=club.organiser)
    for dealer, minus in enumerate(MAUMAU_MINUS):
        record = {"game": "maumau", "players": 4, "dealer": dealer, "summary": {"minus": minus}}
        hand_submit(table_id=club.tables["maumau"].pk, entry=Entry(record), by_user=club.organiser)
    play_hands(club.tables["lut"], 4, seed=7, by_user=club.organiser)
    for table in club.tables.values():
        assert table.sessions.get().status == "finished"


def _results(table):
    return [hand.result for hand in table.sessions.get().hands.order_by("number")]


def _totals(results):
    return [sum(result["scores"][seat] for result in results) for seat in range(len(results[0]["scores"]))]


def expected_stats(club, seat: int) -> dict:
    """His statistics from the records built above (and the LuT hands' stored answers)."""
    mu = _totals(_results(club.tables["mu"]))
    maumau = [-sum(minus[s] for minus in MAUMAU_MINUS) for s in range(4)]
    lut_results = _results(club.tables["lut"])
    lut = _totals(lut_results)

    def common(totals):
        return {"sessions": 1, "finished": 1, "wins": int(totals[seat] == max(totals)),
                "average_place": float(1 + sum(t > totals[seat] for t in totals))}

    from tournaments.models import Transfer

    if seat >= 4:  # at the Mü table only
        return {"mu": {**common(mu), "hands": 3, "chef": 0, "vice": 0, "team_hands": 0, "team_goal_made": 0,
                       "eklats_caused": 0}}
    player = club.players[seat]
    cents = (sum(t.cents for t in Transfer.objects.filter(payee=player))
             - sum(t.cents for t in Transfer.objects.filter(payer=player)))
    kept = {c: sum(1 for r in lut_results if r["stacks"][seat].get(c)) for c in "BGRY"}
    return {
        "mu": {**common(mu), "hands": 3, "chef": sum(d["chef"] == seat for d in MU_DEALS),
               "vice": sum(d.get("vice") == seat for d in MU_DEALS),
               "team_hands": sum(seat in (d["chef"], d.get("partner")) for d in MU_DEALS if d["chef"] is not None),
               "team_goal_made": int(seat in (MU_WON["chef"], MU_WON["partner"])),
               "eklats_caused": int(MU_EKLAT["provocateur"] == seat)},
        "maumau": {**common(maumau), "games": 2,
                   "average_minus": round(sum(minus[seat] for minus in MAUMAU_MINUS) / 2, 2), "cents": cents},
        "lut": {**common(lut), "rounds": 4, "average_points": round(lut[seat] / 4, 2), "colours_kept": kept},
    }


@pytest.mark.parametrize("seat", [0, 2, 3, 4])
def test_statistics_per_game(evening, seat):
    from tournaments import policy
    from tournaments.people.stats import game_stats

    play_evening(evening)
    assert game_stats(evening.players[seat], policy.public()) == expected_stats(evening, seat)


def test_the_mu_figures_of_the_built_deals(evening):
    """The same figures read off the deals by hand: Anna was the partner twice (won once) and
    provoked the Eklat; Dagmar was Chef twice and won the table; Conny was Vize twice."""
    from tournaments import policy
    from tournaments.people.stats import game_stats

    play_evening(evening)
    anna, conny, dagmar = (game_stats(evening.players[s], policy.public())["mu"] for s in (0, 2, 3))
    assert (anna["team_hands"], anna["team_goal_made"], anna["eklats_caused"], anna["chef"]) == (2, 1, 1, 0)
    assert (dagmar["chef"], dagmar["wins"], dagmar["average_place"]) == (2, 1, 1.0)
    assert conny["vice"] == 2


def test_head_to_head(evening, phone):
    from tournaments import policy
    from tournaments.people.stats import head_to_head

    play_evening(evening)
    anna, dagmar = evening.players[0], evening.players[3]
    expected = {"sessions": 0, "finished": 0, "ahead": 0, "behind": 0, "level": 0, "games": {}}
    for game, table in evening.tables.items():
        totals = _totals(_results(table))
        mine, theirs = totals[0], totals[3]
        row = {"sessions": 1, "finished": 1, "ahead": int(mine > theirs), "behind": int(mine < theirs),
               "level": int(mine == theirs)}
        expected["games"][game] = row
        for key in row:
            expected[key] += row[key]
    assert head_to_head(anna, dagmar, policy.public()) == expected
    # The page and the API say the same.
    client = phone()
    bind(client, issue(anna, evening.organiser).pin)
    answer = client.get(f"/api/v1/me/player/head-to-head/{dagmar.pk}/").json()
    assert answer["other_name"] == "Dagmar Dorn" and answer["ahead"] == expected["ahead"]
    page = client.get("/me/head-to-head/", {"player": dagmar.pk})
    assert page.status_code == 200 and page.context["result"]["behind"] == expected["behind"]
    # Frieda never sat with Anna: not offered, and refused.
    assert client.get("/me/head-to-head/", {"player": evening.players[5].pk}).status_code == 404


def test_the_api_and_the_pages_show_the_statistics(evening, phone):
    play_evening(evening)
    anna = evening.players[0]
    client = phone()
    bind(client, issue(anna, evening.organiser).pin)
    mine = client.get("/api/v1/me/player/").json()
    assert mine["games"] == json.loads(json.dumps(expected_stats(evening, 0)))
    assert mine["tables"] == []  # every session is finished
    public = client.get(f"/api/v1/players/{anna.pk}/stats/").json()
    assert public["games"] == mine["games"] and public["name"] == "Anna Adler"
    page = client.get("/me/stats/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('data-chart="place"') == 3 and 'data-chart="money"' in html and "<script" not in html
    assert client.get(f"/players/{anna.pk}/stats/").status_code == 200


def test_what_others_see_follows_the_policy(evening, phone):
    from tournaments import services

    play_evening(evening)
    anna = evening.players[0]
    services.event_update(event=evening.events["maumau"], by_user=evening.organiser, published=False)
    anonymous = phone().get(f"/api/v1/players/{anna.pk}/stats/").json()
    assert set(anonymous["games"]) == {"mu", "lut"}
    services.player_update(player=anna, by_user=evening.organiser, initials_only=True)
    assert phone().get(f"/api/v1/players/{anna.pk}/stats/").json()["name"] == "A.A."
    from django.test import Client

    organiser = Client()
    organiser.force_login(evening.organiser)
    seen = organiser.get(f"/api/v1/players/{anna.pk}/stats/").json()
    assert set(seen["games"]) == {"mu", "maumau", "lut"} and seen["name"] == "Anna Adler"


def _values(document, key):
    if isinstance(document, dict):
        for name, value in document.items():
            if name == key:
                yield value
            yield from _values(value, key)
    elif isinstance(document, list):
        for value in document:
            yield from _values(value, key)


def test_the_export_holds_everything_about_him_and_nothing_about_others(evening, phone):
    from tournaments.models import Transfer

    play_evening(evening)
    anna = evening.players[0]
    client = phone()
    bind(client, issue(anna, evening.organiser).pin)
    assert client.post("/me/privacy/", {"initials_only": "on"}).status_code == 302
    response = client.get("/me/my-data.json")
    assert response["Content-Disposition"].startswith("attachment")
    document = json.loads(response.content)
    assert document == client.get("/api/v1/me/player/export/").json() | {"exported_at": document["exported_at"]}
    # About him: all of it.
    assert document["player"]["name"] == "Anna Adler" and document["player"]["initials_only"] is True
    assert [club["name"] for club in document["clubs"]] == ["Stichclub"]
    assert len(document["phones"]) == 1 and document["personal_code"]["issued_at"]
    sessions = {s["event"]["game"]: s for s in document["sessions"]}
    assert set(sessions) == {"mu", "maumau", "lut"}
    for game, table in evening.tables.items():
        results = _results(table)
        assert sessions[game]["total"] == _totals(results)[0] and sessions[game]["seat"] == 1
        assert [hand["score"] for hand in sessions[game]["hands"]] == [r["scores"][0] for r in results]
    assert [h["chef"] for h in sessions["mu"]["hands"]] == [False, False, False]
    assert [h["partner"] for h in sessions["mu"]["hands"]] == [True, True, False]
    assert len(document["payments"]) == Transfer.objects.filter(payer=anna).count() + \
        Transfer.objects.filter(payee=anna).count()
    assert document["statistics"]["mu"]["eklats_caused"] == 1
    actions = [row["action"] for row in document["audit"]]
    assert {"player_code_issued", "player_device_bound", "player_changed"} <= set(actions)
    assert "ratings" in document
    # About others: nothing — no name, no id, no score of theirs.
    text = json.dumps(document, ensure_ascii=False)
    for name in NAMES[1:]:
        assert name not in text and name.split()[0] not in text
    others = {p.pk for p in evening.players[1:]}
    assert document["player"]["id"] == anna.pk
    assert not others & {value for key in ("player", "players_ids", "payer", "payee", "from", "to")
                         for value in _values(document, key) if isinstance(value, int)}
    assert not list(_values(document, "scores")) and not list(_values(document, "record"))


def test_he_asks_for_his_deletion(evening, phone):
    from tournaments.models import PlayerCode, PlayerDevice

    play_evening(evening)
    anna = evening.players[0]
    client = phone()
    bind(client, issue(anna, evening.organiser).pin)
    assert client.post("/me/delete/", {"confirm": "Anna"}).status_code == 400
    response = client.post("/me/delete/", {"confirm": "anna adler"})
    assert response.status_code == 200
    anna.refresh_from_db()
    assert anna.anonymised and anna.name == "" and not anna.clubs.exists()
    assert not PlayerCode.objects.filter(player=anna).exists()
    assert not PlayerDevice.objects.filter(player=anna, revoked_at__isnull=True).exists()
    assert evening.tables["mu"].sessions.get().hands.count() == 3  # the results stay
    assert client.get("/me/stats/").status_code == 404
