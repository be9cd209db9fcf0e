"""Mit List und Tücke: one round, full or summary (``../shared/records.md``).

The rules are ``../shared/rules/list-und-tuecke.md``. A full record is replayed trick by trick on a
``Round``; a summary is checked for consistency. Both answer ``{"scores": [...], "stacks": [...]}``.

Hot loop: cards are plain integers ``colour * 32 + number`` (colour 0..3 for B, G, R, Y) looked up in
import-time dictionaries, one per deck; hands are sets of such integers. The notation comes back
only in error messages.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ..catalog import GAMES
from .common import body_kind, check_claimed, escape, is_int, require_int, require_length, require_list, require_object
from .errors import Code, RecordError

COLOURS = "BGRY"
COLOUR_NAMES = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}
HAND_SIZE = 14  # rules/list-und-tuecke.md, Cards: 14 cards each whatever the player count
TRICKS = 14
FULL_MEMBERS = ("hands", "tricks")
MIN_PLAYERS, MAX_PLAYERS = GAMES["lut"].min_players, GAMES["lut"].max_players


@dataclass(frozen=True)
class Deck:
    """What changes with the player count (rules/list-und-tuecke.md, Cards; A trick)."""

    players: int
    sizes: tuple[int, int, int, int]  # highest number per colour, in the order of COLOURS
    first_share: int  # k1: the cards the first winner picks
    codes: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    # turns[leader]: the seats in playing order (clockwise = increasing index)
    turns: list[list[int]] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        for leader in range(self.players):
            self.turns.append([(leader + i) % self.players for i in range(self.players)])
        for colour, size in enumerate(self.sizes):
            for number in range(1, size + 1):
                self.codes[f"{COLOURS[colour]}{number}"] = colour * 32 + number

    @property
    def size(self) -> int:
        return sum(self.sizes)

    @property
    def second_share(self) -> int:
        """The second winner takes the rest of the trick (rules/list-und-tuecke.md, A trick)."""
        return self.players - self.first_share

    @cached_property
    def whole_takes(self) -> frozenset[int]:
        """The card counts a seat can collect in a round: sums of whole shares of tricks (records.md,
        LuT summary: with 4 players even, with 6 a multiple of 3, with 5 never 1)."""
        return frozenset(
            first * self.first_share + second * self.second_share
            for first in range(self.size // self.first_share + 1)
            for second in range(self.size // self.second_share + 1)
        )

    def describe(self, colour: int) -> str:
        return f"{COLOURS[colour]}1–{COLOURS[colour]}{self.sizes[colour]}"


DECKS = {
    4: Deck(4, (14, 14, 14, 14), 2),
    5: Deck(5, (17, 17, 18, 18), 3),
    6: Deck(6, (21, 21, 21, 21), 3),
}


def card_name(code: int) -> str:
    return f"{COLOURS[code >> 5]}{code & 31}"


def colour_list(mask: int) -> str:
    return ", ".join(COLOURS[c] for c in range(4) if mask >> c & 1)


def stack_score(open_stacks, discarded: int) -> int:
    """rules/list-und-tuecke.md, Scoring: s1 × s2 // r (r = every other collected card), or s1 × s2
    when r = 0; open cards of one colour or none score 0."""
    sizes = sorted(open_stacks, reverse=True)
    if len(sizes) < 2 or not sizes[1]:
        return 0
    product = sizes[0] * sizes[1]
    rest = sum(sizes) - sizes[0] - sizes[1] + discarded
    return product // rest if rest else product


def stacks_shape(open_stacks, discarded: int) -> dict:
    """A seat's stacks as records.md writes them: the non-empty open colours and ``discarded``."""
    shape = {COLOURS[c]: size for c, size in enumerate(open_stacks) if size}
    shape["discarded"] = discarded
    return shape


# --- full records -----------------------------------------------------------------------------------


class Round:
    """One round being replayed: hands, collected stacks, the next leader (python-chess's ``Board``).

    ``push(trick)`` applies the next trick (records.md: ``cards``, ``pick``, ``keep``); errors point
    into the record, counting the tricks pushed before; paths are built only when an error is
    raised. ``phase`` is ``"tricks"`` while tricks are due, ``"over"`` after the 14th or a trick
    that stopped short. After an error the round is not to be used any further.
    """

    def __init__(self, deck: Deck, dealer: int, hands: list[set[int]]) -> None:
        self.deck = deck
        self.players = deck.players
        self.codes = deck.codes
        self.first_share = deck.first_share
        self.turns = deck.turns
        self.hands = hands
        self.leader = (dealer + 1) % deck.players  # rules: the player left of the dealer leads first
        self.open = [[0, 0, 0, 0] for _ in range(deck.players)]
        self.kept: list[int | None] = [None] * deck.players  # bit mask of the two kept colours
        self.discarded = [0] * deck.players
        self.tricks = 0  # full tricks played
        self.read = 0  # tricks pushed (a short last one included)
        self.ended = False
        self.early_end = False

    @property
    def phase(self) -> str:
        return "over" if self.ended else "tricks"

    # One trick ------------------------------------------------------------------------------------
    def push(self, trick) -> None:
        t = self.read
        self.read = t + 1
        if self.ended:
            raise RecordError(
                Code.AFTER_END,
                f"the round ended {'early' if self.early_end else 'after 14 tricks'}; no trick may follow",
                f"/tricks/{t}",
            )
        if type(trick) is not dict:
            raise RecordError(Code.BAD_TYPE, "a trick must be a JSON object with cards, pick and keep", f"/tricks/{t}")
        cards = trick.get("cards")
        if type(cards) is not list:
            raise RecordError(*_list_problem(cards, "the trick's cards"), f"/tricks/{t}/cards")
        n = self.players
        if len(cards) > n:
            raise RecordError(
                Code.BAD_LENGTH, f"a trick holds one card per player: {n}, not {len(cards)}", f"/tricks/{t}/cards"
            )
        codes = self.codes
        hands = self.hands
        colours = 0  # bit mask of the colours lying in the trick
        count = 0
        played = []
        # rules/list-und-tuecke.md, A trick: the first winner plays the highest card of the led
        # colour; the second the lowest card of another colour, the first played of equal numbers
        # (strict <); none when every card is of the led colour.
        led = high = low = 99
        first = second = None
        for card, seat in zip(cards, self.turns[self.leader]):
            try:
                code = codes[card]
                hands[seat].remove(code)
            except (KeyError, TypeError):
                raise self._unplayable(card, seat, f"/tricks/{t}/cards/{len(played)}") from None
            colour = code >> 5
            if not colours >> colour & 1:
                if count == 3:
                    raise RecordError(
                        Code.FOURTH_COLOUR,
                        f"seat {seat} cannot play {card}: {colour_list(colours)} already lie in the trick and a "
                        "trick holds at most three colours",
                        f"/tricks/{t}/cards/{len(played)}", {"seat": seat, "card": card},
                    )
                if not count:
                    led, high, first = colour, code, seat
                colours |= 1 << colour
                count += 1
            if colour == led:
                if code > high:
                    high, first = code, seat
            elif code & 31 < low:
                low, second = code & 31, seat
            played.append(code)
        if len(played) < n:
            self._stop_short(trick, t, self.turns[self.leader][len(played)], colours, count)
            return
        taken = self._pick(trick.get("pick"), played, first, t)
        due = []
        if self._take(first, taken):
            due.append(first)
        # played now holds the rest: the second winner's, or with a single-colour trick it leaves
        # the game (rules: A trick)
        if second is not None and self._take(second, played):
            due.append(second)
        keep = trick.get("keep")
        if keep is not None and type(keep) is not dict:
            raise RecordError(Code.BAD_TYPE, "keep must be a JSON object {seat: [colour, colour]}", f"/tricks/{t}/keep")
        if due or keep:
            self._choose(due, keep or {}, f"/tricks/{t}/keep")
        self.leader = first if second is None else second
        self.tricks += 1
        if self.tricks == TRICKS:
            self.ended = True

    def _stop_short(self, trick: dict, t: int, seat: int, colours: int, count: int) -> None:
        """A trick with fewer cards than players: only where ``seat`` holds only the fourth colour
        (rules/list-und-tuecke.md, End of a round); the trick and the hands leave the game."""
        if count < 3 or any(1 << (code >> 5) & colours for code in self.hands[seat]):
            could = "a card of a colour in the trick" if count == 3 else "any card (fewer than three colours lie)"
            raise RecordError(
                Code.SHORT_TRICK,
                f"the trick stops after {len(trick['cards'])} cards, but seat {seat} could play {could}",
                f"/tricks/{t}/cards", {"seat": seat},
            )
        # Decided: a short trick has no pick and no keep (records.md: "fewer cards and no pick").
        if trick.get("pick") is not None:
            raise RecordError(
                Code.PICK_UNEXPECTED, "a trick the round ended in is not split: it has no pick", f"/tricks/{t}/pick"
            )
        keep = trick.get("keep")
        if keep is not None and type(keep) is not dict:
            raise RecordError(Code.BAD_TYPE, "keep must be a JSON object {seat: [colour, colour]}", f"/tricks/{t}/keep")
        if keep and any(value is not None for value in keep.values()):
            raise RecordError(
                Code.KEEP_UNEXPECTED, "nobody collects cards in a trick that ends the round", f"/tricks/{t}/keep"
            )
        self.ended = self.early_end = True

    def _pick(self, pick, played: list[int], first: int, t: int) -> list[int]:
        """The first winner's k1 cards, each from the trick, none twice; they leave ``played``."""
        if type(pick) is not list:
            what = f"seat {first}'s pick (the first winner's cards)"
            raise RecordError(*_list_problem(pick, what), f"/tricks/{t}/pick")
        share = self.first_share
        if len(pick) != share:
            raise RecordError(
                Code.BAD_PICK,
                f"seat {first} wins the trick with the highest card of the led colour and picks {share} cards "
                f"with {self.players} players, not {len(pick)}",
                f"/tricks/{t}/pick", {"seat": first, "due": share, "got": len(pick)},
            )
        codes = self.codes
        taken = []
        for card in pick:
            try:
                code = codes[card]
                played.remove(code)  # a card picked twice is no longer there the second time
            except (KeyError, TypeError, ValueError):
                raise self._bad_pick_card(pick, played + taken, first, f"/tricks/{t}/pick") from None
            taken.append(code)
        return taken

    def _take(self, seat: int, cards: list[int]) -> bool:
        """Put a winner's share on his stacks; true if he now holds all four colours and must choose
        (rules/list-und-tuecke.md, Collecting: counted after the whole share is taken)."""
        stacks = self.open[seat]
        kept = self.kept[seat]
        if kept is None:
            for code in cards:
                stacks[code >> 5] += 1
            return 0 not in stacks
        for code in cards:
            colour = code >> 5
            if kept >> colour & 1:
                stacks[colour] += 1
            else:
                self.discarded[seat] += 1
        return False

    def _choose(self, due: list[int], keep: dict, path: str) -> None:
        """``keep`` names exactly the seats that reached four colours, each with two colours."""
        given = {key: value for key, value in keep.items() if value is not None}
        for seat in due:
            if str(seat) not in given:
                raise RecordError(
                    Code.KEEP_MISSING,
                    f"seat {seat} now holds cards of all four colours and must choose two colours to keep",
                    path, {"seat": seat},
                )
        expected = {str(seat) for seat in due}
        for key in given:
            if key not in expected:
                raise RecordError(
                    Code.KEEP_UNEXPECTED,
                    f"keep names seat {key}, who does not reach four colours with this trick",
                    path, {"seat": int(key)} if key.isdigit() else {},
                )
        for seat in due:
            choice = given[str(seat)]
            mask = _keep_mask(choice)
            if mask is None:
                raise RecordError(
                    Code.BAD_KEEP,
                    f"seat {seat} must keep two different colours out of B, G, R, Y, got {choice!r}",
                    f"{path}/{escape(seat)}", {"seat": seat},
                )
            stacks = self.open[seat]
            for colour in range(4):
                if not mask >> colour & 1:
                    self.discarded[seat] += stacks[colour]
                    stacks[colour] = 0
            self.kept[seat] = mask

    # Errors ---------------------------------------------------------------------------------------
    def _unplayable(self, card, seat: int, path: str) -> RecordError:
        """A card that does not exist, or that ``seat`` does not hold."""
        code = self.deck.codes.get(card) if type(card) is str else None
        if code is None:
            return bad_card(card, self.deck, path)
        holder = next((s for s, hand in enumerate(self.hands) if code in hand), None)
        if holder is None:
            # As in Mü: a card played again is one the seat no longer holds, a move against the
            # rules (card_not_held); duplicate_card is for a deal or a pick that names a card twice.
            return RecordError(Code.CARD_NOT_HELD, f"seat {seat} plays {card}, which has already been played", path,
                               {"seat": seat, "card": card})
        return RecordError(
            Code.CARD_NOT_HELD, f"seat {seat} plays {card}, which he does not hold: it is in seat {holder}'s hand", path,
            {"seat": seat, "card": card, "holder": holder},
        )

    def _bad_pick_card(self, pick: list, played: list[int], first: int, path: str) -> RecordError:
        """The first card of a pick that does not exist, is picked twice or is not in the trick."""
        taken = []
        for j, card in enumerate(pick):
            code = self.deck.codes.get(card) if type(card) is str else None
            if code is None:
                return bad_card(card, self.deck, f"{path}/{j}")
            if code in taken:
                return RecordError(Code.DUPLICATE_CARD, f"seat {first} picks {card} twice", f"{path}/{j}",
                                   {"seat": first, "card": card})
            if code not in played:
                return RecordError(
                    Code.PICK_NOT_IN_TRICK,
                    f"seat {first} picks {card}, which is not in the trick ({', '.join(map(card_name, played))})",
                    f"{path}/{j}", {"seat": first, "card": card},
                )
            taken.append(code)
        raise AssertionError("no bad pick found")  # pragma: no cover

    def answer(self) -> dict:
        return {
            "scores": [stack_score(self.open[s], self.discarded[s]) for s in range(self.players)],
            "stacks": [stacks_shape(self.open[s], self.discarded[s]) for s in range(self.players)],
        }


def _keep_mask(choice) -> int | None:
    if type(choice) is not list or len(choice) != 2:
        return None
    mask = 0
    for colour in choice:
        if type(colour) is not str or len(colour) != 1 or colour not in COLOURS:
            return None
        mask |= 1 << COLOURS.index(colour)
    return mask if mask.bit_count() == 2 else None


def _list_problem(value, what: str) -> tuple[str, str]:
    if value is None:
        return Code.MISSING_MEMBER, f"{what} is required"
    return Code.BAD_TYPE, f"{what} must be a JSON array"


def bad_card(card, deck: Deck, path: str) -> RecordError:
    if type(card) is not str:
        return RecordError(Code.BAD_TYPE, f"a card is a string such as R14, got {card!r}", path)
    if len(card) >= 2 and card[0] in COLOURS:
        colour = COLOURS.index(card[0])
        return RecordError(
            Code.BAD_CARD,
            f"{card} is not a card of the {deck.players}-player deck ({deck.describe(colour)})",
            path, {"value": card},
        )
    return RecordError(Code.BAD_CARD, f"{card!r} is not a card: a colour B, G, R or Y, then a number", path,
                       {"value": card})


def read_hands(value, deck: Deck) -> list[set[int]]:
    """The n hands as dealt: 14 cards each, every card of the deck once (so the whole deck)."""
    n = deck.players
    hands = require_list(value, "/hands", "hands")
    require_length(hands, n, "/hands", "hands (one per player)")
    card_code = deck.codes.__getitem__
    try:
        dealt = [set(map(card_code, hand)) for hand in hands if type(hand) is list and len(hand) == HAND_SIZE]
    except (KeyError, TypeError):
        dealt = []
    # n sets of at most 14 whose union has 14·n cards: 14 each, all different
    if len(dealt) != n or len(set().union(*dealt)) != n * HAND_SIZE:
        raise _first_bad_hand(hands, deck)
    return dealt


def _first_bad_hand(hands: list, deck: Deck) -> RecordError:
    """The first problem of the hands in reading order: a hand's type or length, then its cards (a
    card that does not exist, or was dealt before: the later occurrence is the one too many)."""
    earlier: dict[str, int] = {}
    for seat, hand in enumerate(hands):
        path = f"/hands/{seat}"
        try:
            require_list(hand, path, f"seat {seat}'s hand")
            require_length(hand, HAND_SIZE, path, f"seat {seat}'s hand")
        except RecordError as error:
            return error
        for j, card in enumerate(hand):
            if type(card) is not str or card not in deck.codes:
                return bad_card(card, deck, f"{path}/{j}")
            if card in earlier:
                holder = earlier[card]
                where = "earlier in this hand" if holder == seat else f"in seat {holder}'s hand"
                return RecordError(
                    Code.DUPLICATE_CARD, f"{card} is dealt twice (also {where}); the deck has one", f"{path}/{j}",
                    {"card": card, "seat": seat},
                )
            earlier[card] = seat
    raise AssertionError("no bad card found")  # pragma: no cover


def validate_full(record: dict, deck: Deck, dealer: int) -> dict:
    hands = read_hands(record.get("hands"), deck)
    tricks = require_list(record.get("tricks"), "/tricks", "tricks")
    round_ = Round(deck, dealer, hands)
    push = round_.push
    for trick in tricks:
        push(trick)
    if not round_.ended:
        raise RecordError(
            Code.NOT_ENDED,
            f"the record stops after {len(tricks)} tricks; a round lasts 14 tricks unless a player cannot play",
            "/tricks",
        )
    return round_.answer()


# --- summary records --------------------------------------------------------------------------------


def validate_summary(summary, deck: Deck) -> dict:
    summary = require_object(summary, "/summary", "summary")
    stacks = require_list(summary.get("stacks"), "/summary/stacks", "stacks")
    n = deck.players
    require_length(stacks, n, "/summary/stacks", "stacks (one per player)")
    seats = [_read_stacks(entry, f"/summary/stacks/{seat}", seat, deck) for seat, entry in enumerate(stacks)]
    for colour in range(4):
        total = sum(open_stacks[colour] for open_stacks, _ in seats)
        if total > deck.sizes[colour]:
            raise RecordError(
                Code.TOO_MANY_CARDS,
                f"the open {COLOUR_NAMES[COLOURS[colour]]} stacks hold {total} cards; the "
                f"{n}-player deck has {deck.sizes[colour]}",
                "/summary/stacks",
            )
    total = sum(sum(open_stacks) + discarded for open_stacks, discarded in seats)
    if total > deck.size:
        raise RecordError(
            Code.TOO_MANY_CARDS, f"the stacks hold {total} cards; the {n}-player deck has {deck.size}", "/summary/stacks"
        )
    # records.md lists this relation after the deck's totals
    for seat, (open_stacks, discarded) in enumerate(seats):
        if sum(open_stacks) + discarded not in deck.whole_takes:
            raise RecordError(
                Code.NOT_WHOLE_TAKES,
                f"seat {seat} collected {sum(open_stacks) + discarded} cards, which is no sum of whole takes: a "
                f"first winner takes {deck.first_share} and a second {deck.second_share} with {n} players",
                f"/summary/stacks/{seat}", {"seat": seat, "got": sum(open_stacks) + discarded},
            )
    return {
        "scores": [stack_score(open_stacks, discarded) for open_stacks, discarded in seats],
        "stacks": [stacks_shape(open_stacks, discarded) for open_stacks, discarded in seats],
    }


def _read_stacks(entry, path: str, seat: int, deck: Deck) -> tuple[list[int], int]:
    entry = require_object(entry, path, f"seat {seat}'s stacks")
    open_stacks = [0, 0, 0, 0]
    discarded = None
    for key, value in entry.items():  # reading order; unknown members are ignored (records.md)
        if value is None or (key != "discarded" and key not in COLOURS):
            continue
        if not is_int(value):
            raise RecordError(Code.BAD_TYPE, f"seat {seat}'s {key} must be a JSON integer, got {value!r}", f"{path}/{key}")
        if key == "discarded":
            if not 0 <= value <= deck.size:
                raise RecordError(
                    Code.OUT_OF_RANGE,
                    f"seat {seat}'s discard pile must hold 0 to {deck.size} cards, not {value}",
                    f"{path}/{key}",
                )
            # a player who chose turned two non-empty stacks over (records.md): 0 or at least 2
            if value == 1:
                raise RecordError(
                    Code.BAD_DISCARD,
                    f"seat {seat}'s discard pile holds 0 cards or at least 2 (two non-empty stacks turned over), "
                    f"not {value}",
                    f"{path}/{key}", {"seat": seat},
                )
            discarded = value
        else:
            colour = COLOURS.index(key)
            if not 0 <= value <= deck.sizes[colour]:
                raise RecordError(
                    Code.OUT_OF_RANGE,
                    f"seat {seat}'s {COLOUR_NAMES[key]} stack must hold 0 to {deck.sizes[colour]} cards, not {value}",
                    f"{path}/{key}",
                )
            open_stacks[colour] = value
    if discarded is None:
        raise RecordError(Code.MISSING_MEMBER, f"seat {seat}'s discarded count is required", f"{path}/discarded")
    count = sum(1 for size in open_stacks if size)
    if count > 3:
        raise RecordError(
            Code.TOO_MANY_COLOURS,
            f"seat {seat} has four open colours; on reaching the fourth a player keeps two and turns two over",
            path, {"seat": seat},
        )
    if discarded and count != 2:
        raise RecordError(
            Code.BAD_DISCARD,
            f"seat {seat} has a discard pile, so he chose two colours to keep and has exactly two open "
            f"colours, not {count}",
            path, {"seat": seat},
        )
    return open_stacks, discarded


# --- entry points ------------------------------------------------------------------------------------


def validate(record: dict) -> dict:
    """Validate one LuT round record (``game`` already checked) and return the engine's answer."""
    players = require_int(record, "players", "", MIN_PLAYERS, MAX_PLAYERS, "players")
    dealer = require_int(record, "dealer", "", 0, players - 1, "dealer")
    deck = DECKS[players]
    if body_kind(record, FULL_MEMBERS) == "full":
        answer = validate_full(record, deck, dealer)
    else:
        answer = validate_summary(record["summary"], deck)
    return check_claimed(record, answer)


def game_totals(answers: list[dict]) -> dict:
    """The engine's view of a game: n rounds of n players (rules: A game), summed; the highest total
    wins (several winners on a tie)."""
    if not answers:
        raise ValueError("a game has at least one round")
    players = len(answers[0]["scores"])
    if any(len(answer["scores"]) != players for answer in answers):
        raise ValueError("every round of a game has the same players")
    if len(answers) != players:
        raise ValueError(f"a game of {players} players has {players} rounds, not {len(answers)}")
    totals = [sum(answer["scores"][seat] for answer in answers) for seat in range(players)]
    best = max(totals)
    return {"totals": totals, "winners": [seat for seat, total in enumerate(totals) if total == best]}
