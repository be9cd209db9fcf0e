"""The JSON reader (games/parsers.py) refuses with a typed reason, ``games.refusals.Reason``,
carried by one exception, ``Unreadable``: never DRF's exceptions with a code string. The handler
above (stich/errors.py) turns the reason into the answer; nothing below it spells a code."""
from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
from django.conf import settings
from rest_framework.exceptions import APIException

from games.parsers import MAX_DEPTH, JSONParser, read_json
from games.refusals import Reason, Unreadable

from tests.sources import parse_files

ROOT = Path(__file__).resolve().parents[2]
BODIES = [
    (b'{"game": "mu",', Reason.PARSE_ERROR),
    (b'{"x": NaN}', Reason.PARSE_ERROR),
    (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), Reason.TOO_DEEP),
    (b"[" * 5000 + b"]" * 5000, Reason.TOO_DEEP),
    (b'{"note": "\\u0000"}', Reason.BAD_TEXT),
]


@pytest.mark.parametrize("body, reason", BODIES)
def test_the_parser_and_the_reader_raise_the_reason(body, reason):
    for read in (lambda: JSONParser().parse(io.BytesIO(body), "application/json", {}), lambda: read_json(body)):
        with pytest.raises(Unreadable) as refused:
            read()
        assert refused.value.reason is reason
        assert not isinstance(refused.value, APIException)  # the handler maps it, not DRF
        assert refused.value.message


def test_a_body_over_the_limit_is_the_reason_too_large():
    with pytest.raises(Unreadable) as refused:
        JSONParser().parse(io.BytesIO(b"0" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)), "application/json", {})
    assert refused.value.reason is Reason.TOO_LARGE and refused.value.status_code == 413


def test_bad_text_names_its_pointer():
    with pytest.raises(Unreadable) as refused:
        read_json('{"a": ["ok", "\\ud800"]}')
    assert (refused.value.reason, refused.value.path) == (Reason.BAD_TEXT, "/a/1")


def test_nothing_below_the_handler_refuses_with_a_code_string():
    """Every ``Unreadable`` and every import ``Rejection`` in the sources is built with a member of an
    enumeration (an attribute such as ``Reason.TOO_DEEP``, or a member carried by another
    exception), never a string literal; games/parsers.py defines no DRF code of its own."""
    built = 0
    for folder in ("games", "tournaments", "ratings"):
        for path, tree in parse_files(sorted((ROOT / folder).rglob("*.py"))).items():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("Unreadable", "Rejection"):
                    code = node.args[0 if node.func.id == "Unreadable" else 1]
                    built += 1
                    assert not isinstance(code, ast.Constant), f"{path.relative_to(ROOT)}:{node.lineno}: {code.value!r}"
    assert built >= 8
    parser = (ROOT / "games" / "parsers.py").read_text()
    assert "default_code" not in parser and "APIException" not in parser
