"""Assertions the engine tests share: a record is rejected, with which code and pointer."""
from __future__ import annotations

import pytest

from games.rules import RecordError, validate


def rejected(record: dict) -> RecordError:
    """The engine's error for ``record`` (the test fails if the record is accepted)."""
    with pytest.raises(RecordError) as info:
        validate(record)
    return info.value


def rejection(record: dict) -> tuple[str, str]:
    """``(code, path)`` of the engine's error for ``record``."""
    error = rejected(record)
    return error.code, error.path


def assert_rejected(record: dict, code: str, path: str) -> None:
    error = rejected(record)
    assert (error.code, error.path) == (code, path), error.message
    assert error.message
