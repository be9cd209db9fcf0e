"""The API against its own OpenAPI schema (schemathesis): no server error, no answer that breaks
the schema, as anonymous and as an organiser. Bounded and seeded; DELETE is left out (deletes
would only empty the data the other operations need). The requests go to the WSGI application in
the test's own transaction, as Django's test client does, so each operation starts from the same
data and nothing is left behind."""
from __future__ import annotations

import json

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

pytestmark = [pytest.mark.django_db]

EXAMPLES = 8
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

    from django.core.wsgi import get_wsgi_application

    document = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))
    loaded = schemathesis.openapi.from_dict(document).exclude(method="DELETE")
    loaded.app = get_wsgi_application()
    return loaded


schema = _api_schema()


@pytest.fixture
def in_process():
    """Keep the test's database connection across requests (Django's test client does the same)."""
    from django.core import signals
    from django.db import close_old_connections

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def _settings(test):
    return settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
                    suppress_health_check=list(HealthCheck))(test)


@schema.parametrize()
@_settings
def test_the_api_keeps_its_schema_for_anonymous_clients(case, world, in_process):
    case.call_and_validate(excluded_checks=EXCLUDED)


@schema.parametrize()
@_settings
def test_the_api_keeps_its_schema_for_an_organiser(case, world, in_process):
    case.call_and_validate(excluded_checks=EXCLUDED,
                           headers={"Authorization": f"Token {world.organiser.auth_token.key}"})
