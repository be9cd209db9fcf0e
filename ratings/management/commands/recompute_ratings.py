"""``manage.py recompute_ratings [--game G]``: rate every pool again from scratch."""
from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from games.catalog import GAMES
from ratings.services import pool_sync


class Command(BaseCommand):
    help = "Recompute the ratings of one game (or all) from scratch; equals the incremental result."

    def add_arguments(self, parser):
        parser.add_argument("--game", choices=sorted(GAMES))
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, game=None, no_progress=False, **options):
        for code in [game] if game else sorted(GAMES):
            with tqdm(desc=f"{code} sessions", unit="session", disable=no_progress, file=self.stderr._out) as bar:
                result = pool_sync(code, progress=bar.update, from_scratch=True, on_start=lambda total: bar.reset(total=total))
            self.stdout.write(f"{code}: {result['rated']} sessions rated")
