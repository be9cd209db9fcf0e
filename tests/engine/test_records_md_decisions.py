"""The contract decisions written in ``../shared/records.md`` where the format had been silent: one
test per decision, named after it."""
from __future__ import annotations

import random

import pytest

from games.rules import validate
from games.simulate import lut as lut_simulation
from games.simulate import maumau as maumau_simulation
from games.simulate import mu as mu_simulation
from tests.engine.checks import assert_rejected

MU_SUMMARY = {"game": "mu", "players": 3, "dealer": 0,
              "summary": {"bids": [2, 5, 0], "chef": 1, "chef_trump": "none", "card_points": [10, 20, 6]}}


def maumau_sheet(**summary) -> dict:
    return {"game": "maumau", "players": 4, "dealer": 2, "summary": summary}


def lut_sheet(players: int, *stacks: dict) -> dict:
    rest = [{"discarded": 0}] * (players - len(stacks))
    return {"game": "lut", "players": players, "dealer": 0, "summary": {"stacks": [*stacks, *rest]}}


# --- Mü: colours describes the deal, so a summary may carry it ----------------------------------------


def test_mu_summary_may_carry_colours():
    plain = validate(MU_SUMMARY)
    assert validate(dict(MU_SUMMARY, colours=["G", "R", "Y"])) == plain
    four = {"game": "mu", "players": 4, "dealer": 0,
            "summary": {"bids": [0, 0, 0, 0]}}
    assert validate(dict(four, colours=list("KBGYR")))["outcome"] == "void"


def test_mu_summary_colours_follow_the_full_records_rule_right_after_the_body_check():
    assert_rejected(dict(MU_SUMMARY, colours=["G", "R"]), "bad_length", "/colours")
    assert_rejected(dict(MU_SUMMARY, colours=["G", "R", "R"]), "duplicate_colour", "/colours/2")
    assert_rejected(dict(MU_SUMMARY, colours=["G", "R", "W"]), "bad_colour", "/colours/2")
    # checked before the summary's members
    broken = dict(MU_SUMMARY, colours=["G"], summary=dict(MU_SUMMARY["summary"], bids=[1]))
    assert_rejected(broken, "bad_length", "/colours")
    four = {"game": "mu", "players": 4, "dealer": 0, "summary": {"bids": [0, 0, 0, 0]}, "colours": ["R", "Y", "G"]}
    assert_rejected(four, "bad_length", "/colours")
    # a record with both bodies is still rejected at its first full-body member
    assert_rejected(dict(MU_SUMMARY, colours=["G", "R", "Y"], hands=[]), "both_bodies", "/hands")


# --- claimed: any subset of the answer's members ----------------------------------------------------


@pytest.mark.parametrize("game", ["mu", "maumau", "lut"])
def test_claimed_may_hold_any_subset_of_the_answer(game):
    simulation = {"mu": mu_simulation, "maumau": maumau_simulation, "lut": lut_simulation}[game]
    players = {"mu": 4, "maumau": 3, "lut": 5}[game]
    record = simulation.random_record(random.Random(3), players)
    answer = validate(record)
    assert validate(dict(record, claimed={})) == answer
    members = sorted(answer)
    for size in (1, 2, len(members)):
        claimed = {key: answer[key] for key in members[:size]}
        assert validate(dict(record, claimed=claimed)) == answer
    # unknown members and null values claim nothing
    assert validate(dict(record, claimed={"remark": 1, "scores": None})) == answer
    wrong = dict(record, claimed={members[-1]: answer[members[-1]], "scores": [7] * players})
    assert_rejected(wrong, "claimed_mismatch", "/claimed/scores")


# --- Maumau: what a minus-only sheet may say ----------------------------------------------------------


def test_maumau_minus_only_sheet_has_no_value_above_142():
    assert validate(maumau_sheet(minus=[142, 0, 0, 0]))["minus"] == [142, 0, 0, 0]
    assert_rejected(maumau_sheet(minus=[0, 143, 0, 0]), "out_of_range", "/summary/minus/1")


def test_maumau_minus_only_sheet_stands_for_at_most_71_raw_points():
    # each even value may be a doubled one (halved), an odd value is as it is
    assert validate(maumau_sheet(minus=[70, 35, 0, 1]))["minus"] == [70, 35, 0, 1]  # 35 + 35 + 1 = 71
    assert validate(maumau_sheet(minus=[70, 36, 0, 1]))["minus"] == [70, 36, 0, 1]  # 35 + 18 + 1 = 54
    assert validate(maumau_sheet(minus=[71, 0, 0, 0]))["minus"] == [71, 0, 0, 0]
    assert_rejected(maumau_sheet(minus=[71, 0, 1, 0]), "minus_impossible", "/summary/minus")
    assert_rejected(maumau_sheet(minus=[70, 35, 0, 3]), "minus_impossible", "/summary/minus")  # 35 + 35 + 3 = 73


def test_maumau_minus_only_answer_ended_by_jack_true_with_a_wish_otherwise_null():
    assert validate(maumau_sheet(minus=[3, 0, 1, 3]))["ended_by_jack"] is None
    assert validate(maumau_sheet(minus=[3, 0, 1, 3], wish=None))["ended_by_jack"] is None
    assert validate(maumau_sheet(minus=[6, 0, 1, 3], wish="H"))["ended_by_jack"] is True
    # with the remaining hands the sheet knows: no wish means no jack ended the game
    hands = [["JC", "7H"], [], ["9S"], ["AD", "KD", "8C"]]
    assert validate(maumau_sheet(remaining=hands))["ended_by_jack"] is False


# --- LuT: a seat's cards are a sum of whole takes -----------------------------------------------------


@pytest.mark.parametrize("players, stack, accepted", [
    (4, {"G": 2, "R": 2, "discarded": 0}, True),
    (4, {"G": 2, "R": 1, "discarded": 0}, False),  # odd with 4 players
    (4, {"G": 3, "B": 2, "discarded": 2}, False),
    (5, {"G": 1, "discarded": 0}, False),  # 1 with 5 players
    (5, {"G": 1, "R": 1, "discarded": 0}, True),
    (5, {"G": 2, "R": 1, "discarded": 0}, True),
    (5, {"G": 4, "R": 3, "discarded": 0}, True),
    (6, {"G": 2, "R": 1, "discarded": 0}, True),
    (6, {"G": 2, "R": 2, "discarded": 0}, False),  # not a multiple of 3 with 6 players
    (6, {"G": 2, "R": 2, "discarded": 3}, False),
    (6, {"G": 2, "R": 2, "discarded": 2}, True),
])
def test_lut_summary_counts_are_sums_of_whole_takes(players, stack, accepted):
    record = lut_sheet(players, {"discarded": 0}, stack)
    if accepted:
        assert validate(record)["stacks"][1] == stack
    else:
        assert_rejected(record, "not_whole_takes", "/summary/stacks/1")


def test_lut_whole_takes_come_after_the_decks_totals():
    record = lut_sheet(4, {"G": 8, "discarded": 0}, {"G": 7, "discarded": 0})
    assert_rejected(record, "too_many_cards", "/summary/stacks")


# --- Mü: a summary that gives colours names trump colours among them ---------------------------------

MU_THREE = {"game": "mu", "players": 3, "dealer": 0, "colours": ["G", "R", "Y"],
            "summary": {"bids": [2, 5, 0], "chef": 1, "chef_trump": "R", "card_points": [10, 20, 6]}}


@pytest.mark.parametrize("trump", ["B", "K"])
def test_mu_summary_with_colours_refuses_a_trump_colour_not_in_play(trump):
    """The code of a full record (no display holds a colour not in play): one fault, one code."""
    record = dict(MU_THREE, summary=dict(MU_THREE["summary"], chef_trump=trump))
    assert_rejected(record, "trump_not_in_display", "/summary/chef_trump")


@pytest.mark.parametrize("trump", ["G", "R", "Y", "1", "7", "0", "none"])
def test_mu_summary_with_colours_accepts_the_colours_in_play_digits_and_none(trump):
    record = dict(MU_THREE, summary=dict(MU_THREE["summary"], chef_trump=trump))
    assert validate(record)["chef"] == 1


def test_mu_summary_without_colours_accepts_any_trump_colour():
    record = dict(MU_THREE, summary=dict(MU_THREE["summary"], chef_trump="K"))
    del record["colours"]
    assert validate(record)["chef"] == 1
    assert validate(dict(record, colours=None))["chef"] == 1  # null counts as absent


def test_mu_summary_trump_colour_is_checked_at_the_trump_after_the_members_before_it():
    # a bad Chef (an earlier member) is reported first; the trump's own pointer otherwise
    record = dict(MU_THREE, summary=dict(MU_THREE["summary"], chef=0, chef_trump="K"))
    assert_rejected(record, "chef_not_top", "/summary/chef")


# --- LuT: a card played again ------------------------------------------------------------------------


def test_lut_card_played_again_is_not_held_as_in_mu():
    lut_round = lut_simulation.random_record(random.Random(11), 4)
    tricks = lut_round["tricks"]
    tricks[1]["cards"][0] = tricks[0]["cards"][0]
    assert_rejected(lut_round, "card_not_held", "/tricks/1/cards/0")
    mu_deal = next(record for record in (mu_simulation.random_record(random.Random(seed), 4) for seed in range(50))
                   if record.get("tricks"))
    tricks = mu_deal["tricks"]
    tricks[1][0] = tricks[0][0]
    assert_rejected(mu_deal, "card_not_held", "/tricks/1/0")


# --- LuT: keep's members that name no seat are ignored when null --------------------------------------


def test_lut_keep_with_a_null_member_that_is_no_seat_is_accepted():
    record = keep_round_from_simulation()
    trick = next(trick for trick in record["tricks"] if trick.get("keep"))
    answer = validate(record)
    trick["keep"] = {**trick["keep"], "colours": None, "9": None}
    assert validate(record) == answer
    trick["keep"] = {**trick["keep"], "colours": ["B", "R"]}  # a member that is given must name a seat
    assert_rejected(record, "keep_unexpected", f"/tricks/{record['tricks'].index(trick)}/keep")


def keep_round_from_simulation() -> dict:
    for seed in range(500):
        record = lut_simulation.random_record(random.Random(seed), 4)
        if any(trick.get("keep") for trick in record["tricks"]):
            return record
    raise AssertionError("no simulated round with a keep")
