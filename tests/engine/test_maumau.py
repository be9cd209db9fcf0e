"""Dynamisches Maumau engine: records.md's example, every card effect, summaries and series.

Rules: ../shared/rules/maumau.md; format and pointers: ../shared/records.md. The records here are
built by hand: each test names the cards that matter and fills the hands up to 8 with the rest of
the deck in order (``deal``), so the draw pile is known (``pile_of``). A test that checks an
effect replays the record with ``partial=True``: every event is accepted and the state shows who
acts next; ``validate`` on such a record answers ``not_ended`` at ``/events``.
"""
from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from games.rules import RecordError, validate, validate_series
from games.rules.maumau import replay, settle
from games.simulate.maumau import play_game, random_series
from tests.engine.checks import assert_rejected

DECK = [rank + suit for suit in "CSHD" for rank in "789TJQKA"]


def deal(hands: list[list[str]], upcard: str, *, dealer: int = 0, keep=(), **members) -> dict:
    """A record whose hands start with ``hands``, filled up to 8 with the spare cards in deck
    order; the cards in ``keep`` stay in the draw pile."""
    stock = Counter({card: 2 for card in DECK})
    for hand in hands:
        stock.subtract(hand)
    stock[upcard] -= 1
    stock.subtract(keep)
    assert min(stock.values()) >= 0, "a test deals a card more than twice"
    spare = [card for card in DECK for _ in range(stock[card])]
    full = []
    for hand in hands:
        need = 8 - len(hand)
        full.append(list(hand) + spare[:need])
        del spare[:need]
    record = {"game": "maumau", "players": len(hands), "dealer": dealer, "hands": full, "upcard": upcard, "events": []}
    record.update(members)
    return record


def pile_of(record: dict) -> list[str]:
    """The draw pile as dealt (deck order; its real order is unknown to the engine)."""
    stock = Counter({card: 2 for card in DECK})
    for hand in record["hands"]:
        stock.subtract(hand)
    stock[record["upcard"]] -= 1
    return [card for card in DECK for _ in range(stock[card])]


def play(seat: int, card: str, **extra) -> dict:
    return {"seat": seat, "play": card, **extra}


def draw(seat: int, *cards: str) -> dict:
    return {"seat": seat, "draw": list(cards)}


def show(seat: int, cards: list[str], taken: str | None = None) -> dict:
    event = {"seat": seat, "show": cards}
    if taken is not None:
        event["taken"] = taken
    return event


def with_events(record: dict, *events: dict) -> dict:
    changed = copy.deepcopy(record)
    changed["events"] = [*record["events"], *events]
    return changed


def going_on(record: dict):
    """Every event is accepted and the game is not over: the state after the last event."""
    assert_rejected(record, "not_ended", "/events")
    return replay(record, partial=True)


# --- records.md's example -------------------------------------------------------------------------


def worked_example() -> dict:
    """records.md's fragment, completed: hands consistent with it, then seat 3 ends the game.

    Seat 3 shows AD and 8C after the upcard TS (the dealer takes 8C), plays KS; seat 1 answers with
    QS out of turn and, as nobody answers that, plays JC naming hearts; seat 2 draws QH; seat 3 plays
    KH; seat 2 answers with QH. The completion: seat 3 answers QH with his second KH and, being
    the last announcer, is on turn; he plays AH, AS, AD (each ace makes him play again) and ends
    with JS on AD, naming hearts.
    """
    return {
        "game": "maumau", "players": 4, "dealer": 2, "direction": 1,
        "hands": [
            ["7H", "JC", "7C", "8S", "9S", "TC", "QC", "KD"],
            ["QS", "JC", "7D", "8D", "9C", "TC", "QD", "KC"],
            ["7S", "8H", "9H", "JD", "QC", "KS", "AC", "TD"],
            ["AD", "8C", "KS", "KH", "KH", "AH", "AS", "JS"],
        ],
        "upcard": "TS",
        "events": [
            show(3, ["AD", "8C"], "8C"),
            play(3, "KS"),
            play(1, "QS", wedding=True),
            play(1, "JC", wish="H"),
            draw(2, "QH"),
            play(3, "KH"),
            play(2, "QH", wedding=True),
            play(3, "KH", wedding=True),
            play(3, "AH"),
            play(3, "AS"),
            play(3, "AD"),
            play(3, "JS", wish="H"),
        ],
    }


def test_records_md_fragment_is_legal_and_leaves_a_wedding_chance_open():
    record = worked_example()
    record["events"] = record["events"][:7]
    state = going_on(record)
    assert state.pending == "wedding" and state.on_turn == 2 and state.top == "QH"
    assert state.hands[2].count("8C") == 1 and len(state.hands[2]) == 9


def test_records_md_example_completed_scores_the_jack_ending():
    answer = validate(worked_example())
    # Seat 0: 7 cards + JC (2) = 9, holds 7H of the named suit hearts: doubled to 18. Seat 1: six
    # cards left, no heart: 6. Seat 2: 8 dealt + 8C taken + QH drawn - QH played = 9 cards, JD
    # counts 2: 10, holds 8H and 9H: 20. Seat 3 emptied his hand.
    assert answer == {
        "scores": [-18, -6, -20, 0], "minus": [18, 6, 20, 0], "ended_by_jack": True,
        "next_dealer": 0, "direction": 1,
    }


def test_claimed_result_must_match():
    record = worked_example()
    record["claimed"] = {"scores": [-18, -6, -20, 0], "next_dealer": 0}
    assert validate(record)["minus"] == [18, 6, 20, 0]
    record["claimed"] = {"scores": [-9, -6, -10, 0]}
    assert_rejected(record, "claimed_mismatch", "/claimed/scores")


# --- the deal ---------------------------------------------------------------------------------------


def test_head_members_are_strict():
    record = worked_example()
    for key, value, code in [
        ("players", 7, "out_of_range"), ("players", 4.0, "bad_type"), ("dealer", 4, "out_of_range"),
        ("dealer", True, "bad_type"), ("direction", 0, "out_of_range"), ("direction", True, "bad_type"),
        ("direction", -1.0, "bad_type"),
    ]:
        broken = dict(record, **{key: value})
        assert_rejected(broken, code, "/" + key)


def test_hands_lengths_and_cards():
    record = worked_example()
    broken = copy.deepcopy(record)
    broken["hands"].pop()
    assert_rejected(broken, "bad_length", "/hands")
    broken = copy.deepcopy(record)
    broken["hands"][1].append("AC")
    assert_rejected(broken, "bad_length", "/hands/1")
    broken = copy.deepcopy(record)
    broken["hands"][1][3] = "1D"
    assert_rejected(broken, "bad_card", "/hands/1/3")
    broken = copy.deepcopy(record)
    broken["hands"][2][0] = "JC"  # seats 0 and 1 hold the two JCs already
    assert_rejected(broken, "duplicate_card", "/hands/2/0")
    broken = copy.deepcopy(record)
    broken["upcard"] = "KH"  # seat 3 holds both
    assert_rejected(broken, "duplicate_card", "/upcard")
    broken = copy.deepcopy(record)
    del broken["upcard"]
    assert_rejected(broken, "missing_member", "/upcard")


def test_record_with_both_bodies_or_neither():
    record = worked_example()
    record["summary"] = {"minus": [18, 6, 20, 0]}
    assert_rejected(record, "both_bodies", "/hands")
    assert_rejected({"game": "maumau", "players": 4, "dealer": 0}, "no_body", "")


# --- 7: chains --------------------------------------------------------------------------------------


def seven_table() -> dict:
    # Upcard KH opens a wedding chance nobody takes; seat 1 is on turn.
    return deal([["9S", "7C"], ["7H", "7C"], ["7S"]], "KH", keep=("AD", "AS", "8D"))


def test_seven_chain_grows_and_the_drawer_is_on_turn():
    record = with_events(seven_table(), play(1, "7H"), play(2, "7S"), draw(0, "AD", "AS"))
    state = going_on(record)
    assert state.on_turn == 0 and state.pending is None
    assert len(state.hands[0]) == 10 and {"AD", "AS"} <= set(state.hands[0])


def test_seven_chain_pending_state():
    state = going_on(with_events(seven_table(), play(1, "7H"), play(2, "7S")))
    assert (state.pending, state.chain, state.on_turn) == ("seven", 2, 0)


def test_seven_chain_wrong_draw_count():
    base = with_events(seven_table(), play(1, "7H"), play(2, "7S"))
    assert_rejected(with_events(base, draw(0, "AD")), "wrong_draw_count", "/events/2/draw")
    assert_rejected(with_events(base, draw(0, "AD", "AS", "8D")), "wrong_draw_count", "/events/2/draw")


def test_seven_chain_allows_only_a_seven_or_the_draw():
    base = with_events(seven_table(), play(1, "7H"), play(2, "7S"))
    assert_rejected(with_events(base, play(0, "9S")), "seven_pending", "/events/2/play")
    assert_rejected(with_events(base, draw(1, "AD", "AS")), "wrong_seat", "/events/2/seat")


def test_a_seven_after_drawing_starts_a_new_chain():
    record = with_events(seven_table(), play(1, "7H"), play(2, "7S"), draw(0, "AD", "AS"), play(0, "7C"))
    state = going_on(record)
    assert (state.pending, state.chain, state.on_turn) == ("seven", 1, 1)
    assert_rejected(with_events(record, draw(1, "8D", "8D")), "wrong_draw_count", "/events/4/draw")
    going_on(with_events(record, draw(1, "8D")))


# --- 8: skip and pass on ------------------------------------------------------------------------------


def eight_table() -> dict:
    return deal([[], ["8H", "8H"], ["8S"]], "KH")


def test_eight_skips_the_next_player():
    record = with_events(eight_table(), play(1, "8H"))
    assert going_on(record).pending == "eight"
    assert_rejected(with_events(record, draw(2, "7D")), "wrong_seat", "/events/1/seat")
    spare = pile_of(record)[0]
    state = going_on(with_events(record, draw(0, spare)))
    assert state.on_turn == 1


def test_eight_passed_on_skips_the_one_after():
    record = with_events(eight_table(), play(1, "8H"), play(2, "8S"))
    assert_rejected(with_events(record, draw(0, pile_of(record)[0])), "wrong_seat", "/events/2/seat")
    assert going_on(with_events(record, draw(1, pile_of(record)[0]))).on_turn == 2


def test_eight_with_two_players_gives_the_turn_back():
    record = deal([[], ["8H"]], "KH")
    record = with_events(record, play(1, "8H"))
    assert going_on(with_events(record, draw(1, pile_of(record)[0]))).on_turn == 0


# --- reversal ----------------------------------------------------------------------------------------


def test_identical_card_reverses_the_direction():
    record = with_events(deal([[], ["KH"], []], "KH"), play(1, "KH"))
    state = going_on(record)
    assert state.direction == -1 and state.on_turn == 0
    assert_rejected(with_events(record, draw(2, pile_of(record)[0])), "wrong_seat", "/events/1/seat")


def test_identical_seven_returns_the_chain():
    record = with_events(deal([[], ["7H"], ["7H"]], "KH"), play(1, "7H"), play(2, "7H"))
    state = going_on(record)
    # the direction reverses before the effect: the chain of 2 goes back to seat 1
    assert (state.direction, state.pending, state.chain, state.on_turn) == (-1, "seven", 2, 1)


def test_identical_eight_skips_the_one_who_played_before():
    record = with_events(deal([[], ["8H"], ["8H"]], "KH"), play(1, "8H"), play(2, "8H"))
    spare = pile_of(record)[0]
    # counter-clockwise now: seat 1 is skipped, seat 0 is on turn
    assert going_on(with_events(record, draw(0, spare))).direction == -1
    assert_rejected(with_events(record, draw(1, spare)), "wrong_seat", "/events/2/seat")


def test_identical_nine_shows_to_the_player_before():
    record = deal([["9H", "7D", "8D"], ["9H", "7S", "8S"], []], "KH", dealer=2)
    record = with_events(record, play(0, "9H"), show(0, ["7D", "8D"], "7D"), play(1, "9H"))
    # the direction reverses before the effect: seat 1 shows to seat 0, who is on turn after
    state = going_on(with_events(record, show(1, ["7S", "8S"], "8S")))
    assert state.on_turn == 0 and "8S" in state.hands[0] and state.direction == -1


# --- 9 and 10: show and take ---------------------------------------------------------------------------


def test_nine_player_shows_and_the_taker_is_on_turn():
    record = with_events(deal([[], ["9H", "7S", "8S"], []], "KH"), play(1, "9H"))
    assert going_on(record).pending == "show"
    state = going_on(with_events(record, show(1, ["7S", "8S"], "7S")))
    assert state.on_turn == 2 and "7S" in state.hands[2] and len(state.hands[1]) == 6


def test_show_errors():
    record = with_events(deal([[], ["9H", "7S", "8S"], []], "KH"), play(1, "9H"))
    assert_rejected(with_events(record, show(2, ["7S", "8S"], "7S")), "wrong_seat", "/events/1/seat")
    assert_rejected(with_events(record, play(1, "7S")), "show_due", "/events/1")
    assert_rejected(with_events(record, show(1, ["7S"], "7S")), "bad_length", "/events/1/show")
    assert_rejected(with_events(record, show(1, ["7S", "AD"], "7S")), "card_not_held", "/events/1/show/1")
    assert_rejected(with_events(record, show(1, ["7S", "7S"], "7S")), "card_not_held", "/events/1/show/1")
    assert_rejected(with_events(record, show(1, ["7S", "8S"], "9S")), "not_shown", "/events/1/taken")
    assert_rejected(with_events(record, show(1, ["7S", "8S"])), "missing_member", "/events/1/taken")
    assert_rejected(with_events(deal([[], [], []], "KH"), show(1, ["7C", "7C"], "7C")), "unexpected_show", "/events/0")


def test_ten_next_player_shows_and_is_on_turn():
    record = with_events(deal([[], ["TH"], ["7S", "8S"]], "KH"), play(1, "TH"))
    assert_rejected(with_events(record, show(1, ["7C", "7C"], "7C")), "wrong_seat", "/events/1/seat")
    state = going_on(with_events(record, show(2, ["7S", "8S"], "8S")))
    assert state.on_turn == 2 and "8S" in state.hands[1] and len(state.hands[2]) == 7


def ace_run(last: list[str]) -> list[str]:
    """Seven aces a seat can play in one turn on a heart (no two identical in a row)."""
    return ["AH", "AS", "AH", "AS", "AD", "AC", "AD"][: 8 - len(last)] + last


def test_nine_with_one_card_left_tops_up_first():
    # Seat 1 plays six aces, then 9C on AC, and holds one card: he draws one, then shows two.
    hand = ["AH", "AS", "AH", "AS", "AD", "AC", "9C", "KC"]
    record = deal([[], hand, []], "KH", keep=("7D",))
    record = with_events(record, *(play(1, card) for card in hand[:7]))
    assert_rejected(with_events(record, show(1, ["KC"], "KC")), "draw_due", "/events/7")
    assert_rejected(with_events(record, draw(1, "7D", "7D")), "wrong_draw_count", "/events/7/draw")
    record = with_events(record, draw(1, "7D"))
    assert going_on(record).pending == "show"
    state = going_on(with_events(record, show(1, ["KC", "7D"], "7D")))
    assert state.hands[1] == ["KC"] and state.on_turn == 2


def test_ten_shower_with_one_card_left_tops_up_first():
    # Dealer 1: seat 2 plays six aces and KC and holds one card; seat 0 draws; seat 1's TC makes
    # seat 2 show: he first draws one.
    hand = ["AH", "AS", "AH", "AS", "AD", "AC", "KC", "9D"]
    record = deal([[], ["TC"], hand], "KH", dealer=1, keep=("7D", "8D"))
    record = with_events(record, *(play(2, card) for card in hand[:7]), draw(0, "8D"), play(1, "TC"))
    assert_rejected(with_events(record, show(2, ["9D"], "9D")), "draw_due", "/events/9")
    state = going_on(with_events(record, draw(2, "7D"), show(2, ["9D", "7D"], "9D")))
    assert state.on_turn == 2 and state.hands[2] == ["7D"] and "9D" in state.hands[1]


# --- A: play again --------------------------------------------------------------------------------


def test_ace_player_plays_again():
    record = with_events(deal([[], ["AH", "AS", "9S"], []], "KH"), play(1, "AH"))
    assert going_on(record).pending == "ace"
    assert_rejected(with_events(record, draw(2, pile_of(record)[0])), "wrong_seat", "/events/1/seat")
    assert_rejected(with_events(record, draw(1, pile_of(record)[0])), "must_follow_ace", "/events/1")
    state = going_on(with_events(record, play(1, "AS"), play(1, "9S")))
    assert state.pending == "show" and state.on_turn == 1


def test_ace_with_no_legal_card_draws_one():
    hand = ["AH", "7C", "8C", "9C", "TC", "QC", "KC", "7S"]
    record = deal([[], hand, []], "KH", keep=("8D",))
    record = with_events(record, play(1, "AH"))
    assert_rejected(with_events(record, play(1, "7S")), "illegal_play", "/events/1/play")
    assert_rejected(with_events(record, draw(1, "8D", "8D")), "wrong_draw_count", "/events/1/draw")
    state = going_on(with_events(record, draw(1, "8D")))
    assert state.on_turn == 2 and len(state.hands[1]) == 8


# --- J: legality and wishes -------------------------------------------------------------------------


def jack_table() -> dict:
    return deal([[], ["JC", "JD", "7C", "QC"], ["JC", "JS", "7C", "7H"]], "QD")


def test_jack_may_only_be_played_where_it_does_not_serve():
    record = jack_table()
    assert_rejected(with_events(record, play(1, "JD", wish="H")), "illegal_play", "/events/0/play")
    state = going_on(with_events(record, play(1, "JC", wish="H")))
    assert (state.top, state.suit) == ("JC", "H")


def test_on_a_jack_only_the_named_suit_or_the_identical_jack():
    record = with_events(jack_table(), play(1, "JC", wish="H"))
    assert_rejected(with_events(record, play(2, "7C")), "illegal_play", "/events/1/play")
    assert_rejected(with_events(record, play(2, "JS", wish="D")), "illegal_play", "/events/1/play")
    going_on(with_events(record, play(2, "7H")))
    state = going_on(with_events(record, play(2, "JC", wish="H")))
    # identical jacks: reversal, and any suit but the jack's own (the named one too)
    assert state.direction == -1 and state.on_turn == 1 and state.suit == "H"
    assert_rejected(with_events(record, play(2, "JC", wish="C")), "forbidden_wish", "/events/1/wish")


def test_wish_is_neither_the_jacks_suit_nor_the_suit_below():
    record = jack_table()
    assert_rejected(with_events(record, play(1, "JC", wish="C")), "forbidden_wish", "/events/0/wish")
    assert_rejected(with_events(record, play(1, "JC", wish="D")), "forbidden_wish", "/events/0/wish")
    assert_rejected(with_events(record, play(1, "JC")), "missing_member", "/events/0/wish")
    assert_rejected(with_events(record, play(1, "JC", wish="hearts")), "bad_suit", "/events/0/wish")
    assert_rejected(with_events(record, play(1, "QC", wish="H")), "unexpected_member", "/events/0/wish")


def test_jack_on_a_non_identical_jack_is_illegal_even_of_the_named_suit():
    record = with_events(deal([[], ["JH"], ["JS"]], "QD"), play(1, "JH", wish="S"))
    assert_rejected(with_events(record, play(2, "JS", wish="C")), "illegal_play", "/events/1/play")


# --- the upcard is the dealer's play -------------------------------------------------------------------


def test_upcard_seven_hits_the_dealers_next_player():
    record = deal([[], [], []], "7H", keep=("8D",))
    assert_rejected(with_events(record, play(1, "QC")), "seven_pending", "/events/0/play")
    state = going_on(with_events(record, draw(1, "8D")))
    assert state.on_turn == 1


def test_upcard_eight_skips_the_dealers_next_player():
    record = deal([[], [], []], "8H", keep=("8D",))
    assert_rejected(with_events(record, draw(1, "8D")), "wrong_seat", "/events/0/seat")
    assert going_on(with_events(record, draw(2, "8D"))).on_turn == 0


def test_upcard_nine_and_ten():
    nine = deal([["7S", "8S"], [], []], "9H")
    state = going_on(with_events(nine, show(0, ["7S", "8S"], "8S")))
    assert state.on_turn == 1 and "8S" in state.hands[1]
    ten = deal([[], ["7S", "8S"], []], "TH")
    state = going_on(with_events(ten, show(1, ["7S", "8S"], "8S")))
    assert state.on_turn == 1 and "8S" in state.hands[0]


def test_upcard_ace_makes_the_dealer_play():
    record = deal([["9H"], ["8H"], []], "AH")
    assert_rejected(with_events(record, play(1, "8H")), "wrong_seat", "/events/0/seat")
    assert going_on(with_events(record, play(0, "9H"))).pending == "show"


def test_upcard_jack_needs_a_wish_other_than_its_suit():
    record = deal([[], ["7D", "7H"], []], "JH")
    assert_rejected(record, "missing_member", "/upcard_wish")
    assert_rejected(dict(record, upcard_wish="H"), "forbidden_wish", "/upcard_wish")
    assert_rejected(dict(record, upcard_wish="X"), "bad_suit", "/upcard_wish")
    assert_rejected(dict(deal([[], [], []], "QH"), upcard_wish="C"), "unexpected_member", "/upcard_wish")
    named = dict(record, upcard_wish="D")
    assert_rejected(with_events(named, play(1, "7H")), "illegal_play", "/events/0/play")
    assert going_on(with_events(named, play(1, "7D"))).pending == "seven"


def test_upcard_queen_opens_a_wedding_chance_starting_with_the_dealer():
    record = deal([["KH"], [], []], "QH")
    state = going_on(with_events(record, play(0, "KH", wedding=True)))
    assert state.on_turn == 0 and state.pending == "wedding"


# --- weddings -----------------------------------------------------------------------------------------


def wedding_table() -> dict:
    return deal([["KH"], ["QH"], ["KH", "QH"]], "9H", dealer=2, keep=("8D",))


def opened() -> dict:
    # upcard 9H: the dealer (seat 2) shows two cards to seat 0, who takes one and is on turn;
    # seat 0 draws, seat 1 plays QH.
    record = wedding_table()
    shown = record["hands"][2][2:4]
    return with_events(record, show(2, shown, shown[0]), draw(0, "8D"), play(1, "QH"))


def test_wedding_out_of_turn_puts_the_announcer_on_turn():
    record = with_events(opened(), play(0, "KH", wedding=True))
    state = going_on(record)
    assert state.on_turn == 0 and state.pending == "wedding"
    assert_rejected(with_events(record, play(2, "QH")), "wrong_seat", "/events/4/seat")


def test_weddings_chain_and_the_last_announcer_is_on_turn():
    record = with_events(opened(), play(0, "KH", wedding=True), play(2, "QH", wedding=True))
    assert going_on(record).on_turn == 2
    # seat 2 may answer his own wedding card (the new chance starts with him)
    state = going_on(with_events(record, play(2, "KH", wedding=True)))
    assert state.on_turn == 2 and state.top == "KH"


def test_wedding_needs_a_queen_or_king_just_played():
    # the upcard 9H makes the dealer show: no wedding chance is open
    assert_rejected(with_events(wedding_table(), play(2, "QH", wedding=True)), "no_wedding_chance", "/events/0/wedding")


def test_on_turn_player_may_play_the_counterpart_without_a_wedding():
    record = with_events(opened(), play(2, "KH"))
    state = going_on(record)
    assert state.on_turn == 0 and state.pending == "wedding"
    state = going_on(with_events(record, play(2, "QH", wedding=True)))
    assert state.on_turn == 2


def test_false_weddings():
    assert_rejected(with_events(opened(), play(2, "QH", wedding=True)), "not_counterpart", "/events/3/play")
    assert_rejected(with_events(opened(), play(1, "KH", wedding=True)), "card_not_held", "/events/3/play")
    assert_rejected(with_events(opened(), play(0, "KH", wedding="yes")), "bad_type", "/events/3/wedding")
    closed = with_events(opened(), draw(2, pile_of(opened())[0]))
    assert_rejected(with_events(closed, play(0, "KH", wedding=True)), "no_wedding_chance", "/events/4/wedding")


# --- the draw pile --------------------------------------------------------------------------------


def test_drawn_card_must_be_in_the_pile():
    record = deal([[], ["7C"], []], "KH")
    # the deal puts both 7C in hands (fillers of seat 0 start with 7C)
    assert_rejected(with_events(record, draw(1, "7C")), "not_in_pile", "/events/0/draw/0")
    assert_rejected(with_events(record, draw(1, "7X")), "bad_card", "/events/0/draw/0")
    assert_rejected(with_events(record, draw(1)), "wrong_draw_count", "/events/0/draw")


def reshuffle_table() -> tuple[dict, list[str], list[dict]]:
    """Six players, 15 cards in the pile; seats 1 and 2 play QH and QS on the upcard KH, then
    fifteen single draws (seats 3, 4, 5, 0, ...) empty the pile."""
    record = deal([["7D"], ["QH"], ["QS"], ["7D"], [], ["7S"]], "KH")
    pile = pile_of(record)
    assert len(pile) == 15
    draws = [draw((3 + index) % 6, card) for index, card in enumerate(pile)]
    return with_events(record, play(1, "QH"), play(2, "QS")), pile, draws


def test_empty_pile_takes_the_discard_pile_under_its_top():
    record, pile, draws = reshuffle_table()
    record = with_events(record, *draws)
    state = going_on(record)
    assert state.pile == [] and sorted(state.discard) == ["KH", "QH"] and state.on_turn == 0
    assert_rejected(with_events(record, draw(0, "QS")), "not_in_pile", "/events/17/draw/0")
    record = with_events(record, draw(0, "KH"), draw(1, "QH"))
    state = going_on(record)
    assert state.pile == [] and state.discard == [] and state.top == "QS"
    # nothing left to draw: the draw lists no card
    assert_rejected(with_events(record, draw(2, "QH")), "wrong_draw_count", "/events/19/draw")
    assert going_on(with_events(record, draw(2))).on_turn == 3


def test_reshuffle_in_the_middle_of_a_seven_chain_draw():
    record, pile, draws = reshuffle_table()
    record = with_events(record, *draws[:14], play(5, "7S"), play(0, "7D"))
    # The pile holds one card; seat 1 draws it and goes on with the old discard pile under the top
    # 7D: KH, QH, QS, 7S.
    assert_rejected(with_events(record, draw(1, pile[14], "7D")), "not_in_pile", "/events/18/draw/1")
    state = going_on(with_events(record, draw(1, pile[14], "QS")))
    assert sorted(state.pile) == ["7S", "KH", "QH"] and state.discard == [] and state.on_turn == 1


# --- the end of a game -------------------------------------------------------------------------------


def four_table(last: str, **extra) -> dict:
    """Seat 1 plays seven aces on the upcard KH and then ``last`` as his last card."""
    hands = [
        ["7S", "8C", "9C", "TC", "QC", "KC", "7D", "8D"],
        ace_run([last]),
        ["JS", "7C", "9D", "TD", "QD", "KD", "9H", "TH"],
        ["7H", "8H", "JC", "7C", "9C", "TC", "QH", "KD"],
    ]
    hands[2:] = [extra.get("seat2", hands[2]), extra.get("seat3", hands[3])]
    record = {"game": "maumau", "players": 4, "dealer": 0, "hands": hands, "upcard": "KH"}
    record["events"] = [play(1, card) for card in hands[1][:7]]
    return record


def test_jack_ending_doubles_holders_of_the_named_suit():
    record = four_table("JH")
    answer = validate(with_events(record, play(1, "JH", wish="S")))
    # Seat 0: 8 cards, holds 7S: 16. Seat 2: JS (2) + 7 = 9, his only spade is the jack: 18.
    # Seat 3: JC (2) + 7 = 9, no spade: 9.
    assert answer["minus"] == [16, 0, 18, 9] and answer["ended_by_jack"] is True
    assert answer["next_dealer"] == 2 and answer["direction"] == 1
    answer = validate(with_events(record, play(1, "JH", wish="C")))
    assert answer["minus"] == [16, 0, 18, 18]


def test_game_ends_when_a_hand_is_empty_and_nothing_is_pending():
    record = with_events(four_table("JH"), play(1, "JH", wish="S"))
    assert_rejected(with_events(record, draw(2, "AC")), "after_end", "/events/8")
    assert_rejected(with_events(record, "not an event"), "after_end", "/events/8")
    truncated = copy.deepcopy(record)
    truncated["events"].pop()
    assert_rejected(truncated, "not_ended", "/events")
    assert_rejected(dict(record, events=[]), "not_ended", "/events")


def test_next_dealer_after_an_eight_not_passed_on():
    record = with_events(four_table("8D"), play(1, "8D"))
    answer = validate(record)
    assert answer["next_dealer"] == 3 and answer["ended_by_jack"] is False
    assert_rejected(with_events(record, draw(3, "AC")), "after_end", "/events/8")


def test_next_dealer_after_an_eight_passed_on():
    seat2 = ["8S", "7C", "9D", "TD", "QD", "KD", "9H", "TH"]
    answer = validate(with_events(four_table("8D", seat2=seat2), play(1, "8D"), play(2, "8S")))
    assert answer["next_dealer"] == 0


def test_next_dealer_after_a_drawn_seven_chain():
    record = with_events(four_table("7D"), play(1, "7D"))
    assert_rejected(record, "not_ended", "/events")  # the chain is pending
    answer = validate(with_events(record, draw(2, "AC")))
    assert answer["next_dealer"] == 2 and answer["minus"][2] == 10


def test_next_dealer_after_weddings_is_the_last_announcer():
    record = with_events(four_table("QD"), play(1, "QD"))
    assert validate(record)["next_dealer"] == 2  # nobody answered: the next player
    # seat 3 answers with KD out of turn; nobody answers that: the game ends, seat 3 deals next
    answer = validate(with_events(record, play(3, "KD", wedding=True)))
    assert answer["next_dealer"] == 3 and answer["minus"][3] == 8


def test_next_dealer_and_direction_after_a_reversal():
    hand = ["AH", "AS", "AH", "AS", "AD", "AC", "AC", "JD"]
    record = four_table("JD")
    record["hands"][1] = hand
    record["events"] = [play(1, card) for card in hand[:7]] + [play(1, "JD", wish="S")]
    answer = validate(record)
    assert answer["direction"] == -1 and answer["next_dealer"] == 0


def test_counter_clockwise_game_starts_with_the_dealers_right_hand():
    record = four_table("JH")
    record["direction"] = -1
    assert_rejected(record, "wrong_seat", "/events/0/seat")
    record["dealer"] = 2
    answer = validate(with_events(record, play(1, "JH", wish="S")))
    assert answer["next_dealer"] == 0 and answer["direction"] == -1


# --- event shapes --------------------------------------------------------------------------------


def test_event_shapes():
    record = deal([[], ["7H"], []], "KH", keep=("8D",))
    assert_rejected(with_events(record, [1, "7H"]), "bad_type", "/events/0")
    assert_rejected(with_events(record, {"play": "7H"}), "missing_member", "/events/0/seat")
    assert_rejected(with_events(record, play(3, "7H")), "out_of_range", "/events/0/seat")
    assert_rejected(with_events(record, play(True, "7H")), "bad_type", "/events/0/seat")
    assert_rejected(with_events(record, {"seat": 1}), "bad_event", "/events/0")
    assert_rejected(with_events(record, {"seat": 1, "play": "7H", "draw": ["8D"]}), "bad_event", "/events/0")
    assert_rejected(with_events(record, {"seat": 1, "draw": ["8D"], "wish": "S"}), "unexpected_member", "/events/0/wish")
    assert_rejected(with_events(record, play(2, "7H")), "wrong_seat", "/events/0/seat")
    assert_rejected(with_events(record, play(1, "7S")), "card_not_held", "/events/0/play")
    assert_rejected(with_events(record, play(1, 7)), "bad_card", "/events/0/play")
    assert_rejected(with_events(record, {"seat": 1, "draw": "8D"}), "bad_type", "/events/0/draw")
    assert_rejected(dict(record, events={}), "bad_type", "/events")


# --- summaries ---------------------------------------------------------------------------------------


def summary(**body) -> dict:
    return {"game": "maumau", "players": 4, "dealer": 2, "summary": body}


def test_summary_with_remaining_hands():
    answer = validate(summary(remaining=[["JC", "7H"], [], ["9S"], ["AD", "KD", "8C"]], wish=None))
    assert answer == {
        "scores": [-3, 0, -1, -3], "minus": [3, 0, 1, 3], "ended_by_jack": False,
        "next_dealer": None, "direction": None,
    }
    answer = validate(summary(remaining=[["JC", "7H"], [], ["9S"], ["AD", "KD", "8C"]], wish="H"))
    assert answer["minus"] == [6, 0, 1, 3] and answer["ended_by_jack"] is True


def test_summary_with_minus_only_and_both_agreeing():
    assert validate(summary(minus=[3, 0, 1, 3]))["scores"] == [-3, 0, -1, -3]
    both = summary(remaining=[["JC", "7H"], [], ["9S"], ["AD", "KD", "8C"]], minus=[3, 0, 1, 3])
    assert validate(both)["minus"] == [3, 0, 1, 3]


def test_summary_errors():
    hands = [["JC", "7H"], [], ["9S"], ["AD", "KD", "8C"]]
    assert_rejected(summary(remaining=hands, minus=[3, 0, 2, 3]), "minus_mismatch", "/summary/minus")
    assert_rejected(summary(remaining=[["7H"], ["8H"], ["9S"], ["AD"]]), "no_empty_hand", "/summary/remaining")
    assert_rejected(summary(remaining=[["7H", "7H"], [], ["7H"], []]), "duplicate_card", "/summary/remaining/2/0")
    assert_rejected(summary(remaining=[["7Z"], [], [], []]), "bad_card", "/summary/remaining/0/0")
    assert_rejected(summary(remaining=hands[:3]), "bad_length", "/summary/remaining")
    assert_rejected(summary(remaining=hands, wish="hearts"), "bad_suit", "/summary/wish")
    assert_rejected(summary(minus=[3, 1, 1, 3]), "no_zero", "/summary/minus")
    assert_rejected(summary(minus=[3, 0, -1, 3]), "out_of_range", "/summary/minus/2")
    assert_rejected(summary(minus=[3, 0, True, 3]), "bad_type", "/summary/minus/2")
    assert_rejected(summary(minus=[3, 0, 1]), "bad_length", "/summary/minus")
    assert_rejected(summary(wish="H"), "missing_member", "/summary")
    assert_rejected(dict(summary(minus=[0, 0, 0, 0]), direction=2), "out_of_range", "/direction")


# --- settlement --------------------------------------------------------------------------------------


def realised(players: int, transfers: list[dict]) -> list[int]:
    nets = [0] * players
    for transfer in transfers:
        assert transfer["cents"] > 0 and transfer["from"] != transfer["to"]
        nets[transfer["from"]] -= transfer["cents"]
        nets[transfer["to"]] += transfer["cents"]
    return nets


def test_settlement_worked_example():
    # rules/maumau.md: A 3, B 10, C 12, D 25 at 10 cents: A receives 2.20 from D, B 0.20 from C.
    nets, transfers = settle([3, 10, 12, 25], 10)
    assert nets == [220, 20, -20, -220]
    assert transfers == [{"from": 3, "to": 0, "cents": 220}, {"from": 2, "to": 1, "cents": 20}]


def test_settlement_odd_middle_pays_nothing():
    nets, transfers = settle([9, 1, 5], 10)
    assert nets == [-80, 80, 0] and transfers == [{"from": 0, "to": 1, "cents": 80}]


@pytest.mark.parametrize(
    "totals, stake, nets",
    [
        # A and B share positions 1 and 2: (9 - 1) + (5 - 1) = 12 → 6 each.
        ([1, 1, 5, 9], 1, [6, 6, -4, -8]),
        # B, C, D share -2 (positions 2..4 give 0, 0, -2): floor -1 each, the leftover cent to the
        # lowest seat of the group, A.
        ([2, 0, 2, 2], 1, [0, 2, -1, -1]),
        # C and D share the two worst positions: -70 - 50 = -120 → -60 each.
        ([1, 3, 8, 8], 10, [70, 50, -60, -60]),
        # a tie in the middle of five: the middle three give 0.
        ([1, 5, 5, 5, 9], 10, [80, 0, 0, 0, -80]),
        ([7, 7, 7], 10, [0, 0, 0]),
        # -50 + ... : B, C tie on 10 (positions 2, 3: +20, +10 → 15 each); the rest untied.
        ([0, 10, 10, 20, 30, 50], 1, [50, 15, 15, -10, -20, -50]),
        # three tied on the worst total: -(3 + 3) split in three, and an odd stake.
        ([0, 0, 3, 3, 3], 7, [21, 21, -14, -14, -14]),
    ],
)
def test_settlement_with_ties(totals, stake, nets):
    computed, transfers = settle(totals, stake)
    assert computed == nets and sum(computed) == 0
    assert realised(len(totals), transfers) == nets


def test_settlement_ties_keep_untied_pairs_and_settle_the_rest_greedily():
    nets, transfers = settle([0, 10, 10, 20, 30, 50], 1)
    assert transfers == [
        {"from": 5, "to": 0, "cents": 50},  # the seed's pair, nobody tied
        {"from": 4, "to": 1, "cents": 15},  # largest debtor to largest creditor (lowest seat)
        {"from": 3, "to": 2, "cents": 10},
        {"from": 4, "to": 2, "cents": 5},
    ]


def test_settlement_floor_division_toward_minus_infinity():
    # A tied group of three sharing -10 gets -4, -3, -3: floor -4 each, two leftover cents to the
    # two lowest seats of the group.
    nets, _ = settle([5, 5, 5, 0], 2)
    assert sorted(nets) == [-4, -3, -3, 10] and nets == [-3, -3, -4, 10]


# --- series -------------------------------------------------------------------------------------------


def minus_record(minus: list[int], dealer: int = 0) -> dict:
    return {"game": "maumau", "players": len(minus), "dealer": dealer, "summary": {"minus": minus}}


def test_series_of_summaries_settles_the_worked_example():
    series = {"records": [minus_record([3, 0, 12, 10]), minus_record([0, 10, 0, 15])], "stake_cents": 10}
    answer = validate_series(series)
    assert answer["totals"] == [3, 10, 12, 25]
    assert answer["nets"] == [220, 20, -20, -220]
    assert answer["transfers"] == [{"from": 3, "to": 0, "cents": 220}, {"from": 2, "to": 1, "cents": 20}]
    assert len(answer["records"]) == 2


def simulated_series(seed: int = 7, players: int = 4) -> dict:
    return random_series(random.Random(seed), players, games=8, stake_cents=10)


def test_simulated_series_continues_dealer_and_direction():
    series = simulated_series()
    answer = validate_series(series)
    for before, after in zip(answer["records"], series["records"][1:]):
        assert after["dealer"] == before["next_dealer"] and after["direction"] == before["direction"]
    assert answer["totals"] == [sum(r["minus"][seat] for r in answer["records"]) for seat in range(4)]
    assert sum(answer["nets"]) == 0 and realised(4, answer["transfers"]) == answer["nets"]


def test_series_continuity_errors():
    series = simulated_series()
    broken = copy.deepcopy(series)
    broken["records"][3]["dealer"] = (broken["records"][3]["dealer"] + 1) % 4
    assert (rejected_series(broken).code, rejected_series(broken).path) == ("wrong_dealer", "/records/3/dealer")
    broken = copy.deepcopy(series)
    broken["records"][0]["direction"] = -1
    error = rejected_series(broken)
    assert (error.code, error.path) == ("wrong_direction", "/records/0/direction")
    broken = copy.deepcopy(series)
    broken["records"][2]["direction"] = -series["records"][2]["direction"]
    error = rejected_series(broken)
    assert (error.code, error.path) == ("wrong_direction", "/records/2/direction")


def test_series_after_a_summary_the_next_record_is_free():
    series = simulated_series()
    answer = validate_series(series)
    free = play_game(random.Random(99), 4, dealer=(answer["records"][2]["next_dealer"] + 1) % 4, direction=-1)
    series["records"][2] = minus_record(answer["records"][2]["minus"], series["records"][2]["dealer"])
    series["records"][3] = free.record
    series["records"] = series["records"][:4]
    assert validate_series(series)["records"][3]["next_dealer"] == free.next_dealer


def test_series_errors_inside_records_are_prefixed():
    series = simulated_series()
    series["records"][5]["events"][0]["seat"] = 9
    error = rejected_series(series)
    assert (error.code, error.path) == ("out_of_range", "/records/5/events/0/seat")
    series = simulated_series()
    series["records"][4] = minus_record([0, 1, 2])
    error = rejected_series(series)
    assert (error.code, error.path) == ("wrong_player_count", "/records/4/players")
    series = simulated_series()
    series["records"][1] = {"game": "mu", "players": 4, "dealer": 0}
    assert rejected_series(series).path == "/records/1/game"
    series = simulated_series()
    del series["stake_cents"]
    assert rejected_series(series).path == "/stake_cents"
    assert rejected_series({"records": [], "stake_cents": 1}).path == "/records"


def rejected_series(series: dict) -> RecordError:
    with pytest.raises(RecordError) as info:
        validate_series(series)
    return info.value
