"""A NUL character in a path, a query string or a header is refused (400; the JSON error shape under
the API) before any view or query sees it: never a 500."""
from __future__ import annotations

import pytest
from django.test import Client

from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", [
    "/api/v1/players/?name=%00", "/api/v1/players/?name__icontains=a%00b", "/api/v1/clubs/?name=%00",
    "/api/v1/events/?ordering=%00", "/api/v1/players/?x%00=1",
])
def test_api_query_strings_with_nul_are_400_json(world, url):
    for client in (client_for(), client_for(world.staff)):
        response = client.get(url)
        assert response.status_code == 400, (url, response.status_code)
        assert response["Content-Type"].startswith("application/json")
        assert response.json()["code"] == "bad_text"


@pytest.mark.parametrize("url", ["/t/%00/", "/t/x%00/running/", "/api/v1/players/%00/", "/events/%00/"])
def test_paths_with_nul_are_refused(world, url):
    response = Client().get(url)
    assert response.status_code in (400, 404), (url, response.status_code)
    if url.startswith("/api/"):
        assert response.json()["code"] in ("bad_text", "not_found")


def test_the_console_search_with_nul_is_400(world):
    client = Client()
    client.force_login(world.organiser)
    event = world.events["mu"]
    assert client.get(f"/console/events/{event.pk}/players/?q=a").status_code == 200
    assert client.get(f"/console/events/{event.pk}/players/?q=a%00b").status_code == 400


def test_a_header_with_nul_is_400(world):
    table = world.events["mu"].rounds.get().tables.first()
    response = client_for(world.organiser).post(f"/api/v1/tables/{table.pk}/hands/", {"game": "mu"}, format="json",
                                                HTTP_IDEMPOTENCY_KEY="a\x00b")
    assert response.status_code == 400 and response.json()["code"] == "bad_text"
