"""Writes of results: submit, correct, void, confirm and dispute hands, abandon sessions, mark Maumau
payments paid.

Every write of a hand or a session is judge -> apply -> store: the engine judges the record against
its slot (``_judge``), the session's book applies it (``book.SessionBook``: pure, over plain
data; it answers with an ``Outcome``: the kept totals, hand count and status, the next hand, what
the players' standings sums change by, the money a finished Maumau series owes), and ``_store``
writes that outcome (a submission's with its hand in ``sql.store_hand``'s one statement).

Every write runs in one transaction that first locks the table row (``sql.lock_table``, the one
lock of submit, correct, void, confirm, dispute and abandon), so writes to one session are serialised: hand numbers have no gaps and dealers stay consistent.
On PostgreSQL a submission in the middle of a session first goes without that lock: one read, and
one statement that stores only while no locked write has counted the table's revision on since
(``hand_submit``); else it is made again under the lock. Refusals are domain errors
(``tournaments.errors``): nothing is stored then. Side effects (ratings, live pages) are announced
on commit (``tournaments.signals``).

Void or correct (what each is for):
- **void** a hand that was played but must not count (a misdeal found afterwards, a deal the
  table abandoned): its slot stays, its dealer still moved (rules/mu.md §7, rules/list-und-
  tuecke.md), it scores nothing, and the table goes on with the next hand.
- **correct** a hand whose record was entered wrongly: the new record replaces it in its slot and
  is checked against the hands before it. Correcting a voided hand brings it back with the new
  record. Every version is kept.
"""
from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.parsers import text_error
from games.rules import Code, RecordError, validate

from .. import audit, policy
from ..errors import Conflict, Error, Invalid, NotAllowed, RecordRejected
from ..models import (
    Hand,
    HandVersion,
    IdempotentSubmission,
    Seat,
    Session,
    Table,
    Transfer,
)
from ..signals import (
    announce_event_shown_changed,
    announce_session_result_changed,
    announce_table_results_changed,
)
from ..standings import outbox as series_outbox
from ..standings import sums as aggregates
from . import sql
from .book import (
    OPEN,
    Expected,
    Kept,
    Outcome,
    PlayedHand,
    SessionBook,
    SessionRules,
    money,
    totals,
)


@dataclass(frozen=True)
class Submission:
    """A stored submission: its receipt (the hand, its result and the session after it) and
    whether it was stored now or answered again for a repeated ``Idempotency-Key``."""

    receipt: dict
    created: bool


def counts(hand: Hand) -> bool:
    """Whether a stored hand counts in totals, standings, money and ratings: the one rule.

    A voided hand never counts; a hand of an event with second-player confirmation counts once
    another seat (or an organiser) has confirmed it. Either way the hand keeps its slot and its
    dealer moved on, so the table goes on playing while it waits.
    """
    return not hand.voided and hand.result is not None and not hand.unconfirmed


def started_direction(record: dict) -> int:
    """The direction a Maumau record starts in: ``direction``, clockwise when absent (records.md:
    ``null`` counts as absent)."""
    direction = record.get("direction")
    return 1 if direction is None else direction


def played(hand: Hand) -> PlayedHand:
    """A stored hand as the session's rules see it: the one place that decides what a hand counts
    for (a voided hand keeps its slot and scores nothing)."""
    record = hand.record or {}
    return PlayedHand(
        dealer=hand.dealer, voided=hand.voided, result=hand.result,
        full=record.get("summary") is None, direction=started_direction(record), counts=counts(hand),
    )


def session_totals(rules: SessionRules, hands: list[Hand]) -> list[int]:
    """The totals per seat over a session's hands (in slot order): what ``Session.totals`` keeps
    and every read of results shows."""
    return totals(rules, [played(hand) for hand in hands])


def session_rules(session: Session, players: int | None = None) -> SessionRules:
    """The event's rules for ``session``; ``players`` when the caller counted the seats already."""
    table = session.table
    return SessionRules.for_event(table.round.event, table.seats.count() if players is None else players)


def book_of(session: Session, rules: SessionRules, hands: list[Hand] | None = None, *,
            players: tuple[int, ...] | list[int] = (), last: Hand | None = None, voided: int = 0) -> SessionBook:
    """``session``'s book: what is kept of it, and ``hands`` (every one, in slot order) when the
    caller read them, else its latest hand (``last``) only and how many of its hands are
    ``voided`` (a length in hands counts the others: ``book.played_deals``)."""
    kept = Kept(session.status, tuple(session.totals or ()), session.hand_count, session.first_dealer)
    if hands is not None:
        return SessionBook.over(rules, [played(hand) for hand in hands], players=players, kept=kept)
    return SessionBook(rules, kept, tuple(players), 0 if last is None else last.number,
                       None if last is None else played(last), voided=voided)


def _check_continues(record: dict, rules: SessionRules, expected: Expected) -> None:
    """The record belongs at this slot of this table (records.md pointers for the members)."""
    if record["game"] != rules.game:
        raise RecordError(Code.WRONG_GAME, f"this table plays {rules.game}, not {record['game']}", "/game",
                          {"table_game": rules.game, "game_name": record["game"]})
    if record["players"] != rules.players:
        raise RecordError(
            Code.WRONG_PLAYER_COUNT, f"this table seats {rules.players} players, the record {record['players']}", "/players",
            {"due": rules.players, "got": record["players"]},
        )
    if expected.dealer is not None and record["dealer"] != expected.dealer:
        raise RecordError(
            Code.WRONG_DEALER, f"hand {expected.number} is dealt by seat {expected.dealer}, not seat {record['dealer']}", "/dealer",
            {"number": expected.number, "expected_seat": expected.dealer, "seat": record["dealer"]},
        )
    if rules.game == "maumau" and expected.direction is not None and record.get("summary") is None:
        direction = started_direction(record)
        if direction != expected.direction:
            raise RecordError(
                Code.WRONG_DIRECTION,
                f"game {expected.number} starts in direction {expected.direction}, not {direction}",
                "/direction",
            )


def _judge(record, rules: SessionRules, expected: Expected, *, text_checked: bool = False) -> dict:
    # What the database cannot store is refused before the engine (which ignores unknown members)
    # and before anything is written. The API's reader refuses it earlier (games/parsers.py), and a
    # record it read is not written out again to look (``text_checked``: a hand's JSON written by
    # the standard library's encoder, about 3 % of a submission's CPU in-process).
    unstorable = None if text_checked else text_error(record)
    if unstorable:
        raise RecordRejected(Error.BAD_TEXT, unstorable[1], unstorable[0])
    try:
        result = validate(record)
        _check_continues(record, rules, expected)
    except RecordError as error:
        raise RecordRejected.from_record_error(error) from None
    return result


def _lock_hand(hand: Hand) -> Hand:
    """Lock a stored hand for a correction, a void, a confirmation or a dispute: its table's row
    first (``sql.lock_table``, as a submission takes it), then the hand's row only; the session,
    round and event rows read with it stay free (the event's other tables write in parallel)."""
    sql.lock_table(hand.session.table_id)
    return Hand.objects.select_for_update(of=("self",)).select_related("session__table__round__event").get(pk=hand.pk)


def current_session(table: Table) -> Session | None:
    """The table's latest session, if any (a submission starts the first)."""
    return table.sessions.order_by("-number").first()


def fingerprint(record, expected_number: int | None) -> str:
    """What a retry must repeat for its ``Idempotency-Key`` to stand for the same submission."""
    text = json.dumps([record, expected_number], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # surrogatepass: a record the check refuses later (a lone surrogate) still has a fingerprint.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _answer_again(earlier: IdempotentSubmission, print_: str) -> Submission:
    """The first receipt again for a repeated key with the same record; 409 for another record."""
    if earlier.fingerprint and earlier.fingerprint != print_:
        raise Conflict(
            "this Idempotency-Key was used for another submission at this table; use a new key for a new hand",
            code=Error.IDEMPOTENCY_KEY_REUSED,
        )
    return Submission(earlier.body, created=False)


@dataclass(frozen=True)
class Entry:
    """A hand as a caller enters it.

    ``record`` is the hand record, or a callable that reads it: the API's body, read only once the
    policy let the party submit (a refused request is refused before its body is read).
    ``credentials`` are a request's (scorer token, seat named on the table's device): the policy
    names the acting party from them and the user (``policy.acting_party``). Without them the
    caller is trusted (a command, the demo, an import) and ``seat`` is the entering seat.
    ``expected_number`` is the hand the table means to submit (409 when it is not the next).
    ``text_checked``: the record was read from JSON text by ``games.parsers.read_json`` (the API's
    parser), which refuses text the database cannot store, so the judgement does not look for it
    again (``_judge``); a record handed over as a value is checked there.
    """

    record: Any
    credentials: policy.Credentials | None = None
    expected_number: int | None = None
    seat: int | None = None
    text_checked: bool = False

    def read(self):
        return self.record() if callable(self.record) else self.record


def hand_submit(*, table_id: int, entry: Entry, by_user=None, idempotency_key: str | None = None) -> Submission:
    """Judge ``entry``'s record and store it as the next hand of the table's current session.

    Under the table's lock, in one transaction (``tournaments/results/sql.py``):

    1. the table's lock, read with its round and event: the policy names the acting party (401,
       403; ``Table.DoesNotExist`` when there is no such table), before the record is read;
    2. the table's state under that lock: seat count, current session, its latest hand, and the
       submission stored under the key (its receipt answered again, or 409 for another record);
    3. the hand judged against the latest hand (``_judge``: the engine's 422, the slot's 409)
       and stored with its first version, the session's totals, its players' sums and the
       receipt under the key in one statement on PostgreSQL.

    On PostgreSQL a submission first goes without the lock and without a transaction of its own:
    1 and 2 are one statement (``sql.read_table``), and 3's statement stores only while the table
    is as it was read (``sql.store_hand``'s guard): two round trips instead of five. When the
    table was written meanwhile, or the hand needs more than that statement (the session's first
    hand or its last, a Maumau series' payments: ``sql.NeedsLock``), nothing was stored and the
    submission is made again under the lock; so is one that the state read refuses (422, 409:
    ``_judged_again_under_lock``), since a write that held the lock then may be the hand before
    it. Either way a hand is judged against the state it is stored on.

    An event with second-player confirmation counts a hand entered by a seat once another seat
    confirms it; an organiser's entry needs no confirmation. In an event of a series, the storing
    statement also writes the series' sync request: its public standings are recomputed by a
    worker after the commit (``tournaments/standings/outbox.py``).
    """
    try:
        if sql.reads_unlocked():
            try:
                # In a caller's transaction (a command, a test) a savepoint keeps a failed
                # statement from breaking it.
                with transaction.atomic() if transaction.get_connection().in_atomic_block else nullcontext():
                    return _hand_submit(table_id, entry, by_user, idempotency_key, locked=False)
            except sql.NeedsLock:
                pass
        with transaction.atomic():
            return _hand_submit(table_id, entry, by_user, idempotency_key, locked=True)
    except IntegrityError:
        # Only where the database could not serialise us (SQLite): someone else stored first.
        earlier = sql.earlier_submission(table_id, idempotency_key) if idempotency_key else None
        if earlier is not None:
            return _answer_again(earlier, fingerprint(entry.read(), entry.expected_number))
        raise Conflict("another submission took this hand first", code=Error.HAND_TAKEN) from None


def _hand_submit(table_id: int, entry: Entry, by_user, idempotency_key: str | None, *, locked: bool) -> Submission:
    """``hand_submit`` under the table's lock (``locked``), or read without it and stored under
    the guard (raises ``sql.NeedsLock`` when that cannot store it)."""
    if locked:
        table = sql.lock_table(table_id)
        party = _submitting_party(table, entry, by_user)
        record = entry.read()
        state = sql.table_state(table, idempotency_key)
    else:
        state = sql.read_table(table_id, idempotency_key)
        table = state.table
        party = _submitting_party(table, entry, by_user)
        record = entry.read()
    print_ = ""
    if idempotency_key:
        print_ = fingerprint(record, entry.expected_number)
        if state.earlier is not None:
            return _answer_again(state.earlier, print_)
    if state.session is None:
        if state.guard is not None:
            raise sql.NeedsLock("the table's first session is made under the lock")
        session = Session.objects.create(table=table, number=1, first_dealer=table.first_dealer)
    else:
        session = state.session
    key = None
    if idempotency_key:
        key = IdempotentSubmission(table=table, key=idempotency_key, fingerprint=print_, session=session)
    hand, receipt = _submit(session, state, record, party, entry.expected_number, key=key,
                            text_checked=entry.text_checked)
    if key is not None:
        if state.guard is None:
            key.hand, key.body = hand, receipt
            sql.insert(key, returning=("body",))
        # Answer with the stored body, as retries will be: the database may order a JSON
        # object's keys its own way (PostgreSQL's jsonb), and every answer must be identical.
        receipt = key.body
    return Submission(receipt, created=True)


def _submitting_party(table: Table, entry: Entry, by_user) -> policy.Party:
    if entry.credentials is None:
        return policy.Party(user=by_user, seat=entry.seat, via="api")
    return policy.acting_party(by_user, table, entry.credentials, action="submit")


def _submit(
    session: Session, state: sql.TableState, record, party: policy.Party, expected_number: int | None,
    key: IdempotentSubmission | None = None, *, text_checked: bool = False,
) -> tuple[Hand, dict]:
    """Judge the next hand, apply it to the session's book and store it; returns it with its receipt.
    Read without the lock (``state.guard``), the hand has the id reserved for it, and ``key`` (the
    submission under an Idempotency-Key, its body the receipt) is stored with it.

    The book needs the latest hand only: the slot and dealer follow from it and the totals are the
    session's kept ones plus this hand; the tests compare both with a computation over every hand
    (tests/scale/test_submission.py).
    """
    with _judged_again_under_lock(state.guard):
        result, expected, book = _judged(session, state, record, party, expected_number, text_checked=text_checked)
    event = session.table.round.event
    user = party.user if getattr(party.user, "is_authenticated", False) else None
    hand = Hand(
        session=session, number=expected.number, dealer=record["dealer"], record=record, result=result,
        entered_by_seat=party.seat, unconfirmed=event.confirm_hands and not policy.organises_event(user, event),
    )
    version = HandVersion(hand=hand, version=1, dealer=hand.dealer, record=record, result=result, created_by=user,
                          via_scorer_token=party.via_scorer_token)
    outcome = book.apply(played(hand))
    # A table's device (its scorer token) reads none of the live pages after its hand: their
    # versions move with this process's next push (``tournaments/live.py``, ``announce_all``).
    coalesced = party.via_scorer_token and settings.LIVE_COALESCE_SCORER_HANDS
    if state.guard is None:
        _store(session, outcome, new=(hand, version), coalesced=coalesced)
        return hand, _receipt(hand, session, outcome.book, unconfirmed=state.waiting + hand.unconfirmed)
    if outcome.transfers is not None or outcome.result_changed:
        # The session's result or its payments are written besides the hand: under the lock.
        raise sql.NeedsLock("this hand ends its session")
    hand.pk = state.guard.hand_id

    def receipt() -> dict:  # once the session's kept state is the hand's (``_keep``)
        return _receipt(hand, session, outcome.book, unconfirmed=state.waiting + hand.unconfirmed)

    if key is not None:
        key.hand = hand
    _store(session, outcome, new=(hand, version), guard=state.guard, key=key, receipt=receipt, coalesced=coalesced)
    return hand, key.body if key is not None else receipt()


@contextmanager
def _judged_again_under_lock(guard: sql.Guard | None):
    """A refusal (422, 409) of a submission read without the lock (``guard``) is judged again
    under it (``sql.NeedsLock``): the record may be the hand after one whose write held the lock
    while this one read (two devices of one table). Nothing is written before the judgement."""
    try:
        yield
    except (Invalid, Conflict, RecordRejected) as refusal:
        if guard is None:
            raise
        raise sql.NeedsLock("refused by the state read without the lock") from refusal


def _judged(session: Session, state: sql.TableState, record, party: policy.Party,
            expected_number: int | None, *, text_checked: bool = False) -> tuple[dict, Expected, SessionBook]:
    """The next hand's result (the engine's), its slot and the book it is applied to; or a refusal
    (``text_checked``: as ``Entry``'s)."""
    if session.status != Session.Status.OPEN:
        raise Conflict(f"the session is {session.status}; no more hands", code=Error.SESSION_CLOSED)
    last = state.last if state.session is not None else None
    rules = session_rules(session, state.seats)
    hands = None
    if last is not None and len(session.totals or ()) != rules.players:
        hands = list(session.hands.order_by("number"))  # totals never kept yet: the book over every hand
    book = book_of(session, rules, hands, players=state.players, last=last, voided=state.voided)
    expected = book.next
    if expected_number is not None and expected_number != expected.number:
        raise Conflict(
            f"hand {expected_number} is not the next hand; the next is hand {expected.number}", code=Error.NOT_NEXT_HAND
        )
    result = _judge(record, rules, expected, text_checked=text_checked)
    if party.seat is not None and not 0 <= party.seat < rules.players:
        raise Invalid(f"this table has no seat {party.seat}", field="entered_by_seat")
    return result, expected, book


def _seated(session: Session) -> list[int]:
    return list(Seat.objects.filter(table_id=session.table_id).order_by("position").values_list("player_id", flat=True))


def _read_book(session: Session) -> tuple[SessionBook, list[Hand]]:
    """The book of ``session`` over every stored hand (a correction, a void, a confirmation), read
    in the write's transaction after the table's lock; with the hands read."""
    players = _seated(session)
    hands = list(session.hands.order_by("number"))
    return book_of(session, session_rules(session, len(players)), hands, players=players), hands


def _store(session: Session, outcome: Outcome, *, new: tuple[Hand, HandVersion] | None = None,
           guard: sql.Guard | None = None, key: IdempotentSubmission | None = None, receipt=None,
           coalesced: bool = False) -> None:
    """Store ``outcome`` in the caller's transaction: the session's kept state that changed, its
    players' round and event sums (``outcome.standings``) and its series' sync request (the
    series' public standings are recomputed after the commit: ``standings/outbox.py``); with
    ``new`` (a submission) the hand and its first version too, in one statement on PostgreSQL
    (``sql.store_hand``; with ``guard``, only while the table is as it was read, and ``key`` with
    its body ``receipt()``). Then the payments a Maumau series owes, and the announcements: the
    table's live pages (and its series' pages, which the room screens of the series' events
    follow too: ``tournaments/live.py``; ``coalesced``: a hand from the table's scorer token, whose
    writer reads none of those pages after it, moves their versions with the process's next push),
    the ratings when the session's result changed."""
    fields = _keep(session, outcome)
    table = session.table
    event_id, round_id = table.round.event_id, table.round_id
    changes = outcome.standings
    series_requested = None
    if new is not None:
        if key is not None:
            key.body = receipt()
        series_requested = sql.store_hand(*new, session, fields, standings=(event_id, round_id, changes),
                                          guard=guard, key=key)
        series_outbox.requested([series_requested], announced=True)
    elif fields:
        sql.update(session, fields)
        aggregates.apply(event_id, round_id, changes)
        if changes:
            series_outbox.request_for_events([event_id])  # its series, read after the table's lock
    announce_table_results_changed(event_id=event_id, table_id=table.pk, session_id=session.pk,
                                   held=table.round.results_held, series_id=table.round.event.series_id,
                                   series_requested=series_requested, coalesced=coalesced)
    if outcome.transfers is not None:
        _store_transfers(session, outcome.transfers)
    if outcome.result_changed:
        announce_session_result_changed(session.pk)


def _keep(session: Session, outcome: Outcome) -> list[str]:
    """Set on ``session`` what ``outcome`` changes of it; returns those fields in the order they
    are written (one statement text per set of fields, prepared once per connection)."""
    before, kept, now = outcome.before.kept, outcome.kept, timezone.now()
    changed = []
    if kept.first_dealer != before.first_dealer:
        session.first_dealer = kept.first_dealer
        changed.append("first_dealer")
    if kept.totals != before.totals:
        session.totals = list(kept.totals)
        changed.append("totals")
    if kept.hand_count != before.hand_count:
        session.hand_count = kept.hand_count
        changed.append("hand_count")
    if kept.status != before.status:
        session.status = kept.status
        changed.append("status")
    if outcome.finished is not None:
        session.finished_at = now if outcome.finished else None
        changed.append("finished_at")
    if outcome.rating_dirty:
        session.rating_dirty_at = now
        changed.append("rating_dirty_at")
    return changed


def _store_transfers(session: Session, owed: tuple[tuple[int, int, int], ...]) -> None:
    """The session's payments made what ``owed`` says (payer, payee, cents): a correction that
    changed the settlement deletes the payments no longer owed; those still owed stay as they
    are (paid or not)."""
    existing = {(t.payer_id, t.payee_id, t.cents): t for t in session.transfers.all()}
    for key, transfer in existing.items():
        if key not in owed:
            transfer.delete()
    for payer, payee, cents in owed:
        if (payer, payee, cents) not in existing:
            Transfer.objects.create(session=session, payer_id=payer, payee_id=payee, cents=cents)


def session_recount(*, session: Session) -> None:
    """The session's book restated over its stored hands and stored, for hands written around the
    services (an import): totals, hand count, status, money and standings sums as the writes
    leave them."""
    book, _ = _read_book(session)
    _store(session, book.restate(book.hands))


def maumau_settlement(rules: SessionRules, hands: list[Hand]) -> dict:
    """The series' totals (minus points), nets and transfers (rules/maumau.md; ``book.money``).

    Each game enters as its minus points, so voided games count for nothing and corrected games
    count as corrected.
    """
    sums = totals(rules, [played(hand) for hand in hands])
    nets, transfers = money(sums, rules.maumau_stake_cents)
    return {"totals": [-total for total in sums], "nets": nets, "transfers": transfers}


def session_summary(session: Session, *, hands: list[Hand] | None = None, rules: SessionRules | None = None) -> dict:
    """Status, hand count, totals per seat and the next expected hand of a session (``hands`` and
    ``rules`` when the caller holds them already); the totals computed over its hands."""
    rules = rules or session_rules(session)
    hands = list(session.hands.order_by("number")) if hands is None else hands
    book = book_of(session, rules, hands)
    return _summary(session, book, unconfirmed=sum(hand.unconfirmed for hand in hands),
                    totals=totals(rules, book.hands))


def _summary(session: Session, book: SessionBook, *, unconfirmed: int, totals: list[int] | None = None) -> dict:
    """The session as a receipt shows it, by its book; ``totals`` by default the kept ones."""
    kept = book.kept
    expected = book.next
    return {
        "id": session.pk, "status": kept.status, "hands": book.count, "unconfirmed": unconfirmed,
        "totals": list(kept.totals if totals is None else totals), "first_dealer": kept.first_dealer,
        "next": None if kept.status != OPEN else {
            "hand": expected.number, "dealer": expected.dealer, "direction": expected.direction,
        },
    }


def hand_view(hand: Hand) -> dict:
    return {
        "id": hand.pk, "session": hand.session_id, "number": hand.number, "dealer": hand.dealer,
        "version": hand.version, "voided": hand.voided, "record": hand.record, "result": hand.result,
        "entered_by_seat": hand.entered_by_seat, "unconfirmed": hand.unconfirmed, "disputed": hand.disputed,
    }


def hand_receipt(hand: Hand, session: Session, *, hands: list[Hand] | None = None,
                 rules: SessionRules | None = None) -> dict:
    """What a table is told about a stored hand: the hand, its result and the session after it."""
    return {"hand": hand_view(hand), "result": hand.result, "session": session_summary(session, hands=hands, rules=rules)}


def _receipt(hand: Hand, session: Session, book: SessionBook, *, unconfirmed: int) -> dict:
    """``hand_receipt`` after a write, from the book the write left."""
    return {"hand": hand_view(hand), "result": hand.result, "session": _summary(session, book, unconfirmed=unconfirmed)}


def _slot(hands: list[Hand], hand: Hand) -> int:
    """``hand``'s slot in the book over ``hands`` (its place among the session's hands, from 1)."""
    return next(index for index, other in enumerate(hands, start=1) if other.pk == hand.pk)


def _waiting(hands: list[Hand], hand: Hand) -> int:
    """How many of ``hands`` (read before ``hand``'s write) wait for a confirmation now."""
    return sum(other.unconfirmed for other in hands if other.pk != hand.pk) + hand.unconfirmed


def _hand_event(hand: Hand):
    return hand.session.table.round.event_id


def hand_correct(*, hand: Hand, record, by_user, reason: str, via: str = "api") -> dict:
    """Replace a hand's record. It is validated like a submission against the hand before it;
    later hands stand as played. The old version is kept and one audit entry written."""
    with transaction.atomic():
        hand = _lock_hand(hand)
        session = hand.session
        book, hands = _read_book(session)
        slot = _slot(hands, hand)
        result = _judge(record, book.rules, book.expected_at(slot))
        before = {"version": hand.version, "dealer": hand.dealer, "scores": hand.scores, "voided": hand.voided}
        _new_version(hand, record=record, result=result, voided=False, by_user=by_user, reason=reason)
        audit.record(actor=by_user, via=via, action=audit.Action.HAND_CORRECTED, obj=hand, event=_hand_event(hand),
                     reason=reason, before=before,
                     after={"version": hand.version, "dealer": hand.dealer, "scores": result["scores"], "voided": False})
        outcome = book.apply(played(hand), number=slot)
        _store(session, outcome)
        return _receipt(hand, session, outcome.book, unconfirmed=_waiting(hands, hand))


def hand_void(*, hand: Hand, by_user, reason: str, via: str = "api") -> dict:
    """Void a hand: it keeps its slot (its dealer still moved) and scores nothing."""
    with transaction.atomic():
        hand = _lock_hand(hand)
        if hand.voided:
            raise Conflict("this hand is already void", code=Error.ALREADY_VOID)
        session = hand.session
        book, hands = _read_book(session)
        before = {"version": hand.version, "dealer": hand.dealer, "scores": hand.scores, "voided": False}
        _new_version(hand, record=hand.record, result=None, voided=True, by_user=by_user, reason=reason)
        audit.record(actor=by_user, via=via, action=audit.Action.HAND_VOIDED, obj=hand, event=_hand_event(hand),
                     reason=reason, before=before,
                     after={"version": hand.version, "dealer": hand.dealer, "scores": None, "voided": True})
        outcome = book.apply(played(hand), number=_slot(hands, hand))
        _store(session, outcome)
        return _receipt(hand, session, outcome.book, unconfirmed=_waiting(hands, hand))


def _new_version(hand: Hand, *, record, result, voided: bool, by_user, reason: str) -> None:
    hand.version += 1
    hand.record, hand.result, hand.voided = record, result, voided
    if hand.unconfirmed:
        # An organiser's correction or void decides a hand that waited for confirmation.
        _mark_confirmed(hand, seat=None, by_user=by_user)
    if record is not None and not voided:
        hand.dealer = record["dealer"]
    hand.save()
    HandVersion.objects.create(
        hand=hand, version=hand.version, dealer=hand.dealer, record=record, result=result, voided=voided,
        created_by=by_user if getattr(by_user, "is_authenticated", False) else None, reason=reason,
    )


# A hand's confirmation state (events with ``confirm_hands``), as the services write it; with the
# seat that entered it, what an export carries of each hand besides its versions
# (tournaments/results/exchange.py; ``confirmed_by``, a user account, stays in its database).
CONFIRMATION_FIELDS = ("unconfirmed", "disputed", "confirmed_at", "confirmed_by_seat", "confirmed_by")
HAND_STATE_FIELDS = ("entered_by_seat", *CONFIRMATION_FIELDS)


def _mark_confirmed(hand: Hand, *, seat: int | None, by_user) -> None:
    hand.unconfirmed = hand.disputed = False
    hand.confirmed_at, hand.confirmed_by_seat = timezone.now(), seat
    hand.confirmed_by = by_user if getattr(by_user, "is_authenticated", False) else None


def _lock_unconfirmed(hand: Hand) -> Hand:
    hand = _lock_hand(hand)
    if not hand.unconfirmed:
        raise Conflict("this hand does not wait for a confirmation", code=Error.NOT_UNCONFIRMED)
    return hand


def _check_seat(hand: Hand, seat: int | None) -> None:
    """A confirming or disputing seat is one of the hand's table (a seat of the session's players)."""
    if seat is not None and not 0 <= seat < Seat.objects.filter(table_id=hand.session.table_id).count():
        raise Invalid(f"this table has no seat {seat}", field="seat")


def _named(seat: int | None, player) -> dict:
    """What a confirmation's or dispute's audit row says of who did it: the seat, and the player
    when his bound phone proved who he is (``policy.Party.player``)."""
    return {"seat": seat, **({"player": player.pk} if player is not None else {})}


def hand_confirm(*, hand: Hand, seat: int | None, by_user=None, via: str = "api", player=None) -> dict:
    """Another seat of the table confirms a hand entered by one seat; from now on it counts.

    ``seat`` is the confirming player's seat; ``None`` only for the event's organisers, who
    confirm a disputed hand. The seat that entered the hand cannot confirm it (403 ``same_seat``).
    ``player``: the player whose bound phone confirms (the audit row names him).
    """
    with transaction.atomic():
        hand = _lock_unconfirmed(hand)
        _check_seat(hand, seat)
        event = hand.session.table.round.event
        if seat is None and not policy.organises_event(by_user, event):
            raise NotAllowed("a hand is confirmed by another seat of the table or by an organiser", code=Error.SEAT_REQUIRED)
        if seat is not None and hand.entered_by_seat is not None and seat == hand.entered_by_seat:
            raise NotAllowed("the seat that entered a hand cannot confirm it; another player confirms", code=Error.SAME_SEAT)
        session = hand.session
        book, hands = _read_book(session)
        before = {"unconfirmed": True, "disputed": hand.disputed, "entered_by_seat": hand.entered_by_seat}
        _mark_confirmed(hand, seat=seat, by_user=by_user)
        hand.save(update_fields=[*CONFIRMATION_FIELDS, "updated_at"])
        audit.record(actor=by_user, via=via, action=audit.Action.HAND_CONFIRMED, obj=hand, event=event,
                     before=before, after={"unconfirmed": False, "confirmed_by_seat": seat, "scores": hand.scores},
                     data=_named(seat, player))
        outcome = book.apply(played(hand), number=_slot(hands, hand))
        _store(session, outcome)
        return _receipt(hand, session, outcome.book, unconfirmed=_waiting(hands, hand))


def hand_dispute(*, hand: Hand, seat: int | None, reason: str, by_user=None, via: str = "api", player=None) -> dict:
    """A seat disputes an unconfirmed hand: it goes on waiting, now for the organisers, who
    confirm, correct or void it. ``player``: as for ``hand_confirm``."""
    with transaction.atomic():
        hand = _lock_unconfirmed(hand)
        _check_seat(hand, seat)
        if hand.disputed:
            raise Conflict("this hand is already disputed; the organisers decide", code=Error.ALREADY_DISPUTED)
        hand.disputed = True
        hand.save(update_fields=["disputed", "updated_at"])
        audit.record(actor=by_user, via=via, action=audit.Action.HAND_DISPUTED, obj=hand,
                     event=hand.session.table.round.event_id, reason=reason,
                     before={"disputed": False}, after={"disputed": True}, data=_named(seat, player))
        table = hand.session.table
        announce_table_results_changed(event_id=table.round.event_id, table_id=table.pk, session_id=hand.session_id,
                                       held=table.round.results_held, series_id=table.round.event.series_id)
        return hand_receipt(hand, hand.session)


def session_abandon(*, session: Session, by_user, reason: str, via: str = "api") -> Session:
    """An organiser abandons a session: it is shown as such and not rated."""
    with transaction.atomic():
        sql.lock_table(session.table_id)
        session = Session.objects.select_related("table__round__event").get(pk=session.pk)
        if session.status == Session.Status.ABANDONED:
            raise Conflict("this session is already abandoned", code=Error.ALREADY_ABANDONED)
        was = session.status
        players = _seated(session)
        # Its kept state is all abandoning needs: the book without its hands. A finished session
        # leaves the ratings pool (``Outcome.rating_dirty``).
        outcome = book_of(session, session_rules(session, len(players)), players=players).abandon()
        _store(session, outcome)
        audit.record(actor=by_user, via=via, action=audit.Action.SESSION_ABANDONED, obj=session,
                     event=session.table.round.event_id, reason=reason, before={"status": was},
                     after={"status": session.status})
        return session


def transfer_mark_paid(*, transfer: Transfer, by_user, via: str = "api") -> Transfer:
    """An organiser ticks a Maumau payment as paid (once)."""
    with transaction.atomic():
        transfer = Transfer.objects.select_for_update().select_related("session__table__round").get(pk=transfer.pk)
        if transfer.paid:
            raise Conflict("this payment is already marked paid", code=Error.ALREADY_PAID)
        transfer.paid, transfer.paid_at = True, timezone.now()
        transfer.save(update_fields=["paid", "paid_at"])
        audit.record(actor=by_user, via=via, action=audit.Action.TRANSFER_PAID, obj=transfer,
                     event=transfer.session.table.round.event_id, before={"paid": False},
                     after={"paid": True, "cents": transfer.cents})
        announce_event_shown_changed(transfer.session.table.round.event_id)  # the event page's money
        return transfer


def transfer_mark_unpaid(*, transfer: Transfer, by_user, reason: str = "", via: str = "api") -> Transfer:
    """An organiser takes back a "paid" tick given by mistake: audited with the time it had."""
    with transaction.atomic():
        transfer = Transfer.objects.select_for_update().select_related("session__table__round").get(pk=transfer.pk)
        if not transfer.paid:
            raise Conflict("this payment is not marked paid", code=Error.NOT_PAID)
        paid_at = transfer.paid_at
        transfer.paid, transfer.paid_at = False, None
        transfer.save(update_fields=["paid", "paid_at"])
        audit.record(actor=by_user, via=via, action=audit.Action.TRANSFER_UNPAID, obj=transfer,
                     event=transfer.session.table.round.event_id, reason=reason,
                     before={"paid": True, "paid_at": paid_at.isoformat() if paid_at else None},
                     after={"paid": False, "cents": transfer.cents})
        announce_event_shown_changed(transfer.session.table.round.event_id)
        return transfer
