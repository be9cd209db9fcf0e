"""Benchmark of the rating model against openskill, on a generated league.

    python -m bench.ratings [--players 2000] [--sessions 100000] [--quick]

The league is ``ratings.generated.generate_league``: players with a latent true skill; each session
draws 4–6 of them, and a player's total is his skill plus noise of one beta, rounded (so equal
totals, ties, happen). Reports, all measured
in the same run on the whole league, each timing the best of three:

- sessions rated per second by ``league.rate_league`` (the compiled loop over arrays, what the
  pools use), by ``model.rate_session`` called for one session after the other from Python (the
  same kernel), and by openskill's ``PlackettLuce.rate``, each as a ratio to openskill; the first
  call of ``rate_league`` (compiling, or loading Numba's cache) on a line of its own;
- the largest difference in mu and sigma against openskill after the whole league;
- how often the ratings after the first 90 % of the sessions order the pairs of players of the
  last 10 % as their totals do (by mu and by mu - 3·sigma), and the same for the true skill.

openskill is the reference, not a dependency of the service: it comes with the ``test`` extra
(``pip install -e '.[test]'``); without it the benchmark says so and leaves its lines out.
"""
from __future__ import annotations

import argparse
import time

from ratings.generated import generate_league
from ratings.league import rate_league, warm_up
from ratings.model import (
    NEW_PLAYER,
    Session,
    pairwise_hits,
    ranks_from_totals,
    rate_session,
)

REPEATS = 3  # each timing is the best of three runs (machines are noisy)


def best_of(run) -> tuple[float, dict]:
    best, state = float("inf"), None
    for _ in range(REPEATS):
        seconds, state = run()
        best = min(best, seconds)
    return best, state


def time_session_by_session(sessions: list[Session]) -> tuple[float, dict]:
    def run():
        started = time.perf_counter()
        state: dict = {}
        get = state.get
        for players, totals, _ in sessions:
            state.update(zip(players, rate_session([get(player, NEW_PLAYER) for player in players],
                                                   ranks_from_totals(totals))))
        return time.perf_counter() - started, state

    return best_of(run)


def time_league(sessions: list[Session]) -> tuple[float, dict]:
    def run():
        started = time.perf_counter()
        state = rate_league(sessions)
        return time.perf_counter() - started, state

    return best_of(run)


def time_openskill(sessions: list[Session]) -> tuple[float, dict] | None:
    """openskill's time and ratings, or ``None`` when it is not installed."""
    try:
        from openskill.models import PlackettLuce
    except ModuleNotFoundError:
        return None
    return best_of(lambda: _time_openskill_once(PlackettLuce(), sessions))


def _time_openskill_once(model, sessions: list[Session]) -> tuple[float, dict]:
    # Ranks are computed before the clock starts: openskill is timed on rating alone.
    ranked = [(session.players, ranks_from_totals(session.totals)) for session in sessions]
    ratings = {}
    started = time.perf_counter()
    for players, ranks in ranked:
        teams = [[ratings.get(player) or model.rating()] for player in players]
        for player, (rated,) in zip(players, model.rate(teams, ranks=ranks)):
            ratings[player] = rated
    elapsed = time.perf_counter() - started
    return elapsed, {player: (rated.mu, rated.sigma) for player, rated in ratings.items()}


def largest_difference(ours: dict, reference: dict) -> float:
    return max(max(abs(ours[p][0] - reference[p][0]), abs(ours[p][1] - reference[p][1])) for p in reference)


def prediction_accuracy(state: dict, held_out: list[Session], *, by: str) -> float:
    hits = pairs = 0
    for session in held_out:
        session_hits, session_pairs = pairwise_hits(state, session, by=by)
        hits += session_hits
        pairs += session_pairs
    return hits / pairs


def first_call_seconds() -> float:
    """The first ``rate_league`` call of this process: compiling the loop, or loading it from
    Numba's cache."""
    started = time.perf_counter()
    warm_up()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ratings", description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--quick", action="store_true", help="200 players, 10,000 sessions")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.sessions = 200, 10_000

    true_skill, league = generate_league(players=args.players, sessions=args.sessions, seed=args.seed)
    print(f"League: {args.players} players, {args.sessions} sessions of 4-6 players "
          f"(seed {args.seed}); ties: "
          f"{sum(len(set(s.totals)) < len(s.totals) for s in league) / len(league):.0%} of sessions")

    compile_seconds = first_call_seconds()
    timings = {
        "ratings.league.rate_league": time_league(league),
        "model.rate_session, 1 by 1": time_session_by_session(league),
    }
    reference = time_openskill(league)
    if reference is not None:
        timings["openskill PlackettLuce.rate"] = reference
    base = reference[0] if reference is not None else timings["ratings.league.rate_league"][0]
    base_name = "openskill" if reference is not None else "rate_league"

    print()
    print(f"Rating all {len(league)} sessions from scratch (best of {REPEATS}):")
    for name, (seconds, _) in timings.items():
        rate = len(league) / seconds
        print(f"  {name:27} {seconds:8.3f} s  {rate:12,.0f} sessions/s  {base / seconds:6.1f}x {base_name}")
    print(f"  first rate_league call of the process (compile or cache load): {compile_seconds:.3f} s")
    if reference is None:
        print("  openskill is not installed (it comes with the test extra: pip install -e '.[test]'): "
              "no comparison with the reference")
    else:
        for name, (_, ours) in list(timings.items())[:2]:
            print(f"  max |mu or sigma difference| {name} vs openskill: "
                  f"{largest_difference(ours, reference[1]):.3g} over {len(reference[1])} players")

    split = len(league) * 9 // 10
    trained = rate_league(league[:split])
    held_out = league[split:]
    truth = {player: (skill, 0.0) for player, skill in enumerate(true_skill)}
    print()
    print(f"Pairwise order of the held-out last {len(held_out)} sessions, "
          f"ratings after the first {split} (pairs with equal totals left out):")
    print(f"  by mu            {prediction_accuracy(trained, held_out, by='mu'):.1%}")
    print(f"  by mu - 3 sigma  {prediction_accuracy(trained, held_out, by='ordinal'):.1%}")
    print(f"  by true skill    {prediction_accuracy(truth, held_out, by='mu'):.1%}  (the ceiling)")


if __name__ == "__main__":
    main()
