"""``python -m bench.series_page``: a series' public page costs the same for a long season as for
a short one (issue 41: it grew 2.7× from 5 to 50 events when it rendered every event's column).

    DATABASE_URL=postgres://... python -m bench.series_page [--events 50] [--few 5] [--players 40]

Writes, inside one transaction that is rolled back at the end, a club of ``--players`` players
and ``--few`` + ``--events`` evenings of Mü (``bench.series._season``: 3 rounds at tables of 4
per evening, their sums), the first ``--few`` attached to one series and the others to a second
one, both scored with the season options (average, the 2 worst dropped, qualification from half
of the events held, 1 point off per missed event), and their kept public standings
(``series_standings.refresh``). Then requests each series' page (``GET /series/{id}/``, Django's
whole stack through its test client, anonymous), the two interleaved so that both meet the same
load: the p50 of ``--repeats`` requests, the queries of one and the page's size. The page reads
the kept rows (one per player) and renders a window of event columns, so the ratio of the long
season's p50 to the short one's should stay at or below 1.5 with the same number of queries.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import time


class _Rollback(Exception):
    pass


OPTIONS = {"aggregate": "average", "drop_worst": 2, "qualify_percent": 50, "absence_deduction": 1, "min_events": 1}


def _measure(pair, repeats: int) -> list[dict]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    found = []
    for series in pair:
        with CaptureQueriesContext(connection) as captured:
            response = client.get(f"/series/{series.pk}/")
        assert response.status_code == 200, response.status_code
        found.append({"queries": len(captured), "bytes": len(response.content), "times": []})
    for _ in range(repeats):
        for index, series in enumerate(pair):
            started = time.perf_counter()
            client.get(f"/series/{series.pk}/")
            found[index]["times"].append(time.perf_counter() - started)
    for entry in found:
        entry["p50_ms"] = statistics.median(entry.pop("times")) * 1000
    return found


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.series_page", description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--few", type=int, default=5)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stich.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, transaction

    from bench.series import _season
    from tournaments.models import Event, Series
    from tournaments.standings.series_standings import refresh

    if "testserver" not in settings.ALLOWED_HOSTS and "*" not in settings.ALLOWED_HOSTS:
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    # Static files by their plain names (no collected manifest here); the pages are the same.
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    call_command("migrate", verbosity=0)
    rng = random.Random(41)
    figures: dict = {}
    try:
        with transaction.atomic():
            few, evenings = _season(args.few + args.events, args.players, rng)
            Series.objects.filter(pk=few.pk).update(best_of=None, **OPTIONS)
            many = Series.objects.create(club=few.club, name="Jahreswertung 2", game="mu", **OPTIONS)
            Event.objects.filter(pk__in=[e.pk for e in evenings[:args.few]]).update(series=few)
            Event.objects.filter(pk__in=[e.pk for e in evenings[args.few:]]).update(series=many)
            refresh([few.pk, many.pk])  # attached around the services: the kept public standings
            figures["few"], figures["many"] = _measure((few, many), args.repeats)
            raise _Rollback
    except _Rollback:
        pass
    figures["ratio"] = figures["many"]["p50_ms"] / figures["few"]["p50_ms"]
    print(f"series page ({connection.vendor}, {args.players} players, options {OPTIONS})")
    print(f"{'events':>8} {'p50 ms':>9} {'queries':>8} {'bytes':>9}")
    for count, entry in ((args.few, figures["few"]), (args.events, figures["many"])):
        print(f"{count:>8} {entry['p50_ms']:>9.1f} {entry['queries']:>8} {entry['bytes']:>9}")
    print(f"ratio {args.events} / {args.few} events: time {figures['ratio']:.2f}x, "
          f"queries {figures['many']['queries']} / {figures['few']['queries']}")
    return figures


if __name__ == "__main__":
    main()
