"""How a session goes on: who deals next, the totals, when it ends, the Maumau settlement.

Pure Python over plain data (no database), so the rules of a session are tested on their own.
A hand here is a ``PlayedHand``: its dealer, whether it was voided and the engine's answer.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class PlayedHand:
    dealer: int
    voided: bool
    result: dict | None  # the engine's answer; None when voided
    full: bool  # a full record (every card), not a summary
    direction: int | None = None  # Maumau: the direction the game started with
    counts: bool = True  # False while the hand waits for a second player's confirmation


@dataclass(frozen=True)
class SessionRules:
    """The event's rules for one session at a table of ``players``."""

    game: str
    players: int
    mu_target_score: int = 200
    mu_fixed_deals: int | None = None
    maumau_games_per_series: int = 8
    maumau_stake_cents: int = 10

    @classmethod
    def for_event(cls, event, players: int) -> "SessionRules":
        return cls(
            game=event.game, players=players, mu_target_score=event.mu_target_score,
            mu_fixed_deals=event.mu_fixed_deals, maumau_games_per_series=event.maumau_games_per_series,
            maumau_stake_cents=event.maumau_stake_cents,
        )


@dataclass(frozen=True)
class Expected:
    """What the next hand must continue: ``None`` where the hand is free to choose."""

    number: int
    dealer: int | None
    direction: int | None = None


def totals(rules: SessionRules, hands: Sequence[PlayedHand]) -> list[int]:
    """Session totals: the sums of the engine's ``scores`` (Maumau: minus points negated)."""
    sums = [0] * rules.players
    for hand in hands:
        sums = add_hand(sums, hand)
    return sums


def add_hand(session_totals: Sequence[int], hand: PlayedHand) -> list[int]:
    """``session_totals`` with ``hand`` added: what it scores, if it counts."""
    if hand.counts and not hand.voided and hand.result is not None:
        return [total + score for total, score in zip(session_totals, hand.result["scores"], strict=True)]
    return list(session_totals)


def expected_next(rules: SessionRules, hands: Sequence[PlayedHand]) -> Expected:
    """The slot and dealer a new hand must have, after ``hands`` (the session's, in slot order)."""
    return expected_after(rules, len(hands), hands[-1] if hands else None)


def expected_after(rules: SessionRules, count: int, last: PlayedHand | None) -> Expected:
    """The slot and dealer a new hand must have after ``count`` hands, ``last`` the latest of them:
    all that decides it, so a submission reads one hand, however long the session.

    Decision: the first hand's dealer is free (the table draws him); rules/mu.md §7 and
    rules/list-und-tuecke.md (A game) move the dealer one seat clockwise after every hand, voided
    hands included. Maumau (rules/maumau.md, Series and money): a full record continues the
    previous game's ``next_dealer`` and direction when they are known (not after a summary or a
    voided game); the first game of a series starts clockwise.
    """
    number = count + 1
    if last is None:
        return Expected(number, None, 1 if rules.game == "maumau" else None)
    if rules.game != "maumau":
        return Expected(number, (last.dealer + 1) % rules.players)
    if last.voided or not last.full or last.result is None:
        return Expected(number, None, None)
    return Expected(number, last.result["next_dealer"], last.result["direction"])


@dataclass(frozen=True)
class Length:
    """How long a session runs: a number of hands (``hands``), or until a total reaches ``target``."""

    hands: int | None
    target: int | None = None


def session_length(rules: SessionRules) -> Length:
    """The one place that says how long a session of each game runs (the end condition, the
    console's "3 of 8", the sheet's reason why it ended).

    rules/mu.md §7: a target score, or a fixed number of deals the event chose; rules/maumau.md:
    the event's games per series; rules/list-und-tuecke.md: one round per player."""
    if rules.game == "mu":
        return Length(rules.mu_fixed_deals) if rules.mu_fixed_deals else Length(None, rules.mu_target_score)
    if rules.game == "maumau":
        return Length(rules.maumau_games_per_series)
    return Length(rules.players)


def is_finished(rules: SessionRules, hands: Sequence[PlayedHand]) -> bool:
    return finished_after(rules, len(hands), totals(rules, hands))


def finished_after(rules: SessionRules, count: int, session_totals: Sequence[int]) -> bool:
    """Whether a session of ``count`` hands with these totals is over."""
    length = session_length(rules)
    if length.hands is not None:
        return count >= length.hands
    # rules/mu.md §7: the game ends after the deal in which a total reaches the target.
    return any(total >= length.target for total in session_totals)


def placements(session_totals: Sequence[int]):
    """Placement points at one table: 1st 1, last 0, linear between, ties sharing.

    Returned as exact fractions: tied seats share the mean of the points of the places they hold.
    """
    from fractions import Fraction

    count = len(session_totals)
    if count < 2:
        return [Fraction(1)] * count
    order = sorted(range(count), key=lambda seat: -session_totals[seat])
    points = [Fraction(0)] * count
    position = 0
    while position < count:
        end = position
        while end + 1 < count and session_totals[order[end + 1]] == session_totals[order[position]]:
            end += 1
        share = sum(Fraction(count - 1 - place, count - 1) for place in range(position, end + 1)) / (end - position + 1)
        for place in range(position, end + 1):
            points[order[place]] = share
        position = end + 1
    return points
