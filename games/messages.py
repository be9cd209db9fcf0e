"""The engine's errors in the reader's language: one catalogue keyed by ``games.rules.Code``.

The engine (``games/rules/``, pure Python) says what went wrong as data: its ``RecordError`` has a
``code``, a ``path`` (JSON Pointer) and ``params`` (seats from 0, cards and colours in the record's
notation, numbers). Here those become a sentence in the active language (Django's gettext):

- seats are counted from 1 and named by the player where the caller knows him (``names``, the
  seat → shown-name list of the sheet or the console);
- cards, colours, suits and trumps by their names in the reader's language;
- where the error is (``where``) from the pointer: "card points, Dagmar", "trick 3".

Each code has a list of templates, the fullest first; the first one whose placeholders the error
fills is used. The last template of every code needs only ``where``, which every error has, so a
message never shows a placeholder. No rule-book references: those are for developers
(``RecordError.message`` keeps them for the API's English default).
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from games.rules import Code, RecordError

# --- names of things --------------------------------------------------------------------------------


def colour_name(letter: str) -> str:
    """A Mü or LuT colour letter (R Y G B K) as the reader calls the colour."""
    names = {
        "R": pgettext("card colour", "red"), "Y": pgettext("card colour", "yellow"),
        "G": pgettext("card colour", "green"), "B": pgettext("card colour", "blue"),
        "K": pgettext("card colour", "black"),
    }
    return names.get(letter, letter)


def suit_name(letter: str) -> str:
    """A Maumau suit letter (C S H D) as the reader calls the suit."""
    names = {
        "C": pgettext("card suit", "clubs"), "S": pgettext("card suit", "spades"),
        "H": pgettext("card suit", "hearts"), "D": pgettext("card suit", "diamonds"),
    }
    return names.get(letter, letter)


SUIT_SYMBOLS = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
MAUMAU_RANKS = "789TJQKA"


def card_name(card) -> str:
    """A card in the record's notation as the reader names it: Mü ``R7`` and LuT ``B15`` by
    colour and number ("Rot 7"), Maumau ``TD`` by rank and suit symbol ("10♦", "B♣" in German)."""
    if not isinstance(card, str):
        return value_text(card)
    if len(card) == 2 and card[0] in MAUMAU_RANKS and card[1] in SUIT_SYMBOLS:
        ranks = {"T": "10", "J": pgettext("card rank: jack", "J"), "Q": pgettext("card rank: queen", "Q"),
                 "K": pgettext("card rank: king", "K"), "A": pgettext("card rank: ace", "A")}
        return ranks.get(card[0], card[0]) + SUIT_SYMBOLS[card[1]]
    if len(card) >= 2 and card[0] in "RYGBK" and card[1:].isdigit():
        return _("%(colour)s %(number)s") % {"colour": colour_name(card[0]), "number": card[1:]}
    return value_text(card)


def trump_name(trump) -> str:
    """A Mü trump: a colour letter, a digit, or ``none``."""
    if trump == "none":
        return _("no trump")
    if isinstance(trump, str) and trump in "RYGBK" and len(trump) == 1:
        return colour_name(trump)
    if isinstance(trump, str) and len(trump) == 1 and trump.isdigit():
        return _("the %(digit)ss") % {"digit": trump}
    return value_text(trump)


def value_text(value) -> str:
    """A value as written in the record (a text without quotes)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def seat_name(seat, names: Sequence[str] | None = None) -> str:
    """Seat ``seat`` (counted from 0 in records) as people see it: the player's name where known,
    else "seat 4" (counted from 1)."""
    if isinstance(seat, int) and not isinstance(seat, bool):
        if names and 0 <= seat < len(names) and names[seat]:
            return str(names[seat])
        return pgettext("seat at the table, counted from 1", "seat %(number)s") % {"number": seat + 1}
    return value_text(seat)


# --- where: the JSON Pointer as people read it -------------------------------------------------------

MEMBERS = {
    "game": gettext_lazy("game"), "players": gettext_lazy("number of players"), "dealer": gettext_lazy("dealer"),
    "hands": gettext_lazy("hands dealt"), "auction": gettext_lazy("auction"), "tricks": gettext_lazy("tricks"),
    "bids": gettext_lazy("bids"), "chef": pgettext_lazy("Mü role", "Chef"), "vice": pgettext_lazy("Mü role", "Vize"),
    "provocateur": gettext_lazy("provocateur"), "vice_trump": gettext_lazy("the Vize's trump"),
    "chef_trump": gettext_lazy("the Chef's trump"), "partner": gettext_lazy("partner"),
    "card_points": gettext_lazy("card points"), "colours": gettext_lazy("colours in play"),
    "claimed": gettext_lazy("written result"), "minus": gettext_lazy("minus points"),
    "remaining": gettext_lazy("cards left"), "wish": gettext_lazy("wish"), "upcard": gettext_lazy("upcard"),
    "upcard_wish": gettext_lazy("the dealer's wish"), "events": gettext_lazy("moves"),
    "direction": gettext_lazy("direction"), "records": gettext_lazy("games"), "stake_cents": gettext_lazy("stake"),
    "stacks": gettext_lazy("stacks"), "discarded": gettext_lazy("discarded cards"),
    "keep": gettext_lazy("colours kept"), "pick": gettext_lazy("cards picked"), "cards": gettext_lazy("cards"),
    "play": gettext_lazy("card played"), "draw": gettext_lazy("cards drawn"), "show": gettext_lazy("cards shown"),
    "taken": gettext_lazy("card taken"), "wedding": gettext_lazy("wedding"), "seat": gettext_lazy("player"),
    "scores": gettext_lazy("scores"),
}
# Lists indexed by seat: their index is a player.
BY_SEAT = {"hands", "bids", "card_points", "minus", "remaining", "stacks", "scores"}


def _numbered(member: str | None, number: int) -> str:
    if member == "tricks":
        return _("trick %(number)s") % {"number": number}
    if member == "auction":
        return _("bid %(number)s of the auction") % {"number": number}
    if member == "events":
        return _("move %(number)s") % {"number": number}
    if member == "records":
        return _("game %(number)s") % {"number": number}
    return _("no. %(number)s") % {"number": number}


def where(path: str, names: Sequence[str] | None = None) -> str:
    """The place a JSON Pointer names, in words: ``/summary/card_points/3`` → "card points, Dagmar"."""
    tokens = [token.replace("~1", "/").replace("~0", "~") for token in path.split("/")[1:]] if path else []
    parts: list[str] = []
    member = None
    for token in tokens:
        if token == "summary":
            continue
        if token.isdigit():
            number = int(token)
            if member in BY_SEAT or member == "keep":
                parts.append(seat_name(number, names))
            else:
                parts.append(_numbered(member, number + 1))
            member = None
        elif token in MEMBERS:
            parts.append(str(MEMBERS[token]))
            member = token
        else:
            parts.append(colour_name(token) if len(token) == 1 and token in "RYGBK" else token)
            member = None
    if not parts:
        return _("the hand")
    return ", ".join(parts)


# --- the catalogue ----------------------------------------------------------------------------------

# How a parameter of the engine is shown, by its name.
SEAT_PARAMS = {"seat", "other", "holder", "chef", "vice", "partner", "taker", "expected_seat"}
CARD_PARAMS = {"card", "top_card", "counterpart"}
CARDS_PARAMS = {"cards"}
ORDINAL_PARAMS = {"trick"}  # counted from 0 in the record, from 1 for people
COLOUR_PARAMS = {"colour"}
COLOURS_PARAMS = {"colours"}
TRUMP_PARAMS = {"trump"}
SUIT_PARAMS = {"suit"}
VALUE_PARAMS = {"value"}
GAME_PARAMS = {"table_game", "game_name"}
GAME_NAMES = {"mu": "Mü", "maumau": "Maumau", "lut": "Mit List und Tücke"}
SEATS_PARAMS = {"seats"}


def _shown(key: str, value, names) -> str:
    if key in SEAT_PARAMS:
        return seat_name(value, names)
    if key in SEATS_PARAMS:
        return ", ".join(seat_name(seat, names) for seat in value)
    if key in CARD_PARAMS:
        return card_name(value)
    if key in CARDS_PARAMS:
        return ", ".join(card_name(card) for card in value)
    if key in ORDINAL_PARAMS:
        return str(value + 1)
    if key in COLOUR_PARAMS:
        return colour_name(value)
    if key in COLOURS_PARAMS:
        return ", ".join(colour_name(colour) for colour in value)
    if key in TRUMP_PARAMS:
        return trump_name(value)
    if key in SUIT_PARAMS:
        return suit_name(value) if isinstance(value, str) and value in SUIT_SYMBOLS else value_text(value)
    if key in GAME_PARAMS:
        return GAME_NAMES.get(value, value_text(value))
    if key in VALUE_PARAMS:
        return value_text(value)
    return str(value)


T = gettext_lazy
CATALOGUE: dict[Code, tuple] = {
    # --- malformed --------------------------------------------------------------------------------
    Code.NOT_AN_OBJECT: (T("%(where)s: this is not a hand record."),),
    Code.UNKNOWN_GAME: (T("%(value)s is not a game of this service (Mü, Maumau, Mit List und Tücke)."),
                        T("%(where)s: not a game of this service (Mü, Maumau, Mit List und Tücke)."),),
    Code.MISSING_MEMBER: (T("%(where)s: missing; fill it in."),),
    Code.UNEXPECTED_MEMBER: (T("%(where)s: does not belong to this hand; leave it empty."),),
    Code.BAD_TYPE: (T("%(where)s: this is not the kind of value expected here."),),
    Code.OUT_OF_RANGE: (T("%(where)s: this number is not possible here."),),
    Code.BAD_LENGTH: (T("%(where)s: %(got)s entries, %(due)s expected."),
                      T("%(where)s: the number of entries is wrong."),),
    Code.NO_BODY: (T("The hand has neither the cards played nor a summary."),),
    Code.BOTH_BODIES: (T("The hand has both the cards played and a summary; give only one."),),
    Code.BAD_CARD: (T("%(where)s: %(value)s is not a card of this game."),
                    T("%(where)s: this is not a card of this game."),),
    Code.COLOUR_NOT_IN_PLAY: (T("%(where)s: %(card)s: %(colour)s is not in play in this deal."),
                              T("%(where)s: a colour not in play in this deal."),),
    Code.DUPLICATE_CARD: (T("%(where)s: %(card)s appears more often than the deck holds it."),
                          T("%(where)s: a card appears more often than the deck holds it."),),
    Code.BAD_COLOUR: (T("%(where)s: %(value)s is not a colour."),),
    Code.DUPLICATE_COLOUR: (T("%(where)s: %(colour)s is named twice."),
                            T("%(where)s: a colour is named twice."),),
    Code.BAD_TRUMP: (T("%(where)s: %(trump)s is not a trump in this deal."),
                     T("%(where)s: this is not a trump in this deal."),),
    Code.BAD_SUIT: (T("%(where)s: %(value)s is not a suit."),),
    Code.BAD_EVENT: (T("%(where)s: a move is one of playing, drawing or showing cards."),),
    Code.BAD_PICK: (T("%(where)s: %(seat)s picks %(due)s cards, not %(got)s."),
                    T("%(where)s: the wrong number of cards is picked."),),
    Code.BAD_KEEP: (T("%(where)s: %(seat)s keeps two different colours."),
                    T("%(where)s: two different colours are kept."),),
    Code.EMPTY_SERIES: (T("The series holds no game."),),
    # --- illegal ----------------------------------------------------------------------------------
    Code.NOT_ENDED: (T("%(where)s: the hand stops before it is over."),),
    Code.AFTER_END: (T("%(where)s: the hand was already over."),),
    Code.CARD_NOT_HELD: (T("%(seat)s plays %(card)s in trick %(trick)s but does not hold it."),
                         T("%(seat)s plays %(card)s but does not hold it: %(holder)s does."),
                         T("%(seat)s does not hold %(card)s."),
                         T("%(where)s: the player does not hold this card."),),
    Code.WRONG_SEAT: (T("%(where)s: it is the turn of %(expected_seat)s, not of %(seat)s."),
                      T("%(where)s: this player may not act now."),),
    Code.OVERBID: (T("%(seat)s bids %(bid)s, but the highest bid before was %(top)s: at most %(most)s."),
                   T("%(where)s: a bid more than one above the highest bid before."),),
    Code.TRUMP_NOT_IN_DISPLAY: (T("%(seat)s may choose only a colour or number of his display, not %(trump)s."),
                                T("%(where)s: a trump from outside the display."),),
    Code.TRUMP_TAKEN: (T("The Chef (%(seat)s) may not choose %(trump)s: the Vize (%(vice)s) chose it."),
                       T("The Chef may not choose %(trump)s: the Vize chose it."),
                       T("%(where)s: the Chef may not choose the Vize's trump."),),
    Code.PARTNER_IS_CHEF: (T("The Chef (%(seat)s) cannot be his own partner."),
                           T("%(where)s: the Chef cannot be his own partner."),),
    Code.PARTNER_IS_VICE: (T("The Chef may not name the Vize (%(seat)s) as partner."),
                           T("%(where)s: the Chef may not name the Vize as partner."),),
    Code.ILLEGAL_FOLLOW: (T("%(seat)s plays %(card)s in trick %(trick)s but must follow with one of %(cards)s."),
                          T("%(where)s: the player must follow."),),
    Code.CHEF_NOT_TOP: (T("The Chef is the only highest bidder, %(expected_seat)s, not %(seat)s."),
                        T("%(where)s: the Chef must be the only highest bidder."),),
    Code.VICE_NOT_SECOND: (T("%(seat)s cannot be the Vize: he is not among the second highest bidders."),
                           T("%(where)s: the Vize must be among the second highest bidders."),),
    Code.PROVOCATEUR_NOT_TOP: (T("The provocateur is one of the highest bidders (%(seats)s), not %(seat)s."),
                               T("%(where)s: the provocateur must be one of the highest bidders."),),
    Code.CARD_POINTS_SUM: (T("The card points must add up to %(due)s, not %(got)s."),
                           T("%(where)s: the card points do not add up to the points in play."),),
    Code.ILLEGAL_PLAY: (T("%(seat)s may not play %(card)s on %(top_card)s."),
                        T("%(where)s: this card may not go on the top card."),),
    Code.FORBIDDEN_WISH: (T("%(where)s: %(suit)s may not be wished here."),),
    Code.SEVEN_PENDING: (T("%(seat)s must pass the 7 on with a 7 or draw, not play %(card)s."),
                         T("%(where)s: only a 7 may be played on a pending 7."),),
    Code.MUST_FOLLOW_ACE: (T("%(seat)s holds a card that can go on the ace and may not draw."),
                           T("%(where)s: a player who can answer the ace may not draw."),),
    Code.WRONG_DRAW_COUNT: (T("%(seat)s must draw %(due)s cards, not %(got)s."),
                            T("%(where)s: the wrong number of cards is drawn."),),
    Code.NOT_IN_PILE: (T("%(where)s: no %(card)s is left in the draw pile."),
                       T("%(where)s: this card is no longer in the draw pile."),),
    Code.DRAW_DUE: (T("%(seat)s holds fewer than two cards and must draw first."),
                    T("%(where)s: the player must draw first."),),
    Code.SHOW_DUE: (T("%(seat)s must show two cards now."),
                    T("%(where)s: two cards must be shown now."),),
    Code.UNEXPECTED_SHOW: (T("%(where)s: no 9 or 10 asks for showing cards."),),
    Code.NOT_SHOWN: (T("%(seat)s takes %(card)s, which was not shown."),
                     T("%(where)s: the card taken was not shown."),),
    Code.NO_WEDDING_CHANCE: (T("%(seat)s announces a wedding, but no queen or king was just played."),
                             T("%(where)s: no queen or king was just played for a wedding."),),
    Code.NOT_COUNTERPART: (T("%(seat)s announces a wedding with %(card)s; on %(top_card)s only %(counterpart)s is one."),
                           T("%(where)s: this card does not make a wedding with the top card."),),
    Code.NO_EMPTY_HAND: (T("A game ends when a hand is empty; every hand here holds cards."),),
    Code.NO_JACK_FOR_WISH: (T("No jack was left to wish %(suit)s."),
                            T("%(where)s: no jack was left to name the wish."),),
    Code.NO_ZERO: (T("The player who went out has 0 minus points; nobody has 0 here."),),
    Code.MINUS_MISMATCH: (T("The minus points do not match the cards left."),),
    Code.MINUS_IMPOSSIBLE: (T("These minus points are more than the cards of a game can give."),),
    Code.TOO_MANY_CARDS: (T("%(where)s: more cards than the deck leaves for it."),),
    Code.FOURTH_COLOUR: (T("%(seat)s cannot play %(card)s: three colours already lie in the trick."),
                         T("%(where)s: a card of a fourth colour in the trick."),),
    Code.SHORT_TRICK: (T("The trick stops, but %(seat)s could still play."),
                       T("%(where)s: the trick stops too early."),),
    Code.PICK_NOT_IN_TRICK: (T("%(seat)s picks %(card)s, which is not in the trick."),
                             T("%(where)s: a picked card that is not in the trick."),),
    Code.PICK_UNEXPECTED: (T("%(where)s: the trick that ends the round is not split."),),
    Code.KEEP_MISSING: (T("%(seat)s now holds all four colours and must choose two colours to keep."),
                        T("%(where)s: a player holds all four colours and must choose two to keep."),),
    Code.KEEP_UNEXPECTED: (T("%(seat)s does not reach four colours here and keeps nothing."),
                           T("%(where)s: nobody chooses colours to keep here."),),
    Code.TOO_MANY_COLOURS: (T("%(seat)s has four open colours; a player keeps only two."),
                            T("%(where)s: four open colours; a player keeps only two."),),
    Code.BAD_DISCARD: (T("%(seat)s: discarded cards mean that two colours were kept: exactly two open colours and "
                         "at least 2 discarded cards."),
                       T("%(where)s: discarded cards do not match the open colours."),),
    Code.NOT_WHOLE_TAKES: (T("%(seat)s collected %(got)s cards, which no number of whole takes gives."),
                           T("%(where)s: the cards are not a sum of whole takes."),),
    Code.CLAIMED_MISMATCH: (T("%(where)s: the written result differs from the hand."),),
    Code.WRONG_GAME: (T("This table plays %(table_game)s, not %(game_name)s."),
                      T("%(where)s: this is another game than the table plays."),),
    Code.WRONG_PLAYER_COUNT: (T("This table seats %(due)s players, the hand %(got)s."),
                              T("%(where)s: another number of players than the table's."),),
    Code.WRONG_DEALER: (T("Hand %(number)s is dealt by %(expected_seat)s, not by %(seat)s."),
                        T("%(where)s: this is not the player who deals now."),),
    Code.WRONG_DIRECTION: (T("%(where)s: the game starts in the other direction."),),
}

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def placeholders(template: str) -> set[str]:
    return set(_PLACEHOLDER.findall(str(template)))


def message(code: str, path: str = "", params: dict | None = None, names: Sequence[str] | None = None) -> str:
    """The sentence for an engine error in the active language (``names``: seat → shown name)."""
    code = Code(code)
    values = {key: _shown(key, value, names) for key, value in (params or {}).items() if value is not None}
    values["where"] = where(path, names)
    for template in CATALOGUE[code]:
        if placeholders(template) <= values.keys():
            text = str(template) % values
            return text[0].upper() + text[1:] if text else text
    raise AssertionError(f"no template of {code} without parameters")  # the last one needs only where


def localize(error: RecordError, names: Sequence[str] | None = None) -> str:
    """``error``'s message in the active language."""
    return message(error.code, error.path, error.params, names)


__all__ = ["CATALOGUE", "card_name", "colour_name", "localize", "message", "seat_name", "suit_name", "where"]
