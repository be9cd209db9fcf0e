"""The pages' languages: every message of each catalogue translated and compiled; Finnish pages."""
from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")


def catalogue(language: str) -> list[dict]:
    """The entries of ``locale/<language>/LC_MESSAGES/django.po`` (obsolete ones left out): context,
    msgid, plural, the translations by index and the flags."""
    entries, entry, key = [], None, None
    lines = (LOCALE / language / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8").splitlines() + [""]
    for line in lines:
        if not line.strip():
            if entry is not None and "id" in entry:
                entries.append(entry)
            entry = None
            continue
        if entry is None:
            entry = {"ctx": None, "plural": None, "strs": {}, "flags": []}
        if line.startswith("#~"):
            entry["obsolete"] = True
        elif line.startswith("#,"):
            entry["flags"] += [flag.strip() for flag in line[2:].split(",")]
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            value = ast.literal_eval(line)
            if isinstance(key, int):
                entry["strs"][key] += value
            else:
                entry[key] += value
        else:
            word, literal = line.split(" ", 1)
            value = ast.literal_eval(literal)
            if word.startswith("msgstr"):
                key = int(word[7:-1]) if "[" in word else 0
                entry["strs"][key] = value
            else:
                key = {"msgctxt": "ctx", "msgid": "id", "msgid_plural": "plural"}[word]
                entry[key] = value
    return [e for e in entries if e["id"] and not e.get("obsolete")]


@pytest.mark.parametrize("language", ["de", "fi"])
def test_every_message_is_translated_and_compiled(language):
    entries = catalogue(language)
    assert len(entries) > 300
    compiled = gettext.GNUTranslations((LOCALE / language / "LC_MESSAGES" / "django.mo").open("rb"))
    for entry in entries:
        label = (entry["ctx"], entry["id"])
        assert "fuzzy" not in entry["flags"], label
        assert entry["strs"] and all(entry["strs"].values()), label
        wanted = set(PLACEHOLDER.findall(entry["id"] + (entry["plural"] or "")))
        for text in entry["strs"].values():
            assert set(PLACEHOLDER.findall(text)) <= wanted, label
        # The committed .mo is the compiled .po (compilemessages was run after the last change).
        key = f"{entry['ctx']}\x04{entry['id']}" if entry["ctx"] else entry["id"]
        if entry["plural"] is None:
            assert compiled._catalog.get(key) == entry["strs"][0], label
        else:
            assert [compiled._catalog.get((key, n)) for n in sorted(entry["strs"])] == \
                [entry["strs"][n] for n in sorted(entry["strs"])], label


def test_the_catalogues_hold_the_same_messages():
    def keys(language):
        return {(e["ctx"], e["id"]) for e in catalogue(language)}

    assert keys("fi") == keys("de")


def test_three_languages_are_offered():
    assert [code for code, _ in settings.LANGUAGES] == ["en", "de", "fi"]


@pytest.mark.django_db
def test_finnish_pages(client, demo):
    event = demo["mu"]
    html = client.get(f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="fi-FI,fi;q=0.9,en;q=0.5").content.decode()
    assert '<html lang="fi">' in html
    for text in ("Tilanne", "Kierros 1", "Pöytä 1", "Pelaaja", "Sijoituspisteet"):
        assert text in html, text
    assert "Standings" not in html and "Round 1" not in html
    # The language switch offers all three, the current one chosen.
    assert re.search(r'<option value="fi" lang="fi" selected>Suomi</option>', html)
    assert '<option value="de" lang="de">Deutsch</option>' in html and '<option value="en" lang="en">English</option>' in html
    board = client.get("/leaderboard/mu/", HTTP_ACCEPT_LANGUAGE="fi").content.decode()
    assert "Rankinglista Mü" in board and "Vahvuusluku" in board
    # Choosing Finnish with the switch sticks for the next page.
    response = client.post(_set_language_url(), {"language": "fi", "next": "/"})
    assert response.status_code == 302
    assert '<html lang="fi">' in client.get("/").content.decode()


def _set_language_url() -> str:
    from django.urls import reverse

    return reverse("pages:set_language")


@pytest.mark.django_db
def test_the_sheet_names_mu_colours_in_the_readers_language(client, demo):
    from tournaments.models import Table

    table = Table.objects.filter(round__event=demo["mu"]).first()
    labels = {}
    for language in ("en", "de", "fi"):
        html = client.get(f"/t/{table.scorer_token}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        labels[language] = re.findall(
            r'<input type="radio" name="chef_trump" value="(\w)" aria-label="([^"]+)"><span aria-hidden="true">([^<]+)</span>', html)
    assert [code for code, _, _ in labels["de"]] == ["R", "Y", "G", "B", "K"]
    assert [short for _, _, short in labels["en"]] == ["R", "Y", "G", "B", "K"]
    assert [(name, short) for _, name, short in labels["de"]] == [
        ("rot", "R"), ("gelb", "Ge"), ("grün", "Gr"), ("blau", "B"), ("schwarz", "S")]
    assert [(name, short) for _, name, short in labels["fi"]] == [
        ("punainen", "P"), ("keltainen", "K"), ("vihreä", "V"), ("sininen", "S"), ("musta", "M")]
    # Each language's initials tell the colours apart.
    for found in labels.values():
        assert len({short for _, _, short in found}) == 5


@pytest.mark.django_db
def test_dates_and_money_in_the_readers_locale(client, demo):
    import datetime

    from tournaments.models import Event

    event = demo["maumau"]
    Event.objects.filter(pk=event.pk).update(starts_on=datetime.date(2026, 11, 5))
    pages = {language: client.get(f"/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
             for language in ("en-GB,en;q=0.9", "en-US,en;q=0.9", "de-DE", "fi-FI")}
    for english in ("en-GB,en;q=0.9", "en-US,en;q=0.9"):
        assert "05/11/2026" in pages[english] and "11/05/2026" not in pages[english]  # day first
    assert "05.11.2026" in pages["de-DE"] and "5.11.2026" in pages["fi-FI"]
    euros = re.findall(r'<td class="num money[^"]*" data-cents="(-?\d+)">([^<]+)</td>', pages["fi-FI"])
    assert euros
    for cents, text in euros:
        value = abs(int(cents))
        assert f"{value // 100},{value % 100:02d}\u00a0€" in text, (cents, text)
    english = re.findall(r'<td class="num money[^"]*" data-cents="(-?\d+)">([^<]+)</td>', pages["en-GB,en;q=0.9"])
    assert english and all(f"{abs(int(c)) // 100}.{abs(int(c)) % 100:02d}" in text for c, text in english)


@pytest.mark.django_db
def test_the_sheet_speaks_of_each_games_own_hands(client, demo):
    from tournaments.models import Event, Table

    Event.objects.filter(pk__in=[event.pk for event in demo.values()]).update(confirm_hands=True)  # who enters
    words = {"mu": ("Enter hand", "Who enters this hand?"), "maumau": ("Enter game", "Who enters this game?"),
             "lut": ("Enter round", "Who enters this round?")}
    for game, (enter, who) in words.items():
        table = Table.objects.filter(round__event=demo[game]).first()
        html = client.get(f"/t/{table.scorer_token}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert f'id="enter-hand">{enter}</button>' in html and f"<legend>{who}</legend>" in html, game
        others = {w for g, pair in words.items() if g != game for w in pair}
        assert not any(f">{w}<" in html for w in others), game
    lut = Table.objects.filter(round__event=demo["lut"]).first()
    assert "Runde eintragen" in client.get(f"/t/{lut.scorer_token}/", HTTP_ACCEPT_LANGUAGE="de").content.decode()


def test_seat_and_rank_are_different_words():
    from django.utils import translation

    for language in ("de", "fi"):
        with translation.override(language):
            assert translation.gettext("Seat") != translation.gettext("Rank"), language
