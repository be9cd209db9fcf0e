"""The published JSON Schema (games.rules.schema) fits every record the simulators play, full and
summary, for every game and player count; it describes shapes only."""
from __future__ import annotations

import copy
import random
import re
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from games.catalog import GAMES
from games.rules import Code, MalformedRecord, RecordError, validate
from games.rules.maumau import replay
from games.rules.schema import SCHEMAS, openapi_schema, record_schema
from games.simulate import lut, maumau, mu
from tests.engine.checks import rejected

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


# --- what the engine refuses as malformed, the schema refuses too -----------------------------------
# The schema describes shapes; a corruption the engine refuses as malformed (the document is not a
# record: types, lengths, notation) is a shape, so the schema must refuse it as well, except where
# the shape depends on other members' values or on the play, which JSON Schema cannot state: the
# copies of a card counted over the whole record, a Mü card's colour against ``colours``, a member
# that the play makes required or absent (the trumps and partner of a played Mü deal, its tricks,
# the summary's seats and card points, a jack's wish, a LuT pick or keep), and how many cards a
# Maumau show holds (one when the seat holds one).
NOT_EXPRESSIBLE_CODES = {Code.DUPLICATE_CARD, Code.COLOUR_NOT_IN_PLAY}
PLAY_DECIDES = re.compile(r"^/(summary/)?(vice_trump|chef_trump|partner|tricks|chef|vice|provocateur|card_points)$"
                          r"|^/events/\d+/(wish|taken)$|^/tricks/\d+/(pick|keep)(/\d+)?$")


def expressible(error: RecordError) -> bool:
    if error.code in NOT_EXPRESSIBLE_CODES:
        return False
    if error.code in (Code.MISSING_MEMBER, Code.UNEXPECTED_MEMBER) and PLAY_DECIDES.match(error.path):
        return False
    return not (error.code == Code.BAD_LENGTH and re.match(r"^/events/\d+/show$", error.path))


TOKENS = ["x", "", "R", "Y", "K", "none", "0", "7", "10", "R7", "Z1", "7H", "JC", "C", "G", "B", "G1", "Y3", "N",
          "remark"]
ODD_VALUES = [None, 1.5, True, False, -1, 0, 1, 2, 99, 10**6, [], {}, "x"]


def paths_in(node, path=()):
    """Every member and item of a document, by its path of keys and indexes."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key)
            yield from paths_in(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield (*path, index)
            yield from paths_in(value, (*path, index))


def corrupted(document: dict, rng: random.Random) -> dict:
    """One single-point corruption of a copy of ``document``: a member or item replaced by a value of
    another type, token or size, dropped, doubled, or a list's item repeated (a keep of one colour)."""
    document = copy.deepcopy(document)
    path = rng.choice(list(paths_in(document)))
    *parents, last = path
    parent = document
    for key in parents:
        parent = parent[key]
    value = parent[last]
    moves = ["replace", "token", "drop"]
    if isinstance(value, list) and value:
        moves += ["shorten", "lengthen", "repeat", "repeat"]
    move = rng.choice(moves)
    if move == "replace":
        parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
    elif move == "token":
        parent[last] = rng.choice(TOKENS)
    elif move == "drop":
        if isinstance(parent, dict):
            del parent[last]
        else:
            parent.pop(last)
    elif move == "shorten":
        value.pop()
    elif move == "lengthen":
        value.append(copy.deepcopy(value[-1]))
    elif len(value) > 1:  # repeat: an item stands twice
        value[1] = copy.deepcopy(value[0])
    else:
        value.append(copy.deepcopy(value[0]))
    return document


def lut_keep_repeated(record: dict, rng: random.Random) -> dict | None:
    """A keep of one colour (``["Y", "Y"]``): the engine's bad_keep."""
    tricks = [trick for trick in record["tricks"] if trick.get("keep")]
    if not tricks:
        return None
    record = copy.deepcopy(record)
    keep = rng.choice([trick for trick in record["tricks"] if trick.get("keep")])["keep"]
    seat = rng.choice(sorted(keep))
    keep[seat] = [keep[seat][0]] * 2
    return record


def test_a_keep_of_one_colour_and_a_summary_of_null_minus_are_refused_by_both():
    record = lut_keep_repeated(lut_round_with_keep(), random.Random(0))
    assert rejected(record).code == "bad_keep"
    assert not validator("lut").is_valid(record) and not validator("lut-full").is_valid(record)
    sheet = {"game": "maumau", "players": 3, "dealer": 0, "summary": {"minus": None}}
    assert rejected(sheet).code == "missing_member"
    assert not validator("maumau").is_valid(sheet) and not validator("maumau-summary").is_valid(sheet)
    assert validator("maumau").is_valid(dict(sheet, summary={"minus": [0, 5, 7], "remaining": None}))


def schema_misses(game: str, players: int, records: int, each: int) -> list[tuple]:
    """The corruptions (``each`` of ``records`` simulated records and their summaries) the engine
    refuses as malformed and a schema of the document fits: (schema, code, pointer, message)."""
    misses = []
    played = [SIMULATORS[game].random_record(random.Random(seed), players, dealer=seed % players) for seed in range(records)]
    sheets = [summary_of(record, validate(record)) for record in played]
    for (seed, record, sheet), number in ((row, number) for row in zip(range(records), played, sheets) for number in range(each)):
        rng = random.Random(f"{game}{players}-{seed}-{number}")
        document = corrupted(rng.choice([record, sheet]), rng)
        if game == "lut" and number % 5 == 0:
            document = lut_keep_repeated(record, rng) or document
        try:
            validate(document)
        except MalformedRecord as error:
            if not expressible(error):
                continue
            body = "summary" if "summary" in document else "full"
            misses += [(name, error.code, error.path, error.message)
                       for name in (f"{game}-{body}",) if validator(name).is_valid(document)]
        except RecordError:
            pass  # illegal: the rules forbid it, a shape may still fit
    return misses


@pytest.mark.parametrize("game, players", PLAYER_COUNTS)
def test_every_corruption_the_engine_refuses_as_malformed_the_schema_refuses(game, players):
    misses = schema_misses(game, players, 2, 12)
    assert not misses, misses[:3]
