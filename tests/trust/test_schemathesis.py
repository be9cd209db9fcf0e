"""The API against its own OpenAPI schema (schemathesis): no server error, no answer that breaks
the schema, as anonymous and as an organiser. Bounded and seeded; DELETE is left out (the live
server's database is thrown away afterwards, but deletes would only empty the data the other
operations need)."""
from __future__ import annotations

import json

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from tests.conftest import client_for  # noqa: F401 - the world fixture's roles

pytestmark = [pytest.mark.django_db(transaction=True)]

EXAMPLES = 12
# Every check of the answers (no server error; status codes, content types, headers and bodies as
# the schema says) and of authentication. Left out are the two checks of what requests are taken:
# "schema-valid data is accepted" (a request of the right shape may still name an object that does
# not exist, or carry a hand record that breaks a rule: the database and the engine stay the
# judges, with a 4xx) and "schema-violating data is rejected" (django-filter reads an empty or
# unreadable filter value as no filter, on purpose).
EXCLUDED = [schemathesis.checks.positive_data_acceptance, schemathesis.checks.negative_data_rejection]


def _api_schema():
    """The service's own schema document, as ``/api/schema/`` serves it (Django is set up by
    pytest-django before the tests are collected)."""
    from drf_spectacular.generators import SchemaGenerator

    document = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))
    return schemathesis.openapi.from_dict(document).exclude(method="DELETE")


schema = _api_schema()


def _settings(test):
    return settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
                    suppress_health_check=list(HealthCheck))(test)


@schema.parametrize()
@_settings
def test_the_api_keeps_its_schema_for_anonymous_clients(case, world, live_server):
    case.call_and_validate(base_url=live_server.url, excluded_checks=EXCLUDED)


@schema.parametrize()
@_settings
def test_the_api_keeps_its_schema_for_an_organiser(case, world, live_server):
    case.call_and_validate(base_url=live_server.url, excluded_checks=EXCLUDED,
                           headers={"Authorization": f"Token {world.organiser.auth_token.key}"})
