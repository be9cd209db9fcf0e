"""The tournament layer's error vocabulary (``tournaments.errors.Error``): every code raised is a
member raised with the class of its kind, every member is answered somewhere, the one handler
answers with the code's status, and README shows the table the enumeration generates."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from games.refusals import Reason, Unreadable
from games.rules import Code
from tournaments.errors import ALIASES, CLASS_KINDS, Error, ImportCode, Kind, readme_with_tables

from tests import openapi_check
from tests.sources import parse_files

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [path for folder in ("tournaments", "ratings", "stich", "games")
           for path in sorted((ROOT / folder).rglob("*.py")) if "migrations" not in path.parts]
CLASSES = {cls.__name__: cls for cls in CLASS_KINDS}
# Codes DRF itself answers with (the handler keeps them): checked over HTTP below.
FROM_DRF = {Error.PARSE_ERROR, Error.AUTHENTICATION_FAILED, Error.METHOD_NOT_ALLOWED, Error.NOT_ACCEPTABLE,
            Error.UNSUPPORTED_MEDIA_TYPE, Error.THROTTLED, Error.TOO_DEEP, Error.TOO_LARGE}


def raises():
    """(where, class name, code member name or None) of every domain error built in the sources."""
    for path, tree in parse_files(SOURCES).items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in CLASSES:
                code = next((k.value for k in node.keywords if k.arg == "code"), None)
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                if isinstance(code, ast.Constant):
                    pytest.fail(f"{where}: a free string code {code.value!r}; use an Error member")
                name = code.attr if isinstance(code, ast.Attribute) else None
                yield where, node.func.id, name


def members_used() -> set[str]:
    used = set()
    for path, tree in parse_files(SOURCES).items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Error":
                used.add(node.attr)
    return used


def test_every_code_is_raised_with_the_class_of_its_kind():
    found = list(raises())
    assert len(found) > 40
    for where, cls, name in found:
        code = Error[name] if name else CLASSES[cls].code
        assert code.kind is CLASS_KINDS[CLASSES[cls]], f"{where}: {cls} raised with {code} ({code.kind.name})"


def test_every_member_is_answered_somewhere_and_documented():
    used = members_used()
    for code in Error:
        assert code.name in used or code in FROM_DRF or code is Error.CONFLICT, f"{code} is never answered"
        assert code.value == code.name.lower() and len(code.description) > 10
        assert code.status == code.kind.status
    assert CLASS_KINDS and all(cls.code.kind is kind for cls, kind in CLASS_KINDS.items())


def test_hand_taken_lost_its_second_meaning():
    assert Error("hand_taken") is Error.HAND_TAKEN
    assert ALIASES == {"hand_taken": Error.NOT_NEXT_HAND}
    assert Error.NOT_NEXT_HAND.status == Error.HAND_TAKEN.status == 409


def test_readme_shows_both_tables_as_the_enumerations_generate_them():
    readme = (ROOT / "README.md").read_text()
    assert readme_with_tables(readme) == readme, "run python -m tournaments.errors --readme"
    table = re.search(r"<!-- domain error codes: .*? -->\n(.*?)\n<!-- end of domain error codes -->", readme, re.S)
    for code in Error:
        assert f"| `{code}` | {code.status} |" in table.group(1)


@pytest.mark.django_db
def test_the_handler_answers_each_kind_with_its_status():
    from rest_framework.test import APIRequestFactory

    from stich.errors import json_exception_handler
    from tournaments.errors import Conflict, Invalid, NotAllowed, NotAuthenticated, NotFound, RecordRejected

    request = APIRequestFactory().get("/api/v1/")
    for error in (Invalid("x", code=Error.DUPLICATE, field="name"), NotAuthenticated("x"), NotAllowed("x"),
                  NotFound("x", code=Error.NO_MONEY), Conflict("x", code=Error.HAS_RESULTS),
                  RecordRejected("wrong_dealer", "x", "/dealer")):
        response = json_exception_handler(error, {"request": request})
        assert response.status_code == (Kind.REJECTED.status if isinstance(error, RecordRejected) else error.code.status)
        assert response.data["code"] == str(error.code)


@pytest.mark.django_db
def test_codes_drf_answers_with_are_members(client, django_user_model):
    """The codes the API answers before a view runs (DRF's) are in the enumeration with their
    statuses, and the dry run's refusal and the schema's 404 come through the one handler."""
    answers = [
        client.post("/api/v1/clubs/", "{not json", content_type="application/json",
                    HTTP_AUTHORIZATION="Token not-a-token"),
        client.post("/api/v1/records/validate", "{not json", content_type="application/json"),
        client.delete("/api/v1/records/validate"),
        client.post("/api/v1/records/validate", "a=1", content_type="text/plain"),
        client.get("/api/v1/clubs/", HTTP_ACCEPT="application/x-unknown"),
        client.post("/api/v1/records/validate", {"game": "chess"}, content_type="application/json"),
        client.get("/api/v1/records/schema/nothing.json"),
    ]
    codes = [(response.status_code, response.json()["code"]) for response in answers[:4]]
    assert codes == [(401, "authentication_failed"), (400, "parse_error"), (405, "method_not_allowed"),
                     (415, "unsupported_media_type")]
    for status, code in codes:
        assert Error(code).status == status
    assert answers[4].status_code == 406 and Error.NOT_ACCEPTABLE.status == 406
    assert answers[5].status_code == 422 and answers[5].json()["code"] == "unknown_game"
    assert answers[6].status_code == 404 and answers[6].json()["code"] == "not_found"


def test_the_readers_reasons_are_members_with_their_statuses():
    """``Error``'s body codes are defined from ``games.refusals.Reason``: the same spelling, the same
    status, so the handler can answer any reason as its member."""
    assert len(Reason) >= 4
    for reason in Reason:
        assert Error(reason) is Error[reason.name], reason
        assert Error(reason).status == reason.status, reason


def test_the_description_enumerates_every_code_answered_in_the_error_shape(db):
    """``Error.code`` is the ``ErrorCode`` enumeration: exactly the codes of ``Error`` and the reader's
    ``Reason``; ``RecordError.code`` stays the engine's codes (no ``bad_text``, nothing of the
    import's)."""
    schemas = openapi_check.served_schema()["components"]["schemas"]
    assert schemas["Error"]["properties"]["code"] == {"$ref": "#/components/schemas/ErrorCode"}
    enum = schemas["ErrorCode"]["enum"]
    assert len(enum) == len(set(enum))
    assert set(enum) == {str(code) for code in Error} | {str(reason) for reason in Reason}
    assert not set(enum) & {str(code) for code in ImportCode}
    assert schemas["RecordError"]["properties"]["code"] == {"$ref": "#/components/schemas/RecordErrorCode"}
    assert set(schemas["RecordErrorCode"]["enum"]) == {str(code) for code in Code}
    assert "bad_text" not in schemas["RecordErrorCode"]["enum"]


def test_every_error_answer_of_the_description_is_json_in_its_shape(db):
    """An error status of any operation is answered as JSON: ``RecordError`` for 422, ``Error``
    otherwise (a CSV or JSON Lines read included)."""
    refs = {"422": "#/components/schemas/RecordError"}
    for path, operations in openapi_check.served_schema()["paths"].items():
        for method, operation in operations.items():
            for status, answer in operation["responses"].items():
                if status >= "400":
                    expected = {"application/json": refs.get(status, "#/components/schemas/Error")}
                    found = {media: content["schema"].get("$ref") for media, content in answer["content"].items()}
                    assert found == expected, (method, path, status)


def test_every_api_module_documents_errors_with_the_one_helper():
    """No ``extend_schema(responses=...)`` names an error status itself: ``games.openapi.error_responses``
    gives each its description and shape."""
    found = []
    for path, tree in parse_files(SOURCES).items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.keyword) and node.arg == "responses" and isinstance(node.value, ast.Dict)):
                continue
            for key in node.value.keys:
                status = key.elts[0] if isinstance(key, ast.Tuple) else key
                if isinstance(status, ast.Constant) and isinstance(status.value, int):
                    found.append(status.value)
                    assert status.value < 400, f"{path.relative_to(ROOT)}:{key.lineno}: use games.openapi.error_responses"
    assert 200 in found and 201 in found  # the walk sees the decorators


@pytest.mark.django_db
def test_text_the_database_cannot_store_is_400_with_its_path_from_any_layer():
    """Bad text is 400 ``bad_text`` with ``path`` in the ``Error`` shape: from the reader
    (``Unreadable``) and from a service handed a record directly (``RecordRejected``), never 422."""
    from rest_framework.test import APIRequestFactory

    from stich.errors import json_exception_handler
    from tournaments.errors import RecordRejected

    request = APIRequestFactory().get("/api/v1/")
    for error in (Unreadable(Reason.BAD_TEXT, "x", "/note/1"), RecordRejected(Error.BAD_TEXT, "x", "/note/1")):
        response = json_exception_handler(error, {"request": request})
        assert response.status_code == 400
        assert response.data == {"code": "bad_text", "message": "x", "path": "/note/1"}
    for reason in Reason:
        response = json_exception_handler(Unreadable(reason), {"request": request})
        assert (response.status_code, response.data["code"]) == (Error(reason).status, str(reason))
        assert ("path" in response.data) is (reason is Reason.BAD_TEXT)
