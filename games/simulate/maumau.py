"""Random legal games of Dynamisches Maumau (``../shared/rules/maumau.md``).

The simulation shuffles a real ordered deck of 64 cards, so every draw is a real card off the
pile, and reshuffles the discard pile when the pile runs out. It keeps its own table (card names,
lists) and its own reading of the rules, independent of the engine, so that the engine's tests
compare two implementations. Players choose at random: they sometimes draw although they could
play, pass 7s and 8s on, announce weddings (also out of turn) and name suits with their jacks.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

SUITS = "CSHD"
RANKS = "789TJQKA"
DECK = [rank + suit for suit in SUITS for rank in RANKS] * 2
COUNTERPARTS = {"Q": "K", "K": "Q"}

DEFAULTS = {
    "draw_rate": 0.12,  # a player on turn draws although he could play
    "pass_rate": 0.75,  # a player hit by a 7 or 8 passes it on when he can
    "wedding_rate": 0.6,  # a player given a wedding chance takes it when he can
    "calm_after": 250,  # events after which nobody draws voluntarily any more
    "max_events": 3000,  # a game this long is dealt again (the rules have no limit)
}


@dataclass
class Game:
    """A simulated game: the record and what the simulation knows at its end."""

    record: dict
    hands: list[list[str]]
    pile: list[str]  # the draw pile, top last
    discard: list[str]  # the discard pile, top last
    next_dealer: int
    direction: int
    minus: list[int]
    ended_by_jack: bool
    features: set[str] = field(default_factory=set)


class _TooLong(Exception):
    pass


def random_record(rng: random.Random, players: int, dealer: int = 0, direction: int = 1, **options) -> dict:
    """A full record of a random legal game (records.md), played until it ends."""
    return play_game(rng, players, dealer, direction, **options).record


def play_game(rng: random.Random, players: int, dealer: int = 0, direction: int = 1, **options) -> Game:
    settings = {**DEFAULTS, **options}
    while True:
        try:
            return _Simulation(rng, players, dealer, direction, settings).run()
        except _TooLong:
            continue  # deal again: a deadlocked table (nothing to draw, nothing to play)


def random_series(
    rng: random.Random, players: int, games: int = 8, stake_cents: int = 10, dealer: int | None = None, **options
) -> dict:
    """A series (records.md): the first game clockwise from a random dealer, each next game dealt
    by who would have been on turn next, in the direction the game before ended with."""
    dealer = rng.randrange(players) if dealer is None else dealer
    direction = 1
    records = []
    for _ in range(games):
        game = play_game(rng, players, dealer, direction, **options)
        records.append(game.record)
        dealer, direction = game.next_dealer, game.direction
    return {"records": records, "stake_cents": stake_cents}


def is_legal(card: str, top: str, suit: str) -> bool:
    """A jack only where it does not serve (or on its twin); any other card follows suit or rank."""
    if card[0] == "J":
        return card == top or (top[0] != "J" and card[1] != suit)
    return card[1] == suit or card[0] == top[0]


class _Simulation:
    def __init__(self, rng: random.Random, players: int, dealer: int, direction: int, settings: dict) -> None:
        self.rng = rng
        self.n = players
        self.settings = settings
        deck = list(DECK)
        rng.shuffle(deck)
        self.hands = [deck[seat * 8:seat * 8 + 8] for seat in range(players)]
        self.pile = deck[players * 8:]
        self.upcard = self.pile.pop()
        self.discard: list[str] = []
        self.events: list[dict] = []
        self.record = {
            "game": "maumau", "players": players, "dealer": dealer, "direction": direction,
            "hands": [list(hand) for hand in self.hands], "upcard": self.upcard, "events": self.events,
        }
        self.dealer = dealer
        self.direction = direction
        self.features: set[str] = set()
        self.phase = "turn"  # turn, seven, eight, ace, show
        self.turn = dealer
        self.chain = 0
        self.chance: int | None = None  # where an open wedding chance starts
        self.shower = self.taker = self.after = 0
        self.top = ""
        self.suit = ""

    def next(self, seat: int) -> int:
        return (seat + self.direction) % self.n

    def run(self) -> Game:
        wish = None
        if self.upcard[0] == "J":
            wish = self.rng.choice([suit for suit in SUITS if suit != self.upcard[1]])
            self.record["upcard_wish"] = wish
        self.lay(self.dealer, self.upcard, wish, upcard=True)
        while True:
            if len(self.events) > self.settings["max_events"]:
                raise _TooLong
            if self.phase == "eight":
                eights = [card for card in self.hands[self.turn] if card[0] == "8"]
                if eights and self.rng.random() < self.settings["pass_rate"]:
                    self.features.add("eight_pass")
                    self.lay(self.turn, self.rng.choice(eights))
                    continue
                self.features.add("eight_skip")
                self.turn = self.next(self.turn)
                self.phase = "turn"
            if self.chance is not None:
                if self.offer_wedding():
                    continue
                self.chance = None
            if self.phase == "turn" and not all(self.hands):
                return self.finish()
            getattr(self, "step_" + self.phase)()

    # --- the phases -------------------------------------------------------------------------------

    def step_turn(self) -> None:
        seat = self.turn
        legal = [card for card in self.hands[seat] if is_legal(card, self.top, self.suit)]
        voluntary = (
            len(self.events) < self.settings["calm_after"]
            and self.can_draw()
            and self.rng.random() < self.settings["draw_rate"]
        )
        if legal and not voluntary:
            self.play_one(seat, legal)
        else:
            self.draw(seat, 1)
            self.turn = self.next(seat)

    def step_seven(self) -> None:
        seat = self.turn
        sevens = [card for card in self.hands[seat] if card[0] == "7"]
        if sevens and self.rng.random() < self.settings["pass_rate"]:
            self.lay(seat, self.rng.choice(sevens))
            return
        self.draw(seat, self.chain)
        self.phase = "turn"  # the drawer is on turn

    def step_ace(self) -> None:
        seat = self.turn
        legal = [card for card in self.hands[seat] if is_legal(card, self.top, self.suit)]
        if legal:
            self.play_one(seat, legal)
            return
        self.features.add("ace_draw")
        self.draw(seat, 1)
        self.phase = "turn"
        self.turn = self.next(seat)

    def step_show(self) -> None:
        hand = self.hands[self.shower]
        if len(hand) < 2:
            self.features.add("top_up")
            self.draw(self.shower, 2 - len(hand))
        shown = self.rng.sample(hand, min(2, len(hand)))
        event = {"seat": self.shower, "show": shown}
        if shown:
            taken = self.rng.choice(shown)
            hand.remove(taken)
            self.hands[self.taker].append(taken)
            event["taken"] = taken
        self.events.append(event)
        self.phase = "turn"
        self.turn = self.after

    # --- actions --------------------------------------------------------------------------------

    def play_one(self, seat: int, legal: list[str]) -> None:
        card = self.rng.choice(legal)
        wish = None
        if card[0] == "J":
            allowed = [suit for suit in SUITS if suit != card[1] and (card == self.top or suit != self.suit)]
            wish = self.rng.choice(allowed)
        self.lay(seat, card, wish)

    def offer_wedding(self) -> bool:
        """The chance goes round in the current direction from the player of the Q/K."""
        wanted = COUNTERPARTS[self.top[0]] + self.top[1]
        seat = self.chance
        for _ in range(self.n):
            if wanted in self.hands[seat] and self.rng.random() < self.settings["wedding_rate"]:
                if seat != self.turn:
                    self.features.add("wedding_out_of_turn")
                if self.events and self.events[-1].get("wedding"):
                    self.features.add("wedding_chain")
                self.features.add("wedding")
                self.lay(seat, wanted, wedding=True)
                return True
            seat = self.next(seat)
        return False

    def lay(self, seat: int, card: str, wish: str | None = None, wedding: bool = False, upcard: bool = False) -> None:
        if not upcard:
            self.hands[seat].remove(card)
            event = {"seat": seat, "play": card}
            if wish is not None:
                event["wish"] = wish
            if wedding:
                event["wedding"] = True
            self.events.append(event)
        if self.discard and self.discard[-1] == card:
            self.direction = -self.direction
            self.features.add("reversal")
            if card[0] in "78":
                self.features.add("reversal_" + card[0])
        self.discard.append(card)
        self.top, self.suit = card, wish or card[1]
        rank = card[0]
        if upcard:
            self.features.add("upcard_" + rank)
        if wedding:
            self.turn = seat
            self.chance = seat
        elif rank == "7":
            self.chain = self.chain + 1 if self.phase == "seven" else 1
            if self.chain >= 2:
                self.features.add("seven_chain")
            self.phase = "seven"
            self.turn = self.next(seat)
        elif rank == "8":
            self.phase = "eight"
            self.turn = self.next(seat)
        elif rank == "9":
            self.features.add("nine")
            self.shower, self.taker = seat, self.next(seat)
            self.phase, self.turn, self.after = "show", seat, self.taker
        elif rank == "T":
            self.features.add("ten")
            self.shower, self.taker = self.next(seat), seat
            self.phase, self.turn, self.after = "show", self.shower, self.shower
        elif rank == "A":
            self.features.add("ace")
            self.phase, self.turn = "ace", seat
        else:
            self.phase, self.turn = "turn", self.next(seat)
            if rank in COUNTERPARTS:
                self.chance = seat

    def can_draw(self) -> bool:
        return bool(self.pile) or len(self.discard) > 1

    def draw(self, seat: int, count: int) -> None:
        drawn = []
        for _ in range(count):
            if not self.pile:
                if len(self.discard) < 2:
                    self.features.add("nothing_to_draw")
                    break
                self.pile, self.discard = self.discard[:-1], self.discard[-1:]
                self.rng.shuffle(self.pile)
                self.features.add("reshuffle")
            drawn.append(self.pile.pop())
        self.hands[seat].extend(drawn)
        self.events.append({"seat": seat, "draw": drawn})

    def finish(self) -> Game:
        named = self.suit if self.top[0] == "J" else None
        minus = []
        for hand in self.hands:
            points = sum(2 if card[0] == "J" else 1 for card in hand)
            if named is not None and any(card[1] == named for card in hand):
                points *= 2
            minus.append(points)
        if named is not None:
            self.features.add("jack_end")
        return Game(
            self.record, self.hands, self.pile, self.discard, self.turn, self.direction, minus, named is not None,
            self.features,
        )
