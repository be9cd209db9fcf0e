"""The error vocabulary: one enumeration of codes, every code the engine raises in it and
documented, the split between malformed records and moves against the rules, old names kept."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from games.rules import Code, IllegalMove, MalformedRecord, RecordError, validate
from games.rules.errors import ALIASES, ILLEGAL, MALFORMED, markdown_table

from tests.sources import parse

ROOT = Path(__file__).resolve().parents[2]
# every module that raises RecordError: the engine and the service that checks a record's slot
RAISING = [*sorted((ROOT / "games" / "rules").glob("*.py")), ROOT / "tournaments" / "results" / "services.py"]


def codes_used(path: Path) -> set[str]:
    """The ``Code.X`` names a module uses; a RecordError built from a bare string would escape this
    scan, so that is refused too."""
    used = set()
    for node in ast.walk(parse(path.read_text())):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Code":
            used.add(node.attr)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("RecordError", "MalformedRecord", "IllegalMove"):
            first = node.args[0] if node.args else None
            assert not isinstance(first, ast.Constant), f"{path.name}:{node.lineno}: use a Code member"
    return used


def test_every_code_the_engine_raises_is_in_the_enumeration_and_every_member_is_used():
    used = set().union(*(codes_used(path) for path in RAISING))
    assert used - set(Code.__members__) == set()
    assert set(Code.__members__) - used == set()


def test_every_code_is_documented_with_its_kind():
    for code in Code:
        assert code.kind in (MALFORMED, ILLEGAL)
        assert len(code.description) > 10
        assert code.value == code.name.lower()


def test_readme_lists_every_code_as_the_enumeration_generates_it():
    readme = (ROOT / "README.md").read_text()
    table = re.search(r"<!-- error codes: .*? -->\n(.*?)\n<!-- end of error codes -->", readme, re.S).group(1)
    assert table == markdown_table()
    for code in Code:
        assert f"| `{code}` |" in table


def test_merged_codes_keep_their_former_names_as_aliases():
    assert Code("too_many_copies") is Code.DUPLICATE_CARD
    assert Code("game_not_over") is Code.NOT_ENDED
    assert Code("auction_not_ended") is Code.NOT_ENDED
    assert set(ALIASES) == {"too_many_copies", "game_not_over", "auction_not_ended"}
    # an error built from a former name carries the current one
    assert RecordError("game_not_over", "stops early", "/events").code is Code.NOT_ENDED
    with pytest.raises(ValueError):
        RecordError("no_such_code", "?", "")


@pytest.mark.parametrize("record, kind", [
    ({"game": "mu", "players": "4", "dealer": 0}, MalformedRecord),
    ({"game": "maumau", "players": 2, "dealer": 0, "summary": {"minus": [1, 2]}}, IllegalMove),
    ([], MalformedRecord),
])
def test_malformed_records_and_moves_against_the_rules_are_told_apart(record, kind):
    with pytest.raises(kind) as info:
        validate(record)
    error = info.value
    assert isinstance(error, RecordError)
    assert error.kind == (MALFORMED if kind is MalformedRecord else ILLEGAL)
    assert type(error.as_dict()["code"]) is str
    assert type(error.prefixed("/records/0")) is kind


def test_the_command_line_prints_only_codes_of_the_enumeration(tmp_path, capsys):
    import json

    from games.rules.__main__ import main

    not_json = tmp_path / "not.json"
    not_json.write_text("{unfinished")
    rejected = tmp_path / "rejected.json"
    rejected.write_text(json.dumps({"game": "mu", "players": 9, "dealer": 0}))
    accepted = tmp_path / "accepted.json"
    accepted.write_text(json.dumps({"game": "mu", "players": 4, "dealer": 0, "summary": {"bids": [0, 0, 0, 0]}}))
    assert main([str(accepted), str(rejected), str(not_json)]) == 2
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["ok"] for line in lines] == [True, False, False]
    assert Code(lines[1]["error"]["code"]) is Code.OUT_OF_RANGE
    assert "error" not in lines[2] and lines[2]["unreadable"]
    assert main([str(rejected)]) == 1
