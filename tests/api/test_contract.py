"""What the API description promises integrators beyond shapes: a malformed login is refused, pages
honour ``page_size`` up to its maximum, bodies are JSON only, and the errors that can happen are listed."""
from __future__ import annotations

import pytest

from tests import openapi_check
from tests.conftest import client_for


@pytest.mark.parametrize("header", ["Bearer x", "Token", "Basic dXNlcjpwdw==", "Token a b"])
def test_a_malformed_authorization_header_is_401_not_an_anonymous_read(world, header):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/v1/events/")
    assert response.status_code == 401, response.content
    assert response.json()["code"] == "authentication_failed" and response["WWW-Authenticate"].startswith("Token")
    assert client_for(world.organiser).get("/api/v1/events/").status_code == 200
    assert client_for().get("/api/v1/events/").status_code == 200  # no header: anonymous


def test_page_size_is_honoured_up_to_its_maximum_and_kept_in_the_links(world, monkeypatch):
    from tournaments.api.pagination import PageNumberPagination

    page = client_for().get("/api/v1/players/?page_size=5").json()
    assert page["count"] == 12 and len(page["results"]) == 5
    assert "page_size=5" in page["next"] and "page=2" in page["next"] and page["previous"] is None
    second = client_for().get(page["next"]).json()
    assert len(second["results"]) == 5 and not {p["id"] for p in second["results"]} & {p["id"] for p in page["results"]}
    assert len(client_for().get("/api/v1/players/").json()["results"]) == 12  # default 50
    monkeypatch.setattr(PageNumberPagination, "max_page_size", 4)
    assert len(client_for().get("/api/v1/players/?page_size=1000").json()["results"]) == 4


def test_the_description_states_page_size_its_default_and_maximum(db):
    """The most rows a page has is stated in words (a larger page_size gives that many, README);
    the schema declares no ``maximum``, which would promise a refusal that never comes (issue 38)."""
    from tournaments.api.pagination import MAX_PAGE_SIZE

    parameters = openapi_check.served_schema()["paths"]["/api/v1/players/"]["get"]["parameters"]
    page_size = next(parameter for parameter in parameters if parameter["name"] == "page_size")
    assert page_size["schema"] == {"type": "integer", "minimum": 1, "default": 50}
    assert f"at most {MAX_PAGE_SIZE} (a larger value gives {MAX_PAGE_SIZE})" in page_size["description"]


def test_bodies_are_json_only(world):
    response = client_for(world.club_organiser).post("/api/v1/clubs/", {"name": "Formclub"}, format="multipart")
    assert response.status_code == 415 and response.json()["code"] == "unsupported_media_type"
    for path, operations in openapi_check.served_schema()["paths"].items():
        for method, operation in operations.items():
            if "requestBody" in operation:
                assert list(operation["requestBody"]["content"]) == ["application/json"], (method, path)
                assert {"413", "415"} <= set(operation["responses"]), (method, path)


def test_a_body_too_large_is_413_too_large_as_documented(world, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client_for(world.club_organiser).post("/api/v1/clubs/", {"name": "x" * 2000}, format="json")
    assert response.status_code == 413 and response.json()["code"] == "too_large"
