"""Players from CSV: every row's fate, in UTF-8 (with and without BOM) and Windows-1252, with `;`
and `,`; nothing stored by the preview; the import in one transaction; the API and the console."""
from __future__ import annotations

import base64

import pytest
from django.test import Client

from tests.conftest import client_for
from tournaments import services
from tournaments.entry import players_csv
from tournaments.errors import Error, Invalid
from tournaments.models import AuditEntry, Membership, Player

# One file with every fate, as (name, club, distinction) rows; what each row's fate is, and why.
HEADER = ("Name", "Verein", "Zusatz")
ROWS = [
    ("Jörg Weiß", "", ""),             # line 2: new (umlauts: the encoding must be read right)
    ("Player 01", "", ""),             # line 3: existing (one member has this name)
    ("Müller Anna", "", ""),           # line 4: namesake (two members are called so)
    ("", "", ""),                      # line 5: an empty name... but an empty line is skipped:
    ("", "Testclub", ""),              # line 6: error, column name, empty
    ("Søren Ähnlich", "Kein Verein", ""),  # line 7: error, column club, unknown
    ("jörg  weiss", "", ""),           # line 8: error, duplicate of line 2 (case and spacing ignored)
    ("Müller Anna", "", "Köln"),       # line 9: existing: the distinction names one of the two
    ("Eva Zweitclub", "Empty club", ""),  # line 10: new, in the other club the importer organises
]
EXPECTED = {2: ("new", None), 3: ("existing", None), 4: ("namesake", None), 6: ("error", ("name", "empty_name")),
            7: ("error", ("club", "unknown_club")), 8: ("error", ("name", "duplicate_row")), 9: ("existing", None),
            10: ("new", None)}


def csv_bytes(delimiter: str, encoding: str, bom: bool = False) -> bytes:
    lines = [delimiter.join(HEADER)] + [delimiter.join(row) for row in ROWS]
    text = "\r\n".join(lines) + "\r\n"
    data = text.encode(encoding)
    return (b"\xef\xbb\xbf" + data) if bom else data


@pytest.fixture
def club(world):
    # Two namesakes told apart by their distinction, of the test club.
    for distinction in ("Köln", "Bonn"):
        services.player_create(by_user=None, name="Müller Anna", clubs=[world.club], distinction=distinction)
    return world.club


def fates(preview) -> dict:
    return {row.number: (row.fate, (row.errors[0].column, row.errors[0].reason) if row.errors else None)
            for row in preview.rows}


# ";" is the German and Finnish spreadsheets' separator (the comma is their decimal comma); Excel
# saves Windows-1252, LibreOffice UTF-8, sometimes with a byte order mark.
CASES = [(";", "cp1252", False), (",", "cp1252", False), (";", "utf-8", False), (",", "utf-8", True),
         (";", "utf-8", True)]


@pytest.mark.parametrize(("delimiter", "encoding", "bom"), CASES)
def test_every_fate_in_every_encoding_and_separator(club, world, delimiter, encoding, bom):
    data = csv_bytes(delimiter, encoding, bom)
    before = (Player.objects.count(), Membership.objects.count(), AuditEntry.objects.count())
    preview = players_csv.preview(data=data, club=club, clubs=[club, world.empty_club])
    assert preview.delimiter == delimiter
    assert preview.encoding == ("utf-8" if encoding == "utf-8" else "windows-1252")
    assert fates(preview) == EXPECTED
    assert [row.name for row in preview.rows if row.number == 2] == ["Jörg Weiß"]
    namesake = next(row for row in preview.rows if row.number == 4)
    assert sorted(p.distinction for p in namesake.candidates) == ["Bonn", "Köln"]
    existing = next(row for row in preview.rows if row.number == 9)
    assert existing.player.distinction == "Köln"
    # The preview stored nothing.
    assert (Player.objects.count(), Membership.objects.count(), AuditEntry.objects.count()) == before


def test_the_import_stores_in_one_transaction_and_twice_creates_nobody(club, world):
    data = csv_bytes(";", "cp1252")
    clubs = [club, world.empty_club]
    count = Player.objects.count()
    with pytest.raises(Invalid) as unresolved:
        players_csv.apply(data=data, club=club, clubs=clubs, by_user=world.club_organiser)
    assert unresolved.value.code is Error.NAMESAKE_UNRESOLVED and Player.objects.count() == count
    bonn = Player.objects.get(name="Müller Anna", distinction="Bonn")
    outcome = players_csv.apply(data=data, club=club, clubs=clubs, by_user=world.club_organiser,
                                resolutions={4: bonn.pk})
    assert sorted(p.name for p in outcome.created) == ["Eva Zweitclub", "Jörg Weiß"]
    assert sorted((p.name, p.distinction) for p in outcome.matched) == [
        ("Müller Anna", "Bonn"), ("Müller Anna", "Köln"), ("Player 01", "")]
    assert outcome.skipped == 3 and Player.objects.count() == count + 2
    assert Player.objects.get(name="Eva Zweitclub").clubs.get() == world.empty_club
    assert AuditEntry.objects.filter(action="players_imported").count() == 1
    again = players_csv.apply(data=data, club=club, clubs=clubs, by_user=world.club_organiser,
                              resolutions={4: bonn.pk})
    assert again.created == [] and Player.objects.count() == count + 2
    # A namesake resolved as another person is a new player.
    third = players_csv.apply(data="Name\nMüller Anna\n", club=club, clubs=clubs, by_user=world.club_organiser,
                              resolutions={2: players_csv.NEW_PLAYER})
    assert [p.name for p in third.created] == ["Müller Anna"]


def test_a_failure_midway_stores_nothing(club, world, monkeypatch):
    count = Player.objects.count()
    calls = []
    original = services.player_create

    def failing(**kwargs):
        calls.append(kwargs["name"])
        if len(calls) == 2:
            raise RuntimeError("disk full")
        return original(**kwargs)

    monkeypatch.setattr(services, "player_create", failing)
    with pytest.raises(RuntimeError):
        players_csv.apply(data="Name\nNeu Eins\nNeu Zwei\n", club=club, clubs=[club], by_user=world.club_organiser)
    assert Player.objects.count() == count


@pytest.mark.parametrize("text", ["", "Vorname;Nachname\nA;B\n", "Name\n\x00\n"])
def test_a_file_that_is_not_a_player_list_is_refused(club, text):
    with pytest.raises(Invalid) as refused:
        players_csv.preview(data=text, club=club, clubs=[club])
    assert refused.value.code is Error.BAD_FILE


def test_the_api_previews_and_imports(club, world):
    url = f"/api/v1/clubs/{club.pk}/players/import/"
    body = {"csv_base64": base64.b64encode(csv_bytes(",", "cp1252")).decode()}
    assert client_for().post(url, body, format="json").status_code == 401
    assert client_for(world.organiser).post(url, body, format="json").status_code == 403
    organiser = client_for(world.club_organiser)
    count = Player.objects.count()
    preview = organiser.post(url, body, format="json")
    assert preview.status_code == 200 and not preview.json()["stored"] and Player.objects.count() == count
    rows = {row["line"]: row for row in preview.json()["rows"]}
    assert {line: row["fate"] for line, row in rows.items()} == {k: v[0] for k, v in EXPECTED.items()}
    assert rows[7]["errors"] == [{"column": "club", "reason": "unknown_club",
                                  "message": "no club 'Kein Verein' among the clubs you organise"}]
    assert preview.json()["counts"] == {"new": 2, "existing": 2, "namesake": 1, "error": 3}
    refused = organiser.post(url, {**body, "confirm": True}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "namesake_unresolved"
    koeln = rows[4]["candidates"][0]["player"]
    stored = organiser.post(url, {**body, "confirm": True, "resolutions": [{"line": 4, "player": koeln}]},
                            format="json")
    assert stored.status_code == 200 and stored.json()["stored"] and len(stored.json()["created"]) == 2
    assert Player.objects.count() == count + 2
    text = organiser.post(url, {"csv": "Name;Verein\nNeue Person;\n", "confirm": True}, format="json")
    assert text.json()["created"] and Player.objects.count() == count + 3
    assert organiser.post(url, {"csv_base64": "%%%"}, format="json").status_code == 400
    assert organiser.post(url, {}, format="json").status_code == 400


def test_the_console_previews_then_imports(club, world):
    event = world.events["mu"]
    client = Client()
    client.force_login(world.club_organiser)
    upload = csv_bytes(";", "cp1252")
    from django.core.files.uploadedfile import SimpleUploadedFile

    count = Player.objects.count()
    page = client.post(f"/console/events/{event.pk}/players/import/",
                       {"file": SimpleUploadedFile("spieler.csv", upload, content_type="text/csv")})
    html = page.content.decode()
    assert page.status_code == 200 and 'data-fate="namesake"' in html and "Jörg Weiß" in html
    assert Player.objects.count() == count
    koeln = Player.objects.get(name="Müller Anna", distinction="Köln")
    text = upload.decode("cp1252")
    missing = client.post(f"/console/events/{event.pk}/players/import/", {"text": text, "confirm": "1"})
    assert missing.status_code == 200 and Player.objects.count() == count
    done = client.post(f"/console/events/{event.pk}/players/import/",
                       {"text": text, "confirm": "1", "line-4": str(koeln.pk)})
    assert done.status_code == 302 and Player.objects.count() == count + 2


def test_an_error_names_the_column_as_the_file_does(club, world):
    """The API keeps the column's key; the console names the column as the file's first line does
    (a Finnish file says "Nimi" and "Seura", not the keys "name" and "club")."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    text = f"NIMI;Seura\r\n;{club.name}\r\nSøren Ähnlich;Ei seuraa\r\n"
    errors = {row.number: [(e.column, e.reason, e.heading) for e in row.errors]
              for row in players_csv.preview(data=text, club=club, clubs=[club]).rows}
    assert errors == {2: [("name", "empty_name", "NIMI")], 3: [("club", "unknown_club", "Seura")]}
    client = Client()
    client.force_login(world.club_organiser)
    page = client.post(f"/console/events/{world.events['mu'].pk}/players/import/",
                       {"file": SimpleUploadedFile("pelaajat.csv", text.encode("utf-8"), content_type="text/csv")},
                       HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    assert page.status_code == 200 and html.count('data-fate="error"') == 2
    assert "column “NIMI”:" in html and "column “Seura”:" in html
    assert "“name”" not in html and "“club”" not in html
