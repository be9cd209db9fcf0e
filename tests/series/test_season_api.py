"""The season options through the API and the console: created, changed and refused as every
series option is (bounded, validated in the model and the database, audited), a season over
several games takes its games' events (the console lists them all), and Maumau's money over the
season is shown to the club's organisers and to each player for himself, never to the public."""
from __future__ import annotations

import csv
import io

import pytest
from django.db import IntegrityError, transaction
from django.test import Client

from tests.conftest import client_for
from tournaments.models import (
    AuditEntry,
    Event,
    Round,
    Series,
    SeriesSyncRequest,
    Session,
    Transfer,
)
from tournaments.services import table_create
from tournaments.standings.series_standings import rebuild

pytestmark = pytest.mark.django_db


def _create(world, **extra):
    body = {"club": world.club.pk, "name": "Jahreswertung", "game": "mu", **extra}
    return client_for(world.club_organiser).post("/api/v1/series/", body, format="json")


def test_a_mixed_season_with_its_options_is_created_and_audited(world):
    response = _create(world, games=["mu", "maumau"], aggregate="average", drop_worst=2, qualify_percent=50,
                       absence_deduction=3)
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["games"], body["aggregate"], body["drop_worst"], body["qualify_percent"],
            body["absence_deduction"]) == (["mu", "maumau"], "average", 2, 50, 3)
    entry = AuditEntry.objects.get(action="series_created", object_id=body["id"])
    assert entry.after["games"] == ["mu", "maumau"] and entry.after["qualify_percent"] == 50
    # Both games' events join it; LuT's does not.
    organiser = client_for(world.club_organiser)
    for game, status in (("mu", 200), ("maumau", 200), ("lut", 400)):
        answer = organiser.patch(f"/api/v1/events/{world.events[game].pk}/", {"series": body["id"]}, format="json")
        assert answer.status_code == status, (game, answer.content)
    assert set(Event.objects.filter(series=body["id"]).values_list("game", flat=True)) == {"mu", "maumau"}
    assert client_for(world.club_organiser).get(f"/api/v1/series/{body['id']}/").json()["events"]


def test_changing_an_option_is_audited_and_resyncs_the_kept_standings(world):
    series = Series.objects.create(club=world.club, name="Cup", game="mu")
    SeriesSyncRequest.objects.all().delete()
    response = client_for(world.club_organiser).patch(f"/api/v1/series/{series.pk}/",
                                                      {"aggregate": "average", "qualify_percent": 50}, format="json")
    assert response.status_code == 200, response.content
    entry = AuditEntry.objects.get(action="series_changed", object_id=series.pk)
    assert entry.before == {"aggregate": "sum", "qualify_percent": 0}
    assert entry.after == {"aggregate": "average", "qualify_percent": 50}
    assert SeriesSyncRequest.objects.filter(series_id=series.pk).exists()


@pytest.mark.parametrize("body, field", [
    ({"drop_worst": 2, "best_of": 5}, "drop_worst"),
    ({"drop_worst": 1001}, "drop_worst"),
    ({"qualify_percent": 101}, "qualify_percent"),
    ({"qualify_percent": -1}, "qualify_percent"),
    ({"absence_deduction": 10_001}, "absence_deduction"),
    ({"aggregate": "median"}, "aggregate"),
    ({"games": ["mu", "chess"]}, "games"),
    ({"games": ["maumau", "lut"]}, "games"),  # without the series' own game
    ({"games": ["mu", "mu"]}, "games"),
    ({"games": ["mu", "maumau"], "scoring": "total"}, "scoring"),
    ({"games": "mu"}, "games"),
])
def test_bad_season_options_are_a_400_naming_their_field(world, body, field):
    response = _create(world, **body)
    assert response.status_code == 400, response.content
    assert response.json()["code"] and field in response.json()["fields"], response.json()
    assert not Series.objects.exists()


def test_a_game_with_events_in_the_series_cannot_be_taken_out(world):
    series = Series.objects.create(club=world.club, name="Cup", game="mu", games=["mu", "maumau"])
    Event.objects.filter(pk=world.events["maumau"].pk).update(series=series)
    response = client_for(world.club_organiser).patch(f"/api/v1/series/{series.pk}/", {"games": []}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "has_events"
    assert Series.objects.get(pk=series.pk).games == ["mu", "maumau"]


@pytest.mark.parametrize("values", [
    {"drop_worst": 1001}, {"qualify_percent": 101}, {"absence_deduction": 10_001}, {"aggregate": "median"},
    {"best_of": 3, "drop_worst": 1},
])
def test_the_database_refuses_options_out_of_bounds_written_around_the_services(world, values):
    series = Series.objects.create(club=world.club, name="Cup", game="mu")
    with pytest.raises(IntegrityError), transaction.atomic():
        Series.objects.filter(pk=series.pk).update(**values)


# --- money over the season -----------------------------------------------------------------------

def _maumau_season(world):
    """Two published Maumau evenings of the club's series, each a finished session of four of the
    players with its settling transfers, some paid; returns the series and the transfers."""
    series = Series.objects.create(club=world.club, name="Maumau-Jahr", game="maumau", games=["maumau", "mu"])
    transfers = []
    for number, (totals, payments) in enumerate([
        ([0, -3, -5, -8], [(1, 0, 30, True), (2, 0, 50, False), (3, 0, 80, False)]),
        ([-6, 0, -2, -1], [(0, 1, 60, True), (2, 1, 20, True), (3, 1, 10, False)]),
    ]):
        event = Event.objects.create(club=world.club, name=f"Maumau {number + 1}", game="maumau", published=True,
                                     series=series, starts_on=f"2026-02-0{number + 1}")
        round_ = Round.objects.create(event=event, number=1)
        table = table_create(round_=round_, players=world.players[:4], by_user=None)
        session = Session.objects.create(table=table, status="finished", totals=totals, hand_count=8)
        for payer, payee, cents, paid in payments:
            transfers.append(Transfer.objects.create(session=session, payer=world.players[payer],
                                                     payee=world.players[payee], cents=cents, paid=paid))
        rebuild([event.pk])
    return series, transfers


def _money_by_hand(transfers) -> dict:
    found = {}
    for t in transfers:
        for player, key in ((t.payee_id, "won"), (t.payer_id, "lost")):
            entry = found.setdefault(player, {"won": 0, "won_open": 0, "lost": 0, "lost_open": 0})
            entry[key] += t.cents
            entry[f"{key}_open"] += 0 if t.paid else t.cents
    for entry in found.values():
        entry["net"] = entry["won"] - entry["lost"]
    return found


def test_money_over_the_season_for_the_organisers_the_player_himself_and_nobody_else(world):
    series, transfers = _maumau_season(world)
    want = _money_by_hand(transfers)
    url = f"/api/v1/series/{series.pk}/standings/"

    organiser = client_for(world.club_organiser).get(url).json()
    assert organiser["money_shown"] is True
    assert {row["player"]: row["money"] for row in organiser["standings"]} == want

    himself = client_for(world.player_user).get(url).json()
    own = world.players[0].pk
    assert {row["player"]: row["money"] for row in himself["standings"] if row["money"] is not None} == {
        own: want[own]}

    public = client_for().get(url).json()
    assert public["money_shown"] is False and all(row["money"] is None for row in public["standings"])

    # The CSV carries the same columns for the organisers.
    rows = list(csv.reader(io.StringIO(client_for(world.club_organiser).get(
        f"/api/v1/series/{series.pk}/standings.csv", HTTP_ACCEPT_LANGUAGE="en").content.decode())))
    header = rows[0]
    net = header.index("net (cents)")
    assert {int(row[1]): int(row[net]) for row in rows[1:]} == {player: m["net"] for player, m in want.items()}
    # The event columns are named by date and name, in the reader's language.
    assert header[-2:] == ["01/02/2026 Maumau 1", "02/02/2026 Maumau 2"]
    german = list(csv.reader(io.StringIO(client_for().get(f"/api/v1/series/{series.pk}/standings.csv",
                                                          HTTP_ACCEPT_LANGUAGE="de").content.decode())))[0]
    assert german[0] == "Rang" and german[-1] == "02.02.2026 Maumau 2" and "net (cents)" not in german


def test_the_series_page_shows_the_money_to_organisers_and_the_player_only(world):
    series, transfers = _maumau_season(world)
    want = _money_by_hand(transfers)

    def page(user):
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        if user is not None:
            client.force_login(user)
        return client.get(f"/series/{series.pk}/").content.decode()

    assert "series-money" not in page(None)
    organiser = page(world.club_organiser).split('id="series-money-table"')[1].split("</table>")[0]
    assert organiser.count("<tr>") == len(want) + 1
    himself = page(world.player_user).split('id="series-money-table"')[1].split("</table>")[0]
    assert himself.count("<tr>") == 2 and world.players[0].name in himself


# --- the console -----------------------------------------------------------------------------------

def _login(user):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def test_the_console_sets_the_season_options_and_lists_every_games_events(world):
    client = _login(world.club_organiser)
    response = client.post("/console/series/new/", {
        "club": world.club.pk, "name": "Dienstag und Freitag", "game": "mu", "games": ["mu", "maumau"],
        "scoring": "placement", "aggregate": "average", "drop_worst": "1", "qualify_percent": "50",
        "absence_deduction": "2", "min_events": "1"})
    assert response.status_code == 302, response.content.decode()[:2000]
    series = Series.objects.get()
    assert (series.games, series.aggregate, series.drop_worst, series.qualify_percent, series.absence_deduction) \
        == (["mu", "maumau"], "average", 1, 50, 2)
    assert AuditEntry.objects.get(action="series_created", via="page").after["games"] == ["mu", "maumau"]
    page = client.get(f"/console/series/{series.pk}/").content.decode()
    # Both games' events are offered; the LuT event is not.
    assert world.events["mu"].name in page and world.events["maumau"].name in page
    assert world.events["lut"].name not in page
    for game in ("mu", "maumau"):
        client.post(f"/console/series/{series.pk}/events/{world.events[game].pk}/", {"attach": "1"})
    assert set(Event.objects.filter(series=series).values_list("game", flat=True)) == {"mu", "maumau"}
    # A change of the options from the console is audited with the page as its way in.
    client.post(f"/console/series/{series.pk}/", {
        "club": world.club.pk, "name": "Dienstag und Freitag", "games": ["mu", "maumau"], "scoring": "placement",
        "aggregate": "sum", "drop_worst": "0", "qualify_percent": "25", "absence_deduction": "0", "min_events": "1"})
    series.refresh_from_db()
    assert series.aggregate == "sum" and series.qualify_percent == 25
    entry = AuditEntry.objects.get(action="series_changed", via="page", object_id=series.pk)
    assert entry.after["qualify_percent"] == 25


def test_the_console_shows_a_refused_combination_with_its_error(world):
    response = _login(world.club_organiser).post("/console/series/new/", {
        "club": world.club.pk, "name": "X", "game": "mu", "scoring": "placement", "best_of": "5",
        "drop_worst": "2", "min_events": "1"})
    assert response.status_code == 400
    assert "worst" in response.content.decode()
    assert not Series.objects.exists()


def test_the_console_standings_of_a_mixed_season_show_each_game_and_the_money(world):
    series, transfers = _maumau_season(world)
    want = _money_by_hand(transfers)
    response = _login(world.club_organiser).get(f"/console/series/{series.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    table = html.split('id="series-standings"')[1].split("</table>")[0]
    assert 'data-game="maumau"' in table and 'data-game="mu"' in table
    # The net of the player who won most, in euros as the console writes money.
    best = max(want.values(), key=lambda m: m["net"])
    assert f"{best['net'] / 100:.2f}" in table
