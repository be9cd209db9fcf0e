"""Checks shared by the three games' engines: strict JSON types, the two bodies, ``claimed``.

The validation conventions of ``../shared/records.md`` decide which pointer an error gets; the
helpers here implement the parts every game shares so that each rule lives in one place.
"""
from __future__ import annotations

from typing import Any, Iterable

from .errors import Code, RecordError


def escape(token: str | int) -> str:
    """One JSON Pointer reference token (RFC 6901 §3: ``~`` → ``~0``, ``/`` → ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def is_int(value: Any) -> bool:
    """A JSON integer: not a boolean, not ``4.0`` (records.md: types are strict)."""
    return type(value) is int


def require_int(record: dict, key: str, path: str, low: int, high: int, what: str) -> int:
    """The member ``key`` of ``record`` (at ``path``): a JSON integer between ``low`` and ``high``."""
    value = record.get(key)
    if type(value) is int and low <= value <= high:
        return value
    return check_int(value, f"{path}/{key}", low, high, what)


def check_int(value: Any, path: str, low: int, high: int, what: str) -> int:
    """A required JSON integer between ``low`` and ``high``; ``path`` points at it."""
    if value is None:
        raise RecordError(Code.MISSING_MEMBER, f"{what} is required", path)
    if not is_int(value):
        raise RecordError(Code.BAD_TYPE, f"{what} must be a JSON integer, got {value!r}", path)
    if not low <= value <= high:
        raise RecordError(Code.OUT_OF_RANGE, f"{what} must be between {low} and {high}, got {value}", path)
    return value


def require_list(value: Any, path: str, what: str) -> list:
    if value is None:
        raise RecordError(Code.MISSING_MEMBER, f"{what} is required", path)
    if not isinstance(value, list):
        raise RecordError(Code.BAD_TYPE, f"{what} must be a JSON array", path)
    return value


def require_length(value: list, length: int, path: str, what: str, code: Code = Code.BAD_LENGTH) -> None:
    if len(value) != length:
        raise RecordError(code, f"{what} must have {length} elements, got {len(value)}", path,
                          {"due": length, "got": len(value)})


def require_int_list(value: Any, length: int, path: str, what: str, each: str, low: int, high: int | None) -> list:
    """A list of ``length`` JSON integers between ``low`` and ``high`` (``None``: no upper bound),
    e.g. the bids or card points of a summary; ``each`` names one element in messages."""
    require_list(value, path, what)
    require_length(value, length, path, what)
    for index, number in enumerate(value):
        if not is_int(number):
            raise RecordError(Code.BAD_TYPE, f"{each.format(index)} must be a JSON integer, got {number!r}", f"{path}/{index}")
        if number < low or (high is not None and number > high):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise RecordError(Code.OUT_OF_RANGE, f"{each.format(index)} must be {bound}, got {number}", f"{path}/{index}")
    return value


def require_object(value: Any, path: str, what: str) -> dict:
    if value is None:
        raise RecordError(Code.MISSING_MEMBER, f"{what} is required", path)
    if not isinstance(value, dict):
        raise RecordError(Code.BAD_TYPE, f"{what} must be a JSON object", path)
    return value


def body_kind(record: dict, full_members: Iterable[str]) -> str:
    """``"full"`` or ``"summary"``; records.md: exactly one body.

    A record with both bodies is rejected at its first full-body member; with neither at ``""``.
    """
    get = record.get
    full = [key for key in full_members if get(key) is not None]
    summary = get("summary") is not None
    if full and summary:
        raise RecordError(Code.BOTH_BODIES, "a record has either a full body or a summary, not both", "/" + escape(full[0]))
    if summary:
        return "summary"
    if full:
        return "full"
    raise RecordError(Code.NO_BODY, "a record needs a full body or a summary", "")


def check_claimed(record: dict, answer: dict) -> dict:
    """Every member of ``claimed`` that is given must equal the computed one (records.md)."""
    claimed = record.get("claimed")
    if claimed is None:
        return answer
    if not isinstance(claimed, dict):
        raise RecordError(Code.BAD_TYPE, "claimed must be a JSON object", "/claimed")
    for key, value in claimed.items():
        if value is None or key not in answer:
            continue
        if not _same_json(value, answer[key]):
            raise RecordError(
                Code.CLAIMED_MISMATCH,
                f"the table wrote {key} = {value!r}, the rules give {answer[key]!r}",
                "/claimed/" + escape(key),
            )
    return answer


def _same_json(a: Any, b: Any) -> bool:
    """Equality as JSON values: ``True`` is not ``1`` and ``1.0`` is not ``1``."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return type(a) is type(b) and a == b
    return a == b
