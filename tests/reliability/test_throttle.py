"""The dry run's throttle counts atomically (parallel requests from one address pass no more than
the rate) and answers while the cache is down (counting in the process instead): never a 500."""
from __future__ import annotations

import threading
import time

import pytest
from django.conf import settings

from tests.conftest import client_for

pytestmark = pytest.mark.django_db

DRY_RUN = "/api/v1/records/validate"
RECORD = {"game": "mu", "players": 5, "dealer": 0, "summary": {
    "bids": [3, 1, 3, 4, 1], "chef": 3, "vice": 2, "provocateur": None, "vice_trump": "G", "chef_trump": "1",
    "partner": 0, "card_points": [10, 12, 9, 19, 10]}}


@pytest.fixture
def rate():
    """Sets the dry run's rate; a fixed clock in the middle of a window, a fresh client address."""
    from rest_framework.throttling import ScopedRateThrottle

    from games.throttling import LOCAL, SlidingRateThrottle

    original = ScopedRateThrottle.THROTTLE_RATES
    now = (int(time.time()) // 60) * 60 + 30.0

    def set_rate(value: str) -> None:
        ScopedRateThrottle.THROTTLE_RATES = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "dry_run": value}

    SlidingRateThrottle.timer = lambda self: now
    yield set_rate
    ScopedRateThrottle.THROTTLE_RATES = original
    del SlidingRateThrottle.timer
    SlidingRateThrottle._cache_pause.end()
    with LOCAL._lock:
        LOCAL._values.clear()


def parallel(count: int, threads: int, address: str) -> list[int]:
    codes: list[int] = []
    lock = threading.Lock()
    share = [count // threads + (1 if i < count % threads else 0) for i in range(threads)]

    def run(n: int) -> None:
        client = client_for()
        for _ in range(n):
            code = client.post(DRY_RUN, RECORD, format="json", REMOTE_ADDR=address).status_code
            with lock:
                codes.append(code)

    workers = [threading.Thread(target=run, args=(n,)) for n in share]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return codes


def test_parallel_requests_pass_no_more_than_the_rate(rate):
    rate("120/min")
    codes = parallel(300, 8, "10.20.30.40")
    assert len(codes) == 300 and set(codes) <= {200, 429}
    assert codes.count(200) == 120, codes.count(200)


def test_while_the_cache_is_down_the_dry_run_answers_and_counts_locally(rate):
    from django.core.cache.backends.redis import RedisCache

    from games.throttling import SlidingRateThrottle

    rate("5/min")
    down = RedisCache("redis://127.0.0.1:1/0", {"OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}})
    with pytest.raises(Exception):
        down.get("x")  # the cache really is unreachable
    shared = SlidingRateThrottle.cache
    SlidingRateThrottle.cache = down
    try:
        client = client_for()
        codes = [client.post(DRY_RUN, RECORD, format="json", REMOTE_ADDR="10.20.30.41").status_code for _ in range(8)]
    finally:
        SlidingRateThrottle.cache = shared
    assert codes == [200] * 5 + [429] * 3
    refused = client_for().post(DRY_RUN, RECORD, format="json", REMOTE_ADDR="10.20.30.41")
    assert refused.json()["code"] == "throttled" and refused.json()["retry_after"] >= 1


def test_the_previous_window_still_weighs(rate):
    """A client that used the whole rate at the end of one minute does not get a second full rate
    at the start of the next."""
    from games.throttling import SlidingRateThrottle

    rate("10/min")
    start = (int(time.time()) // 60) * 60.0
    client = client_for()
    SlidingRateThrottle.timer = lambda self: start + 59
    first = [client.post(DRY_RUN, RECORD, format="json", REMOTE_ADDR="10.20.30.42").status_code for _ in range(12)]
    SlidingRateThrottle.timer = lambda self: start + 60 + 6  # a tenth into the next minute
    second = [client.post(DRY_RUN, RECORD, format="json", REMOTE_ADDR="10.20.30.42").status_code for _ in range(12)]
    assert first.count(200) == 10
    assert second.count(200) == 1  # 10 × 0.9 + 1 ≤ 10


def test_the_shared_redis_cache_counts_a_window_in_one_round_trip():
    """``stich.cache.RedisCache.count_window``, the count the throttles take on every request: one
    pipeline (no command on its own), this window's counter created at 1 with the lifetime asked,
    then incremented; the previous window's count read as a number."""
    import uuid

    import redis

    from stich.cache import RedisCache

    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set")
    cache = RedisCache(settings.REDIS_URL, {"KEY_PREFIX": f"count-{uuid.uuid4().hex}"})
    cache.set("previous", 7, 30)
    commands, pipelines = [], []
    original_command, original_pipeline = redis.Redis.execute_command, redis.client.Pipeline.execute

    def command(client, *args, **options):
        if not isinstance(client, redis.client.Pipeline):
            commands.append(args[0])
        return original_command(client, *args, **options)

    def pipeline(pipe, *args, **options):
        pipelines.append([stack_args[0] for stack_args, _ in pipe.command_stack])
        return original_pipeline(pipe, *args, **options)

    redis.Redis.execute_command, redis.client.Pipeline.execute = command, pipeline
    try:
        first = cache.count_window("current", "previous", 121)
        second = cache.count_window("current", "previous", 121)
        fresh = cache.count_window("next", "current", 121)
    finally:
        redis.Redis.execute_command, redis.client.Pipeline.execute = original_command, original_pipeline
    assert (first, second, fresh) == ((1, 7), (2, 7), (1, 2))
    assert commands == [] and pipelines == [["INCRBY", "EXPIRE", "GET"]] * 3
    assert cache.get("current") == 2
    ttl = cache._cache.get_client(write=True).ttl(cache.make_key("current"))
    assert 115 <= ttl <= 121
    cache.delete_many(["previous", "current", "next"])


def test_forget_clears_the_windows_of_the_scopes_own_rate():
    """``forget``, the tests' reset of a client's count, clears the windows of the scope's own rate:
    the registration's are an hour long (``REGISTRATION_THROTTLE``, 20/hour), not a minute."""
    from django.contrib.auth.models import AnonymousUser
    from rest_framework.test import APIRequestFactory

    from games.throttling import SlidingRateThrottle

    address = "10.20.30.50"
    view = type("RegistrationView", (), {"throttle_scope": "registration"})()

    def allowed() -> bool:
        request = APIRequestFactory().post("/", REMOTE_ADDR=address)
        request.user = AnonymousUser()
        return SlidingRateThrottle().allow_request(request, view)

    SlidingRateThrottle.forget("registration", address)
    try:
        limit = SlidingRateThrottle().parse_rate(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["registration"])[0]
        assert [allowed() for _ in range(limit)] == [True] * limit
        assert not allowed()
        SlidingRateThrottle.forget("registration", address)
        assert allowed()
    finally:
        SlidingRateThrottle.forget("registration", address)
