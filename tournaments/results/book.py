"""A session's book: who deals next, the totals, when it ends, what it adds to its players'
standings sums, the Maumau settlement; and the one step of every write of results
(``SessionBook.apply``).

Pure Python over plain data (no database, no clock), so the rules of a session are tested on
their own (tests/tournaments/test_book.py). A hand here is a ``PlayedHand``: its dealer, whether
it was voided and the engine's answer. A write of results is judge -> apply -> store
(``tournaments/results/services.py``): the engine judges the record, the book applies the hand
and answers with an ``Outcome`` (the session's kept state after it, what its players' sums change
by, the money owed), and one store function writes that outcome.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from math import lcm
from typing import Sequence

from games.catalog import GAMES
from games.rules.maumau import settle


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
    the event's games per series; rules/list-und-tuecke.md: one round per player. A length in
    hands counts the hands played (``played_deals``)."""
    if rules.game == "mu":
        return Length(rules.mu_fixed_deals) if rules.mu_fixed_deals else Length(None, rules.mu_target_score)
    if rules.game == "maumau":
        return Length(rules.maumau_games_per_series)
    return Length(rules.players)


def played_deals(rules: SessionRules, count: int, voided: int) -> int:
    """The hands of a session of ``count`` slots, ``voided`` of them voided, that count toward a
    length in hands (``session_length``).

    Decision (issue 38, in the spirit of ../shared/records.md's decided cases): a hand an organiser
    voided (a misdeal found afterwards, a hand entered at the wrong table) keeps its slot — its
    dealer still moved on, rules/mu.md §7 — but
    - Mü's fixed deals count the deals played: a voided slot is not one of them, since the event
      fixed the number of deals every table plays. The session is not finished while one of them
      is missing: voiding the only deal of a one-deal session reopens it for that deal (the table
      deals again, as the next slot) instead of finishing it with no deal played and every player
      a winner with 0; voiding a deal of a finished session reopens it for one more. The rules'
      own void deal (every player passed, outcome ``void``) and an Eklat are played deals
      (rules/mu.md §7: "Every deal counts, Eklat and void deals included").
    - A Maumau series' games and a LuT game's rounds count their slots, as before (the voided game
      took its place in the series, the voided round's dealer had his deal), but a session none of
      whose hands counts has played none: voiding every hand reopens it too.
    A hand waiting for a second player's confirmation is played: the session waits for it, not
    for another hand."""
    if rules.game == "mu":
        return count - voided
    return count if count > voided else 0


def hands_due(rules: SessionRules, count: int, voided: int) -> int | None:
    """The slots a session runs (voided ones included): its length in hands and one more for each
    slot ``played_deals`` leaves out; None for a session played to a target score."""
    length = session_length(rules).hands
    return None if length is None else length + count - played_deals(rules, count, voided)


def is_finished(rules: SessionRules, hands: Sequence[PlayedHand]) -> bool:
    return finished_after(rules, played_deals(rules, len(hands), sum(hand.voided for hand in hands)),
                          totals(rules, hands))


def finished_after(rules: SessionRules, deals: int, session_totals: Sequence[int]) -> bool:
    """Whether a session of ``deals`` played hands (``played_deals``) with
    these totals is over."""
    length = session_length(rules)
    if length.hands is not None:
        return deals >= length.hands
    # rules/mu.md §7: the game ends after the deal in which a total reaches the target.
    return any(total >= length.target for total in session_totals)


def placements(session_totals: Sequence[int]):
    """Placement points at one table: 1st 1, last 0, linear between, ties sharing.

    Returned as exact fractions: tied seats share the mean of the points of the places they hold.
    """
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


# --- what a session adds to its players' standings sums -------------------------------------------

# Session.Status's values (tournaments/models.py), as the book keeps them.
OPEN, FINISHED, ABANDONED = "open", "finished", "abandoned"

MAX_SEATS = max(info.max_players for info in GAMES.values())
# Placement points are fractions whose denominators divide ``(n − 1) · k`` for a table of ``n``
# seats with ``k`` tied players; kept as integers times ``PLACEMENT_SCALE`` (a multiple of every
# such denominator), so sums stay exact and compare exactly.
PLACEMENT_SCALE = lcm(*((n - 1) * k for n in range(2, MAX_SEATS + 1) for k in range(1, n + 1)))
FIELDS = ("seated", "played", "placement", "total", "wins", "cents")
ZERO = (0,) * len(FIELDS)


def money(session_totals: Sequence[int], stake_cents: int) -> tuple[list[int], list[dict]]:
    """A Maumau series' nets per seat and the transfers that realise them (rules/maumau.md, Series
    and money; the engine's ``settle``), from the session's totals: its counted games' minus
    points negated, so voided and unconfirmed games count for nothing and corrected ones as
    corrected."""
    return settle([-total for total in session_totals], stake_cents)


def contribution(*, players: Sequence[int], totals: Sequence[int], status: str, hand_count: int, game: str,
                 stake_cents: int) -> dict[int, tuple]:
    """What one session, as kept, adds to each of its players' sums (``FIELDS`` in order): nothing
    when abandoned; when it has hands, one session seated and its total; when it is finished as
    well, one session played, its placement points and a win when the player's total is the
    table's best; for a finished Maumau series, the player's settled cents."""
    if status == ABANDONED or not players:
        return {}
    totals = list(totals) or [0] * len(players)
    counted = hand_count > 0
    finished = counted and status == FINISHED
    paid = game == "maumau" and status == FINISHED
    if not counted and not paid:
        return {}
    points = placements(totals) if finished else None
    best = max(totals) if finished else None
    nets = money(totals, stake_cents)[0] if paid else None
    result = {}
    for seat, player in enumerate(players):
        if seat >= len(totals):
            break
        scaled = points[seat] * PLACEMENT_SCALE if finished else 0
        if finished and Fraction(scaled).denominator != 1:
            raise ValueError(f"placement points {points[seat]} are not a multiple of 1/{PLACEMENT_SCALE}")
        result[player] = (
            int(counted), int(finished), int(scaled), totals[seat] if counted else 0,
            int(finished and totals[seat] == best), nets[seat] if paid else 0,
        )
    return result


def difference(before: dict, after: dict) -> list[tuple[int, tuple]]:
    """(player, change of each field) for the players whose sums change, by player id (the order
    in which rows are written, so that concurrent writes lock them in one order)."""
    changes = []
    for player in sorted(before.keys() | after.keys()):
        old, new = before.get(player, ZERO), after.get(player, ZERO)
        change = tuple(b - a for a, b in zip(old, new))
        if any(change):
            changes.append((player, change))
    return changes


# --- the book and its one step -----------------------------------------------------------------------


@dataclass(frozen=True)
class Kept:
    """What is kept of a session (``Session``'s status, totals, hand count and first dealer): what
    its players' sums were last added from, and what a write changes."""

    status: str = OPEN
    totals: tuple[int, ...] = ()  # () while never kept
    hand_count: int = 0
    first_dealer: int | None = None


@dataclass(frozen=True)
class SessionBook:
    """A session as its writes see it: the event's rules, its seated players (ids in seat order),
    what is kept of it, how many hand slots it has (how many of them voided) and its latest hand; and every hand, in slot
    order, when the caller read them (a correction, a void, a confirmation: a submission needs the
    latest hand only, so it costs the same at the first hand and the hundredth)."""

    rules: SessionRules
    kept: Kept = Kept()
    players: tuple[int, ...] = ()
    count: int = 0  # hand slots so far (slots have no gaps: a voided hand keeps its own)
    last: PlayedHand | None = None
    hands: tuple[PlayedHand, ...] | None = None
    voided: int = 0  # how many of the ``count`` slots are voided (they do not count toward a length in hands)

    @classmethod
    def over(cls, rules: SessionRules, hands: Sequence[PlayedHand], *, players: Sequence[int] = (),
             kept: Kept | None = None) -> SessionBook:
        """The book of a session with these ``hands`` (every one, in slot order); ``kept`` what is
        stored of it, by default what these hands leave (the first hand's dealer dealt first)."""
        hands = tuple(hands)
        voided = sum(hand.voided for hand in hands)
        if kept is None:
            sums = totals(rules, hands)
            finished = hands and finished_after(rules, played_deals(rules, len(hands), voided), sums)
            kept = Kept(FINISHED if finished else OPEN, tuple(sums), len(hands), hands[0].dealer if hands else None)
        return cls(rules, kept, tuple(players), len(hands), hands[-1] if hands else None, hands, voided)

    @property
    def next(self) -> Expected:
        """The slot, dealer and direction the next hand must have."""
        return self._expected(self.count, self.last)

    def expected_at(self, number: int) -> Expected:
        """What the hand in slot ``number`` must continue: a correction is judged against the hands
        before it, the later ones stand as played."""
        if number == self.count + 1:
            return self.next
        if self.hands is None or not 1 <= number <= len(self.hands):
            raise ValueError(f"the book holds no slot {number}")
        return self._expected(number - 1, self.hands[number - 2] if number > 1 else None)

    def _expected(self, count: int, last: PlayedHand | None) -> Expected:
        expected = expected_after(self.rules, count, last)
        if count == 0 and self.kept.first_dealer is not None:
            # The draw chose who deals first (Table.first_dealer): hand 1 must be dealt by that seat.
            return Expected(expected.number, self.kept.first_dealer, expected.direction)
        return expected

    def contribution(self) -> dict[int, tuple]:
        """What the session, as kept, adds to its players' sums (``contribution``)."""
        return contribution(players=self.players, totals=self.kept.totals, status=self.kept.status,
                            hand_count=self.kept.hand_count, game=self.rules.game,
                            stake_cents=self.rules.maumau_stake_cents)

    def transfers(self) -> tuple[tuple[int, int, int], ...]:
        """The payments a finished Maumau series owes, as (payer, payee, cents) of player ids;
        none for anything else."""
        if self.rules.game != "maumau" or self.kept.status != FINISHED:
            return ()
        return tuple((self.players[t["from"]], self.players[t["to"]], t["cents"])
                     for t in money(self.kept.totals, self.rules.maumau_stake_cents)[1] if t["cents"] > 0)

    def apply(self, hand: PlayedHand, *, number: int | None = None) -> Outcome:
        """The session with ``hand`` written: as the next slot (a submission: ``number`` None), or
        replacing slot ``number`` (a correction, a void, a confirmation; the book must hold every
        hand). A submission's totals are the kept ones plus the hand (``add_hand``)."""
        if number is not None and number != self.count + 1:
            if self.hands is None or not 1 <= number <= len(self.hands):
                raise ValueError(f"the book holds no slot {number}")
            hands = list(self.hands)
            hands[number - 1] = hand
            return self.restate(hands)
        if self.count == 0:
            base = [0] * self.rules.players
        elif len(self.kept.totals) == self.rules.players:
            base = list(self.kept.totals)
        elif self.hands is not None:
            base = totals(self.rules, self.hands)  # never kept yet
        else:
            raise ValueError("the kept totals do not fit the table: the book needs the session's hands")
        after = replace(self, count=self.count + 1, last=hand, voided=self.voided + hand.voided,
                        hands=None if self.hands is None else (*self.hands, hand))
        first = hand.dealer if self.kept.first_dealer is None else self.kept.first_dealer
        return self._outcome(after, add_hand(base, hand), first)

    def restate(self, hands: Sequence[PlayedHand]) -> Outcome:
        """The session over ``hands``, every one in slot order (after one of them changed, or
        hands written around the services)."""
        hands = tuple(hands)
        after = replace(self, count=len(hands), last=hands[-1] if hands else None, hands=hands,
                        voided=sum(hand.voided for hand in hands))
        return self._outcome(after, totals(self.rules, hands), self.kept.first_dealer)

    def abandon(self) -> Outcome:
        """The session abandoned: shown as such, adding nothing to its players' sums, not rated."""
        after = replace(self, kept=replace(self.kept, status=ABANDONED))
        return Outcome(before=self, book=after, rating_dirty=self.kept.status == FINISHED, result_changed=True)

    def _outcome(self, after: SessionBook, new_totals: list[int], first_dealer: int | None) -> Outcome:
        """Keep the totals and hand count; finish or reopen the session by its end condition (an
        abandoned one stays abandoned)."""
        was = status = self.kept.status
        if was != ABANDONED:
            finished = finished_after(self.rules, played_deals(self.rules, after.count, after.voided), new_totals)
            if finished and was != FINISHED:
                status = FINISHED
            elif not finished and was == FINISHED:
                status = OPEN
        kept = Kept(status, tuple(new_totals), after.count, first_dealer)
        after = replace(after, kept=kept)
        # What the ratings pool applied may be stale (ratings/services.py).
        dirty = FINISHED in (was, status) and (kept.totals != tuple(self.kept.totals) or status != was)
        rated = was != ABANDONED and FINISHED in (was, status)
        # Transfers exist only for a finished series: reopened, it owes nothing any more.
        owed = after.transfers() if rated and self.rules.game == "maumau" else None
        return Outcome(before=self, book=after, rating_dirty=dirty, transfers=owed, result_changed=rated)


@dataclass(frozen=True)
class Outcome:
    """What a write does to a session: the book before and after it, and what follows from the
    change, for the store to write."""

    before: SessionBook
    book: SessionBook
    rating_dirty: bool = False  # the session was rated before or is now, and its result moved
    transfers: tuple[tuple[int, int, int], ...] | None = None  # the payments owed now; None: leave them
    result_changed: bool = False  # the ratings hear of it: finished, corrected after finishing, reopened, abandoned

    @property
    def kept(self) -> Kept:
        return self.book.kept

    @property
    def finished(self) -> bool | None:
        """True when the session finished now, False when it was reopened, else None."""
        was, now = self.before.kept.status, self.book.kept.status
        if now == FINISHED and was != FINISHED:
            return True
        if was == FINISHED and now == OPEN:
            return False
        return None

    @property
    def standings(self) -> list[tuple[int, tuple]]:
        """What each player's round and event sums change by (``difference``)."""
        return difference(self.before.contribution(), self.book.contribution())

    @property
    def next(self) -> Expected | None:
        """The hand the table enters next; None once the session is over."""
        return self.book.next if self.book.kept.status == OPEN else None
