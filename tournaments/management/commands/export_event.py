"""``manage.py export_event EVENT_ID [FILE]``: a self-contained export as JSON Lines."""
from __future__ import annotations

import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from tournaments import policy
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
            # The operator sees what staff sees (an account that is not stored); --public what anyone does.
            reader = policy.public() if public else policy.Visibility(get_user_model()(is_staff=True, is_active=True))
            for line in export_lines(instance, visibility=reader):
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
        finally:
            if file:
                out.close()
