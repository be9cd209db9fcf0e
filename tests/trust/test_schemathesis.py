"""The API against its own OpenAPI schema (schemathesis): no server error, no answer that breaks
the schema, as anonymous and as an organiser. Bounded and seeded; DELETE is left out (deletes
would only empty the data the other operations need). The requests go to the WSGI application in
the test's own transaction, as Django's test client does; each operation starts from the same data
(its examples run in a savepoint that is rolled back after its last one) and nothing is left behind.

The schema is loaded lazily (``schemathesis.pytest.from_fixture``): it is built, and its cases
generated, only in the process that runs these tests, once per module, instead of at collection in
every test process (which cost each pytest-xdist worker about 15 CPU-seconds). Each operation is
then a subtest of one test per client. Each run leaves out the coverage phase where it would only
repeat the other's or one answer: the anonymous run at the writes that need credentials, the
organiser's at the dry run and the two writes that judge a record as it does
(``_without_credentials``, ``DRY_RUN``, ``RECORD_WRITES``)."""
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


WRITES = ("post", "put", "patch")


def _document() -> dict:
    """The service's own schema document, as ``/api/schema/`` serves it (Django is set up by
    pytest-django before the tests are collected)."""
    from drf_spectacular.generators import SchemaGenerator

    return json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))


def _operations(document: dict):
    """Each operation of the document as (its name, ``"POST /api/v1/..."``, method, definition)."""
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            yield f"{method.upper()} {path}", method, operation


def _api_schema(document: dict, config):
    from django.core.wsgi import get_wsgi_application

    loaded = schemathesis.openapi.from_dict(document, config=config).exclude(method="DELETE")
    loaded.app = get_wsgi_application()
    return loaded


def _without_credentials(document: dict):
    """The configuration of the anonymous client's run: no coverage phase for the writes whose
    security (in the document) has no anonymous option. Each of them answers an anonymous request
    401 before it reads the body, so the coverage phase's hundreds of bodies per operation (1,500
    hand records each for a hand's submission and its correction) would all be that one answer;
    the examples and the fuzzing phase still send them anonymously, and the checks (the
    authentication ones among them) still judge every answer."""
    closed = [name for name, method, operation in _operations(document)
              if method in WRITES and {} not in operation.get("security", [{}])]
    assert len(closed) > 20 and DRY_RUN not in closed
    return _without_coverage(closed)


# The dry run judges a record the same for every client (the engine alone; a token changes only
# whose throttle counts it): the anonymous run's coverage phase sends it its 1,500 bodies once.
DRY_RUN = "POST /api/v1/records/validate"
# A hand's submission and its correction judge their record with the same engine call as the dry
# run (``games.validate``, in ``tournaments.results.services._judge``) before anything is read of the
# table's hands: the coverage phase's 1,500 record bodies each would be the dry run's answers again
# (their 422 shape checked there). Their own parts, the slot, the storing, the receipt, are
# reached by records the engine takes, which the examples and the fuzzing phase send (and
# tests/api, tests/scale); the organiser's run keeps both of those phases for them.
RECORD_WRITES = ("POST /api/v1/tables/{id}/hands/", "POST /api/v1/hands/{id}/correct/")


def _without_coverage(names: list[str]):
    from schemathesis.config import SchemathesisConfig

    return SchemathesisConfig.from_dict(
        {"operations": [{"include-name": name, "phases": {"coverage": {"enabled": False}}} for name in names]})


@pytest.fixture(scope="module")
def api_document():
    return _document()


@pytest.fixture(scope="module")
def api_schema(api_document):
    assert {DRY_RUN, *RECORD_WRITES} <= {name for name, _method, _operation in _operations(api_document)}
    return _api_schema(api_document, _without_coverage([DRY_RUN, *RECORD_WRITES]))


@pytest.fixture(scope="module")
def anonymous_api_schema(api_document):
    return _api_schema(api_document, _without_credentials(api_document))


# The lazy schemas apply their own filters (not those of the fixture's schema): DELETE is left out here too.
schema = schemathesis.pytest.from_fixture("api_schema").exclude(method="DELETE")
anonymous_schema = schemathesis.pytest.from_fixture("anonymous_api_schema").exclude(method="DELETE")


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


@pytest.fixture
def each_operation_afresh(request, in_process):
    """Every operation starts from the same data: the examples of one operation run in a savepoint,
    rolled back when the next operation starts (and after the last)."""
    from django.db import transaction

    # schemathesis' lazy tests name each operation's subtest through the item's ``_nodeid``, which
    # pytest 9 keeps as ``_id``: give it the attribute it reads and restores.
    request.node._nodeid = request.node.nodeid

    class Savepoint:
        label = None
        block = None

        def enter(self, label: str) -> None:
            if label == self.label:
                return
            self.close()
            self.block = transaction.atomic()
            self.block.__enter__()
            self.label = label

        def close(self) -> None:
            if self.block is not None:
                transaction.set_rollback(True)
                self.block.__exit__(None, None, None)
                self.block, self.label = None, None

    savepoint = Savepoint()
    yield savepoint
    savepoint.close()


def _settings(test):
    return settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
                    suppress_health_check=list(HealthCheck))(test)


@anonymous_schema.parametrize()
@_settings
def test_the_api_keeps_its_schema_for_anonymous_clients(case, world, each_operation_afresh):
    each_operation_afresh.enter(case.operation.label)
    case.call_and_validate(excluded_checks=EXCLUDED)


@schema.parametrize()
@_settings
def test_the_api_keeps_its_schema_for_an_organiser(case, world, each_operation_afresh):
    each_operation_afresh.enter(case.operation.label)
    case.call_and_validate(excluded_checks=EXCLUDED,
                           headers={"Authorization": f"Token {world.organiser.auth_token.key}"})


# --- hostile values to every operation ---------------------------------------------------------------
# Random generation rarely draws a NUL or a lone surrogate (hypothesis leaves surrogates out) and
# keeps integers to the schema's range: these cases put them everywhere, deterministically. Each
# operation gets every string of its body (an unknown member too) and its query parameters as text
# with a NUL, then every body string with a lone surrogate, then every integer (path, query, body)
# as 2**70; at objects that exist, as an organiser of them, so the bodies are read.
HOSTILE = {"nul": "a\x00b", "surrogate": "a\ud800b", "huge": 2**70}


def _resolve(node: dict, bundle: dict) -> dict:
    while isinstance(node, dict) and "$ref" in node:
        node = bundle[node["$ref"].rsplit("/", 1)[-1]]
    return node


def _fill(node, bundle: dict, mode: str, depth: int = 0):
    node = _resolve(node or {}, bundle)
    hostile = HOSTILE[mode]
    for key in ("oneOf", "anyOf", "allOf"):
        if node.get(key):
            return _fill(node[key][0], bundle, mode, depth)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object" or "properties" in node:
        if depth > 4:
            return {}
        filled = {name: _fill(child, bundle, mode, depth + 1) for name, child in node.get("properties", {}).items()}
        filled["note"] = hostile  # an unknown member is enough
        return filled
    if kind == "array":
        return [_fill(node.get("items"), bundle, mode, depth + 1)] if depth <= 4 else []
    if kind in ("integer", "number"):
        return hostile if mode == "huge" else 1
    if kind == "boolean":
        return True
    return hostile if isinstance(hostile, str) else "x"


def _existing_id(w, path: str, name: str):
    ids = {"clubs": w.club.pk, "players": w.players[0].pk, "events": w.events["mu"].pk,
           "rounds": w.mu_round.pk, "tables": w.mu_table.pk, "sessions": w.mu_session.pk, "hands": w.mu_hand.pk,
           "transfers": 1}
    resource = path.split("/api/v1/", 1)[-1].split("/", 1)[0]
    return ids.get(resource, 1)


@pytest.fixture
def hostile_world(world):
    import random

    from tests.api.play import next_record
    from tournaments.results import services as results

    w = world
    w.mu_round = w.events["mu"].rounds.get()
    w.mu_table = w.mu_round.tables.order_by("number").first()
    w.first_record = next_record("mu", random.Random(1), 4, None, w.mu_table.first_dealer)
    receipt = results.hand_submit(table_id=w.mu_table.pk, entry=results.Entry(w.first_record)).receipt
    # A record the engine takes as the table's next hand: hostile text in it reaches the storing.
    w.next_record = next_record("mu", random.Random(2), 4, receipt["session"], w.mu_table.first_dealer)
    w.mu_session = w.mu_table.sessions.get()
    w.mu_hand = w.mu_session.hands.get(pk=receipt["hand"]["id"])
    return w


@pytest.mark.parametrize("mode", sorted(HOSTILE))
def test_no_operation_fails_on_nul_surrogates_or_huge_integers(hostile_world, in_process, api_schema, mode):
    w = hostile_world
    hostile = HOSTILE[mode]
    failures = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 50  # every operation of the API, not a part of it
    for operation in operations:
        path = {p.name: (hostile if mode == "huge" else _existing_id(w, operation.path, p.name))
                for p in operation.path_parameters}
        text = hostile if mode == "nul" else "x"  # a lone surrogate cannot be sent in a URL
        query = {p.name: (hostile if mode == "huge" and (p.definition.get("schema") or {}).get("type") == "integer"
                          else text) for p in operation.query}
        kwargs = {"path_parameters": path, "query": query}
        bodies = [body for body in operation.body if body.media_type == "application/json"]
        if bodies:
            definition = bodies[0].definition.get("schema", bodies[0].definition)
            kwargs["body"] = _fill(definition, definition.get("x-bundled", {}), mode)
            kwargs["media_type"] = "application/json"
            if isinstance(hostile, str):  # records the engine accepts, with the text in a member
                if operation.path.endswith(("/hands/", "/validate")):
                    kwargs["body"] = {**w.next_record, "note": hostile}
                elif operation.path.endswith("/correct/"):
                    kwargs["body"] = {"record": {**w.first_record, "note": hostile}, "reason": "checked"}
        case = operation.Case(**kwargs)
        response = case.call(headers={"Authorization": f"Token {w.organiser.auth_token.key}",
                                      "X-Scorer-Token": w.mu_table.scorer_token} if "hands" in operation.path
                             else {"Authorization": f"Token {w.organiser.auth_token.key}"})
        if response.status_code >= 500:
            failures.append(f"{operation.method.upper()} {operation.path}: {response.status_code} "
                            f"{response.content[:200]!r}")
    assert not failures, "\n".join(failures)
