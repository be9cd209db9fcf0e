"""Benchmark of the rule engine: ``python -m bench.engine [--records N] [--game G] [--against REV]``.

For generated full records of each game it reports records validated per second and the ratio of
validation time to ``json.loads`` time of the same records, measured in one run (machines are
noisy; a ratio measured side by side is what can be compared). Not a timed test.

``--against REV`` (a git revision) also loads the game's engine module as it was at ``REV``
(``git show REV:games/rules/<game>.py``, beside today's helpers) and times both on the same
records, in alternating chunks of 50 records, the best time of each chunk summed: the ratio of
today's time to that revision's, for a change to the engine.
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
import types
from importlib import import_module
from pathlib import Path

from games.rules import validate

PLAYER_COUNTS = {"mu": (3, 4, 5, 6), "maumau": (2, 3, 4, 5, 6), "lut": (4, 5, 6)}
ROOT = Path(__file__).resolve().parents[1]
CHUNK = 50


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


def engine_at(game: str, revision: str) -> types.ModuleType:
    """The game's engine module as it was at a git revision (its relative imports are today's)."""
    path = f"games/rules/{game}.py"
    source = subprocess.run(
        ["git", "show", f"{revision}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    name = f"games.rules._{game}_at_{revision.replace('-', '_').replace('~', '_').replace('^', '_')}"
    module = types.ModuleType(name)
    module.__package__ = "games.rules"
    module.__file__ = f"{revision}:{path}"
    sys.modules[name] = module  # dataclasses and typing look their module up
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def compare(game: str, revision: str, count: int, seed: int = 1, repeats: int = 9) -> dict:
    """Today's engine against ``revision``'s on the same generated records: chunks of ``CHUNK``
    records timed alternately (the first one alternating too), the best of ``repeats`` per chunk."""
    simulate = import_module(f"games.simulate.{game}")
    rng = random.Random(seed)
    counts = PLAYER_COUNTS[game]
    records = [simulate.random_record(rng, counts[i % len(counts)], dealer=0) for i in range(count)]
    engines = {"today": import_module(f"games.rules.{game}").validate, revision: engine_at(game, revision).validate}
    for check in engines.values():
        for record in records:
            check(record)  # warm up, and prove every record is legal to both
    chunks = [records[start:start + CHUNK] for start in range(0, len(records), CHUNK)]
    best = {name: [float("inf")] * len(chunks) for name in engines}
    names = list(engines)
    for repeat in range(repeats):
        for number, chunk in enumerate(chunks):
            for name in names if (repeat + number) % 2 else names[::-1]:
                check = engines[name]
                started = time.perf_counter()
                for record in chunk:
                    check(record)
                best[name][number] = min(best[name][number], time.perf_counter() - started)
    today, then = sum(best["today"]), sum(best[revision])
    return {
        "game": game,
        "records": count,
        "validated_per_second": round(count / today),
        f"validated_per_second_at_{revision}": round(count / then),
        "time_ratio_to_revision": round(today / then, 3),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--game", choices=sorted(PLAYER_COUNTS), action="append")
    parser.add_argument("--against", metavar="REV", help="also time the engine as it was at this git revision")
    args = parser.parse_args(argv)
    for game in args.game or sorted(PLAYER_COUNTS):
        try:
            print(json.dumps(measure(game, args.records)))
            if args.against:
                print(json.dumps(compare(game, args.against, args.records)))
        except ModuleNotFoundError as exc:
            print(json.dumps({"game": game, "skipped": str(exc)}))


if __name__ == "__main__":
    main()
