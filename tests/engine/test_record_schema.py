"""The published JSON Schema (games.rules.schema) fits every record the simulators play, full and
summary, for every game and player count; it describes shapes only."""
from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from games.catalog import GAMES
from games.rules import validate
from games.rules.maumau import replay
from games.rules.schema import SCHEMAS, openapi_schema, record_schema
from games.simulate import lut, maumau, mu

SIMULATORS = {"mu": mu, "maumau": maumau, "lut": lut}
PLAYER_COUNTS = [(game, players) for game, info in GAMES.items()
                 for players in range(info.min_players, info.max_players + 1)]


@cache
def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(record_schema(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


def summary_of(record: dict, answer: dict) -> dict:
    """The score sheet a table would write for this played record."""
    head = {key: record[key] for key in ("game", "players", "dealer")}
    game, players = record["game"], record["players"]
    if game == "mu":
        bids = [0] * players
        for index, action in enumerate(record["auction"]):
            bids[(record["dealer"] + index) % players] += len(action)
        sheet = {"bids": bids, "chef": answer["chef"], "vice": answer["vice"], "partner": answer["partner"],
                 "vice_trump": record.get("vice_trump"), "chef_trump": record.get("chef_trump"),
                 "card_points": answer["card_points"]}
        if answer["outcome"] == "eklat":
            sheet["provocateur"] = answer["scores"].index(min(answer["scores"]))
        extra = {"colours": record["colours"]} if "colours" in record else {}
        return {**head, **extra, "summary": sheet}
    if game == "maumau":
        table = replay(record)
        wish = table.suit if answer["ended_by_jack"] else None
        return {**head, "summary": {"remaining": table.hands, "wish": wish, "minus": answer["minus"]}}
    return {**head, "summary": {"stacks": answer["stacks"]}}


def test_every_published_schema_is_a_valid_draft_2020_12_schema():
    for name in SCHEMAS:
        Draft202012Validator.check_schema(record_schema(name))
        assert "$schema" not in str(openapi_schema(name)) and "const" not in str(openapi_schema(name))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PLAYER_COUNTS), st.integers(0, 2**32 - 1))
def test_simulated_records_and_their_summaries_fit_the_schemas(game_and_players, seed):
    game, players = game_and_players
    record = SIMULATORS[game].random_record(random.Random(seed), players, dealer=seed % players)
    answer = validate(record)
    sheet = summary_of(record, answer)
    assert validate(sheet)["scores"] == answer["scores"]
    claimed = dict(record, claimed={"scores": answer["scores"]})
    for name, document in ((game, record), (f"{game}-full", claimed), (f"{game}-summary", sheet),
                           ("record", record), ("record", sheet)):
        errors = [error.message for error in validator(name).iter_errors(document)]
        assert not errors, (name, errors[:1])


@pytest.mark.parametrize("game, players", PLAYER_COUNTS)
def test_each_player_count_fits_only_its_own_shape(game, players):
    record = SIMULATORS[game].random_record(random.Random(players), players)
    assert validator(f"{game}-full").is_valid(record)
    assert not validator(f"{game}-summary").is_valid(record)
    other = (players + 1) if players < GAMES[game].max_players else players - 1
    assert not validator(game).is_valid(dict(record, players=other))  # hands of another table
    assert not validator(game).is_valid(dict(record, hands=None))


def test_a_simulated_series_fits_the_series_schema():
    series = maumau.random_series(random.Random(4), 3, games=3)
    assert validator("maumau-series").is_valid(series)
    assert not validator("maumau-series").is_valid({"records": [], "stake_cents": 10})


def objects_in(node, path=""):
    """Every JSON object of a document with its pointer, the root first."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from objects_in(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from objects_in(value, f"{path}/{index}")


@pytest.mark.parametrize("game, players", PLAYER_COUNTS)
def test_every_simulated_record_with_null_members_anywhere_fits_as_the_engine_accepts_it(game, players):
    # records.md: null counts as absent and unknown members are ignored, in every object of a
    # record; what the engine accepts, the schema must not refuse
    for seed in range(4):
        record = SIMULATORS[game].random_record(random.Random(seed), players, dealer=seed % players)
        answer = validate(record)
        for document in (record, summary_of(record, answer)):
            assert validator(game).is_valid(document)
            for path, node in list(objects_in(document)):
                node["remark"] = None
                node["7"] = None
            assert validate(document)["scores"] == answer["scores"], path
            errors = [f"{error.json_path}: {error.message}" for error in validator(game).iter_errors(document)]
            assert not errors, errors[:1]


def lut_round_with_keep() -> dict:
    record = next(record for record in (lut.random_record(random.Random(seed), 4) for seed in range(500))
                  if any(trick.get("keep") for trick in record["tricks"]))
    return record


def test_lut_keep_with_a_null_member_that_is_no_seat_fits_the_schema():
    record = lut_round_with_keep()
    trick = next(trick for trick in record["tricks"] if trick.get("keep"))
    trick["keep"]["colours"] = None
    assert validate(record)
    assert validator("lut").is_valid(record) and validator("lut-full").is_valid(record)
    # a non-null member that names no seat is refused by both
    trick["keep"]["colours"] = ["B", "R"]
    assert not validator("lut").is_valid(record)


def test_maumau_direction_null_fits_the_schema_as_the_engine_accepts_it():
    record = maumau.random_record(random.Random(2), 3)
    record["direction"] = None
    assert validate(record)
    assert validator("maumau").is_valid(record)


def test_the_openapi_dialect_has_no_pattern_properties_and_keeps_null_members_allowed():
    text = str(openapi_schema("lut"))
    assert "patternProperties" not in text
    keep = next(node for _, node in objects_in(openapi_schema("lut-full"))
                if "keep" in node.get("properties", {}))["properties"]["keep"]
    member = keep["anyOf"][0]["additionalProperties"]["anyOf"]
    assert {"nullable": True, "enum": [None]} in member  # any member may be null
    assert member[0]["anyOf"][0]["minItems"] == 2  # or a seat's two colours
