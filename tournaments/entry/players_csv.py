"""Players from a CSV file: a preview of every row's fate, then one transaction.

The file is what a spreadsheet saves: UTF-8 (with or without the byte order mark) or Windows-1252
(Excel's "CSV" in German and Finnish Windows), its fields separated by ``;`` (German and Finnish
locales, where ``,`` is the decimal comma) or ``,`` — sniffed from the first lines. The first line
names the columns (English, German or Finnish, any case): ``name`` (needed), and optionally
``club``, ``distinction`` (what tells a namesake apart) and ``initials only`` (yes/ja/kyllä/x/1).

``preview`` stores nothing: it lists each row with its fate —

- ``new``: no player of the row's club has this name: a player is created;
- ``existing``: one player of the club has this name (and the same distinction, when the row gives
  one): he is that player, nothing is created;
- ``namesake``: players of the club have this name but the row does not say which, or it names a
  distinction none of them has: the organiser resolves it (a new player, or which one);
- ``error``: nothing is done with the row, and the column and reason are said: an empty name, a club
  the importer does not organise (or that does not exist), a row that repeats an earlier one, a name
  too long.

``apply`` computes the preview again (what is stored is what the preview says as of now), with the
organiser's resolutions of the namesakes (row number → a player's id, or None for a new player), and
stores it in one transaction: the new players, the existing ones' memberships of the row's club.
Importing the same file again creates nobody: its rows are then ``existing``.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from django.db import transaction

from .. import audit, services
from ..errors import Error, Invalid
from ..models import Club, Membership, Player
from ..services import folded_name, same_name

# A file's size (2,000 rows of a name, a club and more fit): below the request size every body
# has (settings.DATA_UPLOAD_MAX_MEMORY_SIZE), since the console's confirmation sends the text again.
MAX_BYTES = 200_000
MAX_ROWS = 2_000
NAME_MAX, DISTINCTION_MAX = 120, 40

# The column names a header may use (folded: case and accents ignored), by column.
COLUMNS = {
    "name": {"name", "player", "spieler", "spielerin", "nimi", "pelaaja"},
    "club": {"club", "verein", "klub", "seura", "kerho"},
    "distinction": {"distinction", "told apart by", "unterscheidung", "zusatz", "tarkenne", "lisatieto"},
    "initials_only": {"initials only", "initials", "nur initialen", "initialen", "vain nimikirjaimet",
                      "nimikirjaimet"},
}
YES = {"1", "x", "yes", "y", "true", "ja", "j", "kylla", "k", "on"}


class Fate:
    NEW = "new"
    EXISTING = "existing"
    NAMESAKE = "namesake"
    ERROR = "error"


class Reason:
    EMPTY_NAME = "empty_name"
    UNKNOWN_CLUB = "unknown_club"
    DUPLICATE_ROW = "duplicate_row"
    TOO_LONG = "too_long"


@dataclass
class RowError:
    column: str  # the column's key: name, club, distinction, initials_only
    reason: str
    message: str
    heading: str = ""  # the column as the file's first line names it ("Nimi", "Verein"), for people


@dataclass
class Row:
    number: int  # the line in the file (the header is line 1)
    name: str
    club: Club | None
    club_text: str
    distinction: str
    initials_only: bool
    fate: str = Fate.NEW
    player: Player | None = None  # existing: the player
    candidates: list[Player] = field(default_factory=list)  # namesake: the players he may be
    errors: list[RowError] = field(default_factory=list)


@dataclass
class Preview:
    rows: list[Row]
    encoding: str
    delimiter: str

    def count(self, fate: str) -> int:
        return sum(1 for row in self.rows if row.fate == fate)

    @property
    def namesakes(self) -> list[Row]:
        return [row for row in self.rows if row.fate == Fate.NAMESAKE]


def decode(data: bytes) -> tuple[str, str]:
    """The file's text and its encoding: UTF-8 (a byte order mark dropped) when it is valid UTF-8,
    else Windows-1252 (every byte is a character there but five; those are refused)."""
    if len(data) > MAX_BYTES:
        raise Invalid(f"the file is larger than {MAX_BYTES // 1000} kB", code=Error.BAD_FILE, field="file")
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:
        raise Invalid("the file is neither UTF-8 nor Windows-1252 text", code=Error.BAD_FILE, field="file") from None


def _delimiter(text: str) -> str:
    sample = "\n".join(text.splitlines()[:20])
    try:
        return csv.Sniffer().sniff(sample, delimiters=";,").delimiter
    except csv.Error:
        first = text.splitlines()[0] if text.strip() else ""
        return ";" if first.count(";") >= first.count(",") and ";" in first else ","


def _column(header: str) -> str | None:
    folded = folded_name(header.replace("_", " ").replace("-", " "))
    return next((name for name, words in COLUMNS.items() if folded in words), None)


def _reading(text: str) -> tuple[list[tuple[int, dict]], str, dict[str, str]]:
    text = text.lstrip("\ufeff")
    if "\x00" in text:
        raise Invalid("the file holds a NUL character: not a CSV file", code=Error.BAD_FILE, field="file")
    if not text.strip():
        raise Invalid("the file is empty", code=Error.BAD_FILE, field="file")
    delimiter = _delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        lines = [(reader.line_num, row) for row in reader]
    except csv.Error as error:
        raise Invalid(f"the file cannot be read as CSV: {error}", code=Error.BAD_FILE, field="file") from None
    header_line, header = lines[0]
    columns = [_column(cell) for cell in header]
    if "name" not in columns:
        raise Invalid("the first line names the columns, one of them the name (name, Name, nimi)",
                      code=Error.BAD_FILE, field="file")
    headings = {}
    for column, cell in zip(columns, header):
        if column and column not in headings:
            headings[column] = cell.strip()
    rows = []
    for number, cells in lines[1:]:
        if not any(cell.strip() for cell in cells):
            continue  # an empty line
        values = {}
        for column, cell in zip(columns, cells):
            if column and column not in values:
                values[column] = " ".join(cell.split())
        rows.append((number, values))
    if len(rows) > MAX_ROWS:
        raise Invalid(f"at most {MAX_ROWS} players at a time", code=Error.BAD_FILE, field="file")
    return rows, delimiter, headings


def preview(*, data: bytes | str, club: Club, clubs) -> Preview:
    """Every row's fate (the module's list), nothing stored. ``club``: the club of rows without a
    club; ``clubs``: the clubs the importer organises (a row's club is looked for among them, by
    name, case and accents ignored)."""
    if isinstance(data, str):
        text, encoding = data, "text"
    else:
        text, encoding = decode(data)
    lines, delimiter, headings = _reading(text)

    def error(column: str, reason: str, message: str) -> RowError:
        return RowError(column, reason, message, headings.get(column) or column)

    by_name = {folded_name(c.name): c for c in clubs}
    rows: list[Row] = []
    seen: dict[tuple, int] = {}
    for number, values in lines:
        club_text = values.get("club", "")
        row = Row(number=number, name=values.get("name", ""), club=None, club_text=club_text,
                  distinction=values.get("distinction", ""),
                  initials_only=folded_name(values.get("initials_only", "")) in YES)
        rows.append(row)
        if not row.name:
            row.errors.append(error("name", Reason.EMPTY_NAME, "the name is empty"))
        elif len(row.name) > NAME_MAX:
            row.errors.append(error("name", Reason.TOO_LONG, f"the name is longer than {NAME_MAX} characters"))
        if len(row.distinction) > DISTINCTION_MAX:
            row.errors.append(error("distinction", Reason.TOO_LONG,
                                    f"longer than {DISTINCTION_MAX} characters"))
        row.club = by_name.get(folded_name(club_text)) if club_text else club
        if row.club is None:
            row.errors.append(error("club", Reason.UNKNOWN_CLUB,
                                    f"no club {club_text!r} among the clubs you organise"))
        if row.errors:
            row.fate = Fate.ERROR
            continue
        key = (folded_name(row.name), row.club.pk, folded_name(row.distinction))
        if key in seen:
            row.fate = Fate.ERROR
            row.errors.append(error("name", Reason.DUPLICATE_ROW, f"the same player as line {seen[key]}"))
            continue
        seen[key] = number
        same = same_name(row.club, row.name)
        if not same:
            row.fate = Fate.NEW
            continue
        wanted = folded_name(row.distinction)
        fitting = [p for p in same if folded_name(p.distinction) == wanted] if wanted else same
        if len(fitting) == 1:
            row.fate, row.player = Fate.EXISTING, fitting[0]
        else:
            row.fate, row.candidates = Fate.NAMESAKE, sorted(same, key=lambda p: p.pk)
    return Preview(rows, encoding, delimiter)


@dataclass
class Outcome:
    preview: Preview
    created: list[Player]
    matched: list[Player]
    skipped: int  # rows with errors


NEW_PLAYER = None  # a namesake resolved as another person: a new player


@transaction.atomic
def apply(*, data: bytes | str, club: Club, clubs, by_user, resolutions: dict[int, int | None] | None = None,
          via: str = "api") -> Outcome:
    """Store what ``preview`` says now, in one transaction: a player for each ``new`` row, the
    ``existing`` players as they are, each ``namesake`` row as resolved (``resolutions``: line →
    a candidate's id, or None for a new player; a namesake without one is 400
    ``namesake_unresolved``, and nothing is stored). Rows with errors are left out."""
    resolutions = dict(resolutions or {})
    result = preview(data=data, club=club, clubs=clubs)
    for row in result.namesakes:
        if row.number not in resolutions:
            raise Invalid(f"line {row.number}: {row.name} has namesakes in {row.club.name}; say whether it is one "
                          "of them or a new player", code=Error.NAMESAKE_UNRESOLVED, field=f"line {row.number}")
        wanted = resolutions[row.number]
        if wanted is not NEW_PLAYER and wanted not in {p.pk for p in row.candidates}:
            raise Invalid(f"line {row.number}: that player is not one of the namesakes",
                          code=Error.NAMESAKE_UNRESOLVED, field=f"line {row.number}")
    created, matched = [], []
    for row in result.rows:
        if row.fate == Fate.ERROR:
            continue
        if row.fate == Fate.NAMESAKE and resolutions[row.number] is not NEW_PLAYER:
            row.player = next(p for p in row.candidates if p.pk == resolutions[row.number])
        if row.player is not None:
            Membership.objects.get_or_create(player=row.player, club=row.club)  # he is of the club already
            matched.append(row.player)
            continue
        created.append(services.player_create(by_user=by_user, name=row.name, clubs=[row.club],
                                              initials_only=row.initials_only, distinction=row.distinction,
                                              via=via))
    skipped = result.count(Fate.ERROR)
    audit.record(actor=by_user, via=via, action=audit.Action.PLAYERS_IMPORTED, obj=club,
                 after={"created": [p.pk for p in created], "matched": [p.pk for p in matched], "skipped": skipped},
                 data={"encoding": result.encoding, "delimiter": result.delimiter, "rows": len(result.rows)})
    return Outcome(result, created, matched, skipped)
