"""A task really goes through Redis to a live worker and back."""
from __future__ import annotations

import uuid

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.live_worker]


def test_task_round_trip_through_redis_and_a_live_worker(live_worker):
    from tournaments.tasks import ping

    payload = uuid.uuid4().hex
    result = ping.delay(payload)
    answer = result.get(timeout=30)
    assert answer["echo"] == payload
    assert answer["worker"].startswith("test-worker-")
    # It was not run in-process: the result came back through the broker's result backend.
    assert result.backend.__class__.__name__ == "RedisBackend"
