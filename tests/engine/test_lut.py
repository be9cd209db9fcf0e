"""Mit List und Tücke engine: the seed's examples and records.md's decided cases.

Rules: ../shared/rules/list-und-tuecke.md; format and pointers: ../shared/records.md. The records
here are built by hand, card by card, so that each test shows the rule it is about.
"""
from __future__ import annotations

import copy
import random

import pytest

from games.rules import validate
from games.rules.lut import game_totals, stack_score
from games.simulate.lut import deck, random_game, random_record
from tests.engine.checks import assert_rejected, rejected


def deal(players: int, fixed: dict[int, list[str]]) -> list[list[str]]:
    """Hands holding the ``fixed`` cards, filled up to 14 with the rest of the deck in order."""
    used = {card for cards in fixed.values() for card in cards}
    rest = [card for card in deck(players) if card not in used]
    hands = []
    for seat in range(players):
        hand = list(fixed.get(seat, []))
        while len(hand) < 14:
            hand.append(rest.pop(0))
        hands.append(hand)
    assert not rest
    return hands


# --- hand-built rounds ------------------------------------------------------------------------------


def seed_trick_round() -> dict:
    """records.md's fragment, the seed's example as the first trick (5 players, dealer 4): seat 0
    leads R10, seat 2's R14 picks three, seat 3's B2 takes R10 and B2 and leads the second trick,
    in which seat 2, holding only green, cannot play after blue, yellow and red."""
    hands = deal(5, {
        0: ["R10", "R1"],
        1: ["Y6", "B7"],
        2: ["R14"] + [f"G{k}" for k in range(1, 14)],
        3: ["B2", "B5"],
        4: ["Y16", "Y1"],
    })
    return {
        "game": "lut", "players": 5, "dealer": 4, "hands": hands,
        "tricks": [
            {"cards": ["R10", "Y6", "R14", "B2", "Y16"], "pick": ["R14", "Y16", "Y6"]},
            {"cards": ["B5", "Y1", "R1", "B7"]},
        ],
    }


def keep_round() -> dict:
    """4 players, dealer 3. Trick 2 brings seats 1 and 2 to four colours at once; in trick 3 seat 2
    collects a blue card it turned over; trick 4 ends the round (seat 3 holds only blue)."""
    hands = deal(4, {
        0: ["B2", "Y1", "R6", "R1", "R2"],
        1: ["B9", "G4", "G12", "Y2"] + [f"Y{k}" for k in (4, 5, 6, 7, 8, 9, 11, 12, 13, 14)],
        2: ["G1", "Y10", "R3", "B14", "G6"],
        3: ["R5", "Y3", "G5", "B3"] + [f"B{k}" for k in (1, 4, 5, 6, 7, 8, 10, 11, 12, 13)],
    })
    return {
        "game": "lut", "players": 4, "dealer": 3, "hands": hands,
        "tricks": [
            # led blue: B9 (seat 1) highest blue, G1 (seat 2) lowest other card
            {"cards": ["B2", "B9", "G1", "R5"], "pick": ["B9", "R5"]},
            # seat 2 leads yellow: Y10 (seat 2) first, G4 (seat 1) the only other colour
            {"cards": ["Y10", "Y3", "Y1", "G4"], "pick": ["Y10", "G4"]},
            # seat 1 leads green: G12 picks G12, G5 (four colours); R3's seat 2 gets R3, R6 (four colours)
            {"cards": ["G12", "R3", "G5", "R6"], "pick": ["G12", "G5"], "keep": {"1": ["Y", "G"], "2": ["G", "R"]}},
            # seat 2's B14 picks B14 (blue was turned over: discard pile) and R1; seat 0's R1 is the
            # lowest other card, so seat 0 takes B3 and Y2 and leads
            {"cards": ["B14", "B3", "R1", "Y2"], "pick": ["B14", "R1"]},
            {"cards": ["R2", "Y4", "G6"]},
        ],
    }


def full_round(players: int = 4) -> dict:
    """A simulated round that lasts all 14 tricks."""
    for seed in range(1000):
        record = random_record(random.Random(seed), players)
        if len(record["tricks"]) == 14 and len(record["tricks"][-1]["cards"]) == players:
            return record
    raise AssertionError("no 14-trick round found")


SUMMARY = {
    "game": "lut", "players": 5, "dealer": 0,
    "summary": {"stacks": [
        {"G": 5, "R": 6, "Y": 3, "discarded": 0}, {"R": 5, "B": 4, "Y": 3, "discarded": 0},
        {"B": 7, "G": 8, "discarded": 4}, {"Y": 7, "R": 1, "B": 1, "discarded": 0},
        {"G": 3, "B": 5, "discarded": 0},
    ]},
}


# --- the seed's examples ----------------------------------------------------------------------------


def test_seed_trick_first_winner_picks_three_second_takes_the_rest_and_leads():
    answer = validate(seed_trick_round())
    # seat 2: R14, Y16, Y6; seat 3: R10, B2. The second trick is read with seat 3 leading.
    assert answer["stacks"] == [
        {"discarded": 0}, {"discarded": 0}, {"R": 1, "Y": 2, "discarded": 0},
        {"B": 1, "R": 1, "discarded": 0}, {"discarded": 0},
    ]
    assert answer["scores"] == [0, 0, 2, 1, 0]


def test_seed_trick_with_the_first_winner_leading_is_rejected():
    record = seed_trick_round()
    record["tricks"][1]["cards"] = ["R2", "B5", "Y1", "R1"]  # as if seat 2 led: R2 is not his
    assert_rejected(record, "card_not_held", "/tricks/1/cards/0")


def test_seed_scoring_examples_through_the_summary():
    answer = validate(SUMMARY)
    assert answer["scores"] == [10, 6, 14, 7, 15]
    assert answer["stacks"] == [
        {"G": 5, "R": 6, "Y": 3, "discarded": 0}, {"B": 4, "R": 5, "Y": 3, "discarded": 0},
        {"B": 7, "G": 8, "discarded": 4}, {"B": 1, "R": 1, "Y": 7, "discarded": 0},
        {"B": 5, "G": 3, "discarded": 0},
    ]


@pytest.mark.parametrize("stacks, discarded, score", [
    ([5, 6, 3], 0, 10), ([5, 4, 3], 0, 6), ([7, 8], 4, 14), ([7, 1, 1], 0, 7), ([3, 5], 0, 15),
    ([9], 0, 0), ([], 0, 0), ([4, 0, 2, 0], 0, 8),
])
def test_score_is_product_of_two_largest_over_the_rest(stacks, discarded, score):
    assert stack_score(stacks, discarded) == score


def test_claimed_scores_and_stacks_are_compared():
    record = copy.deepcopy(SUMMARY)
    record["claimed"] = {"scores": [10, 6, 14, 7, 15]}
    assert validate(record)["scores"] == [10, 6, 14, 7, 15]
    record["claimed"] = {"scores": [10, 6, 14, 7, 16]}
    assert_rejected(record, "claimed_mismatch", "/claimed/scores")
    record = seed_trick_round()
    record["claimed"] = {"scores": [0, 0, 2, 1, 0], "stacks": [{"discarded": 0}] * 5}
    assert_rejected(record, "claimed_mismatch", "/claimed/stacks")


# --- trick rules ------------------------------------------------------------------------------------


def test_single_colour_trick_first_winner_picks_rest_leaves_and_he_leads():
    hands = deal(4, {
        0: ["R5"] + [f"G{k}" for k in range(1, 14)],
        1: ["R9", "B1"], 2: ["R2", "R1"], 3: ["R7", "Y1"],
    })
    record = {
        "game": "lut", "players": 4, "dealer": 3, "hands": hands,
        "tricks": [
            {"cards": ["R5", "R9", "R2", "R7"], "pick": ["R2", "R7"]},
            # seat 1 (R9, the first winner) leads; seat 0 then holds only green
            {"cards": ["B1", "R1", "Y1"]},
        ],
    }
    answer = validate(record)
    assert answer["stacks"] == [{"discarded": 0}, {"R": 2, "discarded": 0}, {"discarded": 0}, {"discarded": 0}]
    assert answer["scores"] == [0, 0, 0, 0]  # one open colour scores 0


def test_equal_lowest_numbers_the_first_played_is_second_winner():
    hands = deal(4, {
        0: ["R10"] + [f"Y{k}" for k in range(1, 14)],
        1: ["B3", "B5"], 2: ["G3", "G5"], 3: ["R12", "R5"],
    })
    record = {
        "game": "lut", "players": 4, "dealer": 3, "hands": hands,
        "tricks": [
            {"cards": ["R10", "B3", "G3", "R12"], "pick": ["R12", "G3"]},
            {"cards": ["B5", "G5", "R5"]},  # seat 1 (B3, played before G3) leads
        ],
    }
    answer = validate(record)
    assert answer["stacks"][1] == {"B": 1, "R": 1, "discarded": 0}
    assert answer["stacks"][3] == {"G": 1, "R": 1, "discarded": 0}
    assert answer["stacks"][2] == {"discarded": 0}


def test_both_winners_choose_in_one_trick_and_turned_colours_go_to_the_discard_pile():
    answer = validate(keep_round())
    assert answer["stacks"] == [
        {"B": 1, "Y": 1, "discarded": 0},
        {"G": 2, "Y": 2, "discarded": 2},  # B9 and R5 turned over
        {"G": 2, "R": 3, "discarded": 3},  # B2 and Y10 turned over, later B14 onto the pile
        {"discarded": 0},
    ]
    assert answer["scores"] == [1, 2, 6 // 3, 0]


def test_keep_choice_decides_the_score():
    record = keep_round()
    record["tricks"][2]["keep"] = {"1": ["B", "Y"], "2": ["R", "G"]}
    answer = validate(record)
    assert answer["stacks"][1] == {"B": 1, "Y": 2, "discarded": 3}
    assert answer["scores"][1] == 2 // 3


def test_early_end_in_the_first_trick():
    hands = [[f"{colour}{k}" for k in range(1, 15)] for colour in "BGRY"]
    record = {"game": "lut", "players": 4, "dealer": 3, "hands": hands, "tricks": [{"cards": ["B1", "G1", "R1"]}]}
    answer = validate(record)
    assert answer == {"scores": [0, 0, 0, 0], "stacks": [{"discarded": 0}] * 4}
    # the fourth seat holds only yellow: a full trick would need a fourth colour
    record["tricks"][0]["cards"].append("Y1")
    assert_rejected(record, "fourth_colour", "/tricks/0/cards/3")
    record["tricks"][0] = {"cards": ["B1", "G1"]}
    assert_rejected(record, "short_trick", "/tricks/0/cards")
    record["tricks"][0] = {"cards": ["B1", "G1", "R1"], "pick": ["B1", "G1"]}
    assert_rejected(record, "pick_unexpected", "/tricks/0/pick")
    record["tricks"][0] = {"cards": ["B1", "G1", "R1"], "keep": {"0": ["B", "G"]}}
    assert_rejected(record, "keep_unexpected", "/tricks/0/keep")
    record["tricks"] = [{"cards": ["B1", "G1", "R1"]}, {"cards": ["B2", "G2", "R2"]}]
    assert_rejected(record, "after_end", "/tricks/1")


# --- records.md's decided cases (LuT rows) -----------------------------------------------------------


def test_trick_with_n_plus_one_cards_points_at_the_cards():
    record = keep_round()
    record["tricks"][0]["cards"].append("Y4")
    assert_rejected(record, "bad_length", "/tricks/0/cards")


@pytest.mark.parametrize("trick, cards", [(0, ["B2", "B9", "G1"]), (4, ["R2", "Y4"]), (1, [])])
def test_short_trick_where_the_next_player_could_play(trick, cards):
    record = keep_round()
    record["tricks"][trick] = {"cards": cards}
    del record["tricks"][trick + 1:]
    assert_rejected(record, "short_trick", f"/tricks/{trick}/cards")


@pytest.mark.parametrize("keep, code", [
    (None, "keep_missing"), ({}, "keep_missing"), ({"1": ["Y", "G"]}, "keep_missing"),
    ({"1": ["Y", "G"], "2": ["G", "R"], "0": ["B", "G"]}, "keep_unexpected"),
    ({"1": ["Y", "G"], "02": ["G", "R"]}, "keep_missing"),
])
def test_keep_missing_or_extra_points_at_keep(keep, code):
    record = keep_round()
    record["tricks"][2]["keep"] = keep
    assert_rejected(record, code, "/tricks/2/keep")


def test_keep_where_none_is_due_points_at_keep():
    record = keep_round()
    record["tricks"][1]["keep"] = {"2": ["G", "Y"]}
    assert_rejected(record, "keep_unexpected", "/tricks/1/keep")
    record["tricks"][1]["keep"] = ["G", "Y"]
    assert_rejected(record, "bad_type", "/tricks/1/keep")


@pytest.mark.parametrize("choice", [["G", "G"], ["G"], ["G", "R", "Y"], ["G", "X"], "GR", ["g", "r"], None])
def test_bad_keep_choice_points_at_the_seat(choice):
    record = keep_round()
    record["tricks"][2]["keep"]["2"] = choice
    # null counts as absent: then the choice is missing
    expected = ("keep_missing", "/tricks/2/keep") if choice is None else ("bad_keep", "/tricks/2/keep/2")
    assert_rejected(record, *expected)


@pytest.mark.parametrize("pick", [["B9"], ["B9", "R5", "G1"], []])
def test_pick_of_the_wrong_size_points_at_the_pick(pick):
    record = keep_round()
    record["tricks"][0]["pick"] = pick
    assert_rejected(record, "bad_pick", "/tricks/0/pick")


def test_pick_of_a_card_not_in_the_trick_points_at_the_card():
    record = keep_round()
    record["tricks"][0]["pick"] = ["B9", "G2"]
    assert_rejected(record, "pick_not_in_trick", "/tricks/0/pick/1")
    record["tricks"][0]["pick"] = ["B9", "B9"]
    assert_rejected(record, "duplicate_card", "/tricks/0/pick/1")
    record["tricks"][0]["pick"] = ["B9", "B15"]
    assert_rejected(record, "bad_card", "/tricks/0/pick/1")
    del record["tricks"][0]["pick"]
    assert_rejected(record, "missing_member", "/tricks/0/pick")


def test_trick_after_the_end_points_at_the_first_one_too_many():
    record = keep_round()
    record["tricks"].append({"cards": ["B4"]})
    assert_rejected(record, "after_end", "/tricks/5")
    record = full_round()
    validate(record)
    record["tricks"].append(copy.deepcopy(record["tricks"][0]))
    assert_rejected(record, "after_end", "/tricks/14")


def test_record_that_stops_before_the_end_points_at_tricks():
    record = keep_round()
    del record["tricks"][4]
    assert_rejected(record, "not_ended", "/tricks")
    record["tricks"] = []
    assert_rejected(record, "not_ended", "/tricks")


def test_claimed_score_that_differs_points_at_claimed_scores():
    record = keep_round()
    record["claimed"] = {"scores": [1, 2, 2, 1]}
    error = rejected(record)
    assert (error.code, error.path) == ("claimed_mismatch", "/claimed/scores")
    assert "[1, 2, 2, 0]" in error.message


# --- cards, hands and members -----------------------------------------------------------------------


def test_fourth_colour_in_a_full_trick():
    record = keep_round()
    # seats 1 and 2 hold G4 and R3; seat 3 holds Y3, a fourth colour after B, G and R
    record["tricks"][0]["cards"] = ["B2", "G4", "R3", "Y3"]
    assert_rejected(record, "fourth_colour", "/tricks/0/cards/3")


def test_card_not_held_and_card_played_twice():
    record = keep_round()
    record["tricks"][0]["cards"][0] = "B1"  # dealt to seat 3
    assert_rejected(record, "card_not_held", "/tricks/0/cards/0")
    record = keep_round()
    record["tricks"][1]["cards"][1] = "R5"  # seat 3 played it in trick 0
    # as in Mü: a card played again is no longer held (illegal), not a malformed deal
    assert_rejected(record, "card_not_held", "/tricks/1/cards/1")


@pytest.mark.parametrize("card, code", [("B15", "bad_card"), ("R0", "bad_card"), ("X3", "bad_card"), ("b2", "bad_card"),
                                        ("B02", "bad_card"), (2, "bad_type"), (["B2"], "bad_type"), (None, "bad_type")])
def test_card_that_does_not_exist(card, code):
    record = keep_round()
    record["tricks"][0]["cards"][0] = card
    assert_rejected(record, code, "/tricks/0/cards/0")
    record = keep_round()
    record["hands"][2][3] = card
    assert_rejected(record, code, "/hands/2/3")


def test_deck_depends_on_the_player_count():
    record = seed_trick_round()
    record["hands"][0][5] = "B18"  # blue goes to 17 with 5 players
    assert_rejected(record, "bad_card", "/hands/0/5")
    assert validate(random_record(random.Random(3), 6))["scores"]


def test_hands_shape_and_duplicates():
    record = keep_round()
    record["hands"].pop()
    assert_rejected(record, "bad_length", "/hands")
    record = keep_round()
    record["hands"][1].pop()
    assert_rejected(record, "bad_length", "/hands/1")
    record = keep_round()
    record["hands"][2][13] = record["hands"][0][4]  # the card is dealt twice: the later one is too many
    assert_rejected(record, "duplicate_card", "/hands/2/13")
    record = keep_round()
    record["hands"][2][13] = record["hands"][2][0]
    assert_rejected(record, "duplicate_card", "/hands/2/13")
    record = keep_round()
    record["hands"][3] = "B1"
    assert_rejected(record, "bad_type", "/hands/3")


def test_root_members_in_order():
    record = keep_round()
    record["players"] = 4.0
    assert_rejected(record, "bad_type", "/players")
    record["players"] = 3
    assert_rejected(record, "out_of_range", "/players")
    record = keep_round()
    record["dealer"] = 4
    assert_rejected(record, "out_of_range", "/dealer")
    record = keep_round()
    record["summary"] = SUMMARY["summary"]
    assert_rejected(record, "both_bodies", "/hands")
    assert_rejected({"game": "lut", "players": 4, "dealer": 0}, "no_body", "")
    record = keep_round()
    del record["tricks"]
    assert_rejected(record, "missing_member", "/tricks")
    record = keep_round()
    record["tricks"][3] = ["B14"]
    assert_rejected(record, "bad_type", "/tricks/3")


# --- summary consistency ----------------------------------------------------------------------------


def summary(*stacks: dict, players: int = 4) -> dict:
    return {"game": "lut", "players": players, "dealer": 0, "summary": {"stacks": list(stacks)}}


EMPTY = {"discarded": 0}


@pytest.mark.parametrize("stacks, code, path", [
    ([{"B": 1, "G": 1, "R": 1, "Y": 1, "discarded": 0}, EMPTY, EMPTY, EMPTY], "too_many_colours", "/summary/stacks/0"),
    ([EMPTY, {"B": 3, "G": 2, "R": 1, "discarded": 2}, EMPTY, EMPTY], "bad_discard", "/summary/stacks/1"),
    ([EMPTY, {"B": 3, "discarded": 2}, EMPTY, EMPTY], "bad_discard", "/summary/stacks/1"),
    ([EMPTY, EMPTY, {"B": 3, "G": 2, "discarded": 1}, EMPTY], "bad_discard", "/summary/stacks/2/discarded"),
    ([EMPTY, EMPTY, {"B": 3, "G": 2}, EMPTY], "missing_member", "/summary/stacks/2/discarded"),
    ([EMPTY, EMPTY, EMPTY, {"R": -1, "discarded": 0}], "out_of_range", "/summary/stacks/3/R"),
    ([EMPTY, EMPTY, EMPTY, {"R": 15, "discarded": 0}], "out_of_range", "/summary/stacks/3/R"),
    ([EMPTY, EMPTY, EMPTY, {"R": True, "discarded": 0}], "bad_type", "/summary/stacks/3/R"),
    ([EMPTY, EMPTY, EMPTY, {"R": 2, "discarded": 2.0}], "bad_type", "/summary/stacks/3/discarded"),
    ([{"G": 8, "discarded": 0}, {"G": 7, "discarded": 0}, EMPTY, EMPTY], "too_many_cards", "/summary/stacks"),
    ([{"G": 13, "B": 13, "discarded": 0}, {"R": 13, "Y": 13, "discarded": 0}, {"G": 1, "B": 1, "discarded": 2},
      {"R": 1, "Y": 1, "discarded": 2}], "too_many_cards", "/summary/stacks"),  # 60 cards of 56
    ([EMPTY, EMPTY, EMPTY], "bad_length", "/summary/stacks"),
    ([EMPTY, EMPTY, EMPTY, [0, 0]], "bad_type", "/summary/stacks/3"),
])
def test_summary_consistency_errors(stacks, code, path):
    assert_rejected(summary(*stacks), code, path)


def test_summary_members():
    assert_rejected({"game": "lut", "players": 4, "dealer": 0, "summary": {}}, "missing_member", "/summary/stacks")
    assert_rejected({"game": "lut", "players": 4, "dealer": 0, "summary": [1]}, "bad_type", "/summary")
    # zero stacks, null and unknown members are allowed; the answer lists only non-empty colours
    answer = validate(summary({"B": 0, "G": 2, "R": None, "x": 5, "discarded": 0}, EMPTY, EMPTY, EMPTY))
    assert answer["stacks"][0] == {"G": 2, "discarded": 0}


def test_summary_of_a_full_answer_scores_the_same():
    for seed in range(30):
        record = random_record(random.Random(seed), 4 + seed % 3)
        answer = validate(record)
        again = validate(summary(*answer["stacks"], players=record["players"]))
        assert again == answer


# --- a game ----------------------------------------------------------------------------------------


def test_game_totals_sum_the_rounds_and_name_the_winners():
    records = random_game(random.Random(7), 5, first_dealer=2)
    assert [record["dealer"] for record in records] == [2, 3, 4, 0, 1]
    answers = [validate(record) for record in records]
    result = game_totals(answers)
    assert result["totals"] == [sum(answer["scores"][seat] for answer in answers) for seat in range(5)]
    assert result["winners"] == [seat for seat in range(5) if result["totals"][seat] == max(result["totals"])]


def test_game_totals_tie_and_round_count():
    answers = [{"scores": [3, 1, 0, 2]}, {"scores": [0, 2, 0, 1]}, {"scores": [1, 1, 4, 0]}, {"scores": [0, 0, 0, 1]}]
    assert game_totals(answers) == {"totals": [4, 4, 4, 4], "winners": [0, 1, 2, 3]}
    answers[3] = {"scores": [0, 1, 0, 0]}
    assert game_totals(answers) == {"totals": [4, 5, 4, 3], "winners": [1]}
    with pytest.raises(ValueError):
        game_totals(answers[:3])
