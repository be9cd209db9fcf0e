"""Mü: validate one deal's hand record and score it.

The rules are ``../shared/rules/mu.md`` (cited below by section, ``§4``); the record format, the
order of the checks and the pointer of each error are ``../shared/records.md``.

A card is its text (``"R7"``) all the way through: the tables below map a card text to plain ints
(points, suit, rank), computed once at import or once per choice of trumps. Looking a text up in a
small dict costs about what indexing a list by a card number would, and saves converting every
card. A full record is read move by move: the deal, the auction, the choices, the tricks.
"""
from __future__ import annotations

from itertools import chain, combinations
from typing import NamedTuple, NoReturn

from .common import (
    body_kind, check_claimed, require_int, require_int_list, require_length, require_list, require_object,
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

# Per player count: cards per hand, team goal ``base + step * level`` (§5), points in play.
HAND_SIZE = {3: 12, 4: 15, 5: 12, 6: 10}
GOAL_BASE_STEP = {3: (10, 2), 4: (28, 2), 5: (21, 3), 6: (16, 4)}
POINTS_IN_PLAY = {3: 36, 4: 60, 5: 60, 6: 60}
MIN_PLAYERS, MAX_PLAYERS = 3, 6

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
    base, step = GOAL_BASE_STEP[players]
    return base + step * level


def achieved_level(players: int, team_points: int) -> int:
    """§7: the highest level whose goal the team's points reach (0 below the goal of level 1)."""
    base, step = GOAL_BASE_STEP[players]
    if team_points < base + step:
        return 0
    return min(HAND_SIZE[players], (team_points - base) // step)


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
    best, winner = -1, 0
    for index, card in enumerate(cards):
        if led_rank[card] > best:
            best, winner = led_rank[card], index
    return winner


def find_vice(players: int, chef: int, displays: list[list[str]]) -> int | None:
    """§3: the Vize, or None (3 players, nobody else with cards out, or a tie that stays).

    Most cards out wins; a tie is broken by the display digits sorted from the highest down,
    compared one by one (seed 000's full comparison).
    """
    if players == 3:
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
    full = body_kind(record, FULL_MEMBERS) == "full"
    deck = _read_colours(record, players, required=full)
    if full:
        answer = _validate_full(record, players, dealer, deck)
    else:
        answer = _validate_summary(record, players)
    return check_claimed(record, answer)


# --- full records -------------------------------------------------------------------------------


def _validate_full(record: dict, players: int, dealer: int, deck: _Deck) -> dict:
    hand_size = HAND_SIZE[players]
    hands = _read_hands(record.get("hands"), players, hand_size, deck)
    bids, displays, crown, face_up = _run_auction(record.get("auction"), players, dealer, hands, deck)
    top = max(bids)
    if top == 0 or not face_up:
        for key in CHOICE_MEMBERS:
            if record.get(key) is not None:
                what = "a void deal" if top == 0 else "an Eklat"
                raise RecordError(
                    Code.UNEXPECTED_MEMBER,
                    f"{key} must be absent after {what}: the deal ends with the auction",
                    "/" + key,
                )
        return void(players) if top == 0 else eklat(players, bids, crown)

    chef = crown
    vice = find_vice(players, chef, displays)
    vice_trump = None
    if vice is None:
        if record.get("vice_trump") is not None:
            reason = "with 3 players there is never a Vize" if players == 3 else "this deal has no Vize"
            raise RecordError(Code.UNEXPECTED_MEMBER, f"vice_trump must be absent: {reason} (rules/mu.md §3)", "/vice_trump")
    else:
        vice_trump = _read_trump(record, "vice_trump", "the Vize", vice, displays[vice], allow_none=False)
    chef_trump = _read_trump(record, "chef_trump", "the Chef", chef, displays[chef], allow_none=True)
    if chef_trump == vice_trump:
        raise RecordError(
            Code.TRUMP_TAKEN,
            f"the Chef (seat {chef}) may not choose {_trump_text(chef_trump)}: the Vize (seat {vice}) chose it (rules/mu.md §4)",
            "/chef_trump",
        )

    partner = None
    if players == 3:
        if record.get("partner") is not None:
            raise RecordError(
                Code.UNEXPECTED_MEMBER,
                "partner must be absent: with 3 players the Chef plays alone (rules/mu.md §5)",
                "/partner",
            )
    else:
        partner = require_int(record, "partner", "", 0, players - 1, "partner")
        _check_partner(partner, chef, vice, "/partner")

    tables = trump_tables(chef_trump, vice_trump)
    card_points = _play_tricks(record.get("tricks"), players, hand_size, hands, chef, tables, deck)
    return settle(players, chef, vice, partner, bids[chef], chef_trump, card_points)


def _read_colours(record: dict, players: int, required: bool) -> _Deck:
    """``colours``: with 3 players the three in play (required in a full record, optional in a
    summary), else absent or all five."""
    colours = record.get("colours")
    if colours is None:
        if players == 3 and required:
            raise RecordError(
                Code.MISSING_MEMBER,
                "colours is required with 3 players: name the three colours in play",
                "/colours",
            )
        return FULL_DECK
    count = 3 if players == 3 else 5
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
            raise RecordError(Code.BAD_COLOUR, f"{colour!r} is not a colour (R, Y, G, B, K)", path)
        if colour in seen:
            raise RecordError(Code.DUPLICATE_COLOUR, f"colour {colour} is named twice", path)
        seen.add(colour)
    return DECKS[tuple(sorted(seen))]


def _read_hands(hands, players: int, hand_size: int, deck: _Deck) -> list[list[str]]:
    """The deal: n hands of the fixed size, together exactly the cards in play."""
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
                    f"{path}/{index}",
                )
    raise AssertionError("hands of the right sizes without a card too many are the whole deck")


def _check_card(name, deck: _Deck, path: str) -> None:
    """Reject a text that is not a card in play, saying why."""
    if type(name) is not str:
        raise RecordError(Code.BAD_TYPE, f"a card must be a string such as 'R7', got {name!r}", path)
    if name in deck.names:
        return
    if name in CARD_COPIES:
        raise RecordError(Code.COLOUR_NOT_IN_PLAY, f"{name}: {COLOUR_NAMES[name[0]]} is not in play in this deal", path)
    raise RecordError(Code.BAD_CARD, f"{name!r} is not a Mü card (a colour R, Y, G, B, K and a digit 0-9, such as 'R7')", path)


def _run_auction(auction, players: int, dealer: int, hands: list[list[str]], deck: _Deck):
    """§1: returns bids, displays, the crown's holder and whether it lies face up.

    ``hands`` are the dealt hands as checked by ``_read_hands``; a card put out leaves the hand.
    """
    require_list(auction, "/auction", "auction")
    in_hand = [list(hand) for hand in hands]
    bids = [0] * players
    displays: list[list[str]] = [[] for _ in range(players)]
    top, crown, face_up = 0, None, False
    passes = 0
    seat = dealer
    for index, action in enumerate(auction):
        if passes == players:
            raise RecordError(
                Code.AFTER_END,
                f"the auction ended with {players} passes in a row before this action",
                f"/auction/{index}",
            )
        if type(action) is not list:
            raise RecordError(
                Code.BAD_TYPE,
                "an auction action must be a JSON array (the cards put out; [] is a pass)",
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
                    f"/auction/{index}",
                )
            hand = in_hand[seat]
            held = len(hand)
            try:
                for name in action:
                    hand.remove(name)
            except ValueError:
                path = f"/auction/{index}/{held - len(hand)}"  # the cards before it did leave the hand
                _check_card(name, deck, path)
                raise RecordError(Code.CARD_NOT_HELD, f"seat {seat} puts out {name} but does not hold it in hand", path) from None
            displays[seat] += action
            bids[seat] = bid
            # The crown (§1): a raise takes it face up, drawing level takes it face down.
            if bid > top:
                top, crown, face_up = bid, seat, True
            elif bid == top:
                crown, face_up = seat, False
        seat += 1
        if seat == players:
            seat = 0
    if passes < players:
        raise RecordError(Code.NOT_ENDED, f"the auction stops before {players} passes in a row end it", "/auction")
    return bids, displays, crown, face_up


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
        raise RecordError(Code.BAD_TRUMP, f"{value!r} is not a trump: {allowed}", path)
    return value


def _read_trump(record: dict, key: str, role: str, seat: int, display: list[str], allow_none: bool) -> str:
    """§4: a colour or digit that lies in the chooser's display (the Chef may also say none)."""
    path = "/" + key
    trump = _trump_value(record.get(key), path, allow_none)
    if trump != NO_TRUMP and TRUMP_CARDS[trump].isdisjoint(display):
        raise RecordError(
            Code.TRUMP_NOT_IN_DISPLAY,
            f"{role} (seat {seat}) may choose only a colour or digit of his display ({', '.join(display)}), "
            f"not {_trump_text(trump)} (rules/mu.md §4)",
            path,
        )
    return trump


def _check_partner(partner: int, chef: int, vice: int | None, path: str) -> None:
    """§5: the Chef names a partner other than himself, never the Vize."""
    if partner == chef:
        raise RecordError(Code.PARTNER_IS_CHEF, f"the Chef (seat {chef}) cannot be his own partner (rules/mu.md §5)", path)
    if partner == vice:
        raise RecordError(Code.PARTNER_IS_VICE, f"the Chef may not name the Vize (seat {vice}) as partner (rules/mu.md §5)", path)


def _play_tricks(tricks, players: int, hand_size: int, hands: list[list[str]], chef: int,
                 tables: TrumpTables, deck: _Deck) -> list[int]:
    """§6: play the tricks card by card; returns the card points each seat won.

    Display cards count as held, so what a seat holds in the play is its dealt hand; a card played
    leaves it. Whether a seat could have followed is asked only when it did not.
    """
    require_list(tricks, "/tricks", "tricks")
    require_length(tricks, hand_size, "/tricks", f"tricks with {players} players (one per card in hand)")
    suit, suit_cards, led_ranks = tables
    points = CARD_POINTS
    held = [list(hand) for hand in hands]
    ring = held + held  # ring[leader:leader + players]: the hands in playing order
    card_points = [0] * players
    leader = chef
    for number, trick in enumerate(tricks):
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
            _reject_play(number, 0, leader, name, deck)
        led = suit[name]
        led_rank, led_cards = led_ranks[led], suit_cards[led]
        total = points[name]
        best, winner, position = led_rank[name], 0, 0
        for name, hand in plays:
            position += 1
            try:
                hand.remove(name)
            except ValueError:
                _reject_play(number, position, (leader + position) % players, name, deck)
            if suit[name] != led and not led_cards.isdisjoint(hand):
                _reject_follow(number, trick, position, (leader + position) % players, hand, led, tables)
            total += points[name]
            if led_rank[name] > best:
                best, winner = led_rank[name], position
        leader = (leader + winner) % players
        card_points[leader] += total
    return card_points


def _reject_play(number: int, position: int, seat: int, name, deck: _Deck) -> NoReturn:
    path = f"/tricks/{number}/{position}"
    _check_card(name, deck, path)
    raise RecordError(Code.CARD_NOT_HELD, f"seat {seat} plays {name} in trick {number} but does not hold it", path)


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
        f"/tricks/{number}/{position}",
    )


# --- summary records ----------------------------------------------------------------------------


def _validate_summary(record: dict, players: int) -> dict:
    summary = require_object(record.get("summary"), "/summary", "summary")
    hand_size = HAND_SIZE[players]
    bids = require_int_list(summary.get("bids"), players, "/summary/bids", f"bids with {players} players",
                            "the bid of seat {}", 0, hand_size)
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
                "/summary/chef",
            )
    else:
        chef = summary.get("chef")
        if chef is not None:
            raise RecordError(Code.CHEF_NOT_TOP, f"chef must be null: there is no Chef after {ended}", "/summary/chef")

    # vice
    vice = None
    if not played:
        absent("vice", after_end)
    elif players == 3:
        absent("vice", "with 3 players there is never a Vize (rules/mu.md §3)")
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
                    "/summary/vice",
                )

    # provocateur
    if is_eklat:
        provocateur = require_int(summary, "provocateur", "/summary", 0, players - 1, "provocateur")
        if provocateur not in top_seats:
            raise RecordError(
                Code.PROVOCATEUR_NOT_TOP,
                f"the provocateur is one of the top bidders ({', '.join(map(str, top_seats))} with {top}), not seat {provocateur}",
                "/summary/provocateur",
            )
    else:
        absent("provocateur", "there is a provocateur only in an Eklat")

    # trumps and partner
    vice_trump = chef_trump = partner = None
    if vice is not None:
        vice_trump = _trump_value(summary.get("vice_trump"), "/summary/vice_trump", allow_none=False)
    else:
        absent("vice_trump", "there is no Vize" if played else after_end)
    if played:
        chef_trump = _trump_value(summary.get("chef_trump"), "/summary/chef_trump", allow_none=True)
        if chef_trump == vice_trump:
            raise RecordError(
                Code.TRUMP_TAKEN,
                f"the Chef may not choose {_trump_text(chef_trump)}: the Vize chose it (rules/mu.md §4)",
                "/summary/chef_trump",
            )
    else:
        absent("chef_trump", after_end)
    if played and players > 3:
        partner = require_int(summary, "partner", "/summary", 0, players - 1, "partner")
        _check_partner(partner, chef, vice, "/summary/partner")
    else:
        absent("partner", "with 3 players the Chef plays alone (rules/mu.md §5)" if played else after_end)

    # card points
    in_play = POINTS_IN_PLAY[players]
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
                "/summary/card_points",
            )

    if is_void:
        return void(players)
    if is_eklat:
        return eklat(players, bids, provocateur)
    return settle(players, chef, vice, partner, top, chef_trump, list(card_points))
