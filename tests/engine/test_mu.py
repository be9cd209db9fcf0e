"""Mü engine: the worked examples of the rules (seeds 000, 003, 004 and records.md), the tables,
hand-written deals, summary records, and the pointer of every decided case of records.md.

Seats of the seed examples: Anna 0 (the dealer), Beate 1, Conny 2, Dagmar 3, Emma 4.
"""
from __future__ import annotations

import copy
import random

import pytest

from games.rules import RecordError, validate
from games.rules.mu import CARD_COPIES, CARD_NAMES, CARD_POINTS, team_goal, trick_winner, trump_tables
from games.simulate.mu import random_record
from tests.engine.checks import rejection

COLOURS = "RYGBK"


def deal(players: int, fixed: dict[int, list[str]], seed: int = 0, colours: str = COLOURS) -> list[list[str]]:
    """Hands holding the given cards, the rest of the deck dealt at random."""
    size = {3: 12, 4: 15, 5: 12, 6: 10}[players]
    deck = [name for name in CARD_NAMES if name[0] in colours for _ in range(CARD_COPIES[name])]
    for cards in fixed.values():
        for name in cards:
            deck.remove(name)
    random.Random(seed).shuffle(deck)
    hands = []
    for seat in range(players):
        hand = list(fixed.get(seat, []))
        while len(hand) < size:
            hand.append(deck.pop())
        hands.append(hand)
    return hands


def played(players: int, hands, auction, seed: int = 0, **choices) -> dict:
    """A full record with these hands and auction; the rest legal and random."""
    return random_record(random.Random(seed), players, dealer=0, hands=hands, auction=auction, **choices)


def summary_record(players: int, **summary) -> dict:
    return {"game": "mu", "players": players, "dealer": 0, "summary": summary}


# --- cards and tables ---------------------------------------------------------------------------

def test_deck_has_sixty_cards_worth_twelve_points_per_colour():
    deck = [name for name in CARD_NAMES for _ in range(CARD_COPIES[name])]
    assert len(deck) == 60
    for colour in COLOURS:
        assert sum(CARD_POINTS[name] for name in deck if name[0] == colour) == 12


# seed 000, "Johtajan joukkueen tarvitsema pistemäärä": goal per level 1.., then points in play
SEED_GOALS = {
    3: ([12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34], 36),
    4: ([30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58], 60),
    5: ([24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57], 60),
    6: ([20, 24, 28, 32, 36, 40, 44, 48, 52, 56], 60),
}

# seed 000/004 bonus table: the level in column c (bonus 10 c) per kind of Chef trump, the last
# column meaning "this level and above": colour 1..10, 1/7 1..9, other digits 1..8, none 1..7.
SEED_BONUS_SHIFT = {"colour": 0, "one_or_seven": 1, "other_digit": 2, "none": 3}


def seed_bonus(level: int, kind: str) -> int:
    column = min(10, level + SEED_BONUS_SHIFT[kind])
    return 10 * column


def trump_kind(symbol: str) -> str:
    if symbol == "none":
        return "none"
    if symbol in COLOURS:
        return "colour"
    return "one_or_seven" if symbol in "17" else "other_digit"


def won_summary(players: int, level: int, chef_trump: str, team_points: int) -> dict:
    """Seat 0 Chef at ``level``, no Vize, seat 1 (if any) partner with no points."""
    bids = [level] + [0] * (players - 1)
    in_play = SEED_GOALS[players][1]
    card_points = [team_points, 0, in_play - team_points] + [0] * (players - 3)
    summary = {"bids": bids, "chef": 0, "chef_trump": chef_trump, "card_points": card_points}
    if players > 3:
        summary["partner"] = 1
    return summary_record(players, **summary)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_team_goal_table_of_the_seed(players):
    goals, _ = SEED_GOALS[players]
    assert [team_goal(players, level) for level in range(1, len(goals) + 1)] == goals


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_team_reaching_its_goal_exactly_wins_and_one_point_short_misses_one_level(players):
    goals, _ = SEED_GOALS[players]
    for level, goal in enumerate(goals, start=1):
        won = validate(won_summary(players, level, "R", goal))
        assert won["outcome"] == "won"
        assert won["scores"][0] == goal + seed_bonus(level, "colour")
        lost = validate(won_summary(players, level, "R", goal - 1))
        assert lost["outcome"] == "lost"
        assert lost["scores"][0] == goal - 1 - 10  # achieved level - 1, one level short
        assert lost["scores"][2] == lost["card_points"][2] + 5


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_bonus_table_of_the_seed_at_every_level_and_trump(players):
    goals, in_play = SEED_GOALS[players]
    for level in range(1, len(goals) + 1):
        for symbol in list(COLOURS) + list("0123456789") + ["none"]:
            answer = validate(won_summary(players, level, symbol, in_play))
            expected = seed_bonus(level, trump_kind(symbol))
            assert answer["scores"][0] == in_play + expected, (level, symbol)
            if players > 3:
                assert answer["scores"][1] == expected  # the partner gets the same bonus


# --- scoring examples of the seeds --------------------------------------------------------------

RECORDS_MD_SUMMARY = {
    "bids": [3, 1, 3, 4, 1], "chef": 3, "vice": 2, "provocateur": None,
    "vice_trump": "G", "chef_trump": "1", "partner": 0, "card_points": [10, 12, 9, 19, 10],
}


def test_records_md_summary_example_is_a_lost_level_four_game():
    answer = validate(summary_record(5, **RECORDS_MD_SUMMARY))
    assert answer == {
        "scores": [10, 22, 19, -1, 20], "card_points": [10, 12, 9, 19, 10], "chef": 3, "vice": 2,
        "partner": 0, "level": 4, "outcome": "lost",
    }


def test_seed_000_failed_game_costs_the_chef_ten_per_level_short():
    # Dagmar (Chef, level 4, 5 players: goal 33) makes 20, her partner 9: 29 reaches level 2
    summary = dict(RECORDS_MD_SUMMARY, card_points=[9, 10, 11, 20, 10])
    answer = validate(summary_record(5, **summary))
    bonus_or_penalty = [score - points for score, points in zip(answer["scores"], answer["card_points"])]
    assert bonus_or_penalty == [0, 10, 10, -20, 10]


def test_seed_000_team_below_level_one_misses_all_four_levels():
    summary = dict(RECORDS_MD_SUMMARY, card_points=[8, 12, 20, 10, 10])  # team 18 < 24
    answer = validate(summary_record(5, **summary))
    assert [s - p for s, p in zip(answer["scores"], answer["card_points"])] == [0, 20, 20, -40, 20]


@pytest.mark.parametrize("chef_trump, bonus", [("B", 40), ("1", 50), ("7", 50), ("8", 60), ("none", 70)])
def test_seed_004_won_level_four_game_with_34_points(chef_trump, bonus):
    summary = dict(RECORDS_MD_SUMMARY, chef_trump=chef_trump, card_points=[14, 6, 10, 20, 10])
    answer = validate(summary_record(5, **summary))
    assert answer["outcome"] == "won"
    assert answer["scores"] == [14 + bonus, 6, 10, 20 + bonus, 10]


def test_seed_003_won_with_the_sevens_at_level_two_gives_thirty_each():
    answer = validate(won_summary(4, 2, "7", 32))
    assert answer["scores"][:2] == [32 + 30, 30]


def test_seed_003_lost_level_five_with_35_points_costs_twenty():
    # 4 players, level 5 needs 38; 35 reaches level 3 (34): two levels short
    summary = {"bids": [0, 5, 1, 0], "chef": 1, "vice": 2, "vice_trump": "Y", "chef_trump": "R",
               "partner": 3, "card_points": [10, 20, 15, 15]}
    answer = validate(summary_record(4, **summary))
    assert answer["outcome"] == "lost"
    assert answer["scores"] == [20, 0, 25, 15]


# --- the auction, the Vize, Eklat and void deals ------------------------------------------------

RECORDS_MD_AUCTION = [["R6"], [], ["Y8"], ["G1", "B1"], [], [], [], []]
RECORDS_MD_HANDS = deal(4, {0: ["R6"], 2: ["Y8"], 3: ["G1", "B1"]}, seed=1)


@pytest.mark.parametrize("vice_trump", ["Y", "8"])
@pytest.mark.parametrize("chef_trump", ["G", "B", "1", "none"])
def test_records_md_auction_example(vice_trump, chef_trump):
    record = played(4, RECORDS_MD_HANDS, RECORDS_MD_AUCTION, vice_trump=vice_trump, chef_trump=chef_trump, partner=0)
    answer = validate(record)
    assert (answer["chef"], answer["level"], answer["vice"]) == (3, 2, 2)


@pytest.mark.parametrize("member, value", [("vice_trump", "R"), ("vice_trump", "6"), ("chef_trump", "Y"), ("chef_trump", "8")])
def test_records_md_auction_example_trumps_come_from_the_display(member, value):
    record = played(4, RECORDS_MD_HANDS, RECORDS_MD_AUCTION, vice_trump="Y", chef_trump="G", partner=0)
    record[member] = value
    assert rejection(record) == ("trump_not_in_display", "/" + member)


SEED_004_AUCTION = [
    ["R6"], [], ["Y8"], ["G1", "B1"], [],
    ["R2"], ["B9"], ["G9", "R5"], [], ["R8"],
    ["R9"], [], [], ["G8", "G7"], [],
    [], [], [], [],
]
SEED_004_HANDS = deal(5, {0: ["R6", "R2", "R9"], 1: ["B9"], 2: ["Y8", "G9", "R5"], 3: ["G1", "B1", "G8", "G7"], 4: ["R8"]}, seed=4)


def test_seed_004_auction_dagmar_is_chef_and_conny_vize_on_the_second_digit():
    # bids 3 1 3 4 1; Conny (9, 8, 5) and Anna (9, 6, 2) tie on three cards and on the 9
    record = played(5, SEED_004_HANDS, SEED_004_AUCTION, vice_trump="G", chef_trump="1", partner=0)
    answer = validate(record)
    assert (answer["chef"], answer["level"], answer["vice"], answer["partner"]) == (3, 4, 2, 0)
    assert answer["outcome"] in ("won", "lost")
    team = answer["card_points"][3] + answer["card_points"][0]
    assert (team >= 33) == (answer["outcome"] == "won")
    if answer["outcome"] == "won":  # level 4 with the 1s: 50 each
        assert answer["scores"][3] - answer["card_points"][3] == 50


@pytest.mark.parametrize("chef_trump", ["B", "1", "7", "8", "none"])
def test_seed_000_dagmar_may_choose_blue_ones_sevens_eights_but_not_the_vizes_green(chef_trump):
    record = played(5, SEED_004_HANDS, SEED_004_AUCTION, vice_trump="G", chef_trump=chef_trump, partner=1)
    assert validate(record)["chef"] == 3
    taken = dict(record, chef_trump="G")
    assert rejection(taken) == ("trump_taken", "/chef_trump")
    assert rejection(dict(record, chef_trump="R")) == ("trump_not_in_display", "/chef_trump")


def test_seed_004_chef_may_not_take_the_vize_as_partner():
    record = played(5, SEED_004_HANDS, SEED_004_AUCTION, vice_trump="G", chef_trump="1", partner=0)
    assert rejection(dict(record, partner=2)) == ("partner_is_vice", "/partner")
    assert rejection(dict(record, partner=3)) == ("partner_is_chef", "/partner")


def test_seed_000_eklat_dagmar_draws_level_at_three():
    auction = copy.deepcopy(SEED_004_AUCTION)
    auction[13] = ["G8"]
    record = played(5, SEED_004_HANDS, auction)
    assert "tricks" not in record
    assert validate(record) == {
        "scores": [15, 0, 15, -30, 0], "card_points": [0, 0, 0, 0, 0], "chef": None, "vice": None,
        "partner": None, "level": 3, "outcome": "eklat",
    }


def test_nothing_follows_an_eklat():
    auction = copy.deepcopy(SEED_004_AUCTION)
    auction[13] = ["G8"]
    record = played(5, SEED_004_HANDS, auction)
    assert rejection(dict(record, chef_trump="1", tricks=[])) == ("unexpected_member", "/chef_trump")
    assert rejection(dict(record, tricks=[])) == ("unexpected_member", "/tricks")


def test_first_round_of_passes_is_a_void_deal():
    record = played(4, deal(4, {}), [[], [], [], []])
    assert validate(record) == {
        "scores": [0, 0, 0, 0], "card_points": [0, 0, 0, 0], "chef": None, "vice": None,
        "partner": None, "level": 0, "outcome": "void",
    }
    assert rejection(dict(record, partner=1)) == ("unexpected_member", "/partner")


def test_vize_tie_on_every_digit_leaves_no_vize():
    hands = deal(4, {0: ["R6"], 2: ["Y6"], 3: ["G1", "B1"]})
    record = played(4, hands, [["R6"], [], ["Y6"], ["G1", "B1"], [], [], [], []], chef_trump="1", partner=2)
    assert "vice_trump" not in record
    answer = validate(record)
    assert (answer["chef"], answer["vice"]) == (3, None)
    assert rejection(dict(record, vice_trump="R")) == ("unexpected_member", "/vice_trump")


def test_vize_on_the_highest_card_when_the_counts_tie():
    hands = deal(4, {0: ["R6", "Y2"], 1: ["G9", "K0"], 2: ["B1", "B2", "B3"]})
    auction = [["R6"], ["G9", "K0"], ["B1", "B2", "B3"], [], ["Y2"], [], [], [], []]
    answer = validate(played(4, hands, auction, partner=3))
    assert (answer["chef"], answer["vice"]) == (2, 1)


def test_only_the_chef_with_cards_out_means_no_vize():
    hands = deal(6, {4: ["K5"]})
    auction = [[], [], [], [], ["K5"], [], [], [], [], [], []]
    record = played(6, hands, auction, chef_trump="K", partner=0)
    answer = validate(record)
    assert (answer["chef"], answer["vice"], answer["level"]) == (4, None, 1)


def test_three_players_never_have_a_vize_or_a_partner():
    hands = deal(3, {0: ["R1", "R2"], 1: ["Y3"]}, colours="RYG")
    auction = [["R1"], ["Y3"], [], ["R2"], [], [], []]
    record = played(3, hands, auction, colours=["R", "Y", "G"], chef_trump="R")
    answer = validate(record)
    assert (answer["chef"], answer["vice"], answer["partner"]) == (0, None, None)
    assert rejection(dict(record, vice_trump="Y")) == ("unexpected_member", "/vice_trump")
    assert rejection(dict(record, partner=1)) == ("unexpected_member", "/partner")


def test_passed_players_may_come_back_and_a_raise_turns_the_crown_face_up():
    # seed 004: Beate passes and later puts out B9; Anna draws level with R2, then Conny raises
    hands = SEED_004_HANDS
    answer = validate(played(5, hands, SEED_004_AUCTION[:8] + [[], [], [], [], []], partner=1))
    # Conny leads with 3; Anna (R6, R2) beats Dagmar (G1, B1) for Vize on the highest digit
    assert (answer["chef"], answer["level"], answer["vice"]) == (2, 3, 0)


def test_a_player_may_raise_his_own_top_bid_by_one():
    hands = deal(4, {0: ["R1", "R2"]})
    answer = validate(played(4, hands, [["R1"], [], [], [], ["R2"], [], [], [], []], partner=1))
    assert (answer["chef"], answer["level"]) == (0, 2)


# --- trick play ---------------------------------------------------------------------------------

def test_seed_000_trump_ranking_chef_zeros_over_vize_green():
    # Chef's trump 0, Vize's green: G0 highest, then the other 0s, then greens from 9 down
    tables = trump_tables("0", "G")
    cards = ["G1", "G9", "R0", "K5", "G0"]
    assert trick_winner(cards, tables) == 4
    assert trick_winner(cards[:4], tables) == 2
    assert trick_winner(cards[:2], tables) == 1
    # equal cards: the first played wins; a card off the led colour never wins
    assert trick_winner(["R5", "B9", "R7", "R7"], trump_tables("none", None)) == 2


# Three players (red, yellow, green), the Chef (seat 2) plays alone with the 7s as trump.
THREE = {
    "game": "mu", "players": 3, "dealer": 0, "colours": ["R", "Y", "G"],
    "hands": [
        ["R9", "R0", "R1", "R2", "R3", "R4", "R7", "Y0", "Y1", "G0", "G1", "G2"],
        ["R1", "R5", "R6", "R8", "Y2", "Y3", "Y4", "Y5", "Y7", "G3", "G4", "G5"],
        ["R7", "Y1", "Y6", "Y7", "Y8", "Y9", "G1", "G6", "G7", "G7", "G8", "G9"],
    ],
    "auction": [["R9"], [], ["G7", "Y7"], [], [], []],
    "chef_trump": "7",
    "tricks": [
        ["G7", "R7", "Y7"],  # trump led: all must play a 7; equal 7s, the first played wins
        ["G9", "G2", "G5"],
        ["R7", "R0", "G3"],  # nobody else has a trump left
        ["Y9", "Y1", "Y2"],
        ["Y1", "Y0", "Y5"],  # seat 1 wins and leads
        ["R8", "Y6", "R9"],  # seat 2 holds no red that is not a trump
        ["R1", "R1", "G1"],  # equal cards: seat 0's R1 was first
        ["G0", "G4", "G8"],  # seat 2 must follow green with G8, not trump with G7
        ["Y8", "R2", "Y3"],
        ["G6", "G1", "R5"],
        ["Y7", "R3", "Y4"],  # Y7 is a trump, not yellow: Y4 does not follow it
        ["G7", "R4", "R6"],
    ],
}


def test_three_player_deal_by_hand():
    assert validate(THREE) == {
        "scores": [3, 2, 31 + 30], "card_points": [3, 2, 31], "chef": 2, "vice": None,
        "partner": None, "level": 2, "outcome": "won",
    }


@pytest.mark.parametrize("trick, position, card", [
    (0, 1, "R0"),  # seat 0 holds the trump R7
    (5, 2, "G1"),  # seat 0 holds red
    (7, 2, "G7"),  # seat 2 holds green that is not a trump
])
def test_three_player_deal_illegal_follows(trick, position, card):
    record = copy.deepcopy(THREE)
    record["tricks"][trick][position] = card
    assert rejection(record) == ("illegal_follow", f"/tricks/{trick}/{position}")


# Four players: Vize (seat 1) takes green, Chef (seat 2) the 9s, so G9 is the double trump.
FOUR = {
    "game": "mu", "players": 4, "dealer": 0,
    "hands": [
        ["R9", "R0", "R1", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R7", "R8", "G0", "G1", "G1"],
        ["G8", "G6", "Y0", "Y1", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y7", "Y8", "G2", "G3"],
        ["Y9", "B9", "G9", "B0", "B1", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B7", "B8", "G4"],
        ["G7", "K0", "K1", "K1", "K2", "K3", "K4", "K5", "K6", "K7", "K7", "K8", "G7", "G5", "K9"],
    ],
    "auction": [["R9"], ["G8", "G6"], ["Y9", "B9", "G9"], ["G7"], [], [], [], []],
    "vice_trump": "G",
    "chef_trump": "9",
    "partner": 3,
    "tricks": [
        ["B9", "K9", "G0", "G8"],  # Chef's 9 led: equal 9s, the first wins; the Vize's trumps below
        ["B8", "K0", "G1", "G2"],  # the Vize's trumps take a blue trick, G2 over G1
        ["G3", "G9", "G5", "R9"],  # the double trump G9 beats the Chef's R9
        ["B0", "K1", "R0", "Y1"],  # only the led colour counts
        ["B1", "G7", "G1", "G6"],
        ["G7", "R1", "Y2", "G4"],
        ["K8", "R2", "Y0", "B2"],
        ["K7", "R3", "Y3", "Y9"],
        ["B7", "K7", "R7", "Y7"],
        ["B7", "K6", "R7", "Y7"],
        ["B6", "K5", "R6", "Y6"],
        ["B5", "K4", "R5", "Y5"],
        ["B4", "K3", "R4", "Y4"],
        ["B3", "K2", "R8", "Y8"],
        ["B1", "K1", "R1", "Y1"],
    ],
}


def test_four_player_deal_by_hand_with_a_double_trump():
    # team 45 + 12 reaches 34 (level 3); bonus 10 × 3 + 20 for a digit other than 1 and 7
    assert validate(FOUR) == {
        "scores": [0, 3, 45 + 50, 12 + 50], "card_points": [0, 3, 45, 12], "chef": 2, "vice": 1,
        "partner": 3, "level": 3, "outcome": "won",
    }


@pytest.mark.parametrize("trick, position, card", [
    (0, 1, "K8"),  # a trump led: seat 3 holds trumps
    (2, 3, "R0"),  # a Vize trump led: seat 0 must play R9, a Chef trump
])
def test_four_player_deal_illegal_follows(trick, position, card):
    record = copy.deepcopy(FOUR)
    record["tricks"][trick][position] = card
    assert rejection(record) == ("illegal_follow", f"/tricks/{trick}/{position}")


@pytest.mark.parametrize("changes, code, path", [
    ({"partner": 1}, "partner_is_vice", "/partner"),
    ({"partner": 2}, "partner_is_chef", "/partner"),
    ({"partner": 4}, "out_of_range", "/partner"),
    ({"partner": None}, "missing_member", "/partner"),
    ({"partner": "3"}, "bad_type", "/partner"),
    ({"chef_trump": "G"}, "trump_taken", "/chef_trump"),
    ({"chef_trump": "R"}, "trump_not_in_display", "/chef_trump"),
    ({"chef_trump": "X"}, "bad_trump", "/chef_trump"),
    ({"chef_trump": None}, "missing_member", "/chef_trump"),
    ({"vice_trump": "Y"}, "trump_not_in_display", "/vice_trump"),
    ({"vice_trump": "none"}, "bad_trump", "/vice_trump"),
    ({"vice_trump": 8}, "bad_type", "/vice_trump"),
    ({"vice_trump": None}, "missing_member", "/vice_trump"),
    ({"tricks": None}, "missing_member", "/tricks"),
])
def test_four_player_deal_bad_choices(changes, code, path):
    assert rejection(dict(FOUR, **changes)) == (code, path)


def test_errors_name_seat_and_card():
    record = copy.deepcopy(FOUR)
    record["tricks"][0][1] = "R8"
    with pytest.raises(RecordError) as caught:
        validate(record)
    assert (caught.value.code, caught.value.path) == ("card_not_held", "/tricks/0/1")
    assert "seat 3" in caught.value.message and "R8" in caught.value.message


# --- decided cases of records.md and the validation conventions ---------------------------------

def test_dealer_opening_with_two_cards_is_an_overbid_before_its_cards():
    record = copy.deepcopy(FOUR)
    record["auction"][0] = ["R9", "Z9"]  # the second card does not even exist
    assert rejection(record) == ("overbid", "/auction/0")


def test_overbid_later_in_the_auction():
    record = copy.deepcopy(FOUR)
    record["auction"][3] = ["G7", "K0", "K1", "K2", "K3"]  # top 3: at most 4 cards
    assert rejection(record) == ("overbid", "/auction/3")


@pytest.mark.parametrize("index, action, position, code", [
    (1, ["G8", "R0"], 1, "card_not_held"),  # R0 is seat 0's
    (1, ["G6", "G6"], 1, "card_not_held"),  # seat 1 holds one G6
    (1, ["G8", "Q1"], 1, "bad_card"),
    (1, ["G8", 6], 1, "bad_type"),
    (3, ["G9"], 0, "card_not_held"),
    (4, ["R9"], 0, "card_not_held"),  # seat 0 put R9 out already: it is no longer in his hand
])
def test_auction_card_errors_point_at_the_card(index, action, position, code):
    record = copy.deepcopy(FOUR)
    record["auction"][index] = action
    assert rejection(record) == (code, f"/auction/{index}/{position}")


def test_an_action_after_the_passes_and_an_auction_that_never_ends():
    record = copy.deepcopy(FOUR)
    record["auction"].append([])
    assert rejection(record) == ("after_end", "/auction/8")
    record["auction"][8] = ["R0"]
    assert rejection(record) == ("after_end", "/auction/8")
    record["auction"] = record["auction"][:7]
    assert rejection(record) == ("not_ended", "/auction")
    assert rejection(dict(FOUR, auction=[])) == ("not_ended", "/auction")
    assert rejection(dict(FOUR, auction={"0": []})) == ("bad_type", "/auction")


def test_an_action_must_be_a_list():
    record = copy.deepcopy(FOUR)
    record["auction"][4] = "pass"
    assert rejection(record) == ("bad_type", "/auction/4")


@pytest.mark.parametrize("count", [14, 16])
def test_wrong_number_of_tricks_points_at_the_tricks(count):
    record = copy.deepcopy(FOUR)
    record["tricks"] = record["tricks"][:count] + record["tricks"][: max(0, count - 15)]
    assert rejection(record) == ("bad_length", "/tricks")


def test_three_players_eleven_or_thirteen_tricks():
    assert rejection(dict(THREE, tricks=THREE["tricks"][:11])) == ("bad_length", "/tricks")
    assert rejection(dict(THREE, tricks=THREE["tricks"] + [THREE["tricks"][0]])) == ("bad_length", "/tricks")


def test_a_trick_of_the_wrong_length_points_at_the_trick():
    record = copy.deepcopy(FOUR)
    record["tricks"][4] = record["tricks"][4][:3]
    assert rejection(record) == ("bad_length", "/tricks/4")
    record["tricks"][4] = "B1 G7 G1 G6"
    assert rejection(record) == ("bad_type", "/tricks/4")


@pytest.mark.parametrize("card, code", [("R9", "card_not_held"), ("X1", "bad_card"), ("r9", "bad_card"), (9, "bad_type")])
def test_a_card_not_held_in_a_trick(card, code):
    record = copy.deepcopy(FOUR)
    record["tricks"][3][2] = card  # seat 0 played R9 in trick 2 already
    assert rejection(record) == (code, "/tricks/3/2")


def test_a_colour_not_in_play_with_three_players():
    record = copy.deepcopy(THREE)
    record["tricks"][0][0] = "B7"
    assert rejection(record) == ("colour_not_in_play", "/tricks/0/0")
    record = copy.deepcopy(THREE)
    record["hands"][1][4] = "B2"
    assert rejection(record) == ("colour_not_in_play", "/hands/1/4")


def test_hands_length_and_hand_length():
    assert rejection(dict(FOUR, hands=FOUR["hands"][:3])) == ("bad_length", "/hands")
    record = copy.deepcopy(FOUR)
    record["hands"][2].append(record["hands"][1].pop())
    assert rejection(record) == ("bad_length", "/hands/1")
    record = copy.deepcopy(THREE)
    record["hands"][0] = record["hands"][0][:11]
    assert rejection(record) == ("bad_length", "/hands/0")
    assert rejection(dict(FOUR, hands=None)) == ("missing_member", "/hands")
    record = copy.deepcopy(FOUR)
    record["hands"][3] = "all black"
    assert rejection(record) == ("bad_type", "/hands/3")


def test_too_many_copies_points_at_the_first_copy_too_many_in_reading_order():
    record = copy.deepcopy(FOUR)
    record["hands"][3][1] = "Y5"  # seat 1 holds the only Y5 (/hands/1/8); seat 3's is one too many
    assert rejection(record) == ("duplicate_card", "/hands/3/1")
    record = copy.deepcopy(FOUR)
    record["hands"][0][0] = "R1"  # a third R1: the one at /hands/0/3 is the first too many
    assert rejection(record) == ("duplicate_card", "/hands/0/3")
    record = copy.deepcopy(FOUR)
    record["hands"][2][5] = "B9x"
    assert rejection(record) == ("bad_card", "/hands/2/5")


def test_colours_member():
    assert rejection(dict(THREE, colours=None)) == ("missing_member", "/colours")
    assert rejection(dict(THREE, colours=["R", "Y"])) == ("bad_length", "/colours")
    assert rejection(dict(THREE, colours=["R", "Y", "Y"])) == ("duplicate_colour", "/colours/2")
    assert rejection(dict(THREE, colours=["R", "Y", "W"])) == ("bad_colour", "/colours/2")
    assert validate(dict(THREE, colours=["G", "R", "Y"]))["outcome"] == "won"
    assert validate(dict(FOUR, colours=list("KBGYR")))["outcome"] == "won"
    assert rejection(dict(FOUR, colours=["R", "Y", "G"])) == ("bad_length", "/colours")
    # the colours named must be the ones dealt
    assert rejection(dict(THREE, colours=["R", "Y", "B"]))[0] == "colour_not_in_play"


@pytest.mark.parametrize("member, value, code", [
    ("players", "4", "bad_type"), ("players", 4.0, "bad_type"), ("players", True, "bad_type"),
    ("players", 7, "out_of_range"), ("players", 2, "out_of_range"), ("players", None, "missing_member"),
    ("dealer", 4, "out_of_range"), ("dealer", -1, "out_of_range"), ("dealer", False, "bad_type"),
])
def test_players_and_dealer_are_strict(member, value, code):
    assert rejection(dict(FOUR, **{member: value})) == (code, "/" + member)


def test_body_checks():
    both = dict(FOUR, summary=RECORDS_MD_SUMMARY)
    assert rejection(both) == ("both_bodies", "/hands")
    assert rejection({"game": "mu", "players": 4, "dealer": 0}) == ("no_body", "")
    # members that are unknown are ignored
    assert validate(dict(FOUR, comment="table 3"))["outcome"] == "won"


def test_claimed_must_match():
    answer = validate(FOUR)
    assert validate(dict(FOUR, claimed={"scores": answer["scores"], "outcome": "won"})) == answer
    assert rejection(dict(FOUR, claimed={"scores": [0, 3, 95, 63]})) == ("claimed_mismatch", "/claimed/scores")
    assert rejection(dict(FOUR, claimed={"scores": answer["scores"], "outcome": "lost"})) == ("claimed_mismatch", "/claimed/outcome")
    assert rejection(dict(FOUR, claimed={"vice": 2})) == ("claimed_mismatch", "/claimed/vice")


# --- summary records ----------------------------------------------------------------------------

def test_summary_eklat_and_void():
    eklat = validate(summary_record(5, bids=[3, 1, 3, 3, 1], chef=None, provocateur=3))
    assert eklat["scores"] == [15, 0, 15, -30, 0]
    assert (eklat["outcome"], eklat["level"], eklat["chef"]) == ("eklat", 3, None)
    with_zeros = validate(summary_record(5, bids=[3, 1, 3, 3, 1], provocateur=0, card_points=[0] * 5))
    assert with_zeros["scores"] == [-30, 0, 15, 15, 0]
    void = validate(summary_record(4, bids=[0, 0, 0, 0]))
    assert (void["scores"], void["outcome"], void["level"]) == ([0, 0, 0, 0], "void", 0)


def test_summary_three_players():
    answer = validate(summary_record(3, bids=[2, 5, 0], chef=1, chef_trump="none", card_points=[10, 20, 6]))
    # goal 20 at level 5 reached exactly; bonus 10 × 5 + 30 for no trump
    assert answer["scores"] == [10, 100, 6]
    assert answer["vice"] is None and answer["partner"] is None


def test_summary_vize_among_tied_second_bidders_may_be_any_or_null():
    base = dict(RECORDS_MD_SUMMARY)
    for vice in (0, 2, None):
        summary = dict(base, vice=vice, partner=1 if vice == 0 else 0)
        if vice is None:
            del summary["vice_trump"]
        assert validate(summary_record(5, **summary))["vice"] == vice


@pytest.mark.parametrize("players, changes, code, path", [
    (5, {"bids": None}, "missing_member", "/summary/bids"),
    (5, {"bids": [3, 1, 3, 4]}, "bad_length", "/summary/bids"),
    (5, {"bids": [3, 1, 3, 4.0, 1]}, "bad_type", "/summary/bids/3"),
    (5, {"bids": [3, 1, 3, 13, 1]}, "out_of_range", "/summary/bids/3"),
    (5, {"bids": [3, -1, 3, 4, 1]}, "out_of_range", "/summary/bids/1"),
    (5, {"chef": 2}, "chef_not_top", "/summary/chef"),
    (5, {"chef": None}, "missing_member", "/summary/chef"),
    (5, {"chef": 5}, "out_of_range", "/summary/chef"),
    (5, {"bids": [3, 1, 3, 3, 1]}, "chef_not_top", "/summary/chef"),
    (5, {"bids": [0, 0, 0, 0, 0]}, "chef_not_top", "/summary/chef"),
    (5, {"vice": 1}, "vice_not_second", "/summary/vice"),
    (5, {"vice": 3}, "vice_not_second", "/summary/vice"),
    (5, {"bids": [3, 1, 2, 4, 1], "vice": None}, "missing_member", "/summary/vice"),
    (5, {"bids": [0, 0, 0, 4, 0], "vice": 2}, "vice_not_second", "/summary/vice"),
    (5, {"provocateur": 0}, "unexpected_member", "/summary/provocateur"),
    (5, {"vice_trump": None}, "missing_member", "/summary/vice_trump"),
    (5, {"vice_trump": "none"}, "bad_trump", "/summary/vice_trump"),
    (5, {"vice": None, "vice_trump": "G"}, "unexpected_member", "/summary/vice_trump"),
    (5, {"chef_trump": "G"}, "trump_taken", "/summary/chef_trump"),
    (5, {"chef_trump": "10"}, "bad_trump", "/summary/chef_trump"),
    (5, {"chef_trump": None}, "missing_member", "/summary/chef_trump"),
    (5, {"partner": 2}, "partner_is_vice", "/summary/partner"),
    (5, {"partner": 3}, "partner_is_chef", "/summary/partner"),
    (5, {"partner": None}, "missing_member", "/summary/partner"),
    (5, {"card_points": [10, 12, 9, 19, 11]}, "card_points_sum", "/summary/card_points"),
    (5, {"card_points": [10, 12, 9, 19]}, "bad_length", "/summary/card_points"),
    (5, {"card_points": [10, 12, 9, 19, "10"]}, "bad_type", "/summary/card_points/4"),
    (5, {"card_points": [10, 12, 9, 19, -1]}, "out_of_range", "/summary/card_points/4"),
    (5, {"card_points": None}, "missing_member", "/summary/card_points"),
    (5, {"bids": [3, 1, 3, 3, 1], "chef": None, "vice": None, "provocateur": 1}, "provocateur_not_top", "/summary/provocateur"),
    (5, {"bids": [3, 1, 3, 3, 1], "chef": None, "vice": None, "provocateur": None}, "missing_member", "/summary/provocateur"),
    (5, {"bids": [3, 1, 3, 3, 1], "chef": None, "vice": 2, "provocateur": 3}, "unexpected_member", "/summary/vice"),
    (5, {"bids": [3, 1, 3, 3, 1], "chef": None, "vice": None, "provocateur": 3}, "unexpected_member", "/summary/vice_trump"),
    (3, {"bids": [3, 1, 4], "chef": 2, "vice": None, "card_points": [10, 20, 6]}, "unexpected_member", "/summary/vice_trump"),
    (3, {"bids": [3, 1, 4], "chef": 2, "vice": 0}, "unexpected_member", "/summary/vice"),
    (3, {"bids": [3, 1, 4], "chef": 2, "vice": None, "vice_trump": None}, "unexpected_member", "/summary/partner"),
])
def test_summary_errors(players, changes, code, path):
    summary = dict(RECORDS_MD_SUMMARY, **changes)
    assert rejection(summary_record(players, **summary)) == (code, path)


def test_summary_card_points_after_an_eklat_must_be_zero():
    record = summary_record(5, bids=[3, 1, 3, 3, 1], provocateur=3, card_points=[1, 0, 0, 0, 0])
    assert rejection(record) == ("card_points_sum", "/summary/card_points")
    assert rejection(summary_record(5, bids=[3, 1, 3, 3, 1], provocateur=3, chef_trump="R")) == ("unexpected_member", "/summary/chef_trump")


def test_summary_must_be_an_object():
    assert rejection({"game": "mu", "players": 4, "dealer": 0, "summary": [1]}) == ("bad_type", "/summary")
