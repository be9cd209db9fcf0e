"""Benchmark of an announcement's delivery on the live pages' Redis layer (``stich/layers.py``).

    REDIS_URL=redis://... python -m bench.layer [--groups 23] [--deliveries 500] [--chunks 7]

A hand in an event of a series of ten events is announced to 23 groups (each event's public and
organisers' groups, and the series'), most of which nobody listens to. ``group_send_many`` drops
each group's expired members and counts the rest in one command (``_PRUNE_AND_COUNT``); before it,
a pipeline of ``ZREMRANGEBYSCORE`` and ``ZCARD`` per group did the same in one round trip. This
times both on groups nobody listens to, chunk for chunk in turn, and reports this process's CPU per
delivery (median of ``--chunks`` chunks of ``--deliveries``) and the ratio of the two.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid


def _pipeline(layer):
    """The per-group pipeline ``group_send_many`` used before its script: its expiry and count."""
    async def prune_and_count(groups: list[str]) -> list[int]:
        expired = int(time.time()) - layer.group_expiry
        pipe = layer.connection(0).pipeline(transaction=False)
        for group in groups:
            key = layer._group_key(group)
            pipe.zremrangebyscore(key, min=0, max=expired)
            pipe.zcard(key)
        return (await pipe.execute())[1::2]
    return prune_and_count


def measure(url: str, groups: int = 23, deliveries: int = 500, chunks: int = 7) -> dict:
    """CPU milliseconds per delivery to ``groups`` empty groups on the Redis at ``url``: the
    layer's and the pipeline's."""
    from stich.layers import BoundedRedisChannelLayer

    layer = BoundedRedisChannelLayer(hosts=[url], prefix=f"bench-{uuid.uuid4().hex}:")
    names = [f"event-{n}" for n in range(groups)]
    sends = [(name, {"type": "results.changed"}) for name in names]
    pipeline = _pipeline(layer)

    async def script(count: int) -> None:
        for _ in range(count):
            await layer.group_send_many(sends)

    async def piped(count: int) -> None:
        for _ in range(count):
            await pipeline(names)

    loop = asyncio.new_event_loop()
    try:
        for run in (script, piped):  # connections opened, the script known to Redis
            loop.run_until_complete(run(20))
        spent: dict[str, list[float]] = {"script": [], "pipeline": []}
        for _ in range(chunks):
            for name, run in (("script", script), ("pipeline", piped)):
                started = time.process_time()
                loop.run_until_complete(run(deliveries))
                spent[name].append((time.process_time() - started) / deliveries * 1000)
        loop.run_until_complete(layer.flush())
    finally:
        loop.close()
    script_ms, pipeline_ms = statistics.median(spent["script"]), statistics.median(spent["pipeline"])
    return {"groups": groups, "script_ms": script_ms, "pipeline_ms": pipeline_ms, "ratio": pipeline_ms / script_ms}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.layer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=23)
    parser.add_argument("--deliveries", type=int, default=500)
    parser.add_argument("--chunks", type=int, default=7)
    args = parser.parse_args(argv)
    if not os.environ.get("REDIS_URL"):
        raise SystemExit("needs REDIS_URL")
    figures = measure(os.environ["REDIS_URL"], args.groups, args.deliveries, args.chunks)
    print(f"a delivery to {figures['groups']} groups nobody listens to, this process's CPU (median of "
          f"{args.chunks} chunks of {args.deliveries}):")
    print(f"  one script (group_send_many): {figures['script_ms']:.3f} ms")
    print(f"  a pipeline of two commands per group: {figures['pipeline_ms']:.3f} ms")
    print(f"  pipeline / script: {figures['ratio']:.1f}x")


if __name__ == "__main__":
    main()
