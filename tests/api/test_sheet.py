"""The table's side over HTTP: scorer links for organisers, the sheet's pages and who may open
them, and second-player confirmation (what counts, who confirms, the audit)."""
from __future__ import annotations

import json

import pytest

from tests.conftest import client_for

LUT_ROUND = {"game": "lut", "players": 4, "dealer": 0, "summary": {"stacks": [
    {"B": 4, "G": 2, "discarded": 0}, {"R": 6, "Y": 4, "discarded": 0},
    {"B": 2, "G": 4, "Y": 2, "discarded": 0}, {"R": 4, "Y": 2, "G": 2, "discarded": 0}]}}
LUT_SCORES = [8, 24, 4, 4]


def lut_table(world):
    return world.events["lut"].rounds.get().tables.get(number=1)


def scorer(table, seat=None):
    client = client_for()
    client.credentials(HTTP_X_SCORER_TOKEN=table.scorer_token, **({"HTTP_X_SCORER_SEAT": str(seat)} if seat is not None else {}))
    return client


def submit(client, table, record, dealer=0):
    return client.post(f"/api/v1/tables/{table.pk}/hands/", {**record, "dealer": dealer}, format="json")


def totals(world, game="lut"):
    document = client_for(world.organiser).get(f"/api/v1/events/{world.events[game].pk}/standings/").json()
    return {row["player"]: row["total"] for row in document["standings"]}


# --- scorer links -----------------------------------------------------------------------------------

def test_scorer_url_is_shown_to_the_events_organisers_only(world):
    table = lut_table(world)
    mine = client_for(world.organiser).get(f"/api/v1/tables/{table.pk}/").json()
    assert mine["scorer_url"] == f"http://testserver/t/{table.scorer_token}/"
    for user in (None, world.player_user, world.other_organiser):
        assert "scorer_url" not in client_for(user).get(f"/api/v1/tables/{table.pk}/").json()
    listed = client_for(world.organiser).get(f"/api/v1/tables/?round__event={world.events['lut'].pk}").json()
    assert all(row["scorer_url"].startswith("http://testserver/t/") for row in listed["results"])


def test_rotating_the_scorer_link_ends_the_old_one(world):
    from tournaments.models import AuditEntry

    table = lut_table(world)
    old = table.scorer_token
    assert client_for(world.other_organiser).post(f"/api/v1/tables/{table.pk}/scorer-link/").status_code == 403
    assert client_for().post(f"/api/v1/tables/{table.pk}/scorer-link/").status_code == 401
    response = client_for(world.organiser).post(f"/api/v1/tables/{table.pk}/scorer-link/")
    assert response.status_code == 200
    table.refresh_from_db()
    assert table.scorer_token != old and response.json()["scorer_url"].endswith(f"/t/{table.scorer_token}/")
    assert client_for().get(f"/t/{old}/").status_code == 404
    assert client_for().get(f"/t/{table.scorer_token}/").status_code == 200
    stale = client_for()
    stale.credentials(HTTP_X_SCORER_TOKEN=old)
    assert submit(stale, table, LUT_ROUND).status_code == 403
    assert AuditEntry.objects.filter(action="scorer_link_rotated", object_id=table.pk).count() == 1


# --- pages ------------------------------------------------------------------------------------------

def test_the_sheet_page_by_link_without_an_account(world):
    table = lut_table(world)
    page = client_for().get(f"/t/{table.scorer_token}/")
    assert page.status_code == 200
    body = page.content.decode()
    assert 'name="stack-3-discarded"' in body and "Player 00" in body
    config = json.loads(body.split('id="sheet-config" type="application/json">')[1].split("</script>")[0])
    assert config["token"] == table.scorer_token and config["players"] == 4
    assert client_for().get("/t/not-a-token/").status_code == 404


def test_the_mu_sheet_offers_every_bid_the_engine_takes(world):
    """Issue 38: bids 0 to the deck's limit (rules/mu.md §1: every card in hand), per player
    count, from the engine (games.rules.mu.max_bid): 15 with 4 players, not 0-8."""
    import re

    from games.rules import mu
    from tournaments import services
    from tournaments.models import Round

    limits = {3: 12, 4: 15, 5: 12, 6: 10}
    assert {players: mu.max_bid(players) for players in limits} == limits
    event = world.events["mu"]
    for number, (players, limit) in enumerate(limits.items(), start=2):
        round_ = Round.objects.create(event=event, number=number)
        table = services.table_create(round_=round_, players=world.players[:players], by_user=None)
        body = client_for().get(f"/t/{table.scorer_token}/").content.decode()
        for seat in range(players):
            offered = sorted(int(v) for v in re.findall(rf'name="bid-{seat}" value="(\d+)"', body))
            assert offered == list(range(limit + 1)), (players, seat, offered)
        # The engine takes the highest bid offered and refuses one more.
        bids = [limit] + [0] * (players - 1)
        record = {"game": "mu", "players": players, "dealer": 0, "summary": {"bids": bids}}
        answer = client_for().post("/api/v1/records/validate", record, format="json")
        assert answer.status_code != 422 or not answer.json()["path"].startswith("/summary/bids"), answer.content
        record["summary"]["bids"] = [limit + 1] + [0] * (players - 1)
        refused = client_for().post("/api/v1/records/validate", record, format="json")
        assert refused.status_code == 422 and refused.json()["path"] == "/summary/bids/0"


def test_my_table_takes_a_seated_player_to_his_sheet(world, client):
    anonymous = client.get("/my-table/")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/?next=")  # the site's login
    client.force_login(world.player_user)
    response = client.get("/my-table/")
    # Player 00 sits at table 1 of each of the three events: a list to choose from.
    assert response.status_code == 200
    tables = {world.events[g].rounds.get().tables.get(number=1).pk for g in ("mu", "maumau", "lut")}
    for pk in tables:
        assert f"/my-table/{pk}/" in response.content.decode()
    table = lut_table(world)
    sheet = client.get(f"/my-table/{table.pk}/")
    assert sheet.status_code == 200 and table.scorer_token not in sheet.content.decode()
    other = world.events["lut"].rounds.get().tables.get(number=2)
    assert client.get(f"/my-table/{other.pk}/").status_code == 404


def test_table_cards_are_for_the_organisers(world, client):
    round_ = world.events["lut"].rounds.get()
    assert client.get(f"/rounds/{round_.pk}/cards/").status_code == 302
    client.force_login(world.other_organiser)
    assert client.get(f"/rounds/{round_.pk}/cards/").status_code == 403
    client.force_login(world.organiser)
    page = client.get(f"/rounds/{round_.pk}/cards/").content.decode()
    assert page.count('class="table-card"') == 3 and page.count("<svg") == 3
    for table in round_.tables.all():
        assert f"http://testserver/t/{table.scorer_token}/" in page


# --- second-player confirmation ---------------------------------------------------------------------

@pytest.fixture
def confirming(world):
    event = world.events["lut"]
    event.confirm_hands = True
    event.save()
    return world


def test_an_unconfirmed_hand_counts_only_after_another_seat_confirms(confirming):
    from ratings.services import rated_sessions
    from tournaments.models import AuditEntry, Hand

    world = confirming
    table = lut_table(world)
    seats = list(table.seats.order_by("position").values_list("player_id", flat=True))
    assert submit(scorer(table, seat=1), table, LUT_ROUND).status_code == 201
    for dealer in (1, 2, 3):  # the rest of the game, confirmed at once by the organiser
        response = submit(client_for(world.organiser), table, LUT_ROUND, dealer=dealer)
        assert response.status_code == 201 and response.json()["hand"]["unconfirmed"] is False
    hand = Hand.objects.get(session__table=table, number=1)
    assert hand.unconfirmed and hand.entered_by_seat == 1
    # Finished, but hand 1 is missing from the standings and the ratings.
    assert totals(world)[seats[1]] == 3 * LUT_SCORES[1]
    [rated] = rated_sessions("lut")
    assert list(rated.totals) == [3 * score for score in LUT_SCORES]

    same = scorer(table).post(f"/api/v1/hands/{hand.pk}/confirm/", {"seat": 1}, format="json")
    assert same.status_code == 403 and same.json()["code"] == "same_seat"
    assert client_for().post(f"/api/v1/hands/{hand.pk}/confirm/", {"seat": 2}, format="json").status_code == 401
    confirmed = scorer(table).post(f"/api/v1/hands/{hand.pk}/confirm/", {"seat": 2}, format="json")
    assert confirmed.status_code == 200 and confirmed.json()["hand"]["unconfirmed"] is False
    assert totals(world)[seats[1]] == 4 * LUT_SCORES[1]
    [rated] = rated_sessions("lut")
    assert list(rated.totals) == [4 * score for score in LUT_SCORES]
    again = scorer(table).post(f"/api/v1/hands/{hand.pk}/confirm/", {"seat": 3}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "not_unconfirmed"
    entry = AuditEntry.objects.get(action="hand_confirmed", object_id=hand.pk)
    assert entry.via == "scorer" and entry.after["confirmed_by_seat"] == 2


def test_a_logged_in_player_confirms_for_his_own_seat_only(confirming):
    from tournaments.models import Hand

    world = confirming
    table = lut_table(world)  # Player 00 (player_user) sits at seat 0
    assert submit(client_for(world.player_user), table, LUT_ROUND).status_code == 201
    hand = Hand.objects.get(session__table=table, number=1)
    assert hand.entered_by_seat == 0 and hand.unconfirmed
    refused = client_for(world.player_user).post(f"/api/v1/hands/{hand.pk}/confirm/", {"seat": 2}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "same_seat"


def test_a_disputed_hand_goes_to_the_organisers(confirming):
    from tournaments.models import AuditEntry, Hand

    world = confirming
    table = lut_table(world)
    submit(scorer(table, seat=0), table, LUT_ROUND)
    hand = Hand.objects.get(session__table=table, number=1)
    disputed = scorer(table).post(f"/api/v1/hands/{hand.pk}/dispute/", {"seat": 3, "reason": "wrong stacks"},
                                  format="json")
    assert disputed.status_code == 200 and disputed.json()["hand"]["disputed"] is True
    assert AuditEntry.objects.get(action="hand_disputed").reason == "wrong stacks"
    assert totals(world) == {} or all(value == 0 for value in totals(world).values())
    corrected = dict(LUT_ROUND, summary={"stacks": [{"B": 2, "discarded": 0}] * 4})
    response = client_for(world.organiser).post(f"/api/v1/hands/{hand.pk}/correct/",
                                                {"record": corrected, "reason": "checked the stacks"}, format="json")
    assert response.status_code == 200
    hand.refresh_from_db()
    assert not hand.unconfirmed and not hand.disputed and hand.confirmed_by == world.organiser
    assert sum(totals(world).values()) == sum(hand.result["scores"])


def test_without_the_option_hands_count_at_once(world):
    table = lut_table(world)
    response = submit(scorer(table, seat=1), table, LUT_ROUND)
    assert response.status_code == 201 and response.json()["hand"]["unconfirmed"] is False
    assert response.json()["hand"]["entered_by_seat"] == 1
    seats = list(table.seats.order_by("position").values_list("player_id", flat=True))
    assert [totals(world)[player] for player in seats] == LUT_SCORES


@pytest.mark.parametrize("seat", [4, 7, 2**31, 2**70, -1, "x", None, True])
def test_only_a_seat_of_the_table_confirms_or_disputes(confirming, seat):
    """A 4-seat table: seat 7 or 2**70 is refused (400, the field named), nothing changes, no audit row."""
    from tournaments.models import AuditEntry, Hand

    world = confirming
    table = lut_table(world)
    submit(scorer(table, seat=0), table, LUT_ROUND)
    hand = Hand.objects.get(session__table=table, number=1)
    audits = AuditEntry.objects.count()
    for action, body in (("confirm", {"seat": seat}), ("dispute", {"seat": seat, "reason": "wrong"})):
        response = scorer(table).post(f"/api/v1/hands/{hand.pk}/{action}/", body, format="json")
        assert response.status_code == 400, (action, seat, response.content)
        assert "seat" in response.json()["fields"]
    hand.refresh_from_db()
    assert hand.unconfirmed and not hand.disputed and AuditEntry.objects.count() == audits
    assert scorer(table).post(f"/api/v1/hands/{hand.pk}/confirm/", {"seat": 3}, format="json").status_code == 200
