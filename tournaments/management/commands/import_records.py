"""``manage.py import_records FILE``: import an event exported as JSON Lines."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from tournaments.results.exchange import ImportRejected, import_lines


class Command(BaseCommand):
    help = "Import an event export (JSON Lines), validating every hand record; all or nothing."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, file, no_progress=False, **options):
        with open(file, encoding="utf-8") as handle:
            lines = handle.readlines()
        bar = tqdm(total=len(lines), unit="line", disable=no_progress, file=self.stderr._out)
        try:
            event = import_lines(lines, progress=lambda: bar.update())
        except ImportRejected as rejected:
            bar.close()
            for rejection in rejected.rejections:
                self.stderr.write(f"{file}:{rejection}")
            raise CommandError(f"{len(rejected.rejections)} rejected line(s); nothing was imported")
        bar.close()
        self.stdout.write(self.style.SUCCESS(f"Imported event {event.pk}: {event.name}"))
