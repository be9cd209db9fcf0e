"""``manage.py export_event EVENT_ID [FILE]``: a self-contained export as JSON Lines."""
from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Event
from tournaments.results.exchange import export_lines


class Command(BaseCommand):
    help = "Export an event with its clubs, players, rounds, tables, sessions and every hand version."

    def add_arguments(self, parser):
        parser.add_argument("event", type=int)
        parser.add_argument("file", nargs="?", help="default: standard output")
        parser.add_argument("--public", action="store_true", help="leave out held-back rounds, show initials")

    def handle(self, *args, event, file=None, public=False, **options):
        import json

        try:
            instance = Event.objects.get(pk=event)
        except Event.DoesNotExist as exc:
            raise CommandError(f"no event {event}") from exc
        out = open(file, "w", encoding="utf-8") if file else sys.stdout  # noqa: SIM115
        try:
            for line in export_lines(instance, public=public):
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
        finally:
            if file:
                out.close()
