"""``manage.py backup_database [--output DIR] [--keep N]``: one consistent archive of the database."""
from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tournaments.management.backups import BackupError, backup


class Command(BaseCommand):
    help = "Write a consistent archive of the whole database (PostgreSQL: pg_dump custom format; SQLite: a copy)."

    def add_arguments(self, parser):
        parser.add_argument("--output", default=None, help="directory for the archive (default: BACKUP_DIR)")
        parser.add_argument("--keep", type=int, default=None, help="keep the newest N archives there (default: BACKUP_KEEP; 0: all)")

    def handle(self, *args, output=None, keep=None, **options):
        directory = output or settings.BACKUP_DIR
        if not directory:
            raise CommandError("no directory: pass --output or set BACKUP_DIR")
        try:
            path = backup(directory, keep=keep)
        except BackupError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(str(path))
