"""The hand-record format of ``../shared/records.md`` as JSON Schema (draft 2020-12), per game and body.

The schemas describe shapes only (members, JSON types, card notation, lengths the player count
fixes); the engine stays the judge of the rules, so a record can fit its schema and still be
rejected. They are built from the engine's own tables (cards, hand sizes, player ranges from the
games catalogue), so the two cannot drift apart. Conventions of records.md carried over: ``null``
counts as absent (an optional member may be ``null``; a member of the other body may only be
``null``), and unknown members are allowed.

``SCHEMAS`` names every schema (``mu``, ``mu-full``, ``mu-summary``, ..., ``maumau-series`` and
``record``, any game); ``openapi_schema`` rewrites one into the OpenAPI 3.0 dialect of the API
description.
"""
from __future__ import annotations

from typing import Any, Callable

from ..catalog import GAMES
from . import lut, maumau, mu

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _const(value) -> dict:
    return {"const": value}


def _null() -> dict:
    """A member that must be absent: records.md lets ``null`` count as absent."""
    return {"type": "null"}


def _optional(schema: dict) -> dict:
    return {"anyOf": [schema, _null()]}


def _integer(low: int | None = None, high: int | None = None) -> dict:
    schema: dict = {"type": "integer"}
    if low is not None:
        schema["minimum"] = low
    if high is not None:
        schema["maximum"] = high
    return schema


def _array(items: dict, count: int | None = None, most: int | None = None) -> dict:
    schema: dict = {"type": "array", "items": items}
    if count is not None:
        schema["minItems"] = schema["maxItems"] = count
    elif most is not None:
        schema["maxItems"] = most
    return schema


def _object(properties: dict, required: list[str], **extra) -> dict:
    shape = {"type": "object", "properties": properties, **extra}
    if required:  # OpenAPI 3.0 (the API schema's dialect) forbids an empty ``required``
        shape["required"] = required
    return shape


def _head(game: str, players: int | None = None) -> dict:
    info = GAMES[game]
    seats = players - 1 if players is not None else info.max_players - 1
    return {
        "game": _const(game),
        "players": _const(players) if players is not None else _integer(info.min_players, info.max_players),
        "dealer": _integer(0, seats),
        "claimed": _optional({"type": "object", "additionalProperties": True,
                              "description": "any subset of the engine's answer"}),
    }


def _per_player_count(game: str, build: Callable[[int], dict]) -> dict:
    info = GAMES[game]
    return {"oneOf": [build(players) for players in range(info.min_players, info.max_players + 1)]}


def _absent(*members: str) -> dict:
    return {member: _null() for member in members}


# --- Mü -------------------------------------------------------------------------------------------

MU_CARD = {"enum": list(mu.CARD_NAMES)}
MU_COLOUR = {"enum": list(mu.COLOURS)}
MU_TRUMP = {"enum": sorted(mu.TRUMP_SYMBOLS)}
MU_CHEF_TRUMP = {"enum": [*sorted(mu.TRUMP_SYMBOLS), mu.NO_TRUMP]}


def _mu_colours(variant: mu.Variant) -> dict:
    colours = _array(MU_COLOUR, variant.colours)
    colours["uniqueItems"] = True
    return colours


def _mu_full(players: int) -> dict:
    variant = mu.VARIANTS[players]
    size, seat = variant.hand_size, _integer(0, players - 1)
    properties = {
        **_head("mu", players),
        "colours": _mu_colours(variant) if variant.colours < len(mu.COLOURS) else _optional(_mu_colours(variant)),
        "hands": _array(_array(MU_CARD, size), players),
        "auction": _array(_array(MU_CARD, most=size)),
        "vice_trump": _optional(MU_TRUMP) if variant.vice else _null(),
        "chef_trump": _optional(MU_CHEF_TRUMP),
        "partner": _optional(seat) if variant.partner else _null(),
        "tricks": _optional(_array(_array(MU_CARD, players), size)),
        "summary": _null(),
    }
    required = ["game", "players", "dealer", "hands", "auction"]
    if variant.colours < len(mu.COLOURS):
        required.append("colours")
    return _object(properties, required)


def _mu_summary(players: int) -> dict:
    variant = mu.VARIANTS[players]
    seat = _optional(_integer(0, players - 1))
    summary = _object({
        "bids": _array(_integer(0, variant.hand_size), players),
        "chef": seat,
        "vice": seat if variant.vice else _null(),
        "provocateur": seat,
        "vice_trump": _optional(MU_TRUMP) if variant.vice else _null(),
        "chef_trump": _optional(MU_CHEF_TRUMP),
        "partner": seat if variant.partner else _null(),
        "card_points": _optional(_array(_integer(0, variant.points_in_play), players)),
    }, ["bids"])
    properties = {
        **_head("mu", players),
        "colours": _optional(_mu_colours(variant)),
        "summary": summary,
        **_absent(*mu.FULL_MEMBERS),
    }
    return _object(properties, ["game", "players", "dealer", "summary"])


# --- Maumau ----------------------------------------------------------------------------------------

MAUMAU_CARD = {"enum": list(maumau.CARD_NAMES)}
MAUMAU_SUIT = {"enum": list(maumau.SUITS)}


def _maumau_event(players: int) -> dict:
    seat = _integer(0, players - 1)
    play = _object({
        "seat": seat, "play": MAUMAU_CARD, "wish": _optional(MAUMAU_SUIT),
        "wedding": {"type": ["boolean", "null"]}, **_absent("draw", "show", "taken"),
    }, ["seat", "play"])
    draw = _object({"seat": seat, "draw": _array(MAUMAU_CARD), **_absent("play", "show", "wish", "wedding", "taken")},
                   ["seat", "draw"])
    show = _object({
        "seat": seat, "show": _array(MAUMAU_CARD, most=2), "taken": _optional(MAUMAU_CARD),
        **_absent("play", "draw", "wish", "wedding"),
    }, ["seat", "show"])
    return {"oneOf": [play, draw, show]}


def _maumau_head(players: int) -> dict:
    return {**_head("maumau", players), "direction": _optional({"enum": [1, -1]})}


def _maumau_full(players: int) -> dict:
    properties = {
        **_maumau_head(players),
        "hands": _array(_array(MAUMAU_CARD, maumau.HAND_SIZE), players),
        "upcard": MAUMAU_CARD,
        "upcard_wish": _optional(MAUMAU_SUIT),
        "events": _array(_maumau_event(players)),
        "summary": _null(),
    }
    return _object(properties, ["game", "players", "dealer", "hands", "upcard", "events"])


def _given(member: str) -> dict:
    """``member`` (a list) is present and not null (records.md: null counts as absent, so ``{"minus": null}``
    gives neither remaining hands nor minus points: the engine's missing_member)."""
    return {"required": [member], "properties": {member: {"type": "array"}}}


def _maumau_summary(players: int) -> dict:
    summary = _object({
        "remaining": _optional(_array(_array(MAUMAU_CARD), players)),
        "wish": _optional(MAUMAU_SUIT),
        "minus": _optional(_array(_integer(0, maumau.MOST_MINUS), players)),
    }, [], anyOf=[_given("remaining"), _given("minus")])
    properties = {**_maumau_head(players), "summary": summary, **_absent(*maumau.FULL_MEMBERS)}
    return _object(properties, ["game", "players", "dealer", "summary"])


def _maumau_series() -> dict:
    return _object({
        "records": {"type": "array", "minItems": 1, "items": _either_body("maumau")},
        "stake_cents": _integer(0, 10**9),
    }, ["records", "stake_cents"])


# --- Mit List und Tücke ----------------------------------------------------------------------------


def _lut_card(players: int) -> dict:
    return {"enum": list(lut.DECKS[players].codes)}


def _lut_full(players: int) -> dict:
    card = _lut_card(players)
    colours = {"enum": list(lut.COLOURS)}
    # A seat's choice under its number; any other member only null (null counts as absent; the
    # engine refuses a non-null member that names no seat due to choose, keep_unexpected).
    # A choice is two different colours (the engine's bad_keep).
    pair = {**_array(colours, 2), "uniqueItems": True}
    keep = {"type": "object", "patternProperties": {"^[0-9]+$": _optional(pair)},
            "additionalProperties": _null()}
    trick = _object({
        "cards": _array(card, most=players),
        "pick": _optional(_array(card, lut.DECKS[players].first_share)),
        "keep": _optional(keep),
    }, ["cards"])
    properties = {
        **_head("lut", players),
        "hands": _array(_array(card, lut.HAND_SIZE), players),
        "tricks": _array(trick, most=lut.TRICKS),
        "summary": _null(),
    }
    return _object(properties, ["game", "players", "dealer", "hands", "tricks"])


def _lut_summary(players: int) -> dict:
    deck = lut.DECKS[players]
    stacks = _object({
        **{colour: _optional(_integer(0, size)) for colour, size in zip(lut.COLOURS, deck.sizes)},
        "discarded": _integer(0, deck.size),
    }, ["discarded"])
    properties = {
        **_head("lut", players),
        "summary": _object({"stacks": _array(stacks, players)}, ["stacks"]),
        **_absent(*lut.FULL_MEMBERS),
    }
    return _object(properties, ["game", "players", "dealer", "summary"])


# --- the published schemas -------------------------------------------------------------------------

_BODIES: dict[str, dict[str, Callable[[int], dict]]] = {
    "mu": {"full": _mu_full, "summary": _mu_summary},
    "maumau": {"full": _maumau_full, "summary": _maumau_summary},
    "lut": {"full": _lut_full, "summary": _lut_summary},
}
TITLES = {"full": "full record", "summary": "summary record"}


def _document(title: str, schema: dict) -> dict:
    return {"$schema": DIALECT, "title": title, **schema}


def _either_body(game: str) -> dict:
    return {"oneOf": [_per_player_count(game, _BODIES[game][body]) for body in TITLES]}


def _game_body(game: str, body: str) -> dict:
    return _document(f"{GAMES[game].name}: {TITLES[body]}", _per_player_count(game, _BODIES[game][body]))


def _game(game: str) -> dict:
    return _document(f"{GAMES[game].name}: a hand record (full or summary)", _either_body(game))


def _record() -> dict:
    return _document("A hand record of any game", {"oneOf": [_either_body(game) for game in _BODIES]})


def _series() -> dict:
    return _document(f"{GAMES['maumau'].name}: a series", _maumau_series())


SCHEMAS: dict[str, Callable[[], dict]] = {
    "record": _record,
    **{game: (lambda game=game: _game(game)) for game in _BODIES},
    **{f"{game}-{body}": (lambda game=game, body=body: _game_body(game, body)) for game in _BODIES for body in TITLES},
    "maumau-series": _series,
}


def record_schema(name: str = "record") -> dict:
    """The JSON Schema called ``name`` (a key of ``SCHEMAS``), as a fresh dict."""
    return SCHEMAS[name]()


def openapi_schema(name: str = "record") -> dict:
    """The same schema in OpenAPI 3.0's dialect (no ``const``, ``null`` type or ``$schema``)."""
    return _openapi(record_schema(name))


def _openapi(node: Any) -> Any:
    if isinstance(node, list):
        return [_openapi(item) for item in node]
    if not isinstance(node, dict):
        return node
    result: dict = {}
    for key, value in node.items():
        if key == "$schema":
            continue
        if key == "patternProperties":  # not in OpenAPI 3.0: any member may then be what a pattern allows
            result["additionalProperties"] = _openapi({"anyOf": [*value.values(), node.get("additionalProperties", {})]})
            continue
        if key == "additionalProperties" and "patternProperties" in node:
            continue
        if key == "const":
            result["enum"] = [value]
        elif key == "type" and value == "null":
            result["nullable"] = True
            result["enum"] = [None]
        elif key == "type" and isinstance(value, list):
            kinds = [kind for kind in value if kind != "null"]
            result["type"] = kinds[0]
            if "null" in value:
                result["nullable"] = True
        else:
            result[key] = _openapi(value)
    return result


# --- named components of the API description (OpenAPI 3.1) -----------------------------------------
# One object schema per game and body, for every player count at once: where counts differ (lengths,
# seats, a LuT deck's cards) the component allows what any count allows, so a record that fits the
# exact schema above fits its component; the engine still judges the rest (422).

COMPONENT_NAMES = {"mu": "Mu", "maumau": "Maumau", "lut": "Lut"}
BODY_NAMES = {"full": "Full", "summary": "Summary"}


def _is_null(node: dict) -> bool:
    return node == _null()


def _nullable_part(node: dict) -> dict | None:
    """X of ``anyOf: [X, null]``; None for any other node."""
    options = node.get("anyOf") if set(node) == {"anyOf"} else None
    if options and len(options) == 2 and _is_null(options[1]):
        return options[0]
    return None


def _union(first: list, second: list) -> list:
    return [*first, *(item for item in second if item not in first)]


def _widen(a: Any, b: Any) -> Any:
    """A schema that allows what ``a`` or ``b`` allows (both describe one member of a record, for two
    player counts)."""
    if a == b:
        return a
    if not isinstance(a, dict) or not isinstance(b, dict):
        return {}
    if _is_null(a) or _is_null(b):
        other = b if _is_null(a) else a
        return other if _nullable_part(other) is not None else _optional(other)
    if _nullable_part(a) is not None or _nullable_part(b) is not None:
        return _optional(_widen(_nullable_part(a) or a, _nullable_part(b) or b))
    if {"const", "enum"} & set(a) and {"const", "enum"} & set(b):
        values = _union(a.get("enum", [a.get("const")]), b.get("enum", [b.get("const")]))
        rest = {key: value for key, value in a.items() if key not in ("const", "enum")}
        return {**rest, "enum": values}
    result: dict = {}
    for key in dict.fromkeys([*a, *b]):
        if key not in a or key not in b:
            if key in ("minimum", "minItems", "maximum", "maxItems", "required", "anyOf"):
                continue  # a bound or a requirement of one count only
            result[key] = a.get(key, b.get(key))
            continue
        first, second = a[key], b[key]
        if key in ("minimum", "minItems"):
            result[key] = min(first, second)
        elif key in ("maximum", "maxItems"):
            result[key] = max(first, second)
        elif key == "required":
            kept = [name for name in first if name in second]
            if kept:
                result[key] = kept
        elif key in ("properties", "patternProperties"):
            result[key] = {name: _widen(first[name], second[name]) if name in first and name in second
                           else _optional(first.get(name) or second[name]) for name in dict.fromkeys([*first, *second])}
        elif key in ("oneOf", "anyOf") and len(first) == len(second):
            result[key] = [_widen(x, y) for x, y in zip(first, second)]
        elif isinstance(first, dict):
            result[key] = _widen(first, second)
        elif first == second:
            result[key] = first
        else:
            return {}
    return result


def _any_count(game: str, body: str) -> dict:
    info = GAMES[game]
    schemas = [_BODIES[game][body](players) for players in range(info.min_players, info.max_players + 1)]
    widened = schemas[0]
    for schema in schemas[1:]:
        widened = _widen(widened, schema)
    widened["properties"]["players"] = _integer(info.min_players, info.max_players)
    return _requirements_only(widened)


def _requirements_only(node: Any) -> Any:
    """The alternatives of an ``anyOf`` that only require members keep only their ``required``: code
    generators (openapi-python-client) read every ``anyOf`` as a union of types and give up on one
    of bare property constraints (a Maumau summary's ``minus`` given non-null). The component then
    also allows a null ``minus`` beside no ``remaining``; the exact schema refuses it, and so does
    the engine (422)."""
    if isinstance(node, list):
        return [_requirements_only(item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {key: _requirements_only(value) for key, value in node.items()}
    if isinstance(result.get("anyOf"), list) and all(set(option) == {"required", "properties"} for option in result["anyOf"]):
        result["anyOf"] = [{"required": option["required"]} for option in result["anyOf"]]
    return result


def _without_absent_members(node: Any) -> Any:
    """``node`` without the members that may only be absent (``{"type": "null"}``: the other
    body's, another event kind's), and without alternatives that only require members. Unknown members are allowed anyway, so the component allows
    what it allowed; the engine still refuses such a member when it is not null (and the exact
    schemas above still state it). Generated clients read a member typed ``null`` as one to
    leave out of writes (openapi-fetch makes it ``never``), so a summary typed as its component
    could not be sent as a hand's body."""
    if isinstance(node, list):
        return [_without_absent_members(item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {}
    alternatives = node.get("anyOf")
    if alternatives and all(set(option) == {"required"} for option in alternatives):
        # "one of these members" (a Maumau summary's ``remaining`` or ``minus``): generators read
        # such alternatives as untyped (TypeScript: the whole object ``unknown``); said in words.
        named = " or ".join(f"`{option['required'][0]}`" for option in alternatives)
        node = {key: value for key, value in node.items() if key != "anyOf"}
        node["description"] = " ".join(filter(None, [node.get("description"), f"At least one of {named}."]))
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            result[key] = {name: _without_absent_members(member) for name, member in value.items()
                           if not _is_null(member)}
        else:
            result[key] = _without_absent_members(value)
    return result


def component_name(game: str, body: str) -> str:
    return f"{COMPONENT_NAMES[game]}{BODY_NAMES[body]}Record"


def openapi_components() -> dict[str, dict]:
    """The record format as named OpenAPI 3.1 components: ``MuFullRecord``, ``MuSummaryRecord``, ...,
    ``LutSummaryRecord``; per game ``MuRecord`` (either body: ``summary`` or the full record's
    members), and ``HandRecord``, any game, told apart by the discriminator ``game``."""
    components: dict[str, dict] = {}
    for game in _BODIES:
        for body in TITLES:
            schema = _without_absent_members(_any_count(game, body))
            schema["description"] = (f"{GAMES[game].name}, {TITLES[body]} (records.md), for any player count. The exact "
                                     f"schema per player count: `/api/v1/records/schema/{game}-{body}.json`.")
            components[component_name(game, body)] = schema
    for game in _BODIES:
        components[f"{COMPONENT_NAMES[game]}Record"] = {
            "description": f"{GAMES[game].name}: a full or a summary record.",
            "oneOf": [{"$ref": f"#/components/schemas/{component_name(game, body)}"} for body in TITLES],
        }
    components["HandRecord"] = {
        "description": "A hand record of any game (records.md), by `game`: a full or a summary record. Unknown "
                       "members are allowed; the engine judges the rules (422).",
        "oneOf": [{"$ref": f"#/components/schemas/{COMPONENT_NAMES[game]}Record"} for game in _BODIES],
        "discriminator": {"propertyName": "game", "mapping": {
            game: f"#/components/schemas/{COMPONENT_NAMES[game]}Record" for game in _BODIES}},
    }
    return components
