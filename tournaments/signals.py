"""Signals of the tournament domain, and the one place that schedules them.

Services call the ``announce_*`` functions inside their transaction; the ``*_changed`` signals are
sent on commit, so receivers see the stored result (and nothing is announced for a rolled-back
change). The ``*_changing`` signals are sent at once, inside the transaction: a receiver that must
not lose the change records its own work there (the ratings' sync request), stored or rolled back
with the change itself.
"""
from django.db import transaction
from django.dispatch import Signal

# A session's result changed: it finished, was corrected after finishing, reopened or was
# abandoned. Sent with ``session_id``.
session_result_changed = Signal()

# Which results the public may see changed: a round was held back or released. Sent with
# ``event_id``.
results_visibility_changed = Signal()

# Sent inside the transaction of the change, with the same arguments as the two above: the
# ratings app writes its pool's sync request on them (ratings/outbox.py).
session_result_changing = Signal()
results_visibility_changing = Signal()

# A table's hands changed (a hand stored, corrected or voided). Sent with ``event_id``,
# ``table_id``, ``session_id``, ``held`` (whether its round's results are held back from the
# public), ``series_id`` (the series the event counts for, read after the table's lock, or
# None), ``series_requested`` (the series whose sync request the write committed, when its pages are to
# move with this signal rather than with ``series_sync_requested``) and ``coalesced`` (a hand from the
# table's scorer token: its live versions move with the process's next push, tournaments/live.py):
# live pages refresh on it.
table_results_changed = Signal()

# The kept public standings of series must be computed again: their sync requests were committed
# (tournaments/standings/outbox.py). Sent on commit with ``series_ids``; the receiver queues the
# sync (tournaments/tasks.py).
series_sync_requested = Signal()


# What the event's public pages show changed, other than a table's hands and the results' visibility
# (announced above): an event edited, a round or table made, changed or deleted, a draw published, a
# player renamed, a payment ticked. Sent on commit with ``event_id``, once per transaction and
# event: the live pages' version of the event is bumped on it (tournaments/live.py), so that no
# fragment rendered before the change is served after it.
event_shown_changed = Signal()


def announce_session_result_changed(session_id: int) -> None:
    session_result_changing.send(sender=None, session_id=session_id)
    transaction.on_commit(lambda: session_result_changed.send(sender=None, session_id=session_id))


def announce_results_visibility_changed(event_id: int) -> None:
    results_visibility_changing.send(sender=None, event_id=event_id)
    transaction.on_commit(lambda: results_visibility_changed.send(sender=None, event_id=event_id))


def announce_table_results_changed(*, event_id: int, table_id: int, session_id: int, held: bool,
                                   series_id: int | None, series_requested: int | None = None,
                                   coalesced: bool = False) -> None:
    """``table_results_changed`` on commit; ``series_requested``: the series
    whose sync request the write committed and announced with ``announced=True``; ``coalesced``:
    the writer reads no page after it (a table's scorer token)."""
    transaction.on_commit(lambda: table_results_changed.send(
        sender=None, event_id=event_id, table_id=table_id, session_id=session_id, held=held, series_id=series_id,
        series_requested=series_requested, coalesced=coalesced,
    ))


def announce_series_sync_requested(series_ids: list[int], *, announced: bool = False) -> None:
    """``series_sync_requested`` on commit; ``announced``: the write's ``table_results_changed``
    moves the series' pages too (``series_requested``), in the same round trip as its event's."""
    transaction.on_commit(lambda: series_sync_requested.send(sender=None, series_ids=series_ids, announced=announced))


def announce_event_shown_changed(*event_ids: int) -> None:
    """``event_shown_changed`` for each event, on commit, once per transaction and event (a draw
    that publishes ten tables announces its event once)."""
    connection = transaction.get_connection()
    pending = {getattr(call, "shown_event", None) for _, call, _ in connection.run_on_commit} if connection.in_atomic_block else set()
    for event_id in dict.fromkeys(event_ids):
        if event_id is None or event_id in pending:
            continue

        def send(event_id=event_id):
            event_shown_changed.send(sender=None, event_id=event_id)
        send.shown_event = event_id
        transaction.on_commit(send)
