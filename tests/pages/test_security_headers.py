"""Every page says where its scripts and styles may come from (the site only, no inline script), the
templates and statics need nothing else, and HTML is compressed where the answer holds no secret."""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def page_urls(world) -> list[str]:
    event = world.events["mu"]
    round_ = event.rounds.get()
    table = round_.tables.first()
    player = world.players[0]
    return [
        "/", f"/events/{event.pk}/", f"/events/{event.pk}/screen/", "/leaderboard/mu/", f"/players/{player.pk}/",
        f"/t/{table.scorer_token}/", f"/t/{table.scorer_token}/running/", "/accounts/login/",
        "/console/", f"/console/events/{event.pk}/", f"/console/events/{event.pk}/edit/",
        f"/console/events/{event.pk}/players/", f"/console/events/{event.pk}/schedule/",
        f"/console/rounds/{round_.pk}/", f"/console/tables/{table.pk}/", f"/rounds/{round_.pk}/cards/",
    ]


def test_every_page_allows_scripts_and_styles_from_the_site_only(world):
    client = Client()
    client.force_login(world.organiser)
    for url in page_urls(world):
        response = client.get(url)
        assert response.status_code == 200, url
        policy = directives(response)
        assert policy["script-src"] == ["'self'"], url
        assert policy["style-src"] == ["'self'"], url
        assert policy["default-src"] == ["'self'"] and policy["object-src"] == ["'none'"], url
        assert policy["frame-ancestors"] == ["'none'"], url


def test_the_admin_and_the_api_tools_keep_site_only_sources():
    for url in ("/admin/login/", "/api/docs/", "/api/redoc/"):
        policy = directives(Client().get(url))
        assert policy["default-src"] == ["'self'"], url
        assert all(source in ("'self'", "'unsafe-inline'") for source in policy["script-src"]), url


def test_the_tools_allowances_are_for_their_pages_not_the_apis_json(world):
    client = Client()
    client.force_login(world.organiser)
    browsable = client.get("/api/v1/clubs/", HTTP_ACCEPT="text/html")
    assert browsable["Content-Type"].startswith("text/html")
    assert "'unsafe-inline'" in directives(browsable)["script-src"]
    for url in ("/api/v1/clubs/", "/api/schema/"):
        answer = client.get(url, HTTP_ACCEPT="application/json")
        assert answer.status_code == 200 and not answer["Content-Type"].startswith("text/html"), url
        policy = directives(answer)
        assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"], url


INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I), "an inline script"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "an inline event handler"),
    (re.compile(r"\sstyle\s*=", re.I), "a style attribute"),
    (re.compile(r"<style", re.I), "a style element"),
    (re.compile(r"javascript:", re.I), "a javascript: URL"),
]


def test_templates_and_scripts_carry_nothing_inline_that_the_policy_would_block():
    found = []
    files = [*(ROOT / "templates").rglob("*.html"), *(ROOT / "static").rglob("*.js"),
             *(ROOT / "tournaments").rglob("templates/**/*.html"), *(ROOT / "stich").rglob("templates/**/*.html")]
    assert len(files) > 20
    for path in files:
        text = path.read_text()
        for pattern, what in INLINE:
            if path.suffix == ".js" and what in ("an inline script", "an inline event handler"):
                continue  # a script's own text; its markup strings are checked by the browser tests
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert not found, found


def test_html_is_compressed_for_requests_without_credentials(world):
    anonymous = Client().get(f"/events/{world.events['mu'].pk}/", HTTP_ACCEPT_ENCODING="gzip")
    assert anonymous["Content-Encoding"] == "gzip"
    assert b"mu cup" in gzip.decompress(anonymous.content)
    assert "Accept-Encoding" in anonymous["Vary"]
    assert not Client().get("/api/v1/events/", HTTP_ACCEPT_ENCODING="gzip").has_header("Content-Encoding")  # JSON


def test_answers_to_requests_with_credentials_are_not_compressed(world):
    # BREACH: an organiser's console page holds the tables' scorer links next to what others typed
    organiser = Client()
    organiser.force_login(world.organiser)
    table = world.events["mu"].rounds.get().tables.first()
    page = organiser.get(f"/console/tables/{table.pk}/", HTTP_ACCEPT_ENCODING="gzip")
    assert page.status_code == 200 and not page.has_header("Content-Encoding")
    assert table.scorer_token.encode() in page.content
    api = Client().get("/api/v1/tables/", HTTP_ACCEPT_ENCODING="gzip",
                       HTTP_AUTHORIZATION=f"Token {world.organiser.auth_token.key}")
    assert api.status_code == 200 and not api.has_header("Content-Encoding")
    scorer = Client().get(f"/api/v1/tables/{table.pk}/hands/", HTTP_ACCEPT_ENCODING="gzip",
                          HTTP_X_SCORER_TOKEN=table.scorer_token)
    assert not scorer.has_header("Content-Encoding")
