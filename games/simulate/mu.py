"""Random legal Mü deals (``../shared/rules/mu.md``) as full records of ``../shared/records.md``.

The players act at random within the rules: the auction sometimes ends in an Eklat, a void deal or
a deal without a Vize; trumps, partner and every card played are random legal choices. The
simulator keeps its own account of who wins each trick (by the rank tables of the engine), so the
card points it reports are a check on the engine's move-by-move reading.

Parts of a deal can be fixed (the hands, the auction, the trumps, the partner) to play the worked
examples of the rules with random but legal tricks.
"""
from __future__ import annotations

import random

from games.rules.mu import (
    CARD_COPIES,
    CARD_NAMES,
    CARD_POINTS,
    COLOURS,
    HAND_SIZE,
    NO_TRUMP,
    TRUMP,
    eklat,
    find_vice,
    settle,
    trump_tables,
    void,
)

# How readily a table passes, one temper per deal: mostly between bold and cautious, now and then
# a timid table (which often passes the whole first round: a void deal).
BOLD, CAUTIOUS, TIMID, TIMID_SHARE = 0.15, 0.6, 0.9, 0.06
# How a player who puts out cards chooses their number: raise, draw level, or stay in below.
RAISE_SHARE, DRAW_LEVEL_SHARE = 0.5, 0.08
NO_TRUMP_SHARE = 0.15


def random_record(rng: random.Random, players: int, dealer: int = 0, **options) -> dict | tuple[dict, dict]:
    """One random legal full record.

    Options:
    - ``claimed=True``: add the answer's scores as ``claimed``;
    - ``with_answer=True``: return ``(record, answer)``, the answer being the simulator's own
      account of the deal (same members as the engine's);
    - ``colours`` (3 players): the three colours in play;
    - ``pass_temper`` (0..1): how readily the players pass in the auction;
    - ``hands``, ``auction``, ``vice_trump``, ``chef_trump``, ``partner``: fix that part of the
      deal (card texts as in a record); they must be legal, the rest is played at random.
    """
    if players not in HAND_SIZE:
        raise ValueError(f"Mü is played by 3 to 6 players, not {players}")
    hand_size = HAND_SIZE[players]
    record: dict = {"game": "mu", "players": players, "dealer": dealer}
    if players == 3:
        colours = list(options.get("colours") or rng.sample(COLOURS, 3))
        record["colours"] = colours
    else:
        colours = list(COLOURS)
        if rng.random() < 0.1:  # the optional member, now and then
            rng.shuffle(colours)
            record["colours"] = colours
    if options.get("hands") is not None:
        hands = [list(hand) for hand in options["hands"]]
    else:
        deck = [name for name in CARD_NAMES if name[0] in colours for _ in range(CARD_COPIES[name])]
        rng.shuffle(deck)
        hands = [deck[seat * hand_size:(seat + 1) * hand_size] for seat in range(players)]
    record["hands"] = [list(hand) for hand in hands]

    if options.get("auction") is not None:
        auction = [list(action) for action in options["auction"]]
    else:
        temper = options.get("pass_temper")
        if temper is None:
            temper = TIMID if rng.random() < TIMID_SHARE else rng.uniform(BOLD, CAUTIOUS)
        auction = _random_auction(rng, players, dealer, hands, temper)
    record["auction"] = auction
    bids, displays, crown, face_up = _read_auction(auction, players, dealer)
    if max(bids) == 0:
        answer = void(players)
    elif not face_up:
        answer = eklat(players, bids, crown)
    else:
        answer = _play(rng, record, players, hands, bids, displays, crown, options)
    if options.get("claimed"):
        record["claimed"] = {"scores": list(answer["scores"])}
    if options.get("with_answer"):
        return record, answer
    return record


def _random_auction(rng: random.Random, players: int, dealer: int, hands: list[list[str]], temper: float) -> list[list[str]]:
    """§1: random actions until n passes in a row; the table grows more willing to pass."""
    in_hand = [list(hand) for hand in hands]
    bids = [0] * players
    auction: list[list[str]] = []
    top, passes, seat = 0, 0, dealer
    while passes < players:
        willing = (1 - temper) * (1 - min(1.0, len(auction) / (6 * players)))
        hand = in_hand[seat]
        if not hand or rng.random() >= willing:
            auction.append([])
            passes += 1
        else:
            count = min(_cards_to_put_out(rng, top + 1 - bids[seat]), len(hand))
            auction.append([hand.pop(rng.randrange(len(hand))) for _ in range(count)])
            bids[seat] += count
            top = max(top, bids[seat])
            passes = 0
        seat = (seat + 1) % players
    return auction


def _cards_to_put_out(rng: random.Random, room: int) -> int:
    """Raise (the most cards allowed), draw level with the top bid, or stay in below it."""
    style = rng.random()
    if style < RAISE_SHARE or room == 1:
        return room
    if style < RAISE_SHARE + DRAW_LEVEL_SHARE:
        return room - 1  # the crown goes face down
    return rng.randint(1, room - 2) if room > 2 else room


def _read_auction(auction: list[list[str]], players: int, dealer: int):
    """Bids, displays, the crown's holder and whether it lies face up (§1)."""
    bids = [0] * players
    displays: list[list[str]] = [[] for _ in range(players)]
    top, crown, face_up = 0, None, False
    for index, action in enumerate(auction):
        if not action:
            continue
        seat = (dealer + index) % players
        displays[seat].extend(action)
        bids[seat] += len(action)
        if bids[seat] > top:
            top, crown, face_up = bids[seat], seat, True
        elif bids[seat] == top:
            crown, face_up = seat, False
    return bids, displays, crown, face_up


def _symbols(display: list[str]) -> list[str]:
    """The colours and digits of a display, each once, in a fixed order."""
    return sorted({name[0] for name in display} | {name[1] for name in display})


def _play(rng: random.Random, record: dict, players: int, hands: list[list[str]], bids: list[int],
          displays: list[list[str]], chef: int, options: dict) -> dict:
    """§3–§6: Vize, trumps, partner, then the tricks with random legal cards."""
    vice = find_vice(players, chef, displays)
    vice_trump = None
    if vice is not None:
        vice_trump = options.get("vice_trump") or rng.choice(_symbols(displays[vice]))
        record["vice_trump"] = vice_trump
    chef_trump = options.get("chef_trump")
    if chef_trump is None:
        choices = [symbol for symbol in _symbols(displays[chef]) if symbol != vice_trump]
        chef_trump = NO_TRUMP if rng.random() < NO_TRUMP_SHARE else rng.choice(choices)
    record["chef_trump"] = chef_trump
    partner = None
    if players > 3:
        partner = options.get("partner")
        if partner is None:
            partner = rng.choice([seat for seat in range(players) if seat != chef and seat != vice])
        record["partner"] = partner

    tables = trump_tables(chef_trump, vice_trump)
    suit = tables.suit
    held = [list(hand) for hand in hands]  # display cards count as held (§6)
    card_points = [0] * players
    tricks = []
    leader = chef
    for _ in range(len(hands[0])):
        trick: list[str] = []
        led = None
        for offset in range(players):
            hand = held[(leader + offset) % players]
            following = [card for card in hand if suit[card] == led]
            choices_ = following or hand
            card = choices_[rng.randrange(len(choices_))]
            if led is None:
                led = suit[card]
            hand.remove(card)
            trick.append(card)
        winner = (leader + _winner(trick, led, tables)) % players
        card_points[winner] += sum(CARD_POINTS[card] for card in trick)
        tricks.append(trick)
        leader = winner
    record["tricks"] = tricks
    return settle(players, chef, vice, partner, bids[chef], chef_trump, card_points)


def _winner(trick: list[str], led: int, tables) -> int:
    """The highest trump, else the highest card of the led colour; of equal cards the first.

    Written from the rule (§6) with the trump ranks only, apart from the engine's trick loop.
    """
    rank = tables.led_rank[TRUMP]  # in a trump-led trick every trump keeps its rank
    trumps = [(rank[card], -index) for index, card in enumerate(trick) if tables.suit[card] == TRUMP]
    followers = [(int(card[1]), -index) for index, card in enumerate(trick) if tables.suit[card] == led]
    return -max(trumps or followers)[1]
