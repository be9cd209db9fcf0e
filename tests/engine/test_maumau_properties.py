"""Dynamisches Maumau: random legal games validate, and single corruptions are rejected.

The simulation (games/simulate/maumau.py) plays with a real shuffled deck and its own reading of
the rules; the engine must accept its games, agree on the result and on where every card ends, and
reject each corruption below with the code and pointer of ../shared/records.md.
"""
from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import RecordError, validate, validate_series
from games.rules.maumau import replay
from games.simulate.maumau import is_legal, play_game, random_series

DECK = [rank + suit for suit in "CSHD" for rank in "789TJQKA"]
SEEDS = st.integers(0, 2**32)
PLAYERS = st.integers(2, 6)


def simulate(seed: int, players: int):
    rng = random.Random(seed)
    return play_game(rng, players, dealer=rng.randrange(players), direction=rng.choice((1, -1)))


@given(SEEDS, PLAYERS)
@settings(max_examples=300, deadline=None)
def test_random_games_validate_and_conserve_the_cards(seed, players):
    game = simulate(seed, players)
    answer = validate(game.record)
    assert answer["minus"] == game.minus and answer["scores"] == [-points for points in game.minus]
    assert answer["next_dealer"] == game.next_dealer and answer["direction"] == game.direction
    assert answer["ended_by_jack"] == game.ended_by_jack
    assert 0 in answer["minus"]
    table = replay(game.record)
    everything = Counter(table.pile) + Counter(table.discard) + Counter([table.top])
    for hand in table.hands:
        everything += Counter(hand)
    assert everything == Counter(DECK * 2)  # 64 cards: hands, draw pile, discard pile
    assert [Counter(hand) for hand in table.hands] == [Counter(hand) for hand in game.hands]
    assert Counter(table.pile) == Counter(game.pile)
    assert Counter(table.discard) + Counter([table.top]) == Counter(game.discard)
    assert table.top == game.discard[-1]


@given(SEEDS, st.integers(2, 6))
@settings(max_examples=15, deadline=None)
def test_random_series_settle_to_zero(seed, players):
    series = random_series(random.Random(seed), players)
    answer = validate_series(series)
    assert sum(answer["nets"]) == 0
    realised = [0] * players
    for transfer in answer["transfers"]:
        realised[transfer["from"]] -= transfer["cents"]
        realised[transfer["to"]] += transfer["cents"]
    assert realised == answer["nets"]


def test_every_feature_occurs_over_a_fixed_batch():
    features = Counter()
    reshuffles = jack_endings = weddings = 0
    for seed in range(150):
        players = 2 + seed % 5
        game = simulate(seed, players)
        features.update(game.features)
        events = game.record["events"]
        # derived from the record itself, not from the simulation's own notes:
        drawn = sum(len(event.get("draw") or []) for event in events)
        reshuffles += drawn > 64 - 8 * players - 1
        jack_endings += validate(game.record)["ended_by_jack"]
        weddings += any(event.get("wedding") for event in events)
    assert reshuffles and jack_endings and weddings
    for feature in [
        "seven_chain", "eight_pass", "eight_skip", "reversal", "reversal_7", "reversal_8", "wedding",
        "wedding_out_of_turn", "wedding_chain", "ace", "ace_draw", "nine", "ten", "top_up", "reshuffle",
        "jack_end", "upcard_7", "upcard_8", "upcard_9", "upcard_T", "upcard_J", "upcard_Q", "upcard_K", "upcard_A",
    ]:
        assert features[feature] >= 2, feature


# --- corruptions -------------------------------------------------------------------------------


class Game:
    """A simulated record with the engine's state before each event (a replay of the prefix)."""

    def __init__(self, seed: int, players: int) -> None:
        self.rng = random.Random(seed ^ 0x5EED)
        self.simulated = simulate(seed, players)
        self.record = self.simulated.record
        self.events = self.record["events"]
        self.players = players
        self.states = []
        for k in range(len(self.events)):
            prefix = dict(self.record, events=self.events[:k])
            self.states.append(replay(prefix, partial=True))

    def changed(self, k: int, event: dict | None) -> dict:
        record = copy.deepcopy(self.record)
        if event is None:
            del record["events"][k]
        else:
            record["events"][k] = event
        return record

    def pick(self, candidates):
        candidates = list(candidates)
        return self.rng.choice(candidates) if candidates else None

    def normal_plays(self, pending=(None, "wedding")):
        """Plays by the player on turn, no 7, 8, 9, T or A effect pending (a wedding chance may be)."""
        for k, event in enumerate(self.events):
            state = self.states[k]
            if "play" in event and not event.get("wedding") and state.pending in pending and event["seat"] == state.on_turn:
                yield k, event, state


def illegal_serve(game: Game):
    options = [
        (k, event, card)
        for k, event, state in game.normal_plays()
        for card in state.hands[event["seat"]]
        if card[0] != "J" and not is_legal(card, state.top, state.suit)
    ]
    choice = game.pick(options)
    if choice:
        k, event, card = choice
        return game.changed(k, {"seat": event["seat"], "play": card}), "illegal_play", f"/events/{k}/play"


def serving_jack(game: Game):
    options = [
        (k, event, card)
        for k, event, state in game.normal_plays()
        for card in state.hands[event["seat"]]
        if card[0] == "J" and not is_legal(card, state.top, state.suit)
    ]
    choice = game.pick(options)
    if choice:
        k, event, card = choice
        return game.changed(k, {"seat": event["seat"], "play": card, "wish": "C"}), "illegal_play", f"/events/{k}/play"


def forbidden_wish(game: Game):
    choice = game.pick((k, event, state) for k, event, state in game.normal_plays((None, "wedding", "ace")) if "wish" in event)
    if choice:
        k, event, state = choice
        # the jack's own suit, or (not on its twin) the suit of the card below
        wish = event["play"][1] if event["play"] == state.top or game.rng.random() < 0.5 else state.suit
        return game.changed(k, dict(event, wish=wish)), "forbidden_wish", f"/events/{k}/wish"


def wrong_seat(game: Game):
    choice = game.pick(
        (k, event) for k, event in enumerate(game.events)
        if game.states[k].pending is None and not event.get("wedding")
    )
    if choice:
        k, event = choice
        seat = (event["seat"] + game.rng.randrange(1, game.players)) % game.players
        return game.changed(k, dict(event, seat=seat)), "wrong_seat", f"/events/{k}/seat"


def card_not_in_pile(game: Game):
    options = []
    for k, event in enumerate(game.events):
        if event.get("draw"):
            state = game.states[k]
            available = Counter(state.pile or state.discard)  # an empty pile is refilled first
            options += [(k, event, card) for card in DECK if not available[card]]
    choice = game.pick(options)
    if choice:
        k, event, card = choice
        drawn = [card] + event["draw"][1:]
        return game.changed(k, dict(event, draw=drawn)), "not_in_pile", f"/events/{k}/draw/0"


def seven_draw_count(game: Game):
    choice = game.pick(
        (k, event) for k, event in enumerate(game.events) if "draw" in event and game.states[k].pending == "seven"
    )
    if choice:
        k, event = choice
        drawn = event["draw"][:-1] if event["draw"] and game.rng.random() < 0.5 else event["draw"] + ["7C"]
        return game.changed(k, dict(event, draw=drawn)), "wrong_draw_count", f"/events/{k}/draw"


def draw_instead_of_following_an_ace(game: Game):
    choice = game.pick(
        (k, event) for k, event in enumerate(game.events) if "play" in event and game.states[k].pending == "ace"
    )
    if choice:
        k, event = choice
        return game.changed(k, {"seat": event["seat"], "draw": ["7C"]}), "must_follow_ace", f"/events/{k}"


def missing_ace_follow_up(game: Game):
    options = []
    for k, event in enumerate(game.events):
        if "play" in event and game.states[k].pending == "ace":
            after = game.events[k + 1] if k + 1 < len(game.events) else None
            if after is None:
                options.append((k, "not_ended", "/events"))
            elif after.get("wedding"):
                options.append((k, "no_wedding_chance", f"/events/{k}/wedding"))
            elif after["seat"] != event["seat"]:
                options.append((k, "wrong_seat", f"/events/{k}/seat"))
    choice = game.pick(options)
    if choice:
        k, code, path = choice
        return game.changed(k, None), code, path


def wedding_without_chance(game: Game):
    choice = game.pick((k, event) for k, event, state in game.normal_plays((None,)))
    if choice:
        k, event = choice
        return game.changed(k, dict(event, wedding=True)), "no_wedding_chance", f"/events/{k}/wedding"


def wedding_with_the_wrong_card(game: Game):
    counterpart = {"Q": "K", "K": "Q"}
    choice = game.pick(
        (k, event) for k, event, state in game.normal_plays(("wedding",))
        if event["play"] != counterpart[state.top[0]] + state.top[1]
    )
    if choice:
        k, event = choice
        event = {key: value for key, value in event.items() if key != "wish"}
        return game.changed(k, dict(event, wedding=True)), "not_counterpart", f"/events/{k}/play"


def event_after_the_end(game: Game):
    record = copy.deepcopy(game.record)
    record["events"].append({"seat": game.simulated.next_dealer, "draw": []})
    return record, "after_end", f"/events/{len(game.events)}"


def truncated(game: Game):
    # A record may not stop while an effect is pending or every hand holds cards. (Dropping an
    # answered wedding or a passed-on 8 after a hand emptied leaves a game that did end.)
    choice = game.pick(
        k for k, state in enumerate(game.states)
        if all(state.hands) or state.pending not in (None, "eight", "wedding")
    )
    if choice is not None:
        record = copy.deepcopy(game.record)
        del record["events"][choice:]
        return record, "not_ended", "/events"


CORRUPTIONS = [
    illegal_serve, serving_jack, forbidden_wish, wrong_seat, card_not_in_pile, seven_draw_count,
    draw_instead_of_following_an_ace, missing_ace_follow_up, wedding_without_chance, wedding_with_the_wrong_card,
    event_after_the_end, truncated,
]


def check_corruptions(game: Game) -> set[str]:
    applied = set()
    for corruption in CORRUPTIONS:
        result = corruption(game)
        if result is None:
            continue
        record, code, path = result
        with pytest.raises(RecordError) as info:
            validate(record)
        assert (info.value.code, info.value.path) == (code, path), (corruption.__name__, info.value.message)
        applied.add(corruption.__name__)
    return applied


@given(SEEDS, PLAYERS)
@settings(max_examples=100, deadline=None)
def test_single_corruptions_are_rejected(seed, players):
    check_corruptions(Game(seed, players))


def test_every_corruption_is_exercised_over_a_fixed_batch():
    applied = set()
    for seed in range(40):
        applied |= check_corruptions(Game(seed, 2 + seed % 5))
    assert applied == {corruption.__name__ for corruption in CORRUPTIONS}
