"""Signals of the tournament domain. Sent on commit, so receivers see the stored result."""
from django.dispatch import Signal

# A session's result changed: it finished, was corrected after finishing, reopened or was
# abandoned. Sent with ``session_id``. The ratings app queues its recompute on it.
session_result_changed = Signal()

# Which results the public may see changed: a round was held back or released. Sent with
# ``event_id``. The ratings app re-syncs that event's pool.
results_visibility_changed = Signal()
