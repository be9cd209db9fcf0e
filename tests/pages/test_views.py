"""The public pages through Django's test client: content, held-back rounds, privacy, languages."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from .demo import add_held_round, add_results

pytestmark = pytest.mark.django_db


class Rows(HTMLParser):
    """The rows of one ``<table id=...>``: each the ``<tr>``'s attributes and its cells' text."""

    def __init__(self, table_id: str):
        super().__init__()
        self.table_id, self.depth, self.rows = table_id, 0, []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and (self.depth or attrs.get("id") == self.table_id):
            self.depth += 1
        elif self.depth and tag == "tr":
            self.rows.append({"attrs": attrs, "cells": [], "cell_attrs": []})
        elif self.depth and tag in ("td", "th") and self.rows:
            self.cell = []
            self.rows[-1]["cell_attrs"].append(attrs)

    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth -= 1
        elif self.depth and tag in ("td", "th") and self.cell is not None:
            self.rows[-1]["cells"].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def table_rows(html: str, table_id: str) -> list[dict]:
    parser = Rows(table_id)
    parser.feed(html)
    return [row for row in parser.rows if row["attrs"].get("data-player")]


def as_number(text: str) -> float:
    return float(text.replace("\u2212", "-").replace(",", "."))


def page(client, url: str, **headers) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200, url
    return response.content.decode()


def leaderboard_api(client, game: str, club: int | None = None) -> list[dict]:
    url = f"/api/v1/ratings/leaderboard/?game={game}" + (f"&club={club}" if club else "")
    rows = []
    while url:
        body = client.get(url).json()
        rows += body["results"]
        url = body["next"]
    return rows


def test_every_page_renders(client, demo):
    from tournaments.models import Player

    assert "Stich" in page(client, "/")
    for event in demo.values():
        assert event.name in page(client, f"/events/{event.pk}/")
    for game in ("mu", "maumau", "lut"):
        page(client, f"/leaderboard/{game}/")
    for player in Player.objects.all():
        page(client, f"/players/{player.pk}/")


def test_home_links_events_and_leaderboards(client, demo):
    html = page(client, "/")
    for event in demo.values():
        assert f'href="/events/{event.pk}/"' in html
    for game in ("mu", "maumau", "lut"):
        assert f'href="/leaderboard/{game}/"' in html


def test_event_standings_equal_the_api(client, demo):
    for event in demo.values():
        api = client.get(f"/api/v1/events/{event.pk}/standings/").json()
        rows = table_rows(page(client, f"/events/{event.pk}/"), "standings")
        assert api["standings"], event.game  # the demo has results for every game
        assert [int(row["attrs"]["data-player"]) for row in rows] == [entry["player"] for entry in api["standings"]]
        for row, entry in zip(rows, api["standings"]):
            rank, name, played, *values = row["cells"]
            assert (int(rank), name, int(played)) == (entry["rank"], entry["name"], entry["played"])
            metrics = values[:len(api["metrics"])]
            # Shown with at most two decimals (placement points are fractions such as 2/3).
            assert [as_number(text) for text in metrics] == [round(entry[name], 2) for name in api["metrics"]]
            if event.game == "maumau":
                assert int(row["cell_attrs"][-1]["data-cents"]) == entry["cents"]


def test_session_totals_are_shown_per_table(client, demo):
    from tournaments import policy
    from tournaments.standings.selectors import session_results

    event = demo["lut"]
    html = page(client, f"/events/{event.pk}/")
    for result in session_results(event, visibility=policy.public()):
        assert f'data-session="{result.session.pk}"' in html
        table = re.search(rf'data-table="{result.session.table_id}".*?</article>', html, re.S).group(0)
        cells = re.findall(r'<td class="num total">([^<]*)</td>', table)
        assert [int(text) for text in cells] == result.totals


def test_a_held_back_round_is_missing_from_every_public_page(client, demo):
    from ratings.models import RatingHistory
    from tournaments.models import Player, Round, Session

    held = list(Round.objects.filter(results_held=True).select_related("event"))
    assert held
    held_sessions = list(Session.objects.filter(table__round__in=held))
    assert held_sessions
    pages = [page(client, f"/events/{event.pk}/") for event in demo.values()]
    pages += [page(client, f"/players/{player.pk}/") for player in Player.objects.all()]
    pages += [page(client, f"/leaderboard/{game}/") for game in ("mu", "maumau", "lut")]
    for html in pages:
        for session in held_sessions:
            assert f'data-session="{session.pk}"' not in html
    for round_ in held:
        event_html = page(client, f"/events/{round_.event_id}/")
        assert f'data-round="{round_.number}"' not in event_html
        assert f"Round {round_.number}<" not in event_html
    assert not RatingHistory.objects.filter(session__in=held_sessions).exists()
    # The standings count only the released sessions: one "played" per seat of each.
    from django.contrib.auth import get_user_model

    from tournaments import policy
    from tournaments.standings.selectors import session_results

    organiser = get_user_model().objects.get(username="organiser")
    for event in demo.values():
        seats = sum(len(result.players) for result in session_results(event, visibility=policy.public()) if result.hands)
        everything = sum(len(result.players) for result in session_results(event, visibility=policy.Visibility(organiser)) if result.hands)
        rows = table_rows(page(client, f"/events/{event.pk}/"), "standings")
        assert sum(int(row["cells"][2]) for row in rows) == seats < everything


def test_a_released_round_appears(client, demo):
    from ratings.services import pool_sync
    from tournaments.models import Round

    round_ = Round.objects.filter(results_held=True, event=demo["mu"]).first()
    session = round_.tables.first().sessions.first()
    before = page(client, f"/events/{round_.event_id}/")
    assert f'data-session="{session.pk}"' not in before
    round_.results_held = False
    round_.save()
    pool_sync("mu")
    after = page(client, f"/events/{round_.event_id}/")
    assert f'data-round="{round_.number}"' in after and f'data-session="{session.pk}"' in after
    player = session.table.seats.first().player_id
    assert f'data-session="{session.pk}"' in page(client, f"/players/{player}/")


def test_initials_only_players_appear_by_initials(client, demo):
    from tournaments.models import Player

    private = Player.objects.filter(initials_only=True, anonymised=False).first()
    assert private is not None  # the demo has one
    initials = private.public_name
    assert initials != private.name and initials.endswith(".")
    pages = [page(client, f"/events/{event.pk}/") for event in demo.values()]
    pages += [page(client, f"/leaderboard/{game}/") for game in ("mu", "maumau", "lut")]
    pages.append(page(client, f"/players/{private.pk}/"))
    for html in pages:
        assert private.name not in html
    assert initials in pages[0] and f"<h1>{initials}</h1>" in pages[-1]


def test_a_deleted_player_is_anonymised_everywhere(client, demo):
    from tournaments.models import Player
    from tournaments.services import player_anonymise

    player = Player.objects.filter(initials_only=False).order_by("pk").first()
    name = player.name
    player_anonymise(player=player)
    html = page(client, f"/players/{player.pk}/")
    assert f"<h1>#{player.pk}</h1>" in html and name not in html
    for event in demo.values():
        event_html = page(client, f"/events/{event.pk}/")
        assert name not in event_html and f"#{player.pk}" in event_html


def test_german_for_a_german_browser(client, demo):
    event = demo["mu"]
    german = page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5")
    assert '<html lang="de">' in german
    for text in ("Tabelle", "Runde 1", "Tisch 1", "Spieler", "Bestenliste", "Platzpunkte"):
        assert text in german
    assert "Standings" not in german and "Round 1" not in german
    english = page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")
    assert '<html lang="en">' in english and "Standings" in english and "Round 1" in english
    board = page(client, "/leaderboard/lut/", HTTP_ACCEPT_LANGUAGE="de")
    assert "Bestenliste Mit List und Tücke" in board and "Wertung" in board and "Partien" in board
    from tournaments.models import Player

    first = Player.objects.filter(ratings__isnull=False).order_by("pk").first()
    player = page(client, f"/players/{first.pk}/", HTTP_ACCEPT_LANGUAGE="de")
    assert "Wertungsverlauf" in player and "Veranstaltungen" in player
    assert "Rangliste" in page(client, "/", HTTP_ACCEPT_LANGUAGE="de")


def test_german_numbers_use_the_decimal_comma(client, demo):
    event = demo["mu"]
    api = client.get(f"/api/v1/events/{event.pk}/standings/").json()
    fractional = [entry["placement"] for entry in api["standings"] if not float(entry["placement"]).is_integer()]
    assert fractional  # four players a table: 2/3 and 1/3 placement points occur
    html = page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="de")
    assert str(round(fractional[0], 2)).replace(".", ",") in html  # at most two decimals


def test_unknown_pages_are_404(client, demo):
    from tournaments.models import Event

    assert client.get("/leaderboard/skat/").status_code == 404
    assert client.get("/leaderboard/mu/?club=99999").status_code == 404
    assert client.get("/events/99999/").status_code == 404
    assert client.get("/players/99999/").status_code == 404
    hidden = demo["lut"]
    Event.objects.filter(pk=hidden.pk).update(published=False)
    assert client.get(f"/events/{hidden.pk}/").status_code == 404
    assert f'href="/events/{hidden.pk}/"' not in page(client, "/")


def test_leaderboard_equals_the_api(client, demo):
    for game in ("mu", "maumau", "lut"):
        api = leaderboard_api(client, game)
        rows = table_rows(page(client, f"/leaderboard/{game}/"), "leaderboard")
        assert [int(row["attrs"]["data-player"]) for row in rows] == [entry["player"] for entry in api]
        for row, entry in zip(rows, api):
            rank, name, rating, sessions, _trend = row["cells"]
            assert (int(rank), name, int(rating), int(sessions)) == (
                entry["rank"], entry["name"], entry["rating"], entry["sessions"]
            )
            assert int(row["cell_attrs"][-1]["data-trend"]) == entry["trend"]
    assert leaderboard_api(client, "mu")  # the demo's Mü sessions are rated


def test_leaderboard_filters_by_club(client, demo):
    from tournaments.models import Club, Membership, Player

    other = Club.objects.create(name="Zweiter Club", city="Bonn")
    members = list(Player.objects.order_by("pk")[:3])
    for player in members:
        Membership.objects.create(player=player, club=other)
    html = page(client, f"/leaderboard/mu/?club={other.pk}")
    rows = table_rows(html, "leaderboard")
    api = leaderboard_api(client, "mu", club=other.pk)
    assert [int(row["attrs"]["data-player"]) for row in rows] == [entry["player"] for entry in api]
    assert {entry["player"] for entry in api} <= {p.pk for p in members} and api
    assert len(table_rows(page(client, "/leaderboard/mu/"), "leaderboard")) > len(rows)
    assert f'<option value="{other.pk}" selected>' in html


def test_rating_chart_has_one_point_per_rating_event(client, demo):
    from ratings.models import RatingHistory
    from tournaments.models import Player

    checked = 0
    for player in Player.objects.all():
        html = page(client, f"/players/{player.pk}/")
        api = client.get(f"/api/v1/players/{player.pk}/ratings/").json()
        assert set(re.findall(r'<svg[^>]*data-game="(\w+)"', html)) == set(api["ratings"])
        for game, rating in api["ratings"].items():
            svg = re.search(rf'<svg[^>]*data-game="{game}".*?</svg>', html, re.S).group(0)
            points = re.findall(r'<circle class="point"[^>]*data-value="(-?\d+)"', svg)
            rows = RatingHistory.objects.filter(player=player, game=game).count()
            assert len(points) == rows == len(rating["history"])
            assert [int(value) for value in points] == [entry["rating_after"] for entry in rating["history"]]
            # The line starts at the rating before the first event, then goes through every point.
            line = re.search(r'<polyline[^>]*points="([^"]*)"', svg).group(1).split()
            assert len(line) == len(points) + 1
            checked += 1
    assert checked >= 12  # every demo player is rated in at least one game


def test_player_page_lists_clubs_events_and_sessions(client, demo):
    from tournaments import policy
    from tournaments.models import Player
    from tournaments.standings.selectors import session_results

    player = Player.objects.get(name="Anna Becker")
    html = page(client, f"/players/{player.pk}/")
    assert "Stich Demo Club" in html
    for event in demo.values():
        assert f'href="/events/{event.pk}/"' in html
        for result in session_results(event, visibility=policy.public()):
            if player.pk in result.players:
                row = re.search(rf'<tr data-session="{result.session.pk}">.*?</tr>', html, re.S).group(0)
                total = re.search(r'<td class="num total">([^<]*)</td>', row).group(1)
                assert int(total) == result.totals[result.players.index(player.pk)]


def test_maumau_money_and_transfers(client, demo):
    """Money per player and the transfers per series, as the API's money document has them."""
    from tournaments.models import Transfer

    event = demo["maumau"]
    money = client.get(f"/api/v1/events/{event.pk}/money/").json()
    assert money["series"]
    html = page(client, f"/events/{event.pk}/")
    rows = table_rows(html, "standings")
    cents = {int(row["attrs"]["data-player"]): int(row["cell_attrs"][-1]["data-cents"]) for row in rows}
    assert cents == {int(player): value for player, value in money["cents"].items()}
    assert sum(cents.values()) == 0
    for series in money["series"]:
        block = re.search(rf'<article class="series" data-session="{series["session"]}">.*?</article>', html, re.S)
        cents = re.findall(r'<tr class="transfer" data-transfer="\d+" data-cents="(\d+)">', block.group(0))
        shown = [int(value) for value in cents]
        assert shown == [transfer["cents"] for transfer in series["transfers"]]
    some = next(t for s in money["series"] for t in s["transfers"])
    euros = f"{some['cents'] // 100},{some['cents'] % 100:02d}\u00a0€"
    assert euros in page(client, f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="de")
    # Marking a payment paid shows on the page.
    transfer = Transfer.objects.get(pk=some["id"])
    transfer.paid = True
    transfer.save()
    html = page(client, f"/events/{event.pk}/")
    block = re.search(rf'<tr class="transfer" data-transfer="{transfer.pk}".*?</tr>', html, re.S)
    assert "✓ paid" in block.group(0)


def test_more_results_extend_the_pages(client, demo):
    """A second round played later shows up as its own round with its sessions (not a fixed demo)."""
    from tournaments.models import Round
    from tournaments.services import table_create

    event = demo["lut"]
    number = event.rounds.order_by("-number").first().number + 1
    round_ = Round.objects.create(event=event, number=number)
    seats = event.rounds.get(number=1).tables.get(number=2).seats.all()
    table = table_create(round_=round_, number=1, players=[seat.player for seat in seats], by_user=None)
    session = next(s for s in add_results(event, seed=7) if s.table_id == table.pk)
    html = page(client, f"/events/{event.pk}/")
    assert f'data-round="{number}"' in html and f'data-session="{session.pk}"' in html


def test_add_held_round_makes_a_new_held_round(demo):
    """The fixture's own guarantee: a held round exists in every event whatever the demo holds."""
    from tournaments.models import Round

    for event in demo.values():
        assert Round.objects.filter(event=event, results_held=True).exists()
    before = Round.objects.filter(event=demo["mu"], results_held=True).count()
    add_held_round(demo["mu"], seed=9)
    assert Round.objects.filter(event=demo["mu"], results_held=True).count() == before + 1


def test_every_page_links_a_local_favicon_that_is_served(client, demo):
    """A local favicon (no browser's request for /favicon.ico meets a 404), linked in each base
    template and served with the other static files (whitenoise)."""
    from django.templatetags.static import static

    href = static("stich/favicon.svg")
    event = demo["mu"]
    for url in ("/", f"/events/{event.pk}/", f"/events/{event.pk}/screen/", "/accounts/login/"):
        assert f'<link rel="icon" href="{href}" type="image/svg+xml">' in client.get(url).content.decode(), url
    from django.contrib.staticfiles import finders

    assert b"<svg" in open(finders.find("stich/favicon.svg"), "rb").read()  # collected, so whitenoise serves it
