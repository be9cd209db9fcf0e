"""Mit List und Tücke: random legal rounds validate; single corruptions are rejected at the right place.

The simulator (games/simulate/lut.py) is written apart from the engine; with ``claimed=True`` it
writes its own scores and stacks, so every accepted round is also a comparison of the two.
"""
from __future__ import annotations

import copy
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import validate
from games.simulate.lut import FIRST_SHARE, deck, random_record
from tests.engine.checks import rejected

SEEDS = st.integers(0, 2**32)
PLAYERS = st.sampled_from([4, 5, 6])


def full_tricks(record: dict) -> list[int]:
    return [t for t, trick in enumerate(record["tricks"]) if len(trick["cards"]) == record["players"]]


def single_colour(cards: list[str]) -> bool:
    return all(card[0] == cards[0][0] for card in cards)


def equal_lowest(cards: list[str]) -> bool:
    others = [int(card[1:]) for card in cards if card[0] != cards[0][0]]
    return bool(others) and others.count(min(others)) > 1


def hand_before(record: dict, t: int, i: int, seat: int) -> set[str]:
    """Seat's hand just before the i-th card of trick t is played (every card has one owner)."""
    played = {card for trick in record["tricks"][:t] for card in trick["cards"]}
    played.update(record["tricks"][t]["cards"][:i])
    return set(record["hands"][seat]) - played


def owner(record: dict, card: str) -> int:
    return next(seat for seat, hand in enumerate(record["hands"]) if card in hand)


def find(seed: int, players: int, candidates):
    """The first generated round (from ``seed`` on) with a candidate corruption, and a random one."""
    rng = random.Random(seed)
    for _ in range(100):
        record = random_record(rng, players, dealer=rng.randrange(players))
        options = list(candidates(record))
        if options:
            return record, rng.choice(options), rng
    raise AssertionError("no candidate found")


# --- legal rounds -----------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(SEEDS, PLAYERS)
def test_random_rounds_validate_and_conserve_cards(seed, players):
    rng = random.Random(seed)
    record = random_record(rng, players, dealer=rng.randrange(players), claimed=True)
    answer = validate(record)  # also checks the simulator's own scores and stacks
    collected = sum(sum(stacks.values()) for stacks in answer["stacks"])
    tricks = record["tricks"]
    played = sum(len(trick["cards"]) for trick in tricks)
    short = len(tricks[-1]["cards"]) if len(tricks[-1]["cards"]) < players else 0
    single = sum(players - FIRST_SHARE[players] for t in full_tricks(record) if single_colour(tricks[t]["cards"]))
    left_the_game = (14 * players - played) + short + single
    assert collected + left_the_game == 14 * players
    assert len(tricks) == 14 or short
    # the answer's stacks make a consistent summary that scores the same
    summary = {"game": "lut", "players": players, "dealer": record["dealer"], "summary": {"stacks": answer["stacks"]}}
    assert validate(summary) == answer


def test_a_batch_of_rounds_shows_every_special_case():
    seen = {"early end": 0, "single colour": 0, "equal lowest": 0, "keep": 0, "two keeps": 0, "14 tricks": 0}
    for seed in range(300):
        players = 4 + seed % 3
        record = random_record(random.Random(seed), players, dealer=seed % players)
        validate(record)
        tricks = record["tricks"]
        seen["early end"] += len(tricks[-1]["cards"]) < players
        seen["14 tricks"] += len(tricks) == 14 and len(tricks[-1]["cards"]) == players
        for t in full_tricks(record):
            cards = tricks[t]["cards"]
            seen["single colour"] += single_colour(cards)
            seen["equal lowest"] += equal_lowest(cards)
            seen["keep"] += bool(tricks[t].get("keep"))
            seen["two keeps"] += len(tricks[t].get("keep", {})) == 2
    assert all(seen.values()), seen


# --- single corruptions -----------------------------------------------------------------------------


def fourth_colour_options(record):
    players = record["players"]
    for t in full_tricks(record):
        cards = record["tricks"][t]["cards"]
        for i in range(3, players):
            colours = {card[0] for card in cards[:i]}
            if len(colours) < 3:
                continue
            seat = owner(record, cards[i])
            for card in sorted(hand_before(record, t, i, seat)):
                if card[0] not in colours:
                    yield t, i, card


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS)
def test_fourth_colour_in_a_full_trick_is_rejected(seed, players):
    record, (t, i, card), _ = find(seed, players, fourth_colour_options)
    record["tricks"][t]["cards"][i] = card
    error = rejected(record)
    assert (error.code, error.path) == ("fourth_colour", f"/tricks/{t}/cards/{i}")


def not_held_options(record):
    for t, trick in enumerate(record["tricks"]):
        for i, card in enumerate(trick["cards"]):
            seat = owner(record, card)
            mine = hand_before(record, t, i, seat)
            for other in range(record["players"]):
                if other != seat:
                    for held in sorted(hand_before(record, t, i, other) - mine):
                        yield t, i, held


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS)
def test_card_not_held_is_rejected(seed, players):
    record, (t, i, card), _ = find(seed, players, not_held_options)
    record["tricks"][t]["cards"][i] = card
    error = rejected(record)
    assert (error.code, error.path) == ("card_not_held", f"/tricks/{t}/cards/{i}")


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS)
def test_pick_of_the_wrong_size_is_rejected(seed, players):
    record, t, rng = find(seed, players, full_tricks)
    trick = record["tricks"][t]
    if rng.random() < 0.5:
        trick["pick"].pop(rng.randrange(len(trick["pick"])))
    else:
        trick["pick"].append(rng.choice([card for card in trick["cards"] if card not in trick["pick"]]))
    error = rejected(record)
    assert (error.code, error.path) == ("bad_pick", f"/tricks/{t}/pick")


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS)
def test_pick_of_a_card_not_in_the_trick_is_rejected(seed, players):
    record, t, rng = find(seed, players, full_tricks)
    trick = record["tricks"][t]
    j = rng.randrange(len(trick["pick"]))
    trick["pick"][j] = rng.choice([card for card in deck(players) if card not in trick["cards"]])
    error = rejected(record)
    assert (error.code, error.path) == ("pick_not_in_trick", f"/tricks/{t}/pick/{j}")


def keep_options(record):
    for t, trick in enumerate(record["tricks"]):
        for seat in trick.get("keep", {}):
            yield t, seat


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS)
def test_missing_keep_is_rejected(seed, players):
    record, (t, seat), _ = find(seed, players, keep_options)
    del record["tricks"][t]["keep"][seat]
    error = rejected(record)
    assert (error.code, error.path) == ("keep_missing", f"/tricks/{t}/keep")


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS)
def test_extra_keep_is_rejected(seed, players):
    record, t, rng = find(seed, players, full_tricks)
    trick = record["tricks"][t]
    seat = rng.choice([s for s in range(players) if str(s) not in trick.get("keep", {})])
    trick.setdefault("keep", {})[str(seat)] = rng.sample("BGRY", 2)
    error = rejected(record)
    assert (error.code, error.path) == ("keep_unexpected", f"/tricks/{t}/keep")


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS)
def test_early_stop_without_reason_is_rejected(seed, players):
    record, t, rng = find(seed, players, full_tricks)
    record["tricks"][t] = {"cards": record["tricks"][t]["cards"][:rng.randrange(players)]}
    del record["tricks"][t + 1:]
    error = rejected(record)
    assert (error.code, error.path) == ("short_trick", f"/tricks/{t}/cards")


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS)
def test_record_cut_after_a_full_trick_is_rejected(seed, players):
    record, t, _ = find(seed, players, full_tricks)
    del record["tricks"][t + 1:]
    if t == 13:
        validate(record)
        return
    error = rejected(record)
    assert (error.code, error.path) == ("not_ended", "/tricks")


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS)
def test_trick_after_the_end_or_with_too_many_cards_is_rejected(seed, players):
    record, t, rng = find(seed, players, full_tricks)
    grown = copy.deepcopy(record)
    grown["tricks"][t]["cards"].append(rng.choice(deck(players)))
    error = rejected(grown)
    assert (error.code, error.path) == ("bad_length", f"/tricks/{t}/cards")
    record["tricks"].append({"cards": [rng.choice(deck(players))]})
    error = rejected(record)
    assert (error.code, error.path) == ("after_end", f"/tricks/{len(record['tricks']) - 1}")


@settings(max_examples=100, deadline=None)
@given(SEEDS, PLAYERS, st.sampled_from([-1, 1]))
def test_claimed_score_off_by_one_is_rejected(seed, players, delta):
    rng = random.Random(seed)
    record = random_record(rng, players)
    scores = validate(record)["scores"]
    seat = rng.randrange(players)
    scores[seat] += delta
    record["claimed"] = {"scores": scores}
    error = rejected(record)
    assert (error.code, error.path) == ("claimed_mismatch", "/claimed/scores")
