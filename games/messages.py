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


CATALOGUE: dict[Code, tuple] = {
    # --- malformed --------------------------------------------------------------------------------
    Code.NOT_AN_OBJECT: (gettext_lazy("%(where)s: this is not a hand record."),),
    Code.UNKNOWN_GAME: (gettext_lazy("%(value)s is not a game of this service (Mü, Maumau, Mit List und Tücke)."),
                        gettext_lazy("%(where)s: not a game of this service (Mü, Maumau, Mit List und Tücke)."),),
    Code.MISSING_MEMBER: (gettext_lazy("%(where)s: missing; fill it in."),),
    Code.UNEXPECTED_MEMBER: (gettext_lazy("%(where)s: does not belong to this hand; leave it empty."),),
    Code.BAD_TYPE: (gettext_lazy("%(where)s: this is not the kind of value expected here."),),
    Code.OUT_OF_RANGE: (gettext_lazy("%(where)s: this number is not possible here."),),
    Code.BAD_LENGTH: (gettext_lazy("%(where)s: %(got)s entries, %(due)s expected."),
                      gettext_lazy("%(where)s: the number of entries is wrong."),),
    Code.NO_BODY: (gettext_lazy("The hand has neither the cards played nor a summary."),),
    Code.BOTH_BODIES: (gettext_lazy("The hand has both the cards played and a summary; give only one."),),
    Code.BAD_CARD: (gettext_lazy("%(where)s: %(value)s is not a card of this game."),
                    gettext_lazy("%(where)s: this is not a card of this game."),),
    Code.COLOUR_NOT_IN_PLAY: (gettext_lazy("%(where)s: %(card)s: %(colour)s is not in play in this deal."),
                              gettext_lazy("%(where)s: a colour not in play in this deal."),),
    Code.DUPLICATE_CARD: (gettext_lazy("%(where)s: %(card)s appears more often than the deck holds it."),
                          gettext_lazy("%(where)s: a card appears more often than the deck holds it."),),
    Code.BAD_COLOUR: (gettext_lazy("%(where)s: %(value)s is not a colour."),
                      gettext_lazy("%(where)s: this is not a colour."),),
    Code.DUPLICATE_COLOUR: (gettext_lazy("%(where)s: %(colour)s is named twice."),
                            gettext_lazy("%(where)s: a colour is named twice."),),
    Code.BAD_TRUMP: (gettext_lazy("%(where)s: %(trump)s is not a trump in this deal."),
                     gettext_lazy("%(where)s: this is not a trump in this deal."),),
    Code.BAD_SUIT: (gettext_lazy("%(where)s: %(value)s is not a suit."),
                    gettext_lazy("%(where)s: this is not a suit."),),
    Code.BAD_EVENT: (gettext_lazy("%(where)s: a move is one of playing, drawing or showing cards."),),
    Code.BAD_PICK: (gettext_lazy("%(where)s: %(seat)s picks %(due)s cards, not %(got)s."),
                    gettext_lazy("%(where)s: the wrong number of cards is picked."),),
    Code.BAD_KEEP: (gettext_lazy("%(where)s: %(seat)s keeps two different colours."),
                    gettext_lazy("%(where)s: two different colours are kept."),),
    Code.EMPTY_SERIES: (gettext_lazy("The series holds no game."),),
    # --- illegal ----------------------------------------------------------------------------------
    Code.NOT_ENDED: (gettext_lazy("%(where)s: the hand stops before it is over."),),
    Code.AFTER_END: (gettext_lazy("%(where)s: the hand was already over."),),
    Code.CARD_NOT_HELD: (gettext_lazy("%(seat)s plays %(card)s in trick %(trick)s but does not hold it."),
                         gettext_lazy("%(seat)s plays %(card)s but does not hold it: %(holder)s does."),
                         gettext_lazy("%(seat)s does not hold %(card)s."),
                         gettext_lazy("%(where)s: the player does not hold this card."),),
    Code.WRONG_SEAT: (gettext_lazy("%(where)s: it is the turn of %(expected_seat)s, not of %(seat)s."),
                      gettext_lazy("%(where)s: this player may not act now."),),
    Code.OVERBID: (gettext_lazy("%(seat)s bids %(bid)s, but the highest bid before was %(top)s: at most %(most)s."),
                   gettext_lazy("%(where)s: a bid more than one above the highest bid before."),),
    Code.TRUMP_NOT_IN_DISPLAY: (gettext_lazy("%(seat)s may choose only a colour or number of his display, not %(trump)s."),
                                gettext_lazy("%(where)s: a trump from outside the display."),),
    Code.TRUMP_TAKEN: (gettext_lazy("The Chef (%(seat)s) may not choose %(trump)s: the Vize (%(vice)s) chose it."),
                       gettext_lazy("The Chef may not choose %(trump)s: the Vize chose it."),
                       gettext_lazy("%(where)s: the Chef may not choose the Vize's trump."),),
    Code.PARTNER_IS_CHEF: (gettext_lazy("The Chef (%(seat)s) cannot be his own partner."),
                           gettext_lazy("%(where)s: the Chef cannot be his own partner."),),
    Code.PARTNER_IS_VICE: (gettext_lazy("The Chef may not name the Vize (%(seat)s) as partner."),
                           gettext_lazy("%(where)s: the Chef may not name the Vize as partner."),),
    Code.ILLEGAL_FOLLOW: (gettext_lazy("%(seat)s plays %(card)s in trick %(trick)s but must follow with one of %(cards)s."),
                          gettext_lazy("%(where)s: the player must follow."),),
    Code.CHEF_NOT_TOP: (gettext_lazy("The Chef is the only highest bidder, %(expected_seat)s, not %(seat)s."),
                        gettext_lazy("%(where)s: the Chef must be the only highest bidder."),),
    Code.VICE_NOT_SECOND: (gettext_lazy("%(seat)s cannot be the Vize: he is not among the second highest bidders."),
                           gettext_lazy("%(where)s: the Vize must be among the second highest bidders."),),
    Code.PROVOCATEUR_NOT_TOP: (gettext_lazy("The provocateur is one of the highest bidders (%(seats)s), not %(seat)s."),
                               gettext_lazy("%(where)s: the provocateur must be one of the highest bidders."),),
    Code.CARD_POINTS_SUM: (gettext_lazy("The card points must add up to %(due)s, not %(got)s."),
                           gettext_lazy("%(where)s: the card points do not add up to the points in play."),),
    Code.ILLEGAL_PLAY: (gettext_lazy("%(seat)s may not play %(card)s on %(top_card)s."),
                        gettext_lazy("%(where)s: this card may not go on the top card."),),
    Code.FORBIDDEN_WISH: (gettext_lazy("%(where)s: %(suit)s may not be wished here."),
                          gettext_lazy("%(where)s: this suit may not be wished here."),),
    Code.SEVEN_PENDING: (gettext_lazy("%(seat)s must pass the 7 on with a 7 or draw, not play %(card)s."),
                         gettext_lazy("%(where)s: only a 7 may be played on a pending 7."),),
    Code.MUST_FOLLOW_ACE: (gettext_lazy("%(seat)s holds a card that can go on the ace and may not draw."),
                           gettext_lazy("%(where)s: a player who can answer the ace may not draw."),),
    Code.WRONG_DRAW_COUNT: (gettext_lazy("%(seat)s must draw %(due)s cards, not %(got)s."),
                            gettext_lazy("%(where)s: the wrong number of cards is drawn."),),
    Code.NOT_IN_PILE: (gettext_lazy("%(where)s: no %(card)s is left in the draw pile."),
                       gettext_lazy("%(where)s: this card is no longer in the draw pile."),),
    Code.DRAW_DUE: (gettext_lazy("%(seat)s holds fewer than two cards and must draw first."),
                    gettext_lazy("%(where)s: the player must draw first."),),
    Code.SHOW_DUE: (gettext_lazy("%(seat)s must show two cards now."),
                    gettext_lazy("%(where)s: two cards must be shown now."),),
    Code.UNEXPECTED_SHOW: (gettext_lazy("%(where)s: no 9 or 10 asks for showing cards."),),
    Code.NOT_SHOWN: (gettext_lazy("%(seat)s takes %(card)s, which was not shown."),
                     gettext_lazy("%(where)s: the card taken was not shown."),),
    Code.NO_WEDDING_CHANCE: (gettext_lazy("%(seat)s announces a wedding, but no queen or king was just played."),
                             gettext_lazy("%(where)s: no queen or king was just played for a wedding."),),
    Code.NOT_COUNTERPART: (gettext_lazy("%(seat)s announces a wedding with %(card)s; on %(top_card)s only %(counterpart)s is one."),
                           gettext_lazy("%(where)s: this card does not make a wedding with the top card."),),
    Code.NO_EMPTY_HAND: (gettext_lazy("A game ends when a hand is empty; every hand here holds cards."),),
    Code.NO_JACK_FOR_WISH: (gettext_lazy("No jack was left to wish %(suit)s."),
                            gettext_lazy("%(where)s: no jack was left to name the wish."),),
    Code.NO_ZERO: (gettext_lazy("The player who went out has 0 minus points; nobody has 0 here."),),
    Code.MINUS_MISMATCH: (gettext_lazy("The minus points do not match the cards left."),),
    Code.MINUS_IMPOSSIBLE: (gettext_lazy("These minus points are more than the cards of a game can give."),),
    Code.TOO_MANY_CARDS: (gettext_lazy("%(where)s: more cards than the deck leaves for it."),),
    Code.FOURTH_COLOUR: (gettext_lazy("%(seat)s cannot play %(card)s: three colours already lie in the trick."),
                         gettext_lazy("%(where)s: a card of a fourth colour in the trick."),),
    Code.SHORT_TRICK: (gettext_lazy("The trick stops, but %(seat)s could still play."),
                       gettext_lazy("%(where)s: the trick stops too early."),),
    Code.PICK_NOT_IN_TRICK: (gettext_lazy("%(seat)s picks %(card)s, which is not in the trick."),
                             gettext_lazy("%(where)s: a picked card that is not in the trick."),),
    Code.PICK_UNEXPECTED: (gettext_lazy("%(where)s: the trick that ends the round is not split."),),
    Code.KEEP_MISSING: (gettext_lazy("%(seat)s now holds all four colours and must choose two colours to keep."),
                        gettext_lazy("%(where)s: a player holds all four colours and must choose two to keep."),),
    Code.KEEP_UNEXPECTED: (gettext_lazy("%(seat)s does not reach four colours here and keeps nothing."),
                           gettext_lazy("%(where)s: nobody chooses colours to keep here."),),
    Code.TOO_MANY_COLOURS: (gettext_lazy("%(seat)s has four open colours; a player keeps only two."),
                            gettext_lazy("%(where)s: four open colours; a player keeps only two."),),
    Code.BAD_DISCARD: (gettext_lazy("%(seat)s: discarded cards mean that two colours were kept: exactly two open colours and "
                         "at least 2 discarded cards."),
                       gettext_lazy("%(where)s: discarded cards do not match the open colours."),),
    Code.NOT_WHOLE_TAKES: (gettext_lazy("%(seat)s collected %(got)s cards, which no number of whole takes gives."),
                           gettext_lazy("%(where)s: the cards are not a sum of whole takes."),),
    Code.CLAIMED_MISMATCH: (gettext_lazy("%(where)s: the written result differs from the hand."),),
    Code.WRONG_GAME: (gettext_lazy("This table plays %(table_game)s, not %(game_name)s."),
                      gettext_lazy("%(where)s: this is another game than the table plays."),),
    Code.WRONG_PLAYER_COUNT: (gettext_lazy("This table seats %(due)s players, the hand %(got)s."),
                              gettext_lazy("%(where)s: another number of players than the table's."),),
    Code.WRONG_DEALER: (gettext_lazy("Hand %(number)s is dealt by %(expected_seat)s, not by %(seat)s."),
                        gettext_lazy("%(where)s: this is not the player who deals now."),),
    Code.WRONG_DIRECTION: (gettext_lazy("%(where)s: the game starts in the other direction."),),
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
