"""Mü: validate one deal's hand record and score it.

The rules are ``../shared/rules/mu.md`` (cited below by section, ``§4``); the record format, the
order of the checks and the pointer of each error are ``../shared/records.md``.

A card is its text (``"R7"``) all the way through: the tables below map a card text to plain ints
(points, suit, rank), computed once at import or once per choice of trumps. Looking a text up in a
small dict costs about what indexing a list by a card number would, and saves converting every
card. A full record is read move by move on a ``Deal`` (python-chess's ``Board``): the deal, then
``push`` of each auction action, the choices and each trick. What changes with the player count is
data (``VARIANTS``), as python-chess's variants are.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from itertools import chain, combinations
from typing import Any, NamedTuple, NoReturn

from ..catalog import GAMES
from .common import (
    body_kind,
    check_claimed,
    check_int,
    require_int,
    require_int_list,
    require_length,
    require_list,
    require_object,
)
from .errors import Code, RecordError

# §Cards: five colours, digits 0–9 with the 1 and the 7 twice, points ("triangles") per digit.
COLOURS = "RYGBK"
DIGITS = "0123456789"
COLOUR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue", "K": "black"}
DIGIT_COPIES = {"0": 1, "1": 2, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 2, "8": 1, "9": 1}
DIGIT_POINTS = {"0": 1, "1": 0, "2": 1, "3": 1, "4": 1, "5": 1, "6": 2, "7": 2, "8": 1, "9": 0}
CARD_NAMES = tuple(colour + digit for colour in COLOURS for digit in DIGITS)
CARD_COPIES = {name: DIGIT_COPIES[name[1]] for name in CARD_NAMES}
CARD_POINTS = {name: DIGIT_POINTS[name[1]] for name in CARD_NAMES}



@dataclass(frozen=True)
class Variant:
    """What changes with the player count (§Cards, §3, §5)."""

    players: int
    hand_size: int  # cards per hand, so tricks per deal
    goal_base: int  # §5: the team goal is goal_base + goal_step × level
    goal_step: int
    points_in_play: int
    colours: int  # colours in play: any three, named in ``colours``, or all five
    vice: bool  # §3: is there a Vize
    partner: bool  # §5: does the Chef name a partner


VARIANTS = {
    3: Variant(3, hand_size=12, goal_base=10, goal_step=2, points_in_play=36, colours=3, vice=False, partner=False),
    4: Variant(4, hand_size=15, goal_base=28, goal_step=2, points_in_play=60, colours=5, vice=True, partner=True),
    5: Variant(5, hand_size=12, goal_base=21, goal_step=3, points_in_play=60, colours=5, vice=True, partner=True),
    6: Variant(6, hand_size=10, goal_base=16, goal_step=4, points_in_play=60, colours=5, vice=True, partner=True),
}
HAND_SIZE = {players: variant.hand_size for players, variant in VARIANTS.items()}


def max_bid(players: int) -> int:
    """The highest bid a deal of ``players`` allows: §1, a bid is the cards in a player's display,
    and he may put out every card he holds (15 with 4 players, 12 with 3 or 5, 10 with 6). A
    summary's bids are checked against it; the score sheet offers 0 to it."""
    return VARIANTS[players].hand_size


MIN_PLAYERS, MAX_PLAYERS = GAMES["mu"].min_players, GAMES["mu"].max_players

# §7: the bonus is min(100, 10 × level + t); t by the kind of the Chef's trump.
BONUS_CAP = 100
TRUMP_BONUS = {"colour": 0, "1": 10, "7": 10, "digit": 20, "none": 30}

NO_TRUMP = "none"
TRUMP_SYMBOLS = frozenset(COLOURS) | frozenset(DIGITS)
# The suits a led card asks to follow: the colours by index, and every trump together (§4: a
# trump belongs to no colour).
TRUMP = len(COLOURS)

# records.md: ``colours`` describes the deal, so it belongs to both bodies (not to the body check).
FULL_MEMBERS = ("hands", "auction", "vice_trump", "chef_trump", "partner", "tricks")
CHOICE_MEMBERS = ("vice_trump", "chef_trump", "partner", "tricks")


class _Deck:
    """The cards in play with one set of colours, and the whole deck sorted (to compare a deal)."""

    def __init__(self, colours: str) -> None:
        self.colours = colours
        self.names = frozenset(name for name in CARD_NAMES if name[0] in colours)
        self.sorted_names = sorted(name for name in self.names for _ in range(CARD_COPIES[name]))


FULL_DECK = _Deck(COLOURS)
# With three players any three colours may be in play (§Cards). Keyed by the sorted letters.
DECKS = {trio: _Deck("".join(trio)) for trio in combinations(sorted(COLOURS), 3)}
DECKS[tuple(sorted(COLOURS))] = FULL_DECK


def team_goal(players: int, level: int) -> int:
    """§5: the sum of card points the Chef's team needs at this level."""
    variant = VARIANTS[players]
    return variant.goal_base + variant.goal_step * level


def achieved_level(players: int, team_points: int) -> int:
    """§7: the highest level whose goal the team's points reach (0 below the goal of level 1)."""
    variant = VARIANTS[players]
    base, step = variant.goal_base, variant.goal_step
    if team_points < base + step:
        return 0
    return min(variant.hand_size, (team_points - base) // step)


def bonus(level: int, chef_trump: str) -> int:
    """§7: the bonus of each member of a Chef's team that reached its goal."""
    if chef_trump == NO_TRUMP:
        extra = TRUMP_BONUS["none"]
    elif chef_trump in COLOURS:
        extra = TRUMP_BONUS["colour"]
    else:
        extra = TRUMP_BONUS.get(chef_trump, TRUMP_BONUS["digit"])
    return min(BONUS_CAP, 10 * level + extra)


def matches_trump(trump: str | None, card: str) -> bool:
    """Whether a card is of the colour or the digit a trump names."""
    return trump is not None and trump != NO_TRUMP and trump in card


# the cards each colour or digit trump names
TRUMP_CARDS = {symbol: frozenset(name for name in CARD_NAMES if matches_trump(symbol, name)) for symbol in TRUMP_SYMBOLS}


class TrumpTables(NamedTuple):
    """Per card text, for one choice of trumps (§4, §6).

    ``suit[card]``: ``TRUMP`` for any trump, else the colour's index; a led suit must be followed.
    ``suit_cards[s]``: the cards of suit ``s``. ``led_rank[s][card]``: the rank of a card in a
    trick whose led suit is ``s``: a trump ranks 100 + 10 × tier + digit (tier 3 double trump, 2
    the Chef's, 1 the Vize's), a card of the led colour its digit, any other card -1 (it cannot
    win). Of equal ranks the first played wins.
    """

    suit: dict
    suit_cards: tuple
    led_rank: tuple


_trump_tables: dict[tuple, TrumpTables] = {}


def trump_tables(chef_trump: str, vice_trump: str | None) -> TrumpTables:
    key = (chef_trump, vice_trump)
    tables = _trump_tables.get(key)
    if tables is None:
        suit, rank = {}, {}
        for name in CARD_NAMES:
            # a card matching both trumps is a double trump (§4): tier 2 + 1
            tier = 2 * matches_trump(chef_trump, name) + matches_trump(vice_trump, name)
            suit[name] = TRUMP if tier else COLOURS.index(name[0])
            rank[name] = (100 + 10 * tier if tier else 0) + int(name[1])
        suits = range(TRUMP + 1)
        suit_cards = tuple(frozenset(name for name in CARD_NAMES if suit[name] == led) for led in suits)
        led_rank = tuple(
            {name: rank[name] if suit[name] == led or suit[name] == TRUMP else -1 for name in CARD_NAMES}
            for led in suits
        )
        tables = _trump_tables[key] = TrumpTables(suit, suit_cards, led_rank)
    return tables


def trick_winner(cards: list[str], tables: TrumpTables) -> int:
    """§6: the index in the trick of the winning card: the highest trump, else the highest card of
    the led colour; of equal cards the first played."""
    led_rank = tables.led_rank[tables.suit[cards[0]]]
    best = winner = index = 0  # the led card ranks at least 0
    for card in cards:
        rank = led_rank[card]
        if rank > best:
            best, winner = rank, index
        index += 1
    return winner


def find_vice(players: int, chef: int, displays: list[list[str]]) -> int | None:
    """§3: the Vize, or None (3 players, nobody else with cards out, or a tie that stays).

    Most cards out wins; a tie is broken by the display digits sorted from the highest down,
    compared one by one (seed 000's full comparison).
    """
    if not VARIANTS[players].vice:
        return None
    most, candidates = 0, []
    for seat in range(players):
        count = len(displays[seat])
        if seat == chef or count < most or not count:
            continue
        if count > most:
            most, candidates = count, [seat]
        else:
            candidates.append(seat)
    if len(candidates) == 1:
        return candidates[0]
    best_digits, vice = None, None
    for seat in candidates:
        digits = sorted((name[1] for name in displays[seat]), reverse=True)
        if best_digits is None or digits > best_digits:
            best_digits, vice = digits, seat
        elif digits == best_digits:
            vice = None
    return vice


def settle(players: int, chef: int, vice: int | None, partner: int | None, level: int,
           chef_trump: str, card_points: list[int]) -> dict:
    """§7: the answer of a played deal from its card points."""
    team = card_points[chef] + (card_points[partner] if partner is not None else 0)
    scores = list(card_points)
    if team >= team_goal(players, level):
        gain = bonus(level, chef_trump)
        scores[chef] += gain
        if partner is not None:
            scores[partner] += gain
        outcome = "won"
    else:
        shortfall = level - achieved_level(players, team)
        for seat in range(players):
            if seat == chef:
                scores[seat] -= 10 * shortfall
            elif seat != partner:
                scores[seat] += 5 * shortfall
        outcome = "lost"
    return {"scores": scores, "card_points": list(card_points), "chef": chef, "vice": vice,
            "partner": partner, "level": level, "outcome": outcome}


def eklat(players: int, bids: list[int], provocateur: int) -> dict:
    """§2: the provocateur pays 10 per card of the top bid, the other top bidders gain 5."""
    top = bids[provocateur]
    scores = [5 * top if bid == top else 0 for bid in bids]
    scores[provocateur] = -10 * top
    return {"scores": scores, "card_points": [0] * players, "chef": None, "vice": None,
            "partner": None, "level": top, "outcome": "eklat"}


def void(players: int) -> dict:
    """§1: a deal in which the first n actions are passes scores nothing."""
    return {"scores": [0] * players, "card_points": [0] * players, "chef": None, "vice": None,
            "partner": None, "level": 0, "outcome": "void"}


def validate(record: dict) -> dict:
    """Validate one Mü record (full or summary) and return the engine's answer (records.md)."""
    players = require_int(record, "players", "", MIN_PLAYERS, MAX_PLAYERS, "players")
    dealer = require_int(record, "dealer", "", 0, players - 1, "dealer")
    variant = VARIANTS[players]
    full = body_kind(record, FULL_MEMBERS) == "full"
    deck = _read_colours(record, variant, full)
    if full:
        answer = _validate_full(record, variant, dealer, deck)
    else:
        answer = _validate_summary(record, variant, deck)
    return check_claimed(record, answer)


# --- full records -------------------------------------------------------------------------------


class Phase(Enum):
    """What the next action of a deal is; the value names the record member it is read from."""

    AUCTION = "auction"
    VICE_TRUMP = "vice_trump"
    CHEF_TRUMP = "chef_trump"
    PARTNER = "partner"
    PLAY = "tricks"
    OVER = "over"


# The members as module constants: reading ``Phase.X`` costs an enum lookup in the hot path.
AUCTION, VICE_TRUMP, CHEF_TRUMP, PARTNER, PLAY, OVER = Phase


class Deal:
    """One deal read action by action, like python-chess's ``Board``.

    ``push(action)`` applies the next action of the current ``phase``: an auction action (the cards
    put out, ``[]`` a pass), the Vize's trump, the Chef's trump, the partner, then each trick (its
    cards in playing order). ``bid(*actions)`` and ``play(*tricks)`` are what ``push`` calls in
    those phases; they take several actions at once, so that validation reads a whole auction or
    all the tricks in one call with the state in local variables (the hot loop). An action against
    the rules raises ``RecordError`` with the pointer of the record element it is read from, and
    the deal is not to be used any further.
    ``result()`` is the engine's answer once the phase is ``OVER``.
    """

    __slots__ = (
        "variant", "players", "deck", "phase", "in_hand", "bids", "displays", "top", "crown", "face_up", "passes",
        "turn", "actions", "chef", "vice", "vice_trump", "chef_trump", "partner", "tables", "held", "_ring",
        "leader", "tricks", "tricks_due", "card_points",
    )

    def __init__(self, variant: Variant, dealer: int, hands: list[list[str]], deck: _Deck = FULL_DECK) -> None:
        players = variant.players
        self.variant = variant
        self.players = players
        self.deck = deck
        self.phase = AUCTION
        # the auction (§1)
        self.in_hand = [list(hand) for hand in hands]  # the cards not put out (until the play)
        self.bids = [0] * players
        self.displays: list[list[str]] = [[] for _ in range(players)]
        self.top = 0
        self.crown: int | None = None
        self.face_up = False
        self.passes = 0
        self.turn = dealer
        self.actions = 0  # auction actions read
        # the choices (§3–§5)
        self.chef: int | None = None
        self.vice: int | None = None
        self.vice_trump: str | None = None
        self.chef_trump: str | None = None
        self.partner: int | None = None
        self.tables: TrumpTables | None = None
        # the play (§6): set up when the auction has a Chef
        self.held: list[list[str]] = []
        self._ring: list[list[str]] = []
        self.leader: int | None = None
        self.tricks = 0  # tricks read
        self.tricks_due = variant.hand_size
        self.card_points = [0] * players

    def push(self, action: Any) -> None:
        phase = self.phase
        if phase is AUCTION or (phase is OVER and self.chef is None):
            self.bid(action)
        elif phase is VICE_TRUMP:
            self._vice_trump(action)
        elif phase is CHEF_TRUMP:
            self._chef_trump(action)
        elif phase is PARTNER:
            self._partner(action)
        else:
            self.play(action)

    def result(self) -> dict:
        """§7: the answer of the deal (records.md); the deal must be over."""
        if self.phase is not OVER:
            raise RecordError(Code.NOT_ENDED, f"the deal is not over: {self.phase.value} is next", "/" + self.phase.value)
        if self.top == 0:
            return void(self.players)
        if self.chef is None:
            return eklat(self.players, self.bids, self.crown)
        return settle(self.players, self.chef, self.vice, self.partner, self.bids[self.chef], self.chef_trump,
                      self.card_points)

    # §1: the auction ------------------------------------------------------------------------------
    def bid(self, *actions: Any) -> None:
        """Auction actions in turn, from the seat on turn: the cards put out, ``[]`` a pass."""
        players = self.players
        bids, displays, in_hand = self.bids, self.displays, self.in_hand
        top, crown, face_up, passes = self.top, self.crown, self.face_up, self.passes
        index, seat = self.actions, self.turn
        for action in actions:
            if passes == players:
                raise RecordError(
                    Code.AFTER_END,
                    f"the auction ended with {players} passes in a row before this action",
                    f"/auction/{index}",
                )
            if type(action) is not list:
                raise RecordError(
                    Code.BAD_TYPE, "an auction action must be a JSON array (the cards put out; [] is a pass)",
                    f"/auction/{index}",
                )
            if not action:
                passes += 1
            else:
                passes = 0
                bid = bids[seat] + len(action)
                if bid > top + 1:
                    raise RecordError(
                        Code.OVERBID,
                        f"seat {seat} puts out {len(action)} card(s) for a bid of {bid}, but the highest bid before "
                        f"was {top}, so at most {top + 1} (rules/mu.md §1)",
                        f"/auction/{index}", {"seat": seat, "bid": bid, "top": top, "most": top + 1},
                    )
                hand = in_hand[seat]
                held = len(hand)
                try:
                    for name in action:
                        hand.remove(name)
                except ValueError:
                    path = f"/auction/{index}/{held - len(hand)}"  # the cards before it did leave the hand
                    _check_card(name, self.deck, path)
                    raise RecordError(
                        Code.CARD_NOT_HELD, f"seat {seat} puts out {name} but does not hold it in hand", path,
                        {"seat": seat, "card": name},
                    ) from None
                displays[seat] += action
                bids[seat] = bid
                # The crown (§1): a raise takes it face up, drawing level takes it face down.
                if bid > top:
                    top, crown, face_up = bid, seat, True
                elif bid == top:
                    crown, face_up = seat, False
            index += 1
            seat += 1
            if seat == players:
                seat = 0
        self.top, self.crown, self.face_up, self.passes = top, crown, face_up, passes
        self.actions, self.turn = index, seat
        if passes == players:
            self._end_auction()

    def _no_play(self) -> RecordError:
        """The error for a trick pushed outside the play."""
        phase = self.phase
        if phase is AUCTION:
            return RecordError(Code.NOT_ENDED, "the auction has not ended: no trick yet", "/auction")
        if phase is not OVER:
            return RecordError(Code.MISSING_MEMBER, f"{phase.value} comes before the tricks", "/" + phase.value)
        if self.chef is None:
            return RecordError(Code.UNEXPECTED_MEMBER, "the deal ended with the auction: no tricks", "/tricks")
        return RecordError(Code.AFTER_END, f"the deal is over after {self.tricks} tricks", f"/tricks/{self.tricks}")

    def _end_auction(self) -> None:
        """§1–§3: n passes in a row end it: a void deal, an Eklat, or a Chef (and maybe a Vize)."""
        if self.top == 0 or not self.face_up:
            self.phase = OVER
            return
        self.chef = chef = self.crown
        self.vice = find_vice(self.players, chef, self.displays)
        # §6: display cards count as held, so in the play a seat holds its dealt hand again
        held = self.in_hand
        for hand, display in zip(held, self.displays):
            hand += display
        self.held = held
        self._ring = held + held  # _ring[leader:leader + players]: the hands in playing order
        self.phase = CHEF_TRUMP if self.vice is None else VICE_TRUMP

    # §4–§5: the choices ---------------------------------------------------------------------------
    def _vice_trump(self, value: Any) -> None:
        self.vice_trump = _display_trump(value, "/vice_trump", "the Vize", self.vice, self.displays[self.vice], False)
        self.phase = CHEF_TRUMP

    def _chef_trump(self, value: Any) -> None:
        chef = self.chef
        trump = _display_trump(value, "/chef_trump", "the Chef", chef, self.displays[chef], True)
        if trump == self.vice_trump:
            raise RecordError(
                Code.TRUMP_TAKEN,
                f"the Chef (seat {chef}) may not choose {_trump_text(trump)}: the Vize (seat {self.vice}) chose it "
                "(rules/mu.md §4)",
                "/chef_trump", {"seat": chef, "vice": self.vice, "trump": trump},
            )
        self.chef_trump = trump
        self.tables = trump_tables(trump, self.vice_trump)
        self.leader = chef  # §6: the Chef leads the first trick
        self.phase = PARTNER if self.variant.partner else PLAY

    def _partner(self, value: Any) -> None:
        partner = check_int(value, "/partner", 0, self.players - 1, "partner")
        _check_partner(partner, self.chef, self.vice, "/partner")
        self.partner = partner
        self.phase = PLAY

    # §6: the tricks -------------------------------------------------------------------------------
    def play(self, *tricks: Any) -> None:
        """Tricks in turn, each its cards in playing order from the leader. Whether a seat could have
        followed is asked only when it did not."""
        if self.phase is not PLAY:
            if tricks:
                raise self._no_play()
            return
        players = self.players
        number, leader, due = self.tricks, self.leader, self.tricks_due
        tables = self.tables
        suit, suit_cards, led_ranks = tables
        points = CARD_POINTS
        ring = self._ring
        card_points = self.card_points
        for trick in tricks:
            if number == due:
                raise RecordError(Code.AFTER_END, f"the deal is over after {number} tricks", f"/tricks/{number}")
            if type(trick) is not list:
                raise RecordError(Code.BAD_TYPE, f"trick {number} must be a JSON array of cards", f"/tricks/{number}")
            if len(trick) != players:
                raise RecordError(
                    Code.BAD_LENGTH,
                    f"trick {number} must have {players} cards, one per seat, got {len(trick)}",
                    f"/tricks/{number}",
                )
            plays = zip(trick, ring[leader:leader + players])
            name, hand = next(plays)
            try:
                hand.remove(name)
            except ValueError:
                _reject_play(number, 0, leader, name, self.deck)
            led = suit[name]
            led_cards = suit_cards[led]
            total = points[name]
            position = 0
            for name, hand in plays:
                position += 1
                try:
                    hand.remove(name)
                except ValueError:
                    _reject_play(number, position, (leader + position) % players, name, self.deck)
                # §6: a card that does not follow is legal only from a hand holding nothing that does
                if suit[name] != led and not led_cards.isdisjoint(hand):
                    _reject_follow(number, trick, position, (leader + position) % players, hand, led, tables)
                total += points[name]
            leader = (leader + trick_winner(trick, tables)) % players
            card_points[leader] += total
            number += 1
        self.tricks, self.leader = number, leader
        if number == due:
            self.phase = OVER


def _validate_full(record: dict, variant: Variant, dealer: int, deck: _Deck) -> dict:
    """Push the record's actions, member by member in the order of records.md."""
    hands = _read_hands(record.get("hands"), variant, deck)
    deal = Deal(variant, dealer, hands, deck)
    push = deal.push
    deal.bid(*require_list(record.get("auction"), "/auction", "auction"))
    if deal.phase is AUCTION:
        raise RecordError(Code.NOT_ENDED, f"the auction stops before {variant.players} passes in a row end it", "/auction")
    if deal.phase is OVER:
        for key in CHOICE_MEMBERS:
            if record.get(key) is not None:
                what = "a void deal" if deal.top == 0 else "an Eklat"
                raise RecordError(
                    Code.UNEXPECTED_MEMBER, f"{key} must be absent after {what}: the deal ends with the auction", "/" + key,
                )
        return deal.result()
    if deal.phase is VICE_TRUMP:
        push(record.get("vice_trump"))
    elif record.get("vice_trump") is not None:
        reason = "this deal has no Vize" if variant.vice else f"with {variant.players} players there is never a Vize"
        raise RecordError(Code.UNEXPECTED_MEMBER, f"vice_trump must be absent: {reason} (rules/mu.md §3)", "/vice_trump")
    push(record.get("chef_trump"))
    if deal.phase is PARTNER:
        push(record.get("partner"))
    elif record.get("partner") is not None:
        raise RecordError(
            Code.UNEXPECTED_MEMBER,
            f"partner must be absent: with {variant.players} players the Chef plays alone (rules/mu.md §5)",
            "/partner",
        )
    tricks = require_list(record.get("tricks"), "/tricks", "tricks")
    require_length(tricks, variant.hand_size, "/tricks", f"tricks with {variant.players} players (one per card in hand)")
    deal.play(*tricks)
    return deal.result()


def _read_colours(record: dict, variant: Variant, required: bool) -> _Deck:
    """``colours``: where fewer than five are in play, the ones in play (required in a full record,
    optional in a summary); else absent or all five."""
    colours = record.get("colours")
    count = variant.colours
    players = variant.players
    if colours is None:
        if count < len(COLOURS) and required:
            raise RecordError(
                Code.MISSING_MEMBER,
                f"colours is required with {players} players: name the {count} colours in play",
                "/colours",
            )
        return FULL_DECK
    if type(colours) is list and len(colours) == count:
        try:
            deck = DECKS.get(tuple(sorted(colours)))
        except TypeError:  # not all strings
            deck = None
        if deck is not None:
            return deck
    require_list(colours, "/colours", "colours")
    require_length(colours, count, "/colours", f"colours with {players} players")
    seen = set()
    for index, colour in enumerate(colours):
        path = f"/colours/{index}"
        if type(colour) is not str:
            raise RecordError(Code.BAD_TYPE, f"a colour must be a string, got {colour!r}", path)
        if colour not in COLOUR_NAMES:
            raise RecordError(Code.BAD_COLOUR, f"{colour!r} is not a colour (R, Y, G, B, K)", path, {"value": colour})
        if colour in seen:
            raise RecordError(Code.DUPLICATE_COLOUR, f"colour {colour} is named twice", path, {"colour": colour})
        seen.add(colour)
    return DECKS[tuple(sorted(seen))]


def _read_hands(hands, variant: Variant, deck: _Deck) -> list[list[str]]:
    """The deal: n hands of the fixed size, together exactly the cards in play."""
    players, hand_size = variant.players, variant.hand_size
    require_list(hands, "/hands", "hands")
    require_length(hands, players, "/hands", f"hands with {players} players")
    for hand in hands:
        if type(hand) is not list or len(hand) != hand_size:
            break
    else:
        try:
            if sorted(chain.from_iterable(hands)) == deck.sorted_names:
                return hands
        except TypeError:  # a card that is not a string
            pass
    # Something is wrong: find the first offending element in reading order.
    dealt = dict.fromkeys(CARD_NAMES, 0)
    for seat, hand in enumerate(hands):
        path = f"/hands/{seat}"
        if type(hand) is not list:
            raise RecordError(Code.BAD_TYPE, f"the hand of seat {seat} must be a JSON array", path)
        require_length(hand, hand_size, path, f"the hand of seat {seat} ({players} players)")
        for index, name in enumerate(hand):
            _check_card(name, deck, f"{path}/{index}")
            dealt[name] += 1
            if dealt[name] > CARD_COPIES[name]:
                raise RecordError(
                    Code.DUPLICATE_CARD,
                    f"{name} is dealt more often than the deck holds it ({CARD_COPIES[name]}); seat {seat} has one too many",
                    f"{path}/{index}", {"card": name, "seat": seat},
                )
    raise AssertionError("hands of the right sizes without a card too many are the whole deck")


def _check_card(name, deck: _Deck, path: str) -> None:
    """Reject a text that is not a card in play, saying why."""
    if type(name) is not str:
        raise RecordError(Code.BAD_TYPE, f"a card must be a string such as 'R7', got {name!r}", path)
    if name in deck.names:
        return
    if name in CARD_COPIES:
        raise RecordError(Code.COLOUR_NOT_IN_PLAY, f"{name}: {COLOUR_NAMES[name[0]]} is not in play in this deal", path,
                          {"card": name, "colour": name[0]})
    raise RecordError(Code.BAD_CARD, f"{name!r} is not a Mü card (a colour R, Y, G, B, K and a digit 0-9, such as 'R7')", path,
                      {"value": name})


def _trump_text(trump: str) -> str:
    if trump == NO_TRUMP:
        return "no trump"
    if trump in COLOURS:
        return f"{COLOUR_NAMES[trump]} ({trump})"
    return f"the {trump}s"


def _trump_value(value, path: str, allow_none: bool) -> str:
    if value is None:
        raise RecordError(Code.MISSING_MEMBER, f"{path.rsplit('/', 1)[1]} is required", path)
    if type(value) is not str:
        raise RecordError(Code.BAD_TYPE, f"a trump must be a string (a colour letter or a digit), got {value!r}", path)
    if value not in TRUMP_SYMBOLS and not (allow_none and value == NO_TRUMP):
        allowed = "a colour letter, a digit or 'none'" if allow_none else "a colour letter or a digit"
        raise RecordError(Code.BAD_TRUMP, f"{value!r} is not a trump: {allowed}", path, {"trump": value})
    return value


def _summary_trump(value, path: str, role: str, seat: int, allow_none: bool, deck: _Deck) -> str:
    """records.md, Mü summary: a summary that gives ``colours`` names trump colours among them;
    without ``colours`` any colour. A colour not in play lies in no display, so a full record
    refuses it as ``trump_not_in_display`` (§4) and the summary gives the same code ("as in a full
    record": one fault, one code, whichever body carries it)."""
    trump = _trump_value(value, path, allow_none)
    if trump in COLOUR_NAMES and trump not in deck.colours:
        raise RecordError(
            Code.TRUMP_NOT_IN_DISPLAY,
            f"{role} (seat {seat}) may choose only a colour or digit of his display, not {_trump_text(trump)}: "
            f"it is not in play in this deal (colours {', '.join(deck.colours)}; rules/mu.md §4)",
            path, {"seat": seat, "trump": trump},
        )
    return trump


def _display_trump(value: Any, path: str, role: str, seat: int, display: list[str], allow_none: bool) -> str:
    """§4: a colour or digit that lies in the chooser's display (the Chef may also say none)."""
    trump = _trump_value(value, path, allow_none)
    if trump != NO_TRUMP and TRUMP_CARDS[trump].isdisjoint(display):
        raise RecordError(
            Code.TRUMP_NOT_IN_DISPLAY,
            f"{role} (seat {seat}) may choose only a colour or digit of his display ({', '.join(display)}), "
            f"not {_trump_text(trump)} (rules/mu.md §4)",
            path, {"seat": seat, "trump": trump},
        )
    return trump


def _check_partner(partner: int, chef: int, vice: int | None, path: str) -> None:
    """§5: the Chef names a partner other than himself, never the Vize."""
    if partner == chef:
        raise RecordError(Code.PARTNER_IS_CHEF, f"the Chef (seat {chef}) cannot be his own partner (rules/mu.md §5)", path,
                          {"seat": chef})
    if partner == vice:
        raise RecordError(Code.PARTNER_IS_VICE, f"the Chef may not name the Vize (seat {vice}) as partner (rules/mu.md §5)", path,
                          {"seat": vice})


def _reject_play(number: int, position: int, seat: int, name, deck: _Deck) -> NoReturn:
    path = f"/tricks/{number}/{position}"
    _check_card(name, deck, path)
    raise RecordError(Code.CARD_NOT_HELD, f"seat {seat} plays {name} in trick {number} but does not hold it", path,
                      {"seat": seat, "card": name, "trick": number})


def _reject_follow(number: int, trick: list, position: int, seat: int, hand: list[str], led: int,
                   tables: TrumpTables) -> NoReturn:
    lead = trick[0]
    if led == TRUMP:
        rule = f"{lead} is a trump, so a trump must be played"
    else:
        colour = COLOUR_NAMES[COLOURS[led]]
        rule = f"{lead} leads {colour}, so a {colour} card that is not a trump must be played"
    options = sorted(set(hand) & tables.suit_cards[led])
    raise RecordError(
        Code.ILLEGAL_FOLLOW,
        f"seat {seat} plays {trick[position]} in trick {number}: {rule} while he holds {', '.join(options)} (rules/mu.md §6)",
        f"/tricks/{number}/{position}", {"seat": seat, "card": trick[position], "trick": number, "cards": options},
    )


# --- summary records ----------------------------------------------------------------------------


def _validate_summary(record: dict, variant: Variant, deck: _Deck) -> dict:
    summary = require_object(record.get("summary"), "/summary", "summary")
    players = variant.players
    bids = require_int_list(summary.get("bids"), players, "/summary/bids", f"bids with {players} players",
                            "the bid of seat {}", 0, max_bid(players))
    top = max(bids)
    top_seats = [seat for seat in range(players) if bids[seat] == top]
    is_void = top == 0
    is_eklat = not is_void and len(top_seats) > 1
    played = not is_void and not is_eklat
    ended = "a void deal (all bids 0)" if is_void else "an Eklat (the top bid is tied)"
    after_end = f"the deal ends with the auction after {ended}"

    def absent(key: str, reason: str) -> None:
        if summary.get(key) is not None:
            raise RecordError(Code.UNEXPECTED_MEMBER, f"{key} must be absent: {reason}", "/summary/" + key)

    # chef
    if played:
        chef = require_int(summary, "chef", "/summary", 0, players - 1, "chef")
        if chef != top_seats[0]:
            raise RecordError(
                Code.CHEF_NOT_TOP,
                f"the Chef is the unique top bidder, seat {top_seats[0]} with {top}, not seat {chef}",
                "/summary/chef", {"seat": chef, "expected_seat": top_seats[0]},
            )
    else:
        chef = summary.get("chef")
        if chef is not None:
            raise RecordError(Code.CHEF_NOT_TOP, f"chef must be null: there is no Chef after {ended}", "/summary/chef")

    # vice
    vice = None
    if not played:
        absent("vice", after_end)
    elif not variant.vice:
        absent("vice", f"with {players} players there is never a Vize (rules/mu.md §3)")
    else:
        second = max(bids[seat] for seat in range(players) if seat != chef)
        seconds = [seat for seat in range(players) if seat != chef and bids[seat] == second] if second else []
        if summary.get("vice") is not None or len(seconds) == 1:
            vice = require_int(summary, "vice", "/summary", 0, players - 1, "vice")
            if vice not in seconds:
                if not seconds:
                    reason = "nobody but the Chef has cards out, so there is no Vize"
                else:
                    reason = f"the Vize is among the second bidders ({', '.join(map(str, seconds))} with {second})"
                raise RecordError(
                    Code.VICE_NOT_SECOND,
                    f"seat {vice} cannot be the Vize: {reason} (rules/mu.md §3)",
                    "/summary/vice", {"seat": vice},
                )

    # provocateur
    if is_eklat:
        provocateur = require_int(summary, "provocateur", "/summary", 0, players - 1, "provocateur")
        if provocateur not in top_seats:
            raise RecordError(
                Code.PROVOCATEUR_NOT_TOP,
                f"the provocateur is one of the top bidders ({', '.join(map(str, top_seats))} with {top}), not seat {provocateur}",
                "/summary/provocateur", {"seat": provocateur, "seats": top_seats},
            )
    else:
        absent("provocateur", "there is a provocateur only in an Eklat")

    # trumps and partner
    vice_trump = chef_trump = partner = None
    if vice is not None:
        vice_trump = _summary_trump(summary.get("vice_trump"), "/summary/vice_trump", "the Vize", vice, False, deck)
    else:
        absent("vice_trump", "there is no Vize" if played else after_end)
    if played:
        chef_trump = _summary_trump(summary.get("chef_trump"), "/summary/chef_trump", "the Chef", chef, True, deck)
        if chef_trump == vice_trump:
            raise RecordError(
                Code.TRUMP_TAKEN,
                f"the Chef may not choose {_trump_text(chef_trump)}: the Vize chose it (rules/mu.md §4)",
                "/summary/chef_trump", {"seat": chef, "vice": vice, "trump": chef_trump},
            )
    else:
        absent("chef_trump", after_end)
    if played and variant.partner:
        partner = require_int(summary, "partner", "/summary", 0, players - 1, "partner")
        _check_partner(partner, chef, vice, "/summary/partner")
    else:
        absent("partner", f"with {players} players the Chef plays alone (rules/mu.md §5)" if played else after_end)

    # card points
    in_play = variant.points_in_play
    card_points = summary.get("card_points")
    if card_points is None and not played:
        card_points = [0] * players
    else:
        require_int_list(card_points, players, "/summary/card_points", f"card_points with {players} players",
                         "the card points of seat {}", 0, in_play)
        due = in_play if played else 0
        if sum(card_points) != due:
            reason = f"{in_play} points are in play with {players} players" if played else after_end
            raise RecordError(
                Code.CARD_POINTS_SUM,
                f"card_points must sum to {due}, got {sum(card_points)}: {reason}",
                "/summary/card_points", {"due": due, "got": sum(card_points)},
            )

    if is_void:
        return void(players)
    if is_eklat:
        return eklat(players, bids, provocateur)
    return settle(players, chef, vice, partner, top, chef_trump, list(card_points))
