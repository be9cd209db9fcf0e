"""Signals of the tournament domain, and the one place that schedules them.

Services call the ``announce_*`` functions inside their transaction; the signals are sent on
commit, so receivers see the stored result (and nothing is announced for a rolled-back change).
"""
from django.db import transaction
from django.dispatch import Signal

# A session's result changed: it finished, was corrected after finishing, reopened or was
# abandoned. Sent with ``session_id``. The ratings app queues its recompute on it.
session_result_changed = Signal()

# Which results the public may see changed: a round was held back or released. Sent with
# ``event_id``. The ratings app re-syncs that event's pool.
results_visibility_changed = Signal()

# A table's hands changed (a hand stored, corrected or voided). Sent with ``event_id``,
# ``table_id`` and ``session_id``: live pages refresh on it.
table_results_changed = Signal()


def announce_session_result_changed(session_id: int) -> None:
    transaction.on_commit(lambda: session_result_changed.send(sender=None, session_id=session_id))


def announce_results_visibility_changed(event_id: int) -> None:
    transaction.on_commit(lambda: results_visibility_changed.send(sender=None, event_id=event_id))


def announce_table_results_changed(*, event_id: int, table_id: int, session_id: int) -> None:
    transaction.on_commit(lambda: table_results_changed.send(
        sender=None, event_id=event_id, table_id=table_id, session_id=session_id,
    ))
