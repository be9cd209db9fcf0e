"""One permission vocabulary (README, "Who sees and who changes what"): the API, the console, the
pages and the admin ask only names the policy registers with ``rules``, one name per act; an API
view of its own names its permissions per HTTP method (``PolicyAPIView``) instead of pretending to
be a view set with an ``action``; and every permission answers the same for an object and for the
``policy.Change`` that changes nothing of it.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
import rules
from django.contrib import admin
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSetMixin

from tests.conftest import client_for
from tests.sources import parse
from tournaments import policy

ROOT = Path(__file__).resolve().parents[2]
# Modules that ask the policy by name (``policy.may``, or the console's helpers that take a name).
ASKING_MODULES = [
    "tournaments/console/views.py",
    "tournaments/console/series.py",
    "tournaments/sheet/views.py",
    "tournaments/admin.py",
    "stich/pages/views.py",
    "stich/pages/series.py",
    "stich/health.py",
    "tournaments/api/people.py",
    "tournaments/console/people.py",
    "tournaments/people/identity.py",
]
# ``policy.may`` and the console's helpers, with the argument that names the permission.
NAMING_CALLS = {"may": 1, "_require": 1, "_event": 2, "_series": 2}


def _registered(name: str) -> bool:
    return rules.perm_exists(f"tournaments.{name}")


def asked_in_source(source: str) -> set[str]:
    """The permission names a module asks: the literal name given to ``policy.may`` and to the
    console's helpers, and the default of a parameter called ``permission``."""
    names = set()
    for node in ast.walk(parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "policy":
                called = func.attr  # policy.may
            else:
                called = func.id if isinstance(func, ast.Name) and func.id != "may" else None
            if called not in NAMING_CALLS:
                continue
            position = NAMING_CALLS[called]
            arguments = [*node.args[position:position + 1],
                         *(keyword.value for keyword in node.keywords if keyword.arg == "permission")]
            names.update(a.value for a in arguments if isinstance(a, ast.Constant) and isinstance(a.value, str))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.args[len(node.args.args) - len(node.args.defaults):]
            for argument, default in zip(arguments, node.args.defaults):
                if argument.arg == "permission" and isinstance(default, ast.Constant):
                    names.add(default.value)
    return names


def _api_view_classes() -> set[type]:
    found = set()

    def walk(patterns):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns)
            elif isinstance(pattern, URLPattern) and hasattr(pattern.callback, "cls"):
                found.add(pattern.callback.cls)

    walk(get_resolver().url_patterns)
    return found


def api_permission_names() -> set[str]:
    """The names the API's views declare: per action (view sets) or per HTTP method."""
    return {name for view in _api_view_classes() for name in getattr(view, "permissions", {}).values()}


class _Recorder:
    """A user who only writes down the permissions he is asked about."""

    is_active = is_authenticated = is_staff = is_superuser = True
    pk = None

    def __init__(self) -> None:
        self.asked: set[str] = set()

    def has_perm(self, name, obj=None) -> bool:
        self.asked.add(name)
        return False


class _Request:
    def __init__(self, user) -> None:
        self.user = user


def admin_permission_names() -> set[str]:
    """The names the admin asks of the policy (``has_perm``), for its models' pages and saves."""
    recorder = _Recorder()
    request = _Request(recorder)
    names = set()
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label != "tournaments":
            continue
        model_admin.has_add_permission(request)
        for obj in (None, model()):
            model_admin.has_change_permission(request, obj)
            model_admin.has_delete_permission(request, obj)
            model_admin.has_view_permission(request, obj)
        if hasattr(model_admin, "permission"):  # saves, deletes and actions (ServiceAdmin)
            names.update(model_admin.permission(act) for act in ("add", "change", "delete"))
    names.update(name.removeprefix("tournaments.") for name in recorder.asked)
    return names


def test_the_api_console_pages_and_admin_ask_only_registered_names():
    api = api_permission_names()
    pages = set().union(*(asked_in_source((ROOT / module).read_text()) for module in ASKING_MODULES))
    admin_names = admin_permission_names()
    # The collectors found what they look for (an empty set would pass below).
    assert {"change_event", "add_player", "view_own_account", "check_in_at_event"} <= api
    assert {"add_event", "change_event", "change_round", "add_series", "check_in_at_event"} <= pages
    assert {"add_event", "change_event", "delete_player", "view_hand"} <= admin_names
    for where, names in (("api", api), ("console and pages", pages), ("admin", admin_names)):
        assert sorted(name for name in names if not _registered(name)) == [], where


def test_the_console_and_the_api_ask_the_same_names_for_the_same_acts():
    """The acts both of them do are asked under one name: the console asks nothing the API
    names otherwise (the API's create and update of each model are the console's add and change)."""
    pages = set().union(*(asked_in_source((ROOT / module).read_text()) for module in ASKING_MODULES))
    api = api_permission_names()
    for model in ("event", "player", "round", "series"):
        assert {f"add_{model}", f"change_{model}"} <= api, model
    assert {"add_event", "change_event", "add_player", "change_player", "add_round", "change_round",
            "add_series", "change_series", "delete_series", "change_hand", "change_transfer",
            "open_table_at_event", "check_in_at_event"} <= pages & api


def test_the_collector_finds_names_and_misspellings(tmp_path):
    source = (
        "def _event(request, pk, permission='change_event'):\n"
        "    pass\n"
        "def view(request, club):\n"
        "    policy.may(request.user, 'add_event_to_club', club)\n"
        "    self.may(request, 'change', club)\n"
        "    _require(request, 'update_event', policy.Change(club))\n"
        "    _series(request, 1, 'delete_series')\n"
        "    _event(request, 1, permission='check_in_at_event')\n"
    )
    names = asked_in_source(source)
    assert names == {"change_event", "add_event_to_club", "update_event", "delete_series", "check_in_at_event"}
    assert sorted(name for name in names if not _registered(name)) == ["add_event_to_club", "update_event"]


def _fakes_an_action(view: type) -> bool:
    """A view of its own (not a view set) that sets ``action`` to reach a permission by it."""
    if issubclass(view, ViewSetMixin):
        return False
    return any("action" in vars(klass) for klass in view.__mro__ if not klass.__module__.startswith(("rest_framework",
                                                                                                         "django")))


def test_no_api_view_fakes_a_view_set_action():
    views = _api_view_classes()
    assert any(not issubclass(view, ViewSetMixin) for view in views)
    assert sorted(view.__name__ for view in views if _fakes_an_action(view)) == []

    class Faking(APIView):
        action = "me"

    assert _fakes_an_action(Faking) and not _fakes_an_action(APIView)


def _objects(w) -> dict[str, object]:
    table = w.mu_table
    session = table.sessions.first()
    return {"club": w.club, "player": w.players[0], "event": w.events["mu"], "round": table.round, "table": table,
            "session": session, "hand": session.hands.first(), "transfer": w.maumau_session.transfers.first()}


@pytest.mark.django_db
def test_every_permission_answers_the_same_for_an_object_and_its_change_of_nothing(trust):
    """``may(user, name, obj)`` is ``may(user, name, Change(obj))``: the predicates take either."""
    objects = _objects(trust)
    users = [trust.organiser, trust.club_organiser, trust.other_organiser, trust.outsider, trust.stranger,
             trust.player_user, trust.staff]
    names = [name.removeprefix("tournaments.") for name in rules.permissions.permissions
             if name.startswith("tournaments.")]
    checked = 0
    for name in names:
        act, _, model = name.partition("_")
        if act not in ("change", "delete", "view") or objects.get(model) is None:
            continue
        for user in users:
            assert policy.may(user, name, objects[model]) == policy.may(user, name, policy.Change(objects[model])), \
                (name, user.username)
            checked += 1
    assert checked >= 15 * len(users)


@pytest.mark.django_db
def test_the_console_and_the_api_judge_naming_organisers_alike(world):
    """The same act under the same name on the same ``Change``: naming an event's organisers is
    the club's organisers' (``change_event`` with the organisers named), through either door."""
    event = world.events["mu"]
    helper = world.other_organiser
    outcomes = {}
    for user in (world.organiser, world.club_organiser):
        page = Client()
        page.force_login(user)
        console = page.post(f"/console/events/{event.pk}/organisers/", {"username": helper.username}).status_code
        named = event.organisers.filter(pk=helper.pk).exists()
        event.organisers.remove(helper)
        api = client_for(user).patch(f"/api/v1/events/{event.pk}/", {
            "organisers": [*event.organisers.values_list("pk", flat=True), helper.pk]}, format="json").status_code
        outcomes[user.username] = (console, named, api, event.organisers.filter(pk=helper.pk).exists())
        event.organisers.remove(helper)
    assert outcomes == {"organiser": (403, False, 403, False), "club_organiser": (302, True, 200, True)}
