"""Dynamisches Maumau: validate one game's record, score it, and settle a series.

The rules are ``../shared/rules/maumau.md`` (the contract; the German original is
``../shared/seeds/001_9ba3c33ca37d2629.txt``); the record format, the order of the checks and the
pointer of each error are ``../shared/records.md``.

A card is an int in the hot loop: ``suit * 8 + rank`` with suits ``C S H D`` and ranks
``7 8 9 T J Q K A`` (``7C`` = 0, ``AD`` = 31). What a seat holds, the draw pile and the discard pile
under its top card are lists of 32 counts: the two copies of a card are indistinguishable and the
order of the draw pile is unknown, so a drawn card is legal while the pile still holds a copy.

A full record is replayed event by event on a ``Game`` (python-chess's ``Board``): ``push``
dispatches each event by its kind (a play, a wedding, a draw, a show) to its handler, and a card put
on the discard pile (the upcard as the dealer's play, then every play) takes its effect through one
handler per rank (``EFFECTS``). Its state: the phase (what the next event must be), the seat that
acts, the 7 chain, whether a wedding chance is open, and who shows and takes after a 9 or T.
Whether a card may go on the discard pile is ``is_legal``, for validation as for anyone.

Decisions where the rules and records.md are silent (each is cited where it is applied):
- Unwritten chances: a wedding chance stays open exactly until the next event; if that event is
  not a play marked ``"wedding": true`` nobody announced. Declined chances before the announcer
  are not written, so any seat holding the counterpart may announce. An 8 is passed on by a play
  of an 8 by the affected seat; any other next event means he was skipped.
- A play marked as a wedding is checked for an open chance before its seat (a wedding has no
  fixed actor): with no chance open it is rejected at ``/events/k/wedding`` whoever plays it.
- A draw the rules call for is always written, even when nothing is left to draw (``[]``): a
  turn's draw, a 7 chain's, the draw after an ace with no legal card, and the top-up of a shower
  holding fewer than two cards.
- Whether the game has ended is decided before the event is read: anything after the end, even
  a malformed event, is rejected at ``/events/k`` as ``after_end``.
- Members that belong to another kind of event (``wish`` on a non-jack or a draw, ``taken`` on a
  play, ``wedding`` on a draw or show) are rejected as ``unexpected_member``; unknown members are
  ignored.
- ``ended_by_jack`` means the top card at the end is a jack; the suit it named decides doubling.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..catalog import GAMES
from .common import (
    body_kind, check_claimed, is_int, require_int, require_int_list, require_length, require_list, require_object,
)
from .errors import Code, RecordError

# rules/maumau.md, Cards and notation: two Skat packs, every card twice.
SUITS = "CSHD"
RANKS = "789TJQKA"
SUIT_NAMES = ("clubs", "spades", "hearts", "diamonds")
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)
CARD_NAMES = tuple(rank + suit for suit in SUITS for rank in RANKS)
CARD_CODES = {name: code for code, name in enumerate(CARD_NAMES)}
SUIT_CODES = {letter: suit for suit, letter in enumerate(SUITS)}
DECK_SIZE = 64
COPIES = 2
HAND_SIZE = 8
# records.md, Maumau summary: the hands hold at most 63 cards (the top card of the discard pile is in
# none), a jack counts 2 (eight jacks: +8), and a jack's ending doubles a value.
MOST_RAW_MINUS = DECK_SIZE - 1 + 4 * COPIES
MOST_MINUS = 2 * MOST_RAW_MINUS
MIN_PLAYERS, MAX_PLAYERS = GAMES["maumau"].min_players, GAMES["maumau"].max_players
JACKS = tuple(suit * 8 + JACK for suit in range(4))
EIGHT_NAMES = frozenset(CARD_NAMES[suit * 8 + EIGHT] for suit in range(4))
# Weddings: the counterpart of a Q is the K of its suit and vice versa; other cards have none.
COUNTERPART = tuple(
    code + 1 if code & 7 == QUEEN else code - 1 if code & 7 == KING else -1 for code in range(32)
)

FULL_MEMBERS = ("hands", "upcard", "upcard_wish", "events")

# What the next event must be (the state of the replay).
TURN, SEVENS, EIGHT_PENDING, ACE_PENDING, TOP_UP, SHOW = range(6)
PENDING_NAMES = (None, "seven", "eight", "ace", "top_up", "show")


def card_name(code: int) -> str:
    return CARD_NAMES[code]


def is_legal(card: int, top: int, suit: int) -> bool:
    """rules/maumau.md, A turn: may ``card`` go on ``top`` whose effective suit is ``suit``?

    A non-jack follows the suit (the one named under a jack) or the rank; a jack may only be played
    when it does not serve: on the identical jack, or on a non-jack of another suit.
    """
    if card & 7 == JACK:
        return card == top or (top & 7 != JACK and card >> 3 != suit)
    return card >> 3 == suit or card & 7 == top & 7


def can_play(hand: list[int], top: int, suit: int) -> bool:
    return any(hand[card] and is_legal(card, top, suit) for card in range(32))


def minus_points(hand: list[int], size: int, named_suit: int | None) -> int:
    """rules/maumau.md, Scoring: 2 per jack, 1 per other card; doubled for a holder of the suit a
    game-ending jack named (a jack of that suit counts as that suit)."""
    points = size + hand[JACKS[0]] + hand[JACKS[1]] + hand[JACKS[2]] + hand[JACKS[3]]
    if named_suit is not None and any(hand[named_suit * 8:named_suit * 8 + 8]):
        points *= 2
    return points


class Table(NamedTuple):
    """The state of a replayed game (``replay``): every multiset as a sorted list of card names."""

    hands: list[list[str]]
    pile: list[str]  # the draw pile; its order is unknown
    discard: list[str]  # the discard pile under its top card
    top: str
    suit: str  # the suit to follow: the one named under a jack, else the top card's
    direction: int
    on_turn: int  # the seat that acts next (after the end: who would have been on turn)
    pending: str | None  # "seven", "eight", "ace", "top_up", "show", "wedding" or None
    chain: int  # cards a pending 7 chain draws


# --- entry points ---------------------------------------------------------------------------------


def validate(record: dict) -> dict:
    """Validate one Maumau record (full or summary) and return the engine's answer (records.md)."""
    players, dealer, direction = _head(record)
    if body_kind(record, FULL_MEMBERS) == "summary":
        answer = _summary(record["summary"], players)
    else:
        answer = read_game(record, players, dealer, direction).result()
    return check_claimed(record, answer)


def replay(record: dict, *, partial: bool = False) -> Table:
    """Replay a full record and return the state at its end.

    With ``partial`` a record may stop before the game ends (the state shows what is pending);
    events after the end are rejected either way.
    """
    players, dealer, direction = _head(record)
    if body_kind(record, FULL_MEMBERS) != "full":
        raise RecordError(Code.NO_BODY, "replay needs a full record", "")
    game = read_game(record, players, dealer, direction)
    if partial:
        turn, pending, chain = game.turn, game.pending, game.chain if game.phase == SEVENS else 0
    else:
        turn, pending, chain = game.result()["next_dealer"], None, 0

    def names(counts: list[int]) -> list[str]:
        return [CARD_NAMES[code] for code in range(32) for _ in range(counts[code])]

    return Table(
        [names(hand) for hand in game.hands], names(game.pile), names(game.below), CARD_NAMES[game.top],
        SUITS[game.suit], game.direction, turn, pending, chain,
    )


def validate_series(series: Any) -> dict:
    """Validate a series of Maumau records and settle it in cents (records.md, rules/maumau.md).

    Errors inside a record keep their pointer, prefixed with ``/records/i``.
    """
    if not isinstance(series, dict):
        raise RecordError(Code.NOT_AN_OBJECT, "a series must be a JSON object", "")
    records = require_list(series.get("records"), "/records", "records")
    if not records:
        raise RecordError(Code.EMPTY_SERIES, "a series needs at least one game record", "/records")
    # Decision: a record's head (players, dealer, direction) is checked against the series before
    # its body, as records.md orders head members before the body; ``stake_cents`` comes last.
    answers = []
    players = None
    following = (None, 1)  # rules/maumau.md, Deal: a series' first game starts clockwise
    for index, record in enumerate(records):
        prefix = f"/records/{index}"
        if not isinstance(record, dict):
            raise RecordError(Code.NOT_AN_OBJECT, "a game record must be a JSON object", prefix)
        game = record.get("game")
        if game is None:
            raise RecordError(Code.MISSING_MEMBER, "game is required (maumau in a series)", prefix + "/game")
        if game != "maumau":
            raise RecordError(Code.WRONG_GAME, f"a series holds Maumau games, not {game!r}", prefix + "/game",
                              {"table_game": "maumau", "game_name": game})
        try:
            head = _head(record)
        except RecordError as error:
            raise error.prefixed(prefix) from None
        if players is None:
            players = head[0]
        elif head[0] != players:
            raise RecordError(
                Code.WRONG_PLAYER_COUNT,
                f"every game of a series has the same table: {players} players, not {head[0]}",
                prefix + "/players", {"due": players, "got": head[0]},
            )
        if record.get("summary") is None:
            _check_continues(record, following, index, prefix)
        try:
            answer = validate(record)
        except RecordError as error:
            raise error.prefixed(prefix) from None
        following = (answer["next_dealer"], answer["direction"])
        answers.append(answer)
    stake = require_int(series, "stake_cents", "", 0, 10**9, "stake_cents")
    totals = [sum(answer["minus"][seat] for answer in answers) for seat in range(players)]
    nets, transfers = settle(totals, stake)
    return {"totals": totals, "nets": nets, "transfers": transfers, "records": answers}


def _check_continues(record: dict, following: tuple, index: int, prefix: str) -> None:
    """rules/maumau.md, Series and money: the dealer is who would have been on turn next, and the
    direction persists; both are unknown after a summary record (then the next record is free)."""
    dealer, direction = following
    if dealer is not None and record["dealer"] != dealer:
        raise RecordError(
            Code.WRONG_DEALER,
            f"game {index + 1} is dealt by seat {dealer}, who would have been on turn next in the game before, "
            f"not by seat {record['dealer']}",
            prefix + "/dealer", {"number": index + 1, "expected_seat": dealer, "seat": record["dealer"]},
        )
    given = record.get("direction")
    given = 1 if given is None else given
    if direction is not None and given != direction:
        where = "a series' first game starts clockwise" if index == 0 else "the direction persists from the game before"
        raise RecordError(
            Code.WRONG_DIRECTION, f"game {index + 1} starts in direction {direction}, not {given}: {where}",
            prefix + "/direction",
        )


# --- settlement -----------------------------------------------------------------------------------


def settle(totals: list[int], stake: int) -> tuple[list[int], list[dict]]:
    """rules/maumau.md, Series and money: nets in cents per seat and transfers that realise them.

    Best (fewest minus points) first: the i-th best receives from the i-th worst the difference of
    their totals times the stake; an odd middle neither pays nor receives. Players tied on total
    share the nets of the positions they occupy (floor division, leftover cents one each to the
    group's lowest seats). Transfers: the seed's pairs where no tied player is involved, the rest
    settled greedily, the largest debtor paying the largest creditor (lowest seat first on equal
    amounts).
    """
    players = len(totals)
    order = sorted(range(players), key=lambda seat: (totals[seat], seat))
    by_position = [0] * players
    for place in range(players // 2):
        cents = (totals[order[players - 1 - place]] - totals[order[place]]) * stake
        by_position[place], by_position[players - 1 - place] = cents, -cents
    nets = [0] * players
    tied = [False] * players
    start = 0
    while start < players:
        end = start + 1
        while end < players and totals[order[end]] == totals[order[start]]:
            end += 1
        group = sorted(order[start:end])
        share, leftover = divmod(sum(by_position[start:end]), len(group))
        for rank, seat in enumerate(group):
            nets[seat] = share + (1 if rank < leftover else 0)
            tied[seat] = len(group) > 1
        start = end
    transfers = []
    open_cents = list(nets)
    for place in range(players // 2):
        best, worst = order[place], order[players - 1 - place]
        cents = by_position[place]
        if not tied[best] and not tied[worst] and cents > 0:
            transfers.append({"from": worst, "to": best, "cents": cents})
            open_cents[worst] += cents
            open_cents[best] -= cents
    while any(open_cents):
        debtor = min(range(players), key=lambda seat: (open_cents[seat], seat))
        creditor = min(range(players), key=lambda seat: (-open_cents[seat], seat))
        cents = min(-open_cents[debtor], open_cents[creditor])
        transfers.append({"from": debtor, "to": creditor, "cents": cents})
        open_cents[debtor] += cents
        open_cents[creditor] -= cents
    return nets, transfers


# --- the record's head and the summary ------------------------------------------------------------


def _head(record: dict) -> tuple[int, int, int]:
    players = require_int(record, "players", "", MIN_PLAYERS, MAX_PLAYERS, "players")
    dealer = require_int(record, "dealer", "", 0, players - 1, "dealer (a seat)")
    direction = record.get("direction")
    if direction is None:
        return players, dealer, 1
    if not is_int(direction):
        raise RecordError(Code.BAD_TYPE, f"direction must be the JSON integer 1 or -1, got {direction!r}", "/direction")
    if direction not in (1, -1):
        raise RecordError(
            Code.OUT_OF_RANGE, f"direction must be 1 (clockwise) or -1 (counter-clockwise), got {direction}", "/direction"
        )
    return players, dealer, direction


def _card(name: Any, path: str) -> int:
    code = CARD_CODES.get(name) if type(name) is str else None
    if code is None:
        raise RecordError(
            Code.BAD_CARD, f"{name!r} is not a card: rank 7 8 9 T J Q K A, then suit C S H D (e.g. 7H, TD, JC)", path,
            {"value": name},
        )
    return code


def _suit(value: Any, path: str) -> int:
    suit = SUIT_CODES.get(value) if type(value) is str else None
    if suit is None:
        raise RecordError(Code.BAD_SUIT, f"a named suit is one of C, S, H, D; got {value!r}", path, {"value": value})
    return suit


def _summary(summary: Any, players: int) -> dict:
    """records.md, Maumau summary: ``remaining`` and ``wish``, or ``minus``, checked for consistency."""
    summary = require_object(summary, "/summary", "summary")
    remaining = summary.get("remaining")
    wish = summary.get("wish")
    minus = summary.get("minus")
    # Decision: a summary without either member is rejected at the summary object itself.
    if remaining is None and minus is None:
        raise RecordError(Code.MISSING_MEMBER, "a summary gives remaining (the hands at the end) or minus", "/summary")
    computed = None
    if remaining is not None:
        require_list(remaining, "/summary/remaining", "remaining")
        require_length(remaining, players, "/summary/remaining", "remaining (one hand per player)")
        seen = [0] * 32
        hands = []
        for seat, hand in enumerate(remaining):
            path = f"/summary/remaining/{seat}"
            require_list(hand, path, f"the hand of seat {seat}")
            counts = [0] * 32
            for index, name in enumerate(hand):
                code = _card(name, f"{path}/{index}")
                if seen[code] == COPIES:
                    raise RecordError(Code.DUPLICATE_CARD, f"{name} appears more than twice; the deck holds it twice", f"{path}/{index}",
                                      {"card": name})
                seen[code] += 1
                counts[code] += 1
            hands.append(counts)
        if all(remaining):
            raise RecordError(Code.NO_EMPTY_HAND, "a game ends when a hand is empty; every hand here holds cards", "/summary/remaining")
        # Decision: the top card of the discard pile is in no hand, so the hands hold at most 63.
        if sum(seen) > DECK_SIZE - 1:
            raise RecordError(Code.TOO_MANY_CARDS, "the hands hold all 64 cards; the top card of the discard pile is missing", "/summary/remaining")
    named = None
    if wish is not None:
        # Decision: a wish means a jack ended the game (``ended_by_jack``), also in a summary that
        # gives only ``minus``; with ``remaining`` some jack of another suit must be left to name it.
        named = _suit(wish, "/summary/wish")
        if remaining is not None and all(seen[JACKS[suit]] == COPIES for suit in range(4) if suit != named):
            raise RecordError(
                Code.NO_JACK_FOR_WISH,
                f"no jack could have named {SUIT_NAMES[named]}: the hands hold both copies of every other jack",
                "/summary/wish", {"suit": SUITS[named]},
            )
    if remaining is not None:
        computed = [minus_points(hand, len(cards), named) for hand, cards in zip(hands, remaining)]
    if minus is not None:
        require_int_list(minus, players, "/summary/minus", "minus (one per player)", "the minus points of seat {}",
                         0, MOST_MINUS)
        if 0 not in minus:
            raise RecordError(Code.NO_ZERO, "the player who emptied his hand has 0 minus points; none has here", "/summary/minus")
        raw = sum(value if value % 2 else value // 2 for value in minus)
        if raw > MOST_RAW_MINUS:
            raise RecordError(
                Code.MINUS_IMPOSSIBLE,
                f"minus {minus} stands for at least {raw} points before any doubling, but the hands hold at most "
                f"{MOST_RAW_MINUS} (63 cards, a jack counting 2)",
                "/summary/minus",
            )
        if computed is not None and minus != computed:
            raise RecordError(
                Code.MINUS_MISMATCH, f"minus {minus} does not match the remaining hands, which give {computed}", "/summary/minus"
            )
    points = computed if computed is not None else list(minus)
    # records.md: a minus-only sheet without a wish does not say how the game ended (null).
    ended_by_jack = True if named is not None else False if remaining is not None else None
    return {
        "scores": [-value for value in points], "minus": points, "ended_by_jack": ended_by_jack,
        "next_dealer": None, "direction": None,
    }


# --- the full record --------------------------------------------------------------------------------


def read_game(record: dict, players: int, dealer: int, direction: int) -> Game:
    """The deal of a full record, then its events pushed on a ``Game`` (a record with ``"events": []``
    gives the game as dealt, ready for ``push``)."""
    hands = require_list(record.get("hands"), "/hands", "hands")
    require_length(hands, players, "/hands", "hands (one per player)")
    dealt = [0] * 32
    counts = []
    for seat, hand in enumerate(hands):
        path = f"/hands/{seat}"
        require_list(hand, path, f"the hand of seat {seat}")
        require_length(hand, HAND_SIZE, path, f"the hand of seat {seat} (8 cards are dealt)")
        held = [0] * 32
        for index, name in enumerate(hand):
            code = _card(name, f"{path}/{index}")
            if dealt[code] == COPIES:
                raise RecordError(Code.DUPLICATE_CARD, f"{name} is dealt a third time; the deck holds it twice", f"{path}/{index}",
                                  {"card": name})
            dealt[code] += 1
            held[code] += 1
        counts.append(held)
    name = record.get("upcard")
    if name is None:
        raise RecordError(Code.MISSING_MEMBER, "upcard (the first card of the discard pile) is required", "/upcard")
    upcard = _card(name, "/upcard")
    if dealt[upcard] == COPIES:
        raise RecordError(Code.DUPLICATE_CARD, f"the upcard {name} is dealt twice already; the deck holds it twice", "/upcard",
                          {"card": name})
    dealt[upcard] += 1
    wish = record.get("upcard_wish")
    if upcard & 7 == JACK:
        if wish is None:
            raise RecordError(
                Code.MISSING_MEMBER, f"the upcard {name} is a jack: the dealer names a suit (upcard_wish)", "/upcard_wish"
            )
        named = _suit(wish, "/upcard_wish")
        if named == upcard >> 3:
            raise RecordError(
                Code.FORBIDDEN_WISH,
                f"the dealer may not name {SUIT_NAMES[named]}, the suit of the upcard {name} "
                "(rules/maumau.md, J: as upcard any suit but its own)",
                "/upcard_wish", {"suit": SUITS[named]},
            )
    else:
        if wish is not None:
            raise RecordError(Code.UNEXPECTED_MEMBER, f"upcard_wish is given only when the upcard is a jack, not {name}", "/upcard_wish")
        named = upcard >> 3
    events = require_list(record.get("events"), "/events", "events")
    pile = [COPIES - copies for copies in dealt]
    game = Game(players, dealer, direction, counts, pile, upcard, named)
    game.push(*events)
    return game


class Game:
    """One game replayed event by event, like python-chess's ``Board``.

    ``push(*events)`` applies events (records.md) in order; the pointers of the errors follow
    records.md, counting the events pushed before. The explicit phase is ``phase`` (what the next
    event must be: ``TURN``, ``SEVENS``, ``EIGHT_PENDING``, ``ACE_PENDING``, ``TOP_UP``, ``SHOW``;
    ``pending`` names it) with ``chance`` (a wedding chance is open) and ``turn`` (the seat that
    acts). ``push`` closes the chances nobody took and dispatches each event by its kind: a play
    (``_play``, or ``_wedding`` when it is marked as one), a draw (``_draw``) or a show (``_show``).
    A card put on the discard pile (``_lay``) then takes its effect: one handler per effect,
    ``EFFECTS`` by rank (``_seven``, ``_eight``, ``_nine``, ``_ten``, ``_jack``,
    ``_queen_or_king``, ``_ace``) and ``_wedded`` for a wedding. The handlers keep the state on
    the game (``__slots__``) and read it into locals where they loop. The upcard is the dealer's
    play, laid when the game is set up.
    ``result()`` is the answer once the events end the game. After an error the game is not to be
    used any further.
    """

    __slots__ = (
        "players", "hands", "sizes", "pile", "pile_n", "below", "below_n", "top", "suit", "direction", "turn",
        "phase", "chain", "chance", "shower", "taker", "after", "read",
    )

    def __init__(self, players: int, dealer: int, direction: int, hands: list[list[int]], pile: list[int],
                 upcard: int, named: int) -> None:
        self.players = players
        self.hands = hands  # per seat, 32 counts
        self.sizes = [HAND_SIZE] * players
        self.pile = pile  # the draw pile, 32 counts (its order is unknown)
        self.pile_n = sum(pile)
        self.below = [0] * 32  # the discard pile under its top card
        self.below_n = 0
        self.top = -1
        self.suit = -1  # the suit to follow: the one named under a jack, else the top card's
        self.direction = direction
        self.turn = dealer
        self.phase = TURN
        self.chain = 0  # the cards a pending 7 chain draws
        self.chance = False  # a wedding chance is open on the top card
        self.shower = self.taker = self.after = 0  # after a 9 or T: who shows, who takes, who is on turn then
        self.read = 0  # events pushed
        # The upcard counts as played by the dealer, with its full effect (rules/maumau.md, Deal).
        self._lay(upcard, dealer, named, EFFECTS[upcard & 7])

    @property
    def pending(self) -> str | None:
        """What is pending: "seven", "eight", "ace", "top_up", "show", "wedding" or None."""
        return PENDING_NAMES[self.phase] or ("wedding" if self.chance else None)

    def result(self) -> dict:
        """The engine's answer (records.md); the events pushed must have ended the game."""
        phase, turn = self.phase, self.turn
        if phase == EIGHT_PENDING:
            turn = (turn + self.direction) % self.players  # not passed on: the affected player is skipped
            phase = TURN
        if phase != TURN or 0 not in self.sizes:
            raise _not_over(phase, turn, self.chain, self.sizes, self.top)
        named = self.suit if self.top & 7 == JACK else None
        minus = [minus_points(hand, size, named) for hand, size in zip(self.hands, self.sizes)]
        return {
            "scores": [-value for value in minus], "minus": minus, "ended_by_jack": named is not None,
            "next_dealer": turn, "direction": self.direction,
        }

    def push(self, *events: Any) -> None:
        players = self.players
        k = self.read  # the event's index in the record
        for event in events:
            if type(event) is dict:
                seat = event.get("seat")
                play = event.get("play")
                wedding = event.get("wedding") if play is not None else None
            else:
                seat = play = wedding = None
            # Chances that nobody takes are not written: an 8 the affected player does not pass on
            # skips him; a wedding chance not answered by the next event is closed.
            phase = self.phase
            if phase == EIGHT_PENDING and not (
                seat == self.turn and wedding is not True and type(play) is str and play in EIGHT_NAMES
            ):
                self.turn = (self.turn + self.direction) % players
                self.phase = phase = TURN
            chance = self.chance
            if chance and wedding is not True:
                self.chance = chance = False
            if phase == TURN and not chance and 0 in self.sizes:
                raise _after_end(self.sizes, k)
            if type(event) is not dict:
                raise RecordError(Code.BAD_TYPE, "an event must be a JSON object", f"/events/{k}")
            if type(seat) is not int or not 0 <= seat < players:
                raise _bad_seat(seat, players, k)
            # The event's handler, by its kind.
            if play is not None:
                # (a jack's wish or a wedding flag is the common third member and needs no check)
                if len(event) > 2 and not (len(event) == 3 and ("wish" in event or "wedding" in event)):
                    _one_kind(event, k)
                if wedding is None or wedding is False:
                    self._play(event, k, seat, play)
                else:
                    self._wedding(event, k, seat, play, wedding)
            else:
                draw = event.get("draw")
                if draw is not None:
                    self._draw(event, k, seat, draw)
                else:
                    self._show(event, k, seat)
            k += 1
        self.read = k

    # --- the events -------------------------------------------------------------------------------

    def _play(self, event: dict, k: int, seat: int, play: Any) -> None:
        """A play by the seat that acts (rules/maumau.md, A turn, and the effects it must answer)."""
        phase = self.phase
        if seat != self.turn:
            raise _wrong_seat(seat, self.turn, phase, k)
        if phase >= TOP_UP:
            raise _show_due(phase, seat, k)
        card = CARD_CODES.get(play) if type(play) is str else None
        if card is None:
            _card(play, f"/events/{k}/play")
        hand = self.hands[seat]
        if not hand[card]:
            raise RecordError(Code.CARD_NOT_HELD, f"seat {seat} does not hold {play}", f"/events/{k}/play",
                              {"seat": seat, "card": play})
        rank = card & 7
        if phase == SEVENS and rank != SEVEN:
            raise RecordError(
                Code.SEVEN_PENDING,
                f"seat {seat} must pass the 7 chain on with a 7 or draw {self.chain}, not play {play} "
                "(rules/maumau.md, 7)",
                f"/events/{k}/play", {"seat": seat, "card": play},
            )
        top, suit = self.top, self.suit
        if not is_legal(card, top, suit):
            raise _illegal(seat, card, top, suit, k)
        if rank == JACK:
            named = _wish(event, k, seat, play, card, top, suit)
        else:
            if len(event) > 2 and event.get("wish") is not None:
                raise RecordError(
                    Code.UNEXPECTED_MEMBER, f"only a jack names a suit; {play} is not a jack", f"/events/{k}/wish"
                )
            named = card >> 3
        hand[card] -= 1
        self.sizes[seat] -= 1
        # On the discard pile (as ``_lay``, written out on this hot path), then the rank's effect.
        if card == top:
            self.direction = -self.direction
        self.below[top] += 1
        self.below_n += 1
        self.top = card
        self.suit = named
        EFFECTS[rank](self, seat)

    def _wedding(self, event: dict, k: int, seat: int, play: Any, flag: Any) -> None:
        """A play marked ``"wedding": true``: the counterpart of the Q/K on top, by any seat holding it,
        while its chance is open (rules/maumau.md, Q, K — weddings)."""
        if flag is not True:
            raise RecordError(Code.BAD_TYPE, f"wedding must be true or absent, got {flag!r}", f"/events/{k}/wedding")
        top = self.top
        if not self.chance:
            raise RecordError(
                Code.NO_WEDDING_CHANCE,
                f"seat {seat} announces a wedding, but no chance is open: a wedding answers a Q or K just played "
                f"(the top card is {CARD_NAMES[top]})",
                f"/events/{k}/wedding", {"seat": seat},
            )
        card = _card(play, f"/events/{k}/play")
        if card != COUNTERPART[top]:
            raise RecordError(
                Code.NOT_COUNTERPART,
                f"seat {seat} announces a wedding with {play}; on {CARD_NAMES[top]} only {CARD_NAMES[COUNTERPART[top]]} is one",
                f"/events/{k}/play",
                {"seat": seat, "card": play, "top_card": CARD_NAMES[top], "counterpart": CARD_NAMES[COUNTERPART[top]]},
            )
        hand = self.hands[seat]
        if not hand[card]:
            raise RecordError(Code.CARD_NOT_HELD, f"seat {seat} does not hold {play}", f"/events/{k}/play",
                              {"seat": seat, "card": play})
        if event.get("wish") is not None:
            raise RecordError(Code.UNEXPECTED_MEMBER, f"only a jack names a suit; {play} is not a jack", f"/events/{k}/wish")
        hand[card] -= 1
        self.sizes[seat] -= 1
        self._lay(card, seat, card >> 3, Game._wedded)

    def _draw(self, event: dict, k: int, seat: int, draw: Any) -> None:
        """A draw the phase calls for: a turn's card, a 7 chain, after an ace, or a top-up before a show."""
        if len(event) > 2:
            _one_kind(event, k)
        phase = self.phase
        if seat != self.turn:
            raise _wrong_seat(seat, self.turn, phase, k)
        if phase == SEVENS:
            wanted = self.chain
        elif phase == TOP_UP:
            wanted = 2 - self.sizes[seat]
        elif phase == SHOW:
            raise _show_due(phase, seat, k)
        else:
            wanted = 1
            if phase == ACE_PENDING and can_play(self.hands[seat], self.top, self.suit):
                raise _must_follow_ace(seat, self.top, k)
        if wanted > self.pile_n + self.below_n:
            wanted = self.pile_n + self.below_n  # drawing goes as far as the cards go
        if type(draw) is not list:
            raise RecordError(Code.BAD_TYPE, "draw must be a JSON array of cards", f"/events/{k}/draw")
        if len(draw) != wanted:
            raise _draw_count(seat, phase, self.chain, wanted, len(draw), k)
        # The cards go from the draw pile to the hand; an empty pile is refilled first.
        pile, pile_n, hand, codes = self.pile, self.pile_n, self.hands[seat], CARD_CODES
        index = 0
        for name in draw:
            code = codes.get(name) if type(name) is str else None
            if code is None:
                _card(name, f"/events/{k}/draw/{index}")
            if not pile_n:
                # The discard pile except its top becomes the draw pile (rules/maumau.md).
                pile, self.below = self.below, pile
                pile_n, self.below_n = self.below_n, 0
            if not pile[code]:
                raise _not_in_pile(seat, name, k, index)
            pile[code] -= 1
            pile_n -= 1
            hand[code] += 1
            index += 1
        self.pile, self.pile_n = pile, pile_n
        self.sizes[seat] += wanted
        if phase == SEVENS:
            self.phase = TURN  # the drawer of a 7 chain is on turn
        elif phase == TOP_UP:
            self.phase = SHOW
        else:
            self.phase = TURN
            self.turn = (seat + self.direction) % self.players

    def _show(self, event: dict, k: int, seat: int) -> None:
        """After a 9 or T: the shower shows min(2, held) cards, the taker takes one (rules/maumau.md)."""
        show = event.get("show")
        if show is None:
            raise RecordError(Code.BAD_EVENT, "an event holds one of play, draw or show", f"/events/{k}")
        if len(event) > 2 and not (len(event) == 3 and "taken" in event):
            _one_kind(event, k)
        if seat != self.turn:
            raise _wrong_seat(seat, self.turn, self.phase, k)
        if self.phase != SHOW:
            raise _show_unexpected(self.phase, seat, k)
        path = f"/events/{k}/show"
        if type(show) is not list:
            raise RecordError(Code.BAD_TYPE, "show must be a JSON array of cards", path)
        sizes, hand, taker = self.sizes, self.hands[seat], self.taker
        wanted = min(2, sizes[seat])
        if len(show) != wanted:
            raise RecordError(
                Code.BAD_LENGTH,
                f"seat {seat} holds {sizes[seat]} card(s) and shows {wanted}, not {len(show)} (rules/maumau.md, 9 and T)",
                path,
            )
        shown = []
        for index, name in enumerate(show):
            code = _card(name, f"{path}/{index}")
            if hand[code] <= shown.count(code):
                raise RecordError(Code.CARD_NOT_HELD, f"seat {seat} shows {name} but does not hold it", f"{path}/{index}",
                                  {"seat": seat, "card": name})
            shown.append(code)
        taken = event.get("taken")
        if not shown:
            if taken is not None:
                raise RecordError(
                    Code.UNEXPECTED_MEMBER, f"seat {seat} shows no card, so nothing is taken", f"/events/{k}/taken"
                )
            self.phase = TURN
            self.turn = self.after
            return
        if taken is None:
            raise RecordError(Code.MISSING_MEMBER, f"seat {taker} takes one of the shown cards (taken)", f"/events/{k}/taken")
        code = _card(taken, f"/events/{k}/taken")
        if code not in shown:
            raise RecordError(Code.NOT_SHOWN, f"seat {taker} takes {taken}, which seat {seat} did not show", f"/events/{k}/taken",
                              {"seat": taker, "card": taken})
        hand[code] -= 1
        sizes[seat] -= 1
        self.hands[taker][code] += 1
        sizes[taker] += 1
        self.phase = TURN
        self.turn = self.after

    # --- a card on the discard pile and its effect --------------------------------------------------

    def _lay(self, card: int, seat: int, suit: int, effect: Callable[[Game, int], None]) -> None:
        """``seat`` puts ``card`` on the discard pile (``suit`` to follow), then ``effect`` (its
        rank's, from ``EFFECTS``, or a wedding's) takes place."""
        top = self.top
        if card == top:
            self.direction = -self.direction  # an identical card reverses before its effect
        if top >= 0:
            self.below[top] += 1
            self.below_n += 1
        self.top = card
        self.suit = suit
        effect(self, seat)

    def _wedded(self, seat: int) -> None:
        """A wedding opens a new chance starting with its announcer (the chance stays open); if
        nobody answers it, the announcer is on turn."""
        self.turn = seat

    def _seven(self, seat: int) -> None:
        """The next player passes the chain on with a 7 or draws two per 7 in it."""
        self.chain = self.chain + 1 if self.phase == SEVENS else 1
        self.phase = SEVENS
        self.turn = (seat + self.direction) % self.players

    def _eight(self, seat: int) -> None:
        """The next player passes it on with an 8 or is skipped (``push`` decides at the next event)."""
        self.phase = EIGHT_PENDING
        self.turn = (seat + self.direction) % self.players

    def _nine(self, seat: int) -> None:
        """The 9's player shows two cards to the next player, who takes one and is on turn."""
        taker = (seat + self.direction) % self.players
        self.shower, self.taker = seat, taker
        self.turn, self.after = seat, taker
        self.phase = TOP_UP if self.sizes[seat] < 2 else SHOW

    def _ten(self, seat: int) -> None:
        """The next player shows two cards to the ten's player, who takes one; the shower is on turn."""
        shower = (seat + self.direction) % self.players
        self.shower, self.taker = shower, seat
        self.turn = self.after = shower
        self.phase = TOP_UP if self.sizes[shower] < 2 else SHOW

    def _ace(self, seat: int) -> None:
        """The ace's player goes on: he plays again, or draws one when he cannot."""
        self.phase = ACE_PENDING
        self.turn = seat

    def _jack(self, seat: int) -> None:
        """The suit it named is to be followed (set when it is laid); the next player is on turn."""
        self.phase = TURN
        self.turn = (seat + self.direction) % self.players

    def _queen_or_king(self, seat: int) -> None:
        """The next player is on turn, and anyone may answer with its counterpart (a wedding)."""
        self.phase = TURN
        self.turn = (seat + self.direction) % self.players
        self.chance = True


# The effect of a card laid, by its rank: 7 8 9 T J Q K A.
EFFECTS = (
    Game._seven, Game._eight, Game._nine, Game._ten, Game._jack, Game._queen_or_king, Game._queen_or_king, Game._ace,
)


def _wish(event: dict, k: int, seat: int, play: str, card: int, top: int, suit: int) -> int:
    """rules/maumau.md, J: the suit a jack names; not its own, nor (unless on the identical jack)
    the one it would have served."""
    wish = event.get("wish")
    if wish is None:
        raise RecordError(
            Code.MISSING_MEMBER, f"seat {seat} plays the jack {play} and must name a suit (wish)", f"/events/{k}/wish",
        )
    named = SUIT_CODES.get(wish) if type(wish) is str else None
    if named is None:
        _suit(wish, f"/events/{k}/wish")
    if named == card >> 3 or (card != top and named == suit):
        raise _forbidden_wish(seat, card, top, suit, named, k)
    return named


def _one_kind(event: dict, k: int) -> None:
    kinds = [key for key in ("play", "draw", "show") if event.get(key) is not None]
    if len(kinds) > 1:
        raise RecordError(Code.BAD_EVENT, f"an event holds one of play, draw or show, not {' and '.join(kinds)}", f"/events/{k}")
    if kinds[0] != "play":
        for key in ("wish", "wedding"):
            if event.get(key) is not None:
                raise RecordError(Code.UNEXPECTED_MEMBER, f"{key} belongs to a play, not to a {kinds[0]}", f"/events/{k}/{key}")
    if kinds[0] != "show" and event.get("taken") is not None:
        raise RecordError(Code.UNEXPECTED_MEMBER, f"taken belongs to a show, not to a {kinds[0]}", f"/events/{k}/taken")


# --- error messages (off the hot path) --------------------------------------------------------------


def _must_follow_ace(seat: int, top: int, k: int) -> RecordError:
    return RecordError(
        Code.MUST_FOLLOW_ACE,
        f"seat {seat} holds a card that can go on the ace {CARD_NAMES[top]} and must play it; "
        "only a player without one draws (rules/maumau.md, A)",
        f"/events/{k}", {"seat": seat},
    )


def _after_end(sizes: list[int], k: int) -> RecordError:
    return RecordError(
        Code.AFTER_END,
        f"the game ended before this event: seat {sizes.index(0)} holds no card and no effect is pending",
        f"/events/{k}",
    )


def _bad_seat(seat: Any, players: int, k: int) -> RecordError:
    path = f"/events/{k}/seat"
    if seat is None:
        return RecordError(Code.MISSING_MEMBER, "every event names the acting seat", path)
    if not is_int(seat):
        return RecordError(Code.BAD_TYPE, f"a seat is a JSON integer, got {seat!r}", path)
    return RecordError(Code.OUT_OF_RANGE, f"seats are 0..{players - 1}, got {seat}", path)


def _wrong_seat(seat: int, turn: int, phase: int, k: int) -> RecordError:
    why = {
        TURN: "is on turn",
        SEVENS: "must pass the 7 chain on or draw",
        EIGHT_PENDING: "may pass the 8 on",
        ACE_PENDING: "played the ace and must go on (rules/maumau.md, A)",
        TOP_UP: "must draw up before showing",
        SHOW: "must show two cards",
    }[phase]
    return RecordError(Code.WRONG_SEAT, f"seat {seat} may not act here: seat {turn} {why}", f"/events/{k}/seat",
                       {"seat": seat, "expected_seat": turn})


def _show_due(phase: int, seat: int, k: int) -> RecordError:
    if phase == TOP_UP:
        return RecordError(
            Code.DRAW_DUE, f"seat {seat} holds fewer than two cards and first draws up to two before showing "
            "(rules/maumau.md, 9 and T)", f"/events/{k}", {"seat": seat},
        )
    return RecordError(Code.SHOW_DUE, f"seat {seat} must show two cards now (rules/maumau.md, 9 and T)", f"/events/{k}",
                       {"seat": seat})


def _show_unexpected(phase: int, seat: int, k: int) -> RecordError:
    if phase == TOP_UP:
        return _show_due(phase, seat, k)
    return RecordError(Code.UNEXPECTED_SHOW, f"seat {seat} shows cards, but no 9 or T asks for it", f"/events/{k}")


def _suit_text(top: int, suit: int) -> str:
    if top & 7 == JACK:
        return f"{CARD_NAMES[top]} (named suit: {SUIT_NAMES[suit]})"
    return CARD_NAMES[top]


def _illegal(seat: int, card: int, top: int, suit: int, k: int) -> RecordError:
    if card & 7 == JACK:
        rule = "a jack may only be played when it does not serve: on the identical jack or on a non-jack of another suit"
    else:
        rule = f"a card must follow {SUIT_NAMES[suit]} or the rank of the top card"
    return RecordError(
        Code.ILLEGAL_PLAY, f"seat {seat} may not play {CARD_NAMES[card]} on {_suit_text(top, suit)}: {rule} "
        "(rules/maumau.md, A turn)", f"/events/{k}/play",
        {"seat": seat, "card": CARD_NAMES[card], "top_card": CARD_NAMES[top]},
    )


def _forbidden_wish(seat: int, card: int, top: int, suit: int, named: int, k: int) -> RecordError:
    if named == card >> 3:
        reason = f"{SUIT_NAMES[named]} is the suit of the jack"
    else:
        reason = f"{SUIT_NAMES[named]} is the suit of the card below ({_suit_text(top, suit)})"
    return RecordError(
        Code.FORBIDDEN_WISH, f"seat {seat} may not name {SUIT_NAMES[named]} with {CARD_NAMES[card]}: {reason} "
        "(rules/maumau.md, J)", f"/events/{k}/wish", {"seat": seat, "suit": SUITS[named]},
    )


def _draw_count(seat: int, phase: int, chain: int, wanted: int, given: int, k: int) -> RecordError:
    if phase == SEVENS:
        why = f"the 7 chain makes seat {seat} draw {chain}"
    elif phase == TOP_UP:
        why = f"seat {seat} draws up to two cards before showing"
    else:
        why = f"seat {seat} draws one card"
    if wanted < (chain if phase == SEVENS else 1):
        why += f", and only {wanted} can be drawn"
    return RecordError(Code.WRONG_DRAW_COUNT, f"{why}, not {given} (rules/maumau.md)", f"/events/{k}/draw",
                       {"seat": seat, "due": wanted, "got": given})


def _not_in_pile(seat: int, name: str, k: int, index: int) -> RecordError:
    return RecordError(
        Code.NOT_IN_PILE, f"seat {seat} draws {name}, but the draw pile holds no {name} at this point "
        "(every copy is in a hand or on the discard pile)", f"/events/{k}/draw/{index}", {"seat": seat, "card": name},
    )


def _not_over(phase: int, turn: int, chain: int, sizes: list[int], top: int) -> RecordError:
    if phase == SEVENS:
        what = f"a 7 chain of {chain} is pending on seat {turn}"
    elif phase == ACE_PENDING:
        what = f"seat {turn} played the ace {CARD_NAMES[top]} and must go on"
    elif phase in (TOP_UP, SHOW):
        what = f"seat {turn} must show two cards after {CARD_NAMES[top]}"
    else:
        what = f"every hand holds cards and seat {turn} is on turn"
    return RecordError(Code.NOT_ENDED, f"the record stops before the game ends: {what}", "/events")
