"""What each role may see, generated from the URL configuration.

With a round held back (with results) and an initials-only player in the data, every GET endpoint
and public page is fetched as each role — every object's detail, every filter and ordering
parameter, the browsable API's HTML and the exports. The held round's hands, tables, sessions and
totals, and the real name, appear in none of them for those who may not see them.
"""
from __future__ import annotations

import json
import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.conftest import client_for

from .conftest import HELD_MARK, SECRET_NAME

pytestmark = pytest.mark.django_db

# Who may see what (tournaments/policy.py): the held round its event's organisers (and the club's)
# and staff; the real name staff, the organisers of his club or of its events, and himself.
SEES_HELD = {"organiser", "club_organiser", "staff"}
SEES_NAME = {"organiser", "club_organiser", "other_organiser", "staff"}
ROLES = ["anonymous", "stranger", "player", "outsider", "other_organiser", "organiser", "club_organiser", "staff"]


def user_of(w, role):
    return {"anonymous": None, "stranger": w.stranger, "player": w.player_user, "outsider": w.outsider,
            "other_organiser": w.other_organiser, "organiser": w.organiser, "club_organiser": w.club_organiser,
            "staff": w.staff}[role]


def get_routes() -> list[tuple[str, str, object]]:
    """(route pattern, name, view) of every GET route: the API and the pages."""
    found = []

    def walk(patterns, prefix=""):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                # The router's regular expressions as plain routes: ^clubs/(?P<pk>[^/.]+)/$ → clubs/<pk>/
                route = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", (prefix + str(entry.pattern)).replace("^", "").replace("$", ""))
                callback = entry.callback
                actions = getattr(callback, "actions", None)
                if actions is not None and "get" not in actions:
                    continue
                if route.startswith(("admin/", "api/schema", "api/docs", "api/redoc", "api-auth/", "i18n/")) or \
                        "format" in route:
                    continue
                found.append((route, entry.name, callback))

    walk(get_resolver().url_patterns)
    return found


def _ids_for(w, name: str, route: str) -> list:
    """The objects to fetch on a route with a parameter: the protected ones first."""
    from tournaments.models import Hand

    held_hands = list(Hand.objects.filter(session=w.held_session).values_list("pk", flat=True))
    by_name = {
        "event": [e.pk for e in w.events.values()], "round": [w.held_round.pk], "table": [w.held_table.pk],
        "session": [w.held_session.pk], "hand": held_hands, "player": [w.secret.pk], "club": [w.club.pk],
        "transfer": [], "table-hands": [w.held_table.pk], "player-ratings": [w.secret.pk],
    }
    for prefix, ids in by_name.items():
        if name and (name == prefix or name.startswith(prefix + "-")):
            return ids
    if "events/" in route:
        return [e.pk for e in w.events.values()]
    if "players/" in route:
        return [w.secret.pk]
    if "rounds/" in route:
        return [w.held_round.pk]
    if "tables/" in route or "/t/" in route:
        return [w.held_table.pk]
    return []


def urls(w) -> list[str]:
    found = []
    for route, name, callback in get_routes():
        path = "/" + route
        params = re.findall(r"<(?:(\w+):)?(\w+)>", path)
        if not params:
            found.append(path)
            view = getattr(callback, "cls", None)
            for field in getattr(view, "filterset_fields", None) or {}:
                lookups = view.filterset_fields[field] if isinstance(view.filterset_fields, dict) else ["exact"]
                for lookup in lookups:
                    key = field if lookup == "exact" else f"{field}__{lookup}"
                    for value in _filter_values(w, field):
                        found.append(f"{path}?{key}={value}")
            for field in getattr(view, "ordering_fields", None) or ["name"]:
                found.append(f"{path}?ordering={field}")
            if name == "player-list":
                found += [f"{path}?name=Zacharias", f"{path}?name__icontains=Quint", f"{path}?ordering=name",
                          f"{path}?ordering=-name", f"{path}?search=Zacharias", f"{path}?search=quintessenz+z"]
            continue
        if any(p[1] == "game" for p in params):
            found += [path.replace("<str:game>", game) for game in ("mu", "maumau", "lut")]
            continue
        if any(p[1] == "token" for p in params):
            continue  # a table's private link: whoever holds it is that table's scorer
        for pk in _ids_for(w, name, route):
            found.append(re.sub(r"<(?:\w+:)?\w+>", str(pk), path, count=1))
    extras = []
    for url in found:
        if url.endswith("/standings/"):
            extras.append(url + "?format=csv")
        if re.fullmatch(r"/api/v1/events/\d+/tables/", url):  # the held round asked for by its number
            extras.append(url + f"?round={w.held_round.number}")
    return found + extras + ["/api/v1/ratings/leaderboard/?game=lut", "/api/v1/ratings/leaderboard/?game=maumau"]


def _filter_values(w, field: str) -> list:
    if field in ("round", "table__round"):
        return [w.held_round.pk]
    if field in ("table", "session__table"):
        return [w.held_table.pk]
    if field in ("session",):
        return [w.held_session.pk]
    if field in ("name",):
        return ["Zacharias"]
    return []


def leaks(w, role: str, url: str, response) -> list[str]:
    text = response.content.decode("utf-8", "replace")
    # The browsable API shows the address it was asked for: the search term itself is no leak.
    query = url.split("?", 1)[1] if "?" in url else None
    if query:
        text = text.replace(query, "").replace(query.replace("&", "&amp;"), "")
    found = []
    if role not in SEES_HELD:
        if HELD_MARK in text:
            found.append("a held hand's record")
        if response.status_code == 200 and response.get("Content-Type", "").startswith("application/json"):
            found += _held_ids(w, json.loads(text))
        if f'data-round="{w.held_round.number}"' in text and f"/events/{w.events['lut'].pk}/" in url:
            found.append("the held round on the event page")
        if url.startswith(f"/api/v1/events/{w.events['lut'].pk}/standings") and response.status_code == 200:
            # The held table's players played nothing else in that event: a row of theirs is the
            # held round's totals.
            held_players = {str(pk) for pk in w.held_table.seats.values_list("player_id", flat=True)}
            kind = response.get("Content-Type", "")
            rows = set()
            if "json" in kind:
                rows = {str(row["player"]) for row in json.loads(text)["standings"]}
            elif "csv" in kind:
                rows = {line.split(",")[1] for line in text.strip().splitlines()[1:]}
            if rows & held_players:
                found.append("the held round's totals in the standings")
    if role not in SEES_NAME:
        if SECRET_NAME in text or "Zacharias" in text or "Quintessenz" in text:
            found.append("the real name")
        if re.search(r"[?&](name(__icontains)?|search)=", url) and response.status_code == 200 and \
                "json" in response.get("Content-Type", ""):
            ids = [row.get("id") for row in json.loads(text).get("results", [])]
            if w.secret.pk in ids:
                found.append("the initials-only player found by his real name")
    # Other users' names (the distinctive ones: "organiser" and "staff" are words of the pages too).
    others = {"outsider", "other_organiser", "club_organiser", "stranger", "player_user"} - {
        getattr(user_of(w, role), "username", "")}
    if role != "staff" and "text/html" in response.get("Content-Type", "") and url.startswith("/api/"):
        shown = [name for name in others if re.search(rf"\b{name}\b", text)]
        if shown:
            found.append(f"user names in the browsable API: {shown}")
    return found


def _held_ids(w, body) -> list[str]:
    marks = {"round": w.held_round.pk, "table": w.held_table.pk, "session": w.held_session.pk}
    found = []

    def walk(value):
        if isinstance(value, dict):
            for key, expected in marks.items():
                if value.get(key) == expected:
                    found.append(f"the held {key} ({key}={expected})")
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(body)
    return found


@pytest.mark.parametrize("role", ROLES)
def test_nothing_hidden_is_shown(trust, role):
    api = client_for(user_of(trust, role))
    if user_of(trust, role) is not None:
        api.force_login(user_of(trust, role))  # the browsable API and the pages as a logged-in user
    problems = []
    fetched = 0
    for url in urls(trust):
        for accept in ("application/json", "text/html"):
            response = api.get(url, HTTP_ACCEPT=accept)
            fetched += 1
            assert response.status_code < 500, (url, response.status_code)
            for problem in leaks(trust, role, url, response):
                problems.append(f"{url} ({accept}): {problem}")
    assert fetched > 100
    assert not problems, "\n".join(problems)


def test_those_who_may_see_do_see(trust):
    """The check above can fail: the organiser sees the held round and the real name."""
    api = client_for(trust.organiser)
    body = api.get(f"/api/v1/tables/{trust.held_table.pk}/hands/").json()
    assert HELD_MARK in json.dumps(body)
    staff = client_for(trust.club_organiser)
    assert SECRET_NAME in staff.get(f"/api/v1/players/{trust.secret.pk}/").content.decode()
    anonymous = client_for(None)
    assert anonymous.get(f"/api/v1/tables/{trust.held_table.pk}/hands/").status_code == 404
    assert SECRET_NAME not in anonymous.get(f"/api/v1/players/{trust.secret.pk}/").content.decode()


@pytest.mark.parametrize("role", ROLES)
def test_the_unseen_rounds_are_the_complement_of_the_seen(trust, role):
    """``unseen_round_ids`` (what the rating pool leaves out) reads the hidden side only; it is
    exactly the rounds of the game that ``rounds()`` does not hold, for every role."""
    from tournaments import policy
    from tournaments.models import Event, Round

    # One more of each hidden kind: a round of an unpublished event, a held round of an event
    # that the role may organise or not, and a held round of an unpublished event.
    hidden_event = Event.objects.create(club=trust.club, name="draft cup", game="mu", published=False)
    Round.objects.create(event=hidden_event, number=1)
    Round.objects.create(event=hidden_event, number=2, results_held=True)
    Round.objects.create(event=trust.other_event, number=1, results_held=True)
    Round.objects.create(event=trust.events["mu"], number=9, results_held=True)
    seen = policy.visibility(user_of(trust, role))
    for game in ("mu", "maumau", "lut"):
        expected = sorted(Round.objects.filter(event__game=game).exclude(pk__in=seen.rounds().values("pk"))
                          .values_list("pk", flat=True))
        assert seen.unseen_round_ids(game) == expected
        if role == "anonymous" and game == "mu":
            assert len(expected) >= 4  # the case is not empty


@pytest.mark.parametrize("role", ["anonymous", "stranger", "outsider", "organiser"])
def test_ordering_by_name_follows_the_shown_name(trust, role):
    """``?ordering=name`` sorts by the name the user is shown: with an initials-only "Kurt Abel"
    (shown "K.A.") and "Karl Zander", the real order (Karl before Kurt) and the shown order (K.A.
    before Karl, in every collation: "K.A." is a prefix of "KA…" when punctuation is ignored) differ,
    so a sort by the real name would tell the order of the hidden names."""
    from tournaments.models import Club, Membership, Player

    club = Club.objects.create(name="Sortclub")
    kurt = Player.objects.create(name="Kurt Abel", initials_only=True)
    karl = Player.objects.create(name="Karl Zander")
    for player in (karl, kurt):
        Membership.objects.create(player=player, club=club)
    assert sorted([kurt, karl], key=lambda p: p.name) != sorted([kurt, karl], key=lambda p: p.shown_name)
    api = client_for(user_of(trust, role))
    for ordering, expected in (("name", [kurt.pk, karl.pk]), ("-name", [karl.pk, kurt.pk])):
        body = api.get(f"/api/v1/players/?clubs={club.pk}&ordering={ordering}").json()
        assert [row["id"] for row in body["results"]] == expected, (ordering, body)
