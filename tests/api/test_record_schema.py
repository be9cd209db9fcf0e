"""The record format as published by the service: JSON Schemas, and the OpenAPI request bodies of the
submission and dry-run endpoints."""
from __future__ import annotations

import random

import pytest
from django.test import Client
from jsonschema import Draft202012Validator

from games.rules import Code
from games.simulate.lut import random_record

OPENAPI = "application/vnd.oai.openapi+json"


@pytest.mark.django_db
def test_the_service_lists_and_serves_the_record_schemas():
    client = Client()
    names = client.get("/api/v1/records/schema/").json()
    assert {"record", "mu", "maumau-full", "lut-summary", "maumau-series"} <= set(names)
    schema = client.get("/api/v1/records/schema/lut.json").json()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    validator = Draft202012Validator(schema)
    record = random_record(random.Random(1), 5)
    assert validator.is_valid(record)
    assert not validator.is_valid(dict(record, summary={"stacks": []}))  # both bodies
    assert client.get("/api/v1/records/schema/chess.json").status_code == 404


@pytest.mark.django_db
def test_openapi_submission_and_dry_run_bodies_are_the_record_schema():
    document = Client().get("/api/schema/", HTTP_ACCEPT=OPENAPI).json()
    paths, schemas = document["paths"], document["components"]["schemas"]
    for path in ("/api/v1/records/validate", "/api/v1/tables/{id}/hands/"):
        operation = paths[path]["post"]
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": "#/components/schemas/HandRecord"} and operation["requestBody"]["required"]
        rejected = operation["responses"]["422"]
        assert all(f"`{code}`" in rejected["description"] for code in Code)
        assert rejected["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/RecordError"}
    record = schemas["HandRecord"]
    assert len(record["oneOf"]) == 3 and record["discriminator"]["propertyName"] == "game"  # one per game
    assert set(record["discriminator"]["mapping"]) == {"mu", "maumau", "lut"}
    for game in ("Mu", "Maumau", "Lut"):
        assert [ref["$ref"].rsplit("/", 1)[1] for ref in schemas[f"{game}Record"]["oneOf"]] == [
            f"{game}FullRecord", f"{game}SummaryRecord"]
    assert schemas["RecordErrorCode"]["enum"] == [str(code) for code in Code]
    assert schemas["RecordError"]["required"] == ["code", "message", "path"]


@pytest.mark.parametrize("game", ["mu", "maumau", "lut"])
def test_every_legal_record_fits_exactly_one_named_component(game):
    """The components allow every record of any player count that the engine accepts, and only the
    component of its own game and body."""
    from importlib import import_module

    from jsonschema import Draft202012Validator

    from games.catalog import GAMES
    from games.rules.schema import component_name, openapi_components

    components = openapi_components()
    simulate = import_module(f"games.simulate.{game}")
    rng = random.Random(26)
    for players in range(GAMES[game].min_players, GAMES[game].max_players + 1):
        for _ in range(3):
            record = simulate.random_record(rng, players)
            fitting = [name for name, schema in components.items() if name.endswith("FullRecord") or
                       name.endswith("SummaryRecord") if Draft202012Validator(schema).is_valid(record)]
            assert fitting == [component_name(game, "full")], (players, fitting)


def test_the_openapi_examples_are_the_engines_own_answers():
    """The examples the API documentation shows are what the engine answers (a test, not prose)."""
    from games.api import RECORD_EXAMPLES
    from games.rules import RecordError, validate

    good, bad, refusal = RECORD_EXAMPLES
    assert validate(good.value)["scores"] == [10, 22, 19, -1, 20]
    try:
        validate(bad.value)
    except RecordError as error:
        assert error.as_dict() == refusal.value
    else:
        raise AssertionError("the refused example was accepted")
