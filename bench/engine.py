"""Benchmark of the rule engine: ``python -m bench.engine [--records N] [--game G]``.

For generated full records of each game it reports records validated per second and the ratio of
validation time to ``json.loads`` time of the same records, measured in one run (machines are
noisy; a ratio measured side by side is what can be compared). Not a timed test.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from importlib import import_module

from games.rules import validate

PLAYER_COUNTS = {"mu": (3, 4, 5, 6), "maumau": (2, 3, 4, 5, 6), "lut": (4, 5, 6)}


def _best_of(repeats: int, func) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def measure(game: str, count: int, seed: int = 1, repeats: int = 5) -> dict:
    simulate = import_module(f"games.simulate.{game}")
    rng = random.Random(seed)
    counts = PLAYER_COUNTS[game]
    records = [
        simulate.random_record(rng, counts[i % len(counts)], dealer=0) for i in range(count)
    ]
    texts = [json.dumps(record) for record in records]
    parsed = [json.loads(text) for text in texts]

    def parse_all():
        for text in texts:
            json.loads(text)

    def validate_all():
        for record in parsed:
            validate(record)

    validate_all()  # warm up, and prove every generated record is legal
    parse_seconds = _best_of(repeats, parse_all)
    validate_seconds = _best_of(repeats, validate_all)
    return {
        "game": game,
        "records": count,
        "validated_per_second": round(count / validate_seconds),
        "json_loads_per_second": round(count / parse_seconds),
        "ratio_to_json_loads": round(validate_seconds / parse_seconds, 2),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--game", choices=sorted(PLAYER_COUNTS), action="append")
    args = parser.parse_args(argv)
    for game in args.game or sorted(PLAYER_COUNTS):
        try:
            print(json.dumps(measure(game, args.records)))
        except ModuleNotFoundError as exc:
            print(json.dumps({"game": game, "skipped": str(exc)}))


if __name__ == "__main__":
    main()
