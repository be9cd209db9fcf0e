"""Mü engine, properties: random legal deals validate and score consistently; every single-point
corruption of a legal deal is rejected with the expected code and pointer (records.md)."""
from __future__ import annotations

import copy
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import validate
from games.rules.mu import CARD_COPIES, CARD_NAMES, trick_winner, trump_tables
from games.simulate.mu import random_record
from tests.engine.checks import rejection

SEEDS = st.integers(0, 2**32 - 1)
PLAYERS = st.integers(3, 6)
POINTS_IN_PLAY = {3: 36, 4: 60, 5: 60, 6: 60}
# seed 000's tables: team goal at level 1 and its step; bonus column shift per kind of Chef trump
GOAL_AT_ONE_AND_STEP = {3: (12, 2), 4: (30, 2), 5: (24, 3), 6: (20, 4)}


def seed_goal(players: int, level: int) -> int:
    first, step = GOAL_AT_ONE_AND_STEP[players]
    return first + step * (level - 1)


def seed_bonus(level: int, chef_trump: str) -> int:
    shift = 3 if chef_trump == "none" else 0 if chef_trump in "RYGBK" else 1 if chef_trump in "17" else 2
    return 10 * min(10, level + shift)


def deal_of(seed: int, players: int, wanted=lambda record, answer: True, **options):
    """The first random legal deal of this seed that has the wanted property."""
    rng = random.Random(seed)
    for _ in range(200):
        record, answer = random_record(rng, players, dealer=rng.randrange(players), with_answer=True, **options)
        if wanted(record, answer):
            return record, answer
    raise AssertionError("no such deal in 200 tries")


def is_played(record, answer) -> bool:
    return answer["outcome"] in ("won", "lost")


def cards_in_play(record) -> list[str]:
    colours = record.get("colours") or "RYGBK"
    return [name for name in CARD_NAMES if name[0] in colours]


def auction_states(record):
    """For each action: (index, seat, bid before, top bid before, cards still in hand before)."""
    players = record["players"]
    bids = [0] * players
    in_hand = [Counter(hand) for hand in record["hands"]]
    top = 0
    for index, action in enumerate(record["auction"]):
        seat = (record["dealer"] + index) % players
        yield index, seat, bids[seat], top, Counter(in_hand[seat])
        bids[seat] += len(action)
        in_hand[seat].subtract(action)
        top = max(top, bids[seat])


def plays(record, answer):
    """For each card of the tricks: (trick, position, seat, cards held before it, led suit, suit table)."""
    tables = trump_tables(record["chef_trump"], record.get("vice_trump"))
    players = record["players"]
    held = [Counter(hand) for hand in record["hands"]]
    leader = answer["chef"]
    for number, trick in enumerate(record["tricks"]):
        led = tables.suit[trick[0]]
        for position, name in enumerate(trick):
            seat = (leader + position) % players
            yield number, position, seat, +held[seat], (led if position else None), tables.suit
            held[seat][name] -= 1
        leader = (leader + trick_winner(trick, tables)) % players


# --- legal deals --------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, players=PLAYERS)
def test_random_legal_deals_validate_and_score_consistently(seed, players):
    record, expected = deal_of(seed, players, claimed=True)
    answer = validate(record)
    assert answer == expected
    scores, points = answer["scores"], answer["card_points"]
    if answer["outcome"] in ("eklat", "void"):
        assert points == [0] * players
        assert (answer["chef"], answer["vice"], answer["partner"]) == (None, None, None)
        return
    assert sum(points) == POINTS_IN_PLAY[players]
    chef, partner, level = answer["chef"], answer["partner"], answer["level"]
    team = points[chef] + (points[partner] if partner is not None else 0)
    extra = [score - point for score, point in zip(scores, points)]
    if team >= seed_goal(players, level):
        assert answer["outcome"] == "won"
        gain = seed_bonus(level, record["chef_trump"])
        assert extra == [gain if seat in (chef, partner) else 0 for seat in range(players)]
    else:
        assert answer["outcome"] == "lost"
        achieved = max([lvl for lvl in range(level) if lvl == 0 or seed_goal(players, lvl) <= team])
        short = level - achieved
        assert extra == [-10 * short if seat == chef else 0 if seat == partner else 5 * short for seat in range(players)]


def test_eklat_void_and_deals_without_vize_all_occur():
    kinds = Counter()
    for seed in range(400):
        players = 3 + seed % 4
        record, answer = deal_of(seed, players)
        validate(record)
        kinds[answer["outcome"]] += 1
        if is_played(record, answer) and players > 3 and answer["vice"] is None:
            kinds["no vize"] += 1
    assert all(kinds[kind] > 0 for kind in ("won", "lost", "eklat", "void", "no vize")), kinds
    # played deals are the rule, so the engine is measured on real play
    assert kinds["won"] + kinds["lost"] > 200


# --- single-point corruptions -------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, players=PLAYERS, pick=st.randoms(use_true_random=False))
def test_overbid_anywhere_in_the_auction(seed, players, pick):
    record, _ = deal_of(seed, players)
    index, seat, bid, top, in_hand = pick.choice(list(auction_states(record)))
    record["auction"][index] = [record["hands"][seat][0]] * (top + 2 - bid)
    assert rejection(record) == ("overbid", f"/auction/{index}")


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, players=PLAYERS, pick=st.randoms(use_true_random=False))
def test_auction_card_not_held(seed, players, pick):
    record, _ = deal_of(seed, players, lambda r, a: any(r["auction"]))
    index, seat, _, _, in_hand = pick.choice([state for state in auction_states(record) if record["auction"][state[0]]])
    action = record["auction"][index]
    position = pick.randrange(len(action))
    before = in_hand - Counter(action[:position])
    action[position] = pick.choice([name for name in cards_in_play(record) if not before[name]])
    assert rejection(record) == ("card_not_held", f"/auction/{index}/{position}")


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, players=PLAYERS, pick=st.randoms(use_true_random=False))
def test_trick_card_not_held(seed, players, pick):
    record, answer = deal_of(seed, players, is_played)
    number, position, seat, held, _, _ = pick.choice(list(plays(record, answer)))
    record["tricks"][number][position] = pick.choice([name for name in cards_in_play(record) if not held[name]])
    assert rejection(record) == ("card_not_held", f"/tricks/{number}/{position}")


def can_break_follow(play) -> bool:
    _, position, _, held, led, suit = play
    return position > 0 and any(suit[n] == led for n in held) and any(suit[n] != led for n in held)


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, players=PLAYERS, pick=st.randoms(use_true_random=False))
def test_illegal_follow(seed, players, pick):
    record, answer = deal_of(seed, players, lambda r, a: is_played(r, a) and any(map(can_break_follow, plays(r, a))))
    number, position, seat, held, led, suit = pick.choice([play for play in plays(record, answer) if can_break_follow(play)])
    record["tricks"][number][position] = pick.choice(sorted(name for name in held if suit[name] != led))
    assert rejection(record) == ("illegal_follow", f"/tricks/{number}/{position}")


def display_symbols(record, seat: int) -> set[str]:
    players, dealer = record["players"], record["dealer"]
    cards = [name for index, action in enumerate(record["auction"]) if (dealer + index) % players == seat for name in action]
    return {name[0] for name in cards} | {name[1] for name in cards}


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, players=PLAYERS, pick=st.randoms(use_true_random=False))
def test_trump_not_in_display(seed, players, pick):
    def open_symbols(record, answer):
        if not is_played(record, answer):
            return []
        taken = display_symbols(record, answer["chef"]) | {record.get("vice_trump")}
        return [symbol for symbol in "RYGBK0123456789" if symbol not in taken]

    record, answer = deal_of(seed, players, lambda r, a: bool(open_symbols(r, a)))
    record["chef_trump"] = pick.choice(open_symbols(record, answer))
    assert rejection(record) == ("trump_not_in_display", "/chef_trump")


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, players=st.integers(4, 6))
def test_partner_may_not_be_the_vize(seed, players):
    record, answer = deal_of(seed, players, lambda r, a: is_played(r, a) and a["vice"] is not None)
    record["partner"] = answer["vice"]
    assert rejection(record) == ("partner_is_vice", "/partner")


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, players=PLAYERS, extra=st.booleans())
def test_a_missing_or_extra_trick(seed, players, extra):
    record, _ = deal_of(seed, players, is_played)
    if extra:
        record["tricks"].append(list(record["tricks"][0]))
    else:
        record["tricks"].pop()
    assert rejection(record) == ("bad_length", "/tricks")


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, players=PLAYERS, pick=st.randoms(use_true_random=False))
def test_wrong_hand_size(seed, players, pick):
    record, _ = deal_of(seed, players)
    giver, taker = pick.sample(range(players), 2)
    record["hands"][taker].append(record["hands"][giver].pop(pick.randrange(len(record["hands"][giver]))))
    assert rejection(record) == ("bad_length", f"/hands/{min(giver, taker)}")


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, players=PLAYERS, pick=st.randoms(use_true_random=False))
def test_a_card_too_many(seed, players, pick):
    record, _ = deal_of(seed, players)
    seat = pick.randrange(players)
    position = pick.randrange(len(record["hands"][seat]))
    hand = record["hands"][seat]
    # replace a card by a copy of another card: the copy or the original, whichever is read later,
    # is the first one too many (records.md)
    others = [(s, p) for s in range(players) for p, name in enumerate(record["hands"][s]) if name != hand[position]]
    source_seat, source_position = pick.choice(others)
    name = record["hands"][source_seat][source_position]
    hand[position] = name
    occurrences = [(s, p) for s in range(players) for p, n in enumerate(record["hands"][s]) if n == name]
    first_too_many = occurrences[CARD_COPIES[name]]
    assert rejection(record) == ("duplicate_card", "/hands/{}/{}".format(*first_too_many))


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, players=PLAYERS, pick=st.randoms(use_true_random=False))
def test_claimed_score_off_by_one(seed, players, pick):
    record, answer = deal_of(seed, players, claimed=True)
    assert validate(record) == answer
    record["claimed"]["scores"][pick.randrange(players)] += pick.choice([-1, 1])
    assert rejection(record) == ("claimed_mismatch", "/claimed/scores")


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, players=PLAYERS)
def test_the_auction_cut_short_or_run_on(seed, players):
    record, _ = deal_of(seed, players)
    longer = copy.deepcopy(record)
    longer["auction"].append([])
    assert rejection(longer) == ("after_end", f"/auction/{len(record['auction'])}")
    record["auction"].pop()
    assert rejection(record) == ("not_ended", "/auction")


def summary_of(record, answer) -> dict:
    """The summary record of a played full deal: display sizes, Chef, his trump, card points."""
    players, dealer = record["players"], record["dealer"]
    bids = [0] * players
    for index, action in enumerate(record["auction"]):
        bids[(dealer + index) % players] += len(action)
    summary = {"bids": bids, "chef": answer["chef"], "chef_trump": record["chef_trump"],
               "card_points": answer["card_points"]}
    return {"game": "mu", "players": players, "dealer": dealer, "colours": record["colours"], "summary": summary}


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, pick=st.randoms(use_true_random=False))
def test_a_trump_colour_not_in_play_is_one_fault_with_one_code_in_both_bodies(seed, pick):
    """records.md, Mü summary: a trump colour outside ``colours`` is refused "as in a full record"."""
    record, answer = deal_of(seed, 3, is_played)
    summary = summary_of(record, answer)
    assert validate(summary)["scores"] == answer["scores"]  # the summary is the same deal
    outside = pick.choice([colour for colour in "RYGBK" if colour not in record["colours"]])
    record["chef_trump"] = summary["summary"]["chef_trump"] = outside
    assert rejection(record) == ("trump_not_in_display", "/chef_trump")
    assert rejection(summary) == ("trump_not_in_display", "/summary/chef_trump")
