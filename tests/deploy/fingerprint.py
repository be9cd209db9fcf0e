"""What a restore must bring back, as JSON: every event's standings (as the service computes
them), sessions, hands, hand versions, audit rows, idempotency receipts, ratings and their
history. Run on another database with ``python -m tests.deploy.fingerprint [--catch-up]``
(``DATABASE_URL`` names it); ``--catch-up`` first brings the rating pools in step, as beat's
catch-up would, and adds the ratings ``recompute_ratings`` gives from scratch."""
from __future__ import annotations

import json
import os
import sys

RATING_FIELDS = ["player_id", "game", "mu", "sigma", "sessions", "last_finished_at", "displayed", "trend"]


def _rows(model, exclude=()) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in exclude} for row in model.objects.order_by("pk").values()]


def _ratings() -> list[dict]:
    from ratings.models import Rating

    return list(Rating.objects.order_by("player_id", "game").values(*RATING_FIELDS))


def fingerprint(*, catch_up: bool = False) -> dict:
    from django.core.serializers.json import DjangoJSONEncoder

    from games.catalog import GAMES
    from ratings.models import RatingHistory
    from ratings.outbox import sync
    from ratings.services import pool_sync
    from tournaments import policy
    from tournaments.models import (
        AuditEntry,
        Event,
        Hand,
        HandVersion,
        IdempotentSubmission,
        Session,
    )
    from tournaments.standings import selectors

    if catch_up:
        for game in sorted(GAMES):
            sync(game)
    result = {
        "standings": {event.pk: selectors.standings_document(event, visibility=policy.public())
                      for event in Event.objects.order_by("pk")},
        "sessions": _rows(Session),
        "hands": _rows(Hand),
        "versions": _rows(HandVersion),
        "audit": _rows(AuditEntry),
        "receipts": _rows(IdempotentSubmission),
        "ratings": _ratings(),
        "history": _rows(RatingHistory),
    }
    if catch_up:
        for game in sorted(GAMES):
            pool_sync(game, from_scratch=True)
        result["recomputed"] = _ratings()
    return json.loads(json.dumps(result, cls=DjangoJSONEncoder))


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stich.test_settings")
    import django

    django.setup()
    json.dump(fingerprint(catch_up="--catch-up" in sys.argv), sys.stdout)
