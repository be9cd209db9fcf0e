"""``python -m bench.scale``: the service at two sizes of history, side by side (see ``__main__``)."""
from __future__ import annotations

import os
import sys


def prepare(*, flush: bool, allowed_hosts: str = "127.0.0.1,localhost,testserver") -> None:
    """Django set up with the benchmark's settings (the project's, with the bare endpoint; DEBUG
    off) and the configured database migrated, and emptied with ``flush``; without it, a database
    that holds clubs ends the run (everything would be deleted)."""
    # Always the benchmark's settings: importing the package ``stich`` has set the project's own
    # as a default already (stich/celery.py).
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.scale.settings"
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    os.environ["DEBUG"] = "0"
    os.environ["ALLOWED_HOSTS"] = allowed_hosts
    import django

    django.setup()
    from django.core.management import call_command

    from tournaments.models import Club

    call_command("migrate", verbosity=0)
    if Club.objects.exists():
        if not flush:
            sys.exit("the configured database holds clubs; pass --flush to empty it (everything is deleted)")
        call_command("flush", interactive=False, verbosity=0)
