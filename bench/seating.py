"""Benchmark of the seating draw against a plain baseline, on the same fields, in one run.

    python -m bench.seating [--seed N] [--json] [--search-seconds S]

The baseline draws each round by shuffling the players 1,000 times and keeping the shuffle whose
tables repeat the fewest pairs. Scenarios:

- planned at once: 16 players in tables of 4 over 5 rounds, 25 in tables of 5 over 6 rounds
  (schedules without a repeated pair exist: the affine planes of order 4 and 5);
- 32 players in tables of 4 planned at once (at most 60 s): the most rounds in a row without a
  repeated pair (10 is the most there can be: the social golfer problem 8-4-10); also the plain
  schedule search alone, without the algebraic schedules, for comparison;
- 32 players in tables of 4 drawn round by round over 10 rounds: rounds without repeats and the
  repeated pairs after 10 rounds, both as the draw works by default (it continues a schedule
  without repeats while the history follows one) and with the search alone;
- 23 players of Mü (tables of 5, 5, 5, 4, 4) over 8 rounds: repeated pairs against the lower
  bound 336 - 253 = 83 (8 rounds seat 336 pairs; only 253 distinct pairs exist).

Not a test: it prints figures; nothing here is timed against a limit.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

import tournaments.draws.seating as seating
from tournaments.draws.seating import (
    MeetingHistory,
    draw_round,
    plan_schedule,
    quality,
    table_sizes,
)

FIELDS = (
    "repeated_pairs",
    "pairs_meeting_twice",
    "pairs_meeting_three_plus",
    "max_meetings",
    "repeats_from_previous_round",
    "players_off_size_more_than_once",
    "zero_repeat_rounds",
    "rounds_without_repeats",
    "seconds",
)


def baseline_round(players, sizes, history: MeetingHistory, rng: random.Random, shuffles: int = 1000):
    """Shuffle ``shuffles`` times; keep the seating with the fewest pairs that met before."""
    best, fewest = None, None
    order = list(players)
    for _ in range(shuffles):
        rng.shuffle(order)
        tables, start = [], 0
        for k in sizes:
            tables.append(tuple(order[start:start + k]))
            start += k
        repeats = sum(
            1 for table in tables for i, a in enumerate(table) for b in table[i + 1:] if history.met(a, b)
        )
        if fewest is None or repeats < fewest:
            best, fewest = tables, repeats
            if repeats == 0:
                break
    return best


def rounds_without_repeats(rounds) -> int:
    """How many rounds from the first one go by before some pair meets a second time."""
    history = MeetingHistory()
    for count, round_ in enumerate(rounds):
        if quality([round_], history)["repeated_pairs"]:
            return count
        history.add_round(round_)
    return len(rounds)


def report(rounds, best, seconds) -> dict:
    rounds = [[list(table) for table in round_] for round_ in rounds]
    fields = quality(rounds, best=best)
    fields["rounds_without_repeats"] = rounds_without_repeats(rounds)
    fields["seconds"] = round(seconds, 3)
    return {key: fields[key] for key in FIELDS}


def timed(run: Callable[[], list]) -> tuple[list, float]:
    start = time.perf_counter()
    rounds = run()
    return rounds, time.perf_counter() - start


def by_rounds(draw: Callable, players, sizes, count, best, rng) -> list:
    history = MeetingHistory(best=best)
    rounds = []
    for _ in range(count):
        tables = draw(players, sizes, history, rng)
        history.add_round(tables)
        rounds.append(tables)
    return rounds


def project_draw(**options):
    def draw(players, sizes, history, rng):
        return draw_round(players, sizes, history, rng, **options).tables

    return draw


def planned(players, sizes, count, seed, time_limit=60.0, use_designs=True):
    draws = plan_schedule(players, sizes, count, rng=seed, time_limit=time_limit, use_designs=use_designs)
    return [d.tables for d in draws]


def planned_search_only(players, sizes, count, seed, time_limit):
    """The schedule search alone: no algebraic schedule to start from."""
    return planned(players, sizes, count, seed, time_limit, use_designs=False)


def scenarios(seed: int, search_seconds: float):
    """(name, method, bound or None, thunk) for every run of the benchmark."""
    four = (4,)
    mu_best = seating.GAME_SIZES["mu"].best
    mu_sizes = table_sizes("mu", 23)
    p16, p25, p32, p23 = (list(range(n)) for n in (16, 25, 32, 23))
    return [
        ("16 in 4s, 5 rounds, planned", "project", 0, four,
         lambda: planned(p16, [4] * 4, 5, seed)),
        ("16 in 4s, 5 rounds, planned", "baseline", 0, four,
         lambda: by_rounds(baseline_round, p16, [4] * 4, 5, four, random.Random(seed))),
        ("25 in 5s, 6 rounds, planned", "project", 0, (5,),
         lambda: planned(p25, [5] * 5, 6, seed)),
        ("25 in 5s, 6 rounds, planned", "baseline", 0, (5,),
         lambda: by_rounds(baseline_round, p25, [5] * 5, 6, (5,), random.Random(seed))),
        ("32 in 4s, planned (60 s)", "project", 0, four,
         lambda: planned(p32, [4] * 8, 10, seed, 60.0)),
        ("32 in 4s, planned (60 s)", f"search only ({search_seconds:g} s)", 0, four,
         lambda: planned_search_only(p32, [4] * 8, 10, seed, search_seconds)),
        ("32 in 4s, planned (60 s)", "baseline", 0, four,
         lambda: by_rounds(baseline_round, p32, [4] * 8, 10, four, random.Random(seed))),
        ("32 in 4s, round by round, 10 rounds", "project", None, four,
         lambda: by_rounds(project_draw(), p32, [4] * 8, 10, four, random.Random(seed))),
        ("32 in 4s, round by round, 10 rounds", "search only", None, four,
         lambda: by_rounds(project_draw(continue_schedule=False), p32, [4] * 8, 10, four,
                           random.Random(seed))),
        ("32 in 4s, round by round, 10 rounds", "baseline", None, four,
         lambda: by_rounds(baseline_round, p32, [4] * 8, 10, four, random.Random(seed))),
        ("23 Mü (5,5,5,4,4), 8 rounds", "project planned", 83, mu_best,
         lambda: planned(p23, mu_sizes, 8, seed)),
        ("23 Mü (5,5,5,4,4), 8 rounds", "project round by round", 83, mu_best,
         lambda: by_rounds(project_draw(), p23, mu_sizes, 8, mu_best, random.Random(seed))),
        ("23 Mü (5,5,5,4,4), 8 rounds", "baseline", 83, mu_best,
         lambda: by_rounds(baseline_round, p23, mu_sizes, 8, mu_best, random.Random(seed))),
    ]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.seating", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--search-seconds", type=float, default=20.0,
                        help="time for the search-only plan of 32 players (default 20)")
    args = parser.parse_args(argv)
    results = []
    for name, method, bound, best, run in scenarios(args.seed, args.search_seconds):
        rounds, seconds = timed(run)
        row = {"scenario": name, "method": method, "lower_bound": bound}
        row.update(report(rounds, best, seconds))
        results.append(row)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    short = {
        "repeated_pairs": "repeats",
        "pairs_meeting_twice": "2nd",
        "pairs_meeting_three_plus": "3rd+",
        "max_meetings": "max",
        "repeats_from_previous_round": "prev",
        "players_off_size_more_than_once": "off>1",
        "zero_repeat_rounds": "0-rounds",
        "rounds_without_repeats": "run",
        "seconds": "s",
    }
    header = f"{'scenario':38} {'method':24} {'bound':>5} " + " ".join(f"{short[f]:>8}" for f in FIELDS)
    print(header)
    print("-" * len(header))
    for row in results:
        bound = "" if row["lower_bound"] is None else row["lower_bound"]
        cells = " ".join(f"{row[f]:>8}" for f in FIELDS)
        print(f"{row['scenario']:38} {row['method']:24} {bound:>5} {cells}")
    print()
    print("repeats: repeated pairs (a pair meeting m times counts m - 1); 2nd / 3rd+: second and "
          "later meetings; max: most meetings of a pair; prev: repeats from the previous round; "
          "off>1: players off-size more than once; 0-rounds: rounds without a repeat; run: rounds "
          "from the first before the first repeat; s: seconds.")


if __name__ == "__main__":
    main()
