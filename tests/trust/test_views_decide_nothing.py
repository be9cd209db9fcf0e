"""No view module decides a permission itself: what a user may see and change is decided in
``tournaments/policy.py`` only (README, "Who sees and who changes what"). Views name a
permission (``policy.may``, a view set's ``permissions``) and call the policy; they read no
``is_staff``, ask no ``has_perm``, look up no organisers and compare no scorer tokens.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.sources import parse

ROOT = Path(__file__).resolve().parents[2]
VIEW_MODULES = [
    "tournaments/api/views.py",
    "tournaments/api/hands.py",
    "tournaments/console/views.py",
    "tournaments/sheet/views.py",
    "tournaments/api/permissions.py",
    "ratings/api.py",
    "games/api.py",
    "stich/pages/views.py",
    "stich/health.py",
    "tournaments/api/series.py",
    "tournaments/api/open_nights.py",
    "tournaments/api/evening.py",
    "tournaments/api/account.py",
    "tournaments/console/series.py",
    "tournaments/console/formats.py",
    "stich/pages/series.py",
    "stich/pages/clubs.py",
    "stich/guide.py",
    "tournaments/api/people.py",
    "tournaments/console/people.py",
    "tournaments/sheet/player.py",
    "stich/pages/me.py",
    "ratings/people.py",
    "tournaments/api/entry.py",
    "tournaments/console/entry.py",
    "stich/pages/registration.py",
]


def test_every_view_module_is_checked():
    """A new module of views (an API module, a console or page module) joins the list above."""
    candidates = {str(path.relative_to(ROOT)) for pattern in (
        "tournaments/api/*.py", "ratings/*api.py", "games/*api.py", "tournaments/console/*.py",
        "tournaments/sheet/*.py", "stich/pages/*.py") for path in ROOT.glob(pattern)}
    not_views = {"tournaments/console/__init__.py", "tournaments/console/forms.py", "tournaments/console/urls.py",
                 "tournaments/sheet/__init__.py", "tournaments/sheet/urls.py", "tournaments/sheet/qr.py", "stich/pages/__init__.py",
                 "stich/pages/urls.py", "stich/pages/charts.py", "games/openapi.py",
                 "tournaments/api/__init__.py", "tournaments/api/urls.py", "tournaments/api/serializers.py",
                 "tournaments/api/filtering.py", "tournaments/api/pagination.py", "tournaments/api/renderers.py",
                 "tournaments/api/authentication.py"}
    assert sorted(candidates - not_views - set(VIEW_MODULES)) == []
# Attributes that decide who someone is or what he may do.
FORBIDDEN_ATTRIBUTES = {"is_staff", "is_superuser", "has_perm", "has_perms", "compare_digest"}
# The policy's own predicates: a view names a permission instead of calling them.
# (``public`` and ``event_organisers`` are audiences: what the public, or every organiser of an
# event, sees; tournaments/live.py renders a fragment once per audience.)
POLICY_CALLS_ALLOWED = {"may", "visibility", "Visibility", "public", "event_organisers", "Change", "Credentials",
                        "Party", "Own", "acting_party", "scorer_table", "seat_of"}
QUERY_METHODS = {"filter", "exclude", "get"}


def _violations(path: Path) -> list[str]:
    tree = parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRIBUTES:
            found.append(f"{where}: .{node.attr}")
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(alias.name == "hmac" for alias in node.names):
            found.append(f"{where}: imports hmac (scorer tokens are the policy's)")
        if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("policy"):
            found.append(f"{where}: imports names from the policy instead of calling policy.<name>")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "policy" \
                and node.attr not in POLICY_CALLS_ALLOWED:
            found.append(f"{where}: policy.{node.attr} (name a permission: policy.may)")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in QUERY_METHODS:
            for keyword in node.keywords:
                if keyword.arg and ("organisers" in keyword.arg or "scorer_token" in keyword.arg):
                    found.append(f"{where}: looks up {keyword.arg}=")
        if isinstance(node, ast.Compare) and any(
                isinstance(part, ast.Attribute) and part.attr == "scorer_token" for part in [node.left, *node.comparators]):
            found.append(f"{where}: compares a scorer token")
    return found


@pytest.mark.parametrize("module", VIEW_MODULES)
def test_view_module_decides_no_permission(module):
    path = ROOT / module
    assert path.exists(), module
    assert _violations(path) == []


def test_the_check_finds_what_it_forbids(tmp_path):
    """The rule catches each way a view could decide for itself."""
    source = tmp_path / "views.py"
    source.write_text(
        "import hmac\n"
        "from tournaments.policy import organises_club\n"
        "def view(request, club, table):\n"
        "    if request.user.is_staff or request.user.has_perm('x'):\n"
        "        pass\n"
        "    policy.organises_event(request.user, club)\n"
        "    Club.objects.filter(organisers=request.user)\n"
        "    Table.objects.get(scorer_token=request.GET['t'])\n"
        "    return table.scorer_token == request.GET['t']\n"
    )
    found = _violations(source)
    assert len(found) == 8, found
