"""Random legal rounds of Mit List und Tücke (``../shared/rules/list-und-tuecke.md``).

Written apart from the engine, on card strings, so that the property tests compare two
implementations. Each round draws a playing style (how often a player follows the led colour, how
often he opens a new colour) so that single-colour tricks and rounds that end early both occur.
"""
from __future__ import annotations

import random

COLOURS = "BGRY"
# highest number per colour (rules: Cards)
COLOUR_SIZES = {
    4: {"B": 14, "G": 14, "R": 14, "Y": 14},
    5: {"B": 17, "G": 17, "R": 18, "Y": 18},
    6: {"B": 21, "G": 21, "R": 21, "Y": 21},
}
FIRST_SHARE = {4: 2, 5: 3, 6: 3}


def deck(players: int) -> list[str]:
    return [f"{colour}{number}" for colour, size in COLOUR_SIZES[players].items() for number in range(1, size + 1)]


def number(card: str) -> int:
    return int(card[1:])


def score(stacks: dict) -> int:
    sizes = sorted((size for colour, size in stacks.items() if colour != "discarded" and size), reverse=True)
    if len(sizes) < 2:
        return 0
    rest = sum(sizes[2:]) + stacks["discarded"]
    return sizes[0] * sizes[1] // rest if rest else sizes[0] * sizes[1]


class _Collector:
    """One player's open stacks and discard pile."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}
        self.kept: tuple[str, ...] | None = None
        self.discarded = 0

    def take(self, cards: list[str]) -> bool:
        for card in cards:
            if self.kept is None or card[0] in self.kept:
                self.open[card[0]] = self.open.get(card[0], 0) + 1
            else:
                self.discarded += 1
        return self.kept is None and len(self.open) == 4

    def keep(self, colours: list[str]) -> None:
        self.kept = tuple(colours)
        for colour in list(self.open):
            if colour not in colours:
                self.discarded += self.open.pop(colour)

    def stacks(self) -> dict:
        shape = {colour: self.open[colour] for colour in COLOURS if self.open.get(colour)}
        shape["discarded"] = self.discarded
        return shape


def _choose_card(rng: random.Random, hand: list[str], trick: list[str], follow: float, spread: float) -> str | None:
    colours = {card[0] for card in trick}
    legal = [card for card in hand if len(colours) < 3 or card[0] in colours]
    if not legal:
        return None
    if trick and rng.random() < follow:
        led = [card for card in legal if card[0] == trick[0][0]]
        if led:
            return rng.choice(led)
    if rng.random() < spread:
        new = [card for card in legal if card[0] not in colours]
        if new:
            return rng.choice(new)
    return rng.choice(legal)


def random_record(rng: random.Random, players: int, dealer: int = 0, *, claimed: bool = False, **options) -> dict:
    """A full legal round. Options: ``follow`` and ``spread`` (probabilities of the playing style,
    drawn at random when absent); ``claimed=True`` adds this module's own scores and stacks."""
    if players not in COLOUR_SIZES:
        raise ValueError(f"Mit List und Tücke is played by 4 to 6 players, not {players}")
    follow = options.get("follow", rng.choice((0.0, 0.3, 0.7)))
    spread = options.get("spread", rng.choice((0.0, 0.5, 0.9)))
    cards = deck(players)
    rng.shuffle(cards)
    hands = [cards[seat * 14:(seat + 1) * 14] for seat in range(players)]
    live = [list(hand) for hand in hands]
    collectors = [_Collector() for _ in range(players)]
    leader = (dealer + 1) % players
    tricks = []
    for _ in range(14):
        trick: list[str] = []
        for offset in range(players):
            seat = (leader + offset) % players
            card = _choose_card(rng, live[seat], trick, follow, spread)
            if card is None:  # he holds only the fourth colour: the round ends at once
                break
            live[seat].remove(card)
            trick.append(card)
        if len(trick) < players:
            tricks.append({"cards": trick})
            break
        led = trick[0][0]
        first = max((number(card), offset) for offset, card in enumerate(trick) if card[0] == led)[1]
        others = [(number(card), offset) for offset, card in enumerate(trick) if card[0] != led]
        second = min(others)[1] if others else None
        pick = rng.sample(trick, FIRST_SHARE[players])
        entry: dict = {"cards": trick, "pick": pick}
        keep = {}
        winners = [((leader + first) % players, pick)]
        if second is not None:
            winners.append(((leader + second) % players, [card for card in trick if card not in pick]))
        for seat, share in winners:
            if collectors[seat].take(share):
                colours = rng.sample(COLOURS, 2)
                collectors[seat].keep(colours)
                keep[str(seat)] = colours
        if keep:
            entry["keep"] = keep
        tricks.append(entry)
        leader = winners[-1][0]
    record = {"game": "lut", "players": players, "dealer": dealer, "hands": hands, "tricks": tricks}
    if claimed:
        stacks = [collector.stacks() for collector in collectors]
        record["claimed"] = {"scores": [score(shape) for shape in stacks], "stacks": stacks}
    return record


def random_game(rng: random.Random, players: int, first_dealer: int = 0, **options) -> list[dict]:
    """A game: as many rounds as players, the dealer moving one seat clockwise (rules: A game)."""
    return [random_record(rng, players, (first_dealer + i) % players, **options) for i in range(players)]
