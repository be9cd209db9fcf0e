"""Errors of the rule engine, and the one enumeration of their codes.

Like python-chess's error hierarchy, an error says what went wrong (``code``, a stable machine
string from ``Code``), explains it to a person (``message``, naming seat, card and rule) and says
where (``path``, an RFC 6901 JSON Pointer to the first offending element of the record).

python-chess separates a move it cannot read (``InvalidMoveError``) from a move the position
forbids (``IllegalMoveError``); the engine makes the same split, decided by the code:

- ``MalformedRecord``: the document cannot be read as a record of ``../shared/records.md`` —
  types, shapes, lengths the player count fixes, card notation, more copies than the deck holds;
- ``IllegalMove``: a readable record the rules forbid — a move, a choice, a score sheet no game can
  produce, a written result that differs, a record that does not continue its table or series.

``Code`` is the public contract clients rely on (README, the 422 answers of the API). A renamed code
stays readable under its old name: ``Code("game_not_over")`` is ``Code.NOT_ENDED``.

``python -m games.rules.errors`` prints the table of codes the README shows.
"""
from __future__ import annotations

from enum import StrEnum

MALFORMED = "malformed"
ILLEGAL = "illegal"


class Code(StrEnum):
    """Every code a hand record can be rejected with: its kind and what it means."""

    kind: str
    description: str

    def __new__(cls, value: str, kind: str, description: str) -> "Code":
        member = str.__new__(cls, value)
        member._value_ = value
        member.kind = kind
        member.description = description
        return member

    @classmethod
    def _missing_(cls, value):
        return ALIASES.get(value)

    # --- malformed: the document is not a record of the format ------------------------------------
    NOT_AN_OBJECT = "not_an_object", MALFORMED, "the record (or a series, or a record of a series) is not a JSON object"
    UNKNOWN_GAME = "unknown_game", MALFORMED, "game is not one of mu, maumau, lut"
    MISSING_MEMBER = "missing_member", MALFORMED, "a required member is absent or null"
    UNEXPECTED_MEMBER = "unexpected_member", MALFORMED, "a member is given where the record has none (e.g. a trump with no Vize)"
    BAD_TYPE = "bad_type", MALFORMED, "a value has the wrong JSON type (integers are not booleans nor 4.0)"
    OUT_OF_RANGE = "out_of_range", MALFORMED, "an integer outside its range (players, a seat, a count)"
    BAD_LENGTH = "bad_length", MALFORMED, "a list whose length the rules fix has another length"
    NO_BODY = "no_body", MALFORMED, "the record has neither a full body nor a summary"
    BOTH_BODIES = "both_bodies", MALFORMED, "the record has a full body and a summary"
    BAD_CARD = "bad_card", MALFORMED, "a text that is not a card of the game (or of this player count's deck)"
    COLOUR_NOT_IN_PLAY = "colour_not_in_play", MALFORMED, "Mü: a card of a colour not in play in this deal"
    DUPLICATE_CARD = "duplicate_card", MALFORMED, "a card appears more often than the deck holds it"
    BAD_COLOUR = "bad_colour", MALFORMED, "Mü: a colour that is not R, Y, G, B, K"
    DUPLICATE_COLOUR = "duplicate_colour", MALFORMED, "Mü: a colour named twice in colours"
    BAD_TRUMP = "bad_trump", MALFORMED, "Mü: a trump that is not a colour letter, a digit (or none for the Chef)"
    BAD_SUIT = "bad_suit", MALFORMED, "Maumau: a named suit that is not C, S, H, D"
    BAD_EVENT = "bad_event", MALFORMED, "Maumau: an event without one of play, draw, show, or with several"
    BAD_PICK = "bad_pick", MALFORMED, "LuT: a pick of the wrong number of cards"
    BAD_KEEP = "bad_keep", MALFORMED, "LuT: a keep choice that is not two different colours"
    EMPTY_SERIES = "empty_series", MALFORMED, "Maumau: a series without records"

    # --- illegal: the rules forbid it -------------------------------------------------------------
    NOT_ENDED = "not_ended", ILLEGAL, "the record stops before the auction, game or round ends"
    AFTER_END = "after_end", ILLEGAL, "an action, event or trick after the end"
    CARD_NOT_HELD = "card_not_held", ILLEGAL, "a card put out, played or shown that the seat does not hold"
    WRONG_SEAT = "wrong_seat", ILLEGAL, "Maumau: an event by a seat that may not act now"
    OVERBID = "overbid", ILLEGAL, "Mü: a bid more than one above the highest bid before"
    TRUMP_NOT_IN_DISPLAY = "trump_not_in_display", ILLEGAL, "Mü: a trump of neither a colour nor a digit of the chooser's display; a colour not in play lies in none (full record and summary alike)"
    TRUMP_TAKEN = "trump_taken", ILLEGAL, "Mü: the Chef chooses the Vize's trump"
    PARTNER_IS_CHEF = "partner_is_chef", ILLEGAL, "Mü: the Chef names himself as partner"
    PARTNER_IS_VICE = "partner_is_vice", ILLEGAL, "Mü: the Chef names the Vize as partner"
    ILLEGAL_FOLLOW = "illegal_follow", ILLEGAL, "Mü: a card that does not follow while the seat could follow"
    CHEF_NOT_TOP = "chef_not_top", ILLEGAL, "Mü summary: chef is not the unique top bidder (or given with none)"
    VICE_NOT_SECOND = "vice_not_second", ILLEGAL, "Mü summary: vice is not among the second bidders"
    PROVOCATEUR_NOT_TOP = "provocateur_not_top", ILLEGAL, "Mü summary: the provocateur is not a tied top bidder"
    CARD_POINTS_SUM = "card_points_sum", ILLEGAL, "Mü summary: card points do not sum to the points in play"
    ILLEGAL_PLAY = "illegal_play", ILLEGAL, "Maumau: a card that may not go on the top card"
    FORBIDDEN_WISH = "forbidden_wish", ILLEGAL, "Maumau: a jack names its own suit or the suit below it"
    SEVEN_PENDING = "seven_pending", ILLEGAL, "Maumau: a card other than a 7 while a 7 chain is pending"
    MUST_FOLLOW_ACE = "must_follow_ace", ILLEGAL, "Maumau: a draw after an ace by a seat holding a card that can go on it"
    WRONG_DRAW_COUNT = "wrong_draw_count", ILLEGAL, "Maumau: a draw of another number of cards than the rules call for"
    NOT_IN_PILE = "not_in_pile", ILLEGAL, "Maumau: a drawn card no copy of which is left in the draw pile"
    DRAW_DUE = "draw_due", ILLEGAL, "Maumau: a shower holding fewer than two cards must draw up first"
    SHOW_DUE = "show_due", ILLEGAL, "Maumau: two cards must be shown now"
    UNEXPECTED_SHOW = "unexpected_show", ILLEGAL, "Maumau: a show where no 9 or ten asks for it"
    NOT_SHOWN = "not_shown", ILLEGAL, "Maumau: the taken card is not one of the shown cards"
    NO_WEDDING_CHANCE = "no_wedding_chance", ILLEGAL, "Maumau: a wedding where no Q or K was just played"
    NOT_COUNTERPART = "not_counterpart", ILLEGAL, "Maumau: a wedding with a card that is not the counterpart of the top card"
    NO_EMPTY_HAND = "no_empty_hand", ILLEGAL, "Maumau summary: every remaining hand holds cards"
    NO_JACK_FOR_WISH = "no_jack_for_wish", ILLEGAL, "Maumau summary: no jack was left to name the wished suit"
    NO_ZERO = "no_zero", ILLEGAL, "Maumau summary: no seat has 0 minus points"
    MINUS_MISMATCH = "minus_mismatch", ILLEGAL, "Maumau summary: minus does not match the remaining hands"
    MINUS_IMPOSSIBLE = "minus_impossible", ILLEGAL, "Maumau summary: minus points no game can produce (more than 71 cards' worth)"
    TOO_MANY_CARDS = "too_many_cards", ILLEGAL, "a summary holds more cards than the deck leaves for it"
    FOURTH_COLOUR = "fourth_colour", ILLEGAL, "LuT: a card of a fourth colour in a trick"
    SHORT_TRICK = "short_trick", ILLEGAL, "LuT: a trick stops short although the next seat could play"
    PICK_NOT_IN_TRICK = "pick_not_in_trick", ILLEGAL, "LuT: a picked card that is not in the trick"
    PICK_UNEXPECTED = "pick_unexpected", ILLEGAL, "LuT: a pick in a trick the round ended in"
    KEEP_MISSING = "keep_missing", ILLEGAL, "LuT: a seat reached four colours and keep does not name its choice"
    KEEP_UNEXPECTED = "keep_unexpected", ILLEGAL, "LuT: keep names a seat that does not reach four colours"
    TOO_MANY_COLOURS = "too_many_colours", ILLEGAL, "LuT summary: a seat with four open colours"
    BAD_DISCARD = "bad_discard", ILLEGAL, "LuT summary: a discard pile of 1, or one with other than two open colours"
    NOT_WHOLE_TAKES = "not_whole_takes", ILLEGAL, "LuT summary: a seat's cards are not a sum of whole takes"
    CLAIMED_MISMATCH = "claimed_mismatch", ILLEGAL, "a member of claimed differs from the computed one"
    WRONG_GAME = "wrong_game", ILLEGAL, "the record is of another game than its table or series"
    WRONG_PLAYER_COUNT = "wrong_player_count", ILLEGAL, "the record seats another number of players than its table or series"
    WRONG_DEALER = "wrong_dealer", ILLEGAL, "the dealer does not continue the table or series"
    WRONG_DIRECTION = "wrong_direction", ILLEGAL, "Maumau: the direction does not continue the table or series"


# Former names of merged codes: a client may have stored them, so they still name their code.
ALIASES: dict[str, Code] = {
    "too_many_copies": Code.DUPLICATE_CARD,  # Mü's name for a card dealt more often than the deck holds it
    "game_not_over": Code.NOT_ENDED,  # Maumau's name for a record that stops early
    "auction_not_ended": Code.NOT_ENDED,  # Mü's name for an auction that stops early
}


class RecordError(ValueError):
    """A hand record the engine rejects.

    ``RecordError(code, message, path, params)`` builds the subclass its code's kind names, so every
    raise in the engine states the code once and the split follows from the enumeration; an unknown
    code is a bug and fails at once (``ValueError``).

    ``message`` is the engine's English sentence (the API's default ``message``); ``params`` holds
    the same facts as data, for a sentence in the reader's language (``games/messages.py``): seats
    as the record counts them (from 0), cards and colours in the record's notation, numbers as
    numbers. ``as_dict`` leaves them out: the API's answer stays ``{code, message, path}``.
    """

    def __new__(cls, code: str, message: str = "", path: str = "", params: dict | None = None):
        if cls is RecordError:
            cls = MalformedRecord if Code(code).kind == MALFORMED else IllegalMove
        return super().__new__(cls, code, message, path)

    def __init__(self, code: str, message: str, path: str = "", params: dict | None = None) -> None:
        code = Code(code)
        super().__init__(f"{code} at {path or '(root)'}: {message}")
        self.code = code
        self.message = message
        self.path = path
        self.params = dict(params or {})

    @property
    def kind(self) -> str:
        return self.code.kind

    def as_dict(self) -> dict:
        return {"code": str(self.code), "message": self.message, "path": self.path}

    def prefixed(self, prefix: str) -> "RecordError":
        """The same error seen from a containing document (a series: ``/records/3``)."""
        return RecordError(self.code, self.message, prefix + self.path, self.params)

    def __reduce__(self):
        return RecordError, (str(self.code), self.message, self.path, self.params)


class MalformedRecord(RecordError):
    """The document cannot be read as a hand record (python-chess: ``InvalidMoveError``)."""


class IllegalMove(RecordError):
    """A readable record the rules forbid (python-chess: ``IllegalMoveError``)."""


def markdown_table() -> str:
    """The README's table of codes, generated from the enumeration."""
    former = {}
    for old, code in ALIASES.items():
        former.setdefault(code, []).append(old)
    lines = ["| code | kind | meaning |", "|---|---|---|"]
    for code in Code:
        meaning = code.description
        if code in former:
            meaning += " (formerly also " + ", ".join(f"`{old}`" for old in former[code]) + ")"
        lines.append(f"| `{code}` | {code.kind} | {meaning} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
