"""The state classes (python-chess's Board): pushing a record's actions one at a time gives the
engine's answer, through the phases the rules name; nothing may follow the end."""
from __future__ import annotations

import random

import pytest

from games.catalog import GAMES
from games.rules import RecordError, validate
from games.rules import lut as lut_rules
from games.rules import maumau as maumau_rules
from games.rules import mu as mu_rules
from games.simulate import lut, maumau, mu


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_mu_deal_pushed_action_by_action_passes_through_its_phases(players):
    for seed in range(12):
        record = mu.random_record(random.Random(seed), players)
        deck = mu_rules.DECKS[tuple(sorted(record.get("colours") or mu_rules.COLOURS))]
        deal = mu_rules.Deal(mu_rules.VARIANTS[players], record["dealer"], record["hands"], deck)
        phases = []
        for action in record["auction"]:
            phases.append(deal.phase)
            deal.push(action)
        for member in ("vice_trump", "chef_trump", "partner"):
            if deal.phase.value == member:
                phases.append(deal.phase)
                deal.push(record[member])
        for trick in record.get("tricks", []):
            phases.append(deal.phase)
            deal.push(trick)
        assert deal.phase is mu_rules.Phase.OVER
        assert deal.result() == validate(record)
        order = list(mu_rules.Phase)
        assert [order.index(phase) for phase in phases] == sorted(order.index(phase) for phase in phases)
        with pytest.raises(RecordError) as info:
            deal.push([])
        assert info.value.code == "after_end"


def test_maumau_game_pushed_event_by_event_gives_the_engines_answer():
    for seed in range(10):
        record = maumau.random_record(random.Random(seed), 2 + seed % 5)
        whole = validate(record)
        game = maumau_rules.read_game(dict(record, events=[]), record["players"], record["dealer"], 1)
        pending = set()
        for event in record["events"]:
            pending.add(game.pending)
            game.push(event)
        assert game.result() == whole
        assert pending <= {None, "seven", "eight", "ace", "top_up", "show", "wedding"}


def test_maumau_result_before_the_end_is_not_ended():
    record = maumau.random_record(random.Random(2), 3)
    game = maumau_rules.read_game(dict(record, events=[]), 3, 0, 1)
    game.push(*record["events"][:-1])
    with pytest.raises(RecordError) as info:
        game.result()
    assert info.value.code == "not_ended"


def test_lut_round_pushed_trick_by_trick_ends_over():
    record = lut.random_record(random.Random(5), 5)
    deck = lut_rules.DECKS[5]
    round_ = lut_rules.Round(deck, record["dealer"], lut_rules.read_hands(record["hands"], deck))
    for trick in record["tricks"]:
        assert round_.phase == "tricks"
        round_.push(trick)
    assert round_.phase == "over"
    assert round_.answer() == validate(record)
    with pytest.raises(RecordError) as info:
        round_.push(record["tricks"][-1])
    assert (info.value.code, info.value.path) == ("after_end", f"/tricks/{len(record['tricks'])}")


def test_variants_cover_the_catalogues_player_ranges():
    assert set(mu_rules.VARIANTS) == set(range(GAMES["mu"].min_players, GAMES["mu"].max_players + 1))
    assert set(lut_rules.DECKS) == set(range(GAMES["lut"].min_players, GAMES["lut"].max_players + 1))
    assert (maumau_rules.MIN_PLAYERS, maumau_rules.MAX_PLAYERS) == (GAMES["maumau"].min_players, GAMES["maumau"].max_players)
    # three players: three colours, no Vize, no partner (rules/mu.md)
    three = mu_rules.VARIANTS[3]
    assert (three.colours, three.vice, three.partner) == (3, False, False)
