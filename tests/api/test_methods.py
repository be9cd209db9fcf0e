"""A method an address does not serve is 405 ``method_not_allowed`` (with ``Allow``) for anyone:
anonymous, with a token that is not valid, or logged in without any right. It is not 401 or 403,
which would send a client to log in or ask for rights that change nothing (the method is checked
before authentication and permissions, stich/errors.py ``MethodFirstMiddleware``). The addresses
and the methods they serve are the API description's."""
from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.conftest import make_user

pytestmark = pytest.mark.django_db

OPENAPI = "application/vnd.oai.openapi+json"
METHODS = ("get", "post", "put", "patch", "delete")


def unserved() -> list[tuple[str, str, set[str]]]:
    document = Client().get("/api/schema/", HTTP_ACCEPT=OPENAPI).json()
    found = []
    for path, operations in document["paths"].items():
        address = re.sub(r"\{name\}", "record", re.sub(r"\{(id|player)\}", "1", path))
        served = {method for method in operations if method in METHODS}
        found += [(address, method, served) for method in METHODS if method not in served]
    return found


def test_a_method_an_address_does_not_serve_is_405_for_anyone():
    user = make_user("nobody_special")
    parties = {
        "anonymous": {},
        "bad token": {"HTTP_AUTHORIZATION": "Token not-a-key"},
        "logged in": {"HTTP_AUTHORIZATION": f"Token {user.auth_token.key}"},
    }
    cases = unserved()
    assert len(cases) > 60  # every address of the API, with the methods it does not serve
    wrong = []
    for address, method, served in cases:
        for party, headers in parties.items():
            body = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
            response = getattr(Client(), method)(address, **body, **headers)
            allow = {name.strip().lower() for name in response.get("Allow", "").split(",")}
            if (response.status_code != 405 or response.json()["code"] != "method_not_allowed"
                    or not served <= allow or method in allow):
                wrong.append((method.upper(), address, party, response.status_code, response.get("Allow")))
    assert wrong == []


def test_served_methods_are_unchanged():
    """The check lets every served method through to the view (which authenticates as before)."""
    client = Client()
    assert client.get("/api/v1/clubs/").status_code == 200
    assert client.post("/api/v1/clubs/", {"name": "x"}, content_type="application/json").status_code == 401
    assert client.options("/api/v1/clubs/").status_code == 200
    assert client.head("/api/v1/clubs/").status_code == 200
