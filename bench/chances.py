"""Benchmark of the win chances: a table, and a room screen of 50 tables.

    python -m bench.chances [--tables 50] [--repeats 20]

Tables of 2–6 players with random ratings (seeded); reports the best of ``--repeats`` runs, in
milliseconds, for one table (``table_chances``, each size) and for a room of ``--tables`` mixed
tables (``room_chances``, one vectorised pass, and table after table), and the ratio of the two.
"""
from __future__ import annotations

import argparse
import random
import time

from ratings.chances import room_chances, table_chances
from ratings.model import SIGMA


def random_table(rng: random.Random, size: int) -> list[tuple[float, float]]:
    return [(rng.gauss(25.0, 8.0), rng.uniform(0.8, SIGMA)) for _ in range(size)]


def best_ms(run, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return 1000.0 * best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2026)
    options = parser.parse_args(argv)
    rng = random.Random(options.seed)
    room_chances([random_table(rng, 4)])  # imports and first-call costs out of the timing
    for size in range(2, 7):
        table = random_table(rng, size)
        print(f"one table of {size}: {best_ms(lambda: table_chances(table), options.repeats):.2f} ms")
    room = [random_table(rng, rng.randint(2, 6)) for _ in range(options.tables)]
    together = best_ms(lambda: room_chances(room), options.repeats)
    one_by_one = best_ms(lambda: [table_chances(table) for table in room], max(1, options.repeats // 4))
    print(f"{options.tables} tables, one pass: {together:.1f} ms ({together / options.tables:.2f} ms per table)")
    print(f"{options.tables} tables, one by one: {one_by_one:.1f} ms (ratio {one_by_one / together:.2f})")


if __name__ == "__main__":
    main()
