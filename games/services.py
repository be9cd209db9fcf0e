"""Writes of hand records: submit, correct, void; and the session bookkeeping that follows.

Every write runs in one transaction that first locks the table row, so submissions to one session
are serialised: hand numbers have no gaps and dealers stay consistent. Side effects (the ratings'
signal) are scheduled with ``transaction.on_commit``.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.rules import Code, RecordError, validate, validate_series
from tournaments.models import AuditEntry, Session, Table, Transfer
from tournaments.progress import Expected, PlayedHand, SessionRules, expected_next, is_finished
from tournaments.signals import session_result_changed

from .models import Hand, HandVersion, IdempotentSubmission


class Conflict(Exception):
    """A submission that cannot be taken now (409): the session is over, or the slot is taken."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


@dataclass
class Outcome:
    status: int
    body: dict


def played(hand: Hand) -> PlayedHand:
    record = hand.record or {}
    return PlayedHand(
        dealer=hand.dealer, voided=hand.voided, result=hand.result,
        full=record.get("summary") is None, direction=record.get("direction", 1),
    )


def session_rules(session: Session) -> SessionRules:
    table = session.table
    return SessionRules.for_event(table.round.event, table.seats.count())


def _check_continues(record: dict, rules: SessionRules, expected: Expected) -> None:
    """The record belongs at this slot of this table (records.md pointers for the members)."""
    if record["game"] != rules.game:
        raise RecordError(Code.WRONG_GAME, f"this table plays {rules.game}, not {record['game']}", "/game")
    if record["players"] != rules.players:
        raise RecordError(
            Code.WRONG_PLAYER_COUNT, f"this table seats {rules.players} players, the record {record['players']}", "/players"
        )
    if expected.dealer is not None and record["dealer"] != expected.dealer:
        raise RecordError(
            Code.WRONG_DEALER, f"hand {expected.number} is dealt by seat {expected.dealer}, not seat {record['dealer']}", "/dealer"
        )
    if rules.game == "maumau" and expected.direction is not None and record.get("summary") is None:
        direction = record.get("direction", 1)
        if direction != expected.direction:
            raise RecordError(
                Code.WRONG_DIRECTION,
                f"game {expected.number} starts in direction {expected.direction}, not {direction}",
                "/direction",
            )


def _lock_table(table_id: int) -> Table:
    return Table.objects.select_for_update().select_related("round__event").get(pk=table_id)


def current_session(table: Table, *, create: bool) -> Session | None:
    session = table.sessions.order_by("-number").first()
    if session is None and create:
        session = Session.objects.create(table=table, number=1)
    return session


def hand_submit(
    *, table: Table, record, by_user=None, via_scorer_token: bool = False,
    expected_number: int | None = None, idempotency_key: str | None = None,
) -> Outcome:
    """Validate ``record`` and store it as the next hand of the table's current session.

    Returns 201 with the stored hand, 422 with the engine's error (nothing stored), 409 when the
    session is over or ``expected_number`` is not the next slot. A repeated ``idempotency_key``
    answers the first response again.
    """
    scope = f"table:{table.pk}" if via_scorer_token else f"user:{getattr(by_user, 'pk', None)}"
    try:
        with transaction.atomic():
            table = _lock_table(table.pk)
            session = current_session(table, create=True)
            if idempotency_key:
                earlier = IdempotentSubmission.objects.filter(scope=scope, key=idempotency_key).first()
                if earlier is not None:
                    return Outcome(earlier.status_code, earlier.body)
            outcome = _submit_locked(session, record, by_user, via_scorer_token, expected_number)
            if outcome.status != 201:
                transaction.set_rollback(True)  # a refused submission stores nothing
                return outcome
            if idempotency_key:
                stored = IdempotentSubmission.objects.create(
                    scope=scope, key=idempotency_key, session=session, status_code=outcome.status, body=outcome.body
                )
                # Answer with the stored body, as retries will be: the database may order a JSON
                # object's keys its own way (PostgreSQL's jsonb), and every answer must be identical.
                stored.refresh_from_db(fields=["body"])
                return Outcome(stored.status_code, stored.body)
            return outcome
    except IntegrityError:
        # Only where the database could not serialise us (SQLite): someone else stored first.
        if idempotency_key:
            earlier = IdempotentSubmission.objects.filter(scope=scope, key=idempotency_key).first()
            if earlier is not None:
                return Outcome(earlier.status_code, earlier.body)
        return Outcome(409, Conflict("hand_taken", "another submission took this hand first").as_dict())


def _submit_locked(session, record, by_user, via_scorer_token, expected_number) -> Outcome:
    if session.status != Session.Status.OPEN:
        return Outcome(409, Conflict("session_closed", f"the session is {session.status}; no more hands").as_dict())
    hands = list(session.hands.order_by("number"))
    rules = session_rules(session)
    expected = expected_next(rules, [played(hand) for hand in hands])
    if expected_number is not None and expected_number != expected.number:
        return Outcome(409, Conflict(
            "hand_taken", f"hand {expected_number} is not the next hand; the next is hand {expected.number}"
        ).as_dict())
    try:
        result = validate(record)
        _check_continues(record, rules, expected)
    except RecordError as error:
        return Outcome(422, error.as_dict())
    hand = Hand.objects.create(
        session=session, number=expected.number, dealer=record["dealer"], record=record, result=result
    )
    HandVersion.objects.create(
        hand=hand, version=1, record=record, result=result,
        created_by=by_user if getattr(by_user, "is_authenticated", False) else None,
        via_scorer_token=via_scorer_token,
    )
    hands.append(hand)
    _settle_session(session, hands)
    return Outcome(201, hand_body(hand, session))


def _settle_session(session: Session, hands: list[Hand]) -> None:
    """Finish or reopen the session by its end condition; settle a finished Maumau series."""
    rules = session_rules(session)
    finished = is_finished(rules, [played(hand) for hand in hands])
    was = session.status
    if session.status == Session.Status.ABANDONED:
        return
    if finished and was != Session.Status.FINISHED:
        session.status, session.finished_at = Session.Status.FINISHED, timezone.now()
    elif not finished and was == Session.Status.FINISHED:
        session.status, session.finished_at = Session.Status.OPEN, None
    session.save(update_fields=["status", "finished_at"])
    if rules.game == "maumau":
        _settle_money(session, hands if finished else [], rules)
    if session.status == Session.Status.FINISHED or was == Session.Status.FINISHED:
        session_id = session.pk
        transaction.on_commit(lambda: session_result_changed.send(sender=Session, session_id=session_id))


def maumau_settlement(rules: SessionRules, hands: list[Hand]) -> dict:
    """The series' totals, nets and transfers, by the engine's settlement (rules/maumau.md).

    Each game enters as its minus points, so voided games count for nothing and corrected games
    count as corrected.
    """
    games = [
        {"game": "maumau", "players": rules.players, "dealer": hand.dealer, "summary": {"minus": hand.result["minus"]}}
        for hand in hands if not hand.voided and hand.result
    ]
    if not games:
        zero = [0] * rules.players
        return {"totals": zero, "nets": zero, "transfers": []}
    return validate_series({"records": games, "stake_cents": rules.maumau_stake_cents})


def _settle_money(session: Session, hands: list[Hand], rules: SessionRules) -> None:
    seats = list(session.table.seats.order_by("position").values_list("player_id", flat=True))
    wanted = []
    if hands:
        for transfer in maumau_settlement(rules, hands)["transfers"]:
            wanted.append((seats[transfer["from"]], seats[transfer["to"]], transfer["cents"]))
    existing = {(t.payer_id, t.payee_id, t.cents): t for t in session.transfers.all()}
    for key, transfer in existing.items():
        if key not in wanted:
            transfer.delete()
    for payer, payee, cents in wanted:
        if (payer, payee, cents) not in existing and cents > 0:
            Transfer.objects.create(session=session, payer_id=payer, payee_id=payee, cents=cents)


def session_summary(session: Session) -> dict:
    """Status, hand count, totals per seat and the next expected hand of a session."""
    from tournaments.progress import totals

    rules = session_rules(session)
    hands = [played(h) for h in session.hands.order_by("number")]
    expected = expected_next(rules, hands)
    return {
        "id": session.pk, "status": session.status, "hands": len(hands), "totals": totals(rules, hands),
        "next": None if session.status != Session.Status.OPEN else {
            "hand": expected.number, "dealer": expected.dealer, "direction": expected.direction,
        },
    }


def hand_view(hand: Hand) -> dict:
    return {
        "id": hand.pk, "session": hand.session_id, "number": hand.number, "dealer": hand.dealer,
        "version": hand.version, "voided": hand.voided, "record": hand.record, "result": hand.result,
    }


def hand_body(hand: Hand, session: Session) -> dict:
    return {"hand": hand_view(hand), "result": hand.result, "session": session_summary(session)}


def _audit(*, actor, action: str, hand: Hand, reason: str, data: dict) -> None:
    AuditEntry.objects.create(
        actor=actor if getattr(actor, "is_authenticated", False) else None, action=action,
        event=hand.session.table.round.event, object_type="hand", object_id=hand.pk, reason=reason, data=data,
    )


def hand_correct(*, hand: Hand, record, by_user, reason: str) -> Outcome:
    """Replace a hand's record. It is validated like a submission against the hand before it;
    later hands stand as played. The old version is kept and one audit entry written."""
    with transaction.atomic():
        _lock_table(hand.session.table_id)
        hand = Hand.objects.select_for_update().get(pk=hand.pk)
        session = hand.session
        earlier = list(session.hands.filter(number__lt=hand.number).order_by("number"))
        rules = session_rules(session)
        expected = expected_next(rules, [played(h) for h in earlier])
        try:
            result = validate(record)
            _check_continues(record, rules, expected)
        except RecordError as error:
            transaction.set_rollback(True)
            return Outcome(422, error.as_dict())
        before = {"version": hand.version, "scores": hand.scores, "voided": hand.voided}
        _new_version(hand, record=record, result=result, voided=False, by_user=by_user, reason=reason)
        _audit(actor=by_user, action="hand_corrected", hand=hand, reason=reason,
               data={"before": before, "after": {"version": hand.version, "scores": result["scores"]}})
        _settle_session(session, list(session.hands.order_by("number")))
        return Outcome(200, hand_body(hand, session))


def hand_void(*, hand: Hand, by_user, reason: str) -> Outcome:
    """Void a hand: it keeps its slot (its dealer still moved) and scores nothing."""
    with transaction.atomic():
        _lock_table(hand.session.table_id)
        hand = Hand.objects.select_for_update().get(pk=hand.pk)
        if hand.voided:
            return Outcome(409, Conflict("already_void", "this hand is already void").as_dict())
        before = {"version": hand.version, "scores": hand.scores, "voided": False}
        _new_version(hand, record=hand.record, result=None, voided=True, by_user=by_user, reason=reason)
        _audit(actor=by_user, action="hand_voided", hand=hand, reason=reason,
               data={"before": before, "after": {"version": hand.version, "voided": True}})
        session = hand.session
        _settle_session(session, list(session.hands.order_by("number")))
        return Outcome(200, hand_body(hand, session))


def _new_version(hand: Hand, *, record, result, voided: bool, by_user, reason: str) -> None:
    hand.version += 1
    hand.record, hand.result, hand.voided = record, result, voided
    if record is not None and not voided:
        hand.dealer = record["dealer"]
    hand.save()
    HandVersion.objects.create(
        hand=hand, version=hand.version, record=record, result=result, voided=voided,
        created_by=by_user if getattr(by_user, "is_authenticated", False) else None, reason=reason,
    )


def session_abandon(*, session: Session, by_user, reason: str) -> Session:
    """An organiser abandons a session: it is shown as such and not rated."""
    with transaction.atomic():
        _lock_table(session.table_id)
        session = Session.objects.get(pk=session.pk)
        was = session.status
        session.status = Session.Status.ABANDONED
        session.save(update_fields=["status"])
        AuditEntry.objects.create(
            actor=by_user if getattr(by_user, "is_authenticated", False) else None, action="session_abandoned",
            event=session.table.round.event, object_type="session", object_id=session.pk, reason=reason,
            data={"before": was},
        )
        session_id = session.pk
        transaction.on_commit(lambda: session_result_changed.send(sender=Session, session_id=session_id))
        return session
