"""A seating script: the tables of every round written down in advance (MahjongPantheon's
manual seating), read and checked here as plain text.

One line per table per round: the round's number, the table's number, then the players by
their number in the event, separated by commas, semicolons, tabs or spaces (what a spreadsheet
saves as CSV in any locale, or typed by hand)::

    # round, table, players in seat order
    1, 1, 1, 2, 3, 4
    1, 2, 5, 6, 7, 8
    2; 1; 1; 5; 9; 13

Blank lines and lines starting with ``#`` are skipped, and so is a first line that names its
columns (``round;table;players``). ``read_script`` checks each line against the players'
numbers and the table sizes the game plays, and reports one error per line (the first that
line has): a field that is not a number, a line without players, a table of a size the game
cannot play, a number that is no player's, a player seated twice in one round, a table number
used twice in one round. A script with any error is refused whole.
"""
from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

SEPARATORS = re.compile(r"[\s,;:|]+")

# The codes of the line errors, with the facts each one names (``ScriptError.params``).
NOT_A_NUMBER = "not_a_number"      # value
TOO_SHORT = "too_short"            # -
BAD_SIZE = "bad_size"              # size, allowed
UNKNOWN_NUMBER = "unknown_number"  # number
SEATED_TWICE = "seated_twice"      # number, round, other_line
TABLE_TWICE = "table_twice"        # table, round, other_line
EMPTY = "empty"                    # - (line 0: the script has no table at all)


@dataclass(frozen=True)
class ScriptError:
    """What is wrong with one line (``line`` counted from 1; 0 for the script as a whole)."""

    line: int
    code: str
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ScriptTable:
    line: int
    round: int
    table: int
    numbers: tuple[int, ...]


def _is_header(fields: list[str]) -> bool:
    return bool(fields) and not fields[0].isdigit() and any(c.isalpha() for c in fields[0])


def read_script(text: str, numbers: Collection[int], allowed: Collection[int]
                ) -> tuple[dict[int, list[ScriptTable]], list[ScriptError]]:
    """The script's tables per round (in table order) and its errors (one per faulty line, in
    line order). ``numbers``: the players' numbers in the event; ``allowed``: the table sizes
    the game plays. The tables are to be used only when there is no error."""
    errors: list[ScriptError] = []
    rounds: dict[int, list[ScriptTable]] = {}
    seated: dict[tuple[int, int], int] = {}   # (round, number) -> line
    tables: dict[tuple[int, int], int] = {}   # (round, table) -> line
    known, sizes = set(numbers), set(allowed)
    first = True
    for index, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip().lstrip("\ufeff")
        if not line or line.startswith("#"):
            continue
        fields = [f for f in SEPARATORS.split(line) if f]
        if first and _is_header(fields):
            first = False
            continue
        first = False
        bad = next((f for f in fields if not (f.isascii() and f.isdigit() and int(f) > 0)), None)
        if bad is not None:
            errors.append(ScriptError(index, NOT_A_NUMBER, {"value": bad[:20]}))
            continue
        values = [int(f) for f in fields]
        if len(values) < 3:
            errors.append(ScriptError(index, TOO_SHORT))
            continue
        round_, table, players = values[0], values[1], tuple(values[2:])
        if len(players) not in sizes:
            errors.append(ScriptError(index, BAD_SIZE, {"size": len(players), "allowed": sorted(sizes)}))
            continue
        unknown = next((n for n in players if n not in known), None)
        if unknown is not None:
            errors.append(ScriptError(index, UNKNOWN_NUMBER, {"number": unknown}))
            continue
        twice = None
        for position, number in enumerate(players):
            if number in players[:position]:
                twice = (number, index)
                break
            if (round_, number) in seated:
                twice = (number, seated[(round_, number)])
                break
        if twice is not None:
            errors.append(ScriptError(index, SEATED_TWICE, {"number": twice[0], "round": round_,
                                                            "other_line": twice[1]}))
            continue
        if (round_, table) in tables:
            errors.append(ScriptError(index, TABLE_TWICE, {"table": table, "round": round_,
                                                           "other_line": tables[(round_, table)]}))
            continue
        tables[(round_, table)] = index
        for number in players:
            seated[(round_, number)] = index
        rounds.setdefault(round_, []).append(ScriptTable(index, round_, table, players))
    if not rounds and not errors:
        errors.append(ScriptError(0, EMPTY))
    return {r: sorted(t, key=lambda s: s.table) for r, t in sorted(rounds.items())}, errors
