"""The engine's errors in German, English and Finnish (games/messages.py): every code has a
sentence in each language with every placeholder filled, from real errors of the engine."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.utils import translation

from games.messages import CATALOGUE, localize, message, placeholders
from games.rules import Code, RecordError, validate

ROOT = Path(__file__).resolve().parents[2]
ENGINE_TESTS = ["tests/engine/test_mu.py", "tests/engine/test_maumau.py", "tests/engine/test_lut.py",
                "tests/engine/test_errors.py", "tests/engine/test_records_md_decisions.py",
                "tests/engine/test_lut_properties.py"]
NAMES = ["Anna", "Beate", "Conny", "Dagmar", "Emma", "Frida"]
LANGUAGES = ["en", "de", "fi"]
# Words of the English sentences that neither German nor Finnish uses.
ENGLISH = re.compile(r"\b(the|must|does|seat|trick|which|this|holds|plays|not|cards|colour|colours|missing|"
                     r"player|deal|bid|wish)\b")


def _rejected(record) -> RecordError:
    with pytest.raises(RecordError) as info:
        validate(record)
    return info.value


def _lut_summary(stacks: list[dict]) -> dict:
    return {"game": "lut", "players": len(stacks), "dealer": 0, "summary": {"stacks": stacks}}


# Codes the engine's tests do not reach: real errors made here.
def _extra() -> list[RecordError]:
    wish_without_jack = {"game": "maumau", "players": 3, "dealer": 0, "summary": {
        "remaining": [[], ["JC", "JC", "JH", "JH", "JD", "JD"], ["7H"]], "wish": "S"}}
    return [_rejected({"game": "chess", "players": 4, "dealer": 0}), _rejected(wish_without_jack)]


@pytest.fixture(scope="module")
def errors(tmp_path_factory) -> list[RecordError]:
    """The errors the engine raised while its tests ran (a plugin keeps them, tests/messages/harvest.py)."""
    target = tmp_path_factory.mktemp("harvest") / "errors.jsonl"
    environment = {**os.environ, "HARVEST_TO": str(target)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-p", "no:django",
         "-p", "tests.messages.harvest", "-k", "not validate_and_conserve and not every_special_case", *ENGINE_TESTS],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    found = []
    for line in target.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        found.append(RecordError(item["code"], item["message"], item["path"], item["params"]))
    return found + _extra()


def test_every_code_is_in_the_catalogue_with_a_last_sentence_that_needs_only_the_place():
    assert set(CATALOGUE) == set(Code)
    for code, templates in CATALOGUE.items():
        assert placeholders(templates[-1]) <= {"where"}, code


def test_every_code_has_a_real_error_with_a_filled_sentence_in_each_language(errors):
    assert {error.code for error in errors} == set(Code)
    for error in errors:
        for names in (NAMES[:6], None):
            english = None
            for language in LANGUAGES:
                with translation.override(language):
                    text = localize(error, names)
                assert text and "%(" not in text and "%" not in text.replace("%%", ""), (language, text)
                assert "rules/" not in text and "§" not in text, text
                if language == "en":
                    english = text
                else:
                    assert text != english, (language, error.code, text)
                    assert not ENGLISH.search(text.lower()), (language, error.code, text)


def test_the_sentence_names_the_seat_from_one_and_the_player_where_known():
    """Mit List und Tücke, the fourth player (seat 3 in the record) with four open colours."""
    stack = {"B": 3, "G": 3, "R": 2, "Y": 2, "discarded": 0}
    others = {"B": 3, "G": 3, "discarded": 0}
    error = _rejected(_lut_summary([others, others, others, stack]))
    assert (error.code, error.path, error.params) == (Code.TOO_MANY_COLOURS, "/summary/stacks/3", {"seat": 3})
    expected = {"en": "seat 4", "de": "Sitz 4", "fi": "paikka 4"}
    for language in LANGUAGES:
        with translation.override(language):
            assert "Dagmar" in localize(error, NAMES[:4])
            assert expected[language] in localize(error).lower().replace("sitz", "Sitz"), localize(error)
            assert "3" not in localize(error, NAMES[:4])


def test_cards_colours_and_the_place_in_the_readers_language():
    error = RecordError(Code.TRUMP_TAKEN, "the Chef may not choose yellow (Y): the Vize chose it (rules/mu.md §4)",
                        "/summary/chef_trump", {"seat": 1, "vice": 3, "trump": "Y"})
    with translation.override("de"):
        assert localize(error, NAMES[:5]) == "Der Chef (Beate) darf Gelb nicht wählen: der Vize (Dagmar) hat es gewählt."
    with translation.override("en"):
        assert localize(error) == "The Chef (seat 2) may not choose yellow: the Vize (seat 4) chose it."
    with translation.override("de"):
        assert "Kartenpunkte, Dagmar" in message(Code.MISSING_MEMBER, "/summary/card_points/3", {}, NAMES[:5])
        assert "10♦" in message(Code.CARD_NOT_HELD, "/events/3/play", {"seat": 0, "card": "TD"})
        assert "B♣" in message(Code.CARD_NOT_HELD, "/events/3/play", {"seat": 0, "card": "JC"})
