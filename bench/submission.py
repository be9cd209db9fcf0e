"""CPU of one hand submission in-process: ``python -m bench.submission [--flush] [--hands N] [--rounds R]``.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.submission --flush

The whole Django stack (middleware, DRF, the service, its statements on the configured database)
is called through Django's test client in this one process, with DEBUG off and the benchmark's
settings (``bench.scale``: its bare DRF endpoint is the baseline). It times this process's CPU
(``time.process_time``), not the wall clock: PostgreSQL's own work, the network and the other
processes of a loaded machine are left out, so the figure moves less than ``bench.scale``'s
(which measures 32 clients through gunicorn). ``--rounds`` alternate a chunk of hand submissions
(four Mü tables whose sessions never finish: every hand changes each player's sums) and a chunk of
bare requests; it reports the median and the best chunk of each, per request, and their ratio.

To compare two revisions, run it in a checkout of each (``git worktree add ../old REV``), each on
a database of its own, one after the other; machines are noisy, so run each several times.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from bench.scale import prepare


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.submission", description=__doc__.split("\n\n")[0])
    parser.add_argument("--flush", action="store_true", help="empty the configured database first")
    parser.add_argument("--hands", type=int, default=200, help="requests per chunk")
    parser.add_argument("--rounds", type=int, default=5, help="chunks of each kind, alternating")
    args = parser.parse_args()
    prepare(flush=args.flush, allowed_hosts="testserver")
    from django.db import connection
    from django.test import Client

    from games.simulate.mu import random_record
    from ratings.management.commands.load_league import create_players
    from tournaments.models import Club, Event, Round
    from tournaments.services import table_create

    club = Club.objects.create(name="Bench club")
    people = create_players(club, 16)
    event = Event.objects.create(club=club, name="Bench submission", game="mu", published=True,
                                 mu_fixed_deals=1_000_000)
    round_ = Round.objects.create(event=event, number=1)
    tables = [table_create(round_=round_, number=n + 1, players=people[4 * n:4 * n + 4], by_user=None)
              for n in range(4)]
    rng = random.Random(17)
    records = [[json.dumps(random_record(rng, 4, dealer=dealer)) for _ in range(50)] for dealer in range(4)]
    client = Client()
    sent = [0]

    def hands(count: int) -> None:
        for _ in range(count):
            number = sent[0]
            table, slot = tables[number % 4], number // 4
            response = client.post(f"/api/v1/tables/{table.pk}/hands/", records[slot % 4][slot % 50],
                                   content_type="application/json", HTTP_X_SCORER_TOKEN=table.scorer_token)
            if response.status_code != 201:
                sys.exit(f"a hand was refused: {response.status_code} {response.content[:300]!r}")
            sent[0] += 1

    def bare(count: int) -> None:
        for number in range(count):
            response = client.post("/bench/bare/", records[0][number % 50], content_type="application/json")
            if response.status_code != 201:
                sys.exit(f"the bare endpoint answered {response.status_code}")

    def timed(run) -> float:
        started = time.process_time()
        run(args.hands)
        return (time.process_time() - started) * 1000 / args.hands

    hands(40)  # connections opened, statements prepared
    bare(40)
    times = {"hand submission": [], "bare DRF": []}
    for _ in range(args.rounds):
        times["hand submission"].append(timed(hands))
        times["bare DRF"].append(timed(bare))
    median = {name: statistics.median(values) for name, values in times.items()}
    best = {name: min(values) for name, values in times.items()}
    print(f"CPU per request of this process ({args.rounds} chunks of {args.hands}, {connection.vendor}):")
    for name in times:
        print(f"  {name}: median {median[name]:.3f} ms, best {best[name]:.3f} ms")
    print(f"  bare / hand submission: median {median['bare DRF'] / median['hand submission']:.1%}, "
          f"best {best['bare DRF'] / best['hand submission']:.1%}")


if __name__ == "__main__":
    main()
