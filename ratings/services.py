"""Keeping a game's pool of ratings in step with its finished sessions.

``pool_sync(game)`` is the one writer. It compares the sessions that should be rated (finished,
not abandoned, of released rounds, in the order they finished) with what the pool has applied and
the results it applied them on; from the first difference on it rolls the pool back and rates the
rest again. So a session applied twice changes nothing, a late or corrected session is put in its
place, and the numbers equal a recompute from scratch. A row lock on the pool keeps two workers
from running at once.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from django.conf import settings
from django.db import connection, transaction

from tournaments import policy
from tournaments.models import Event, Hand, Seat, Session
from tournaments.progress import SessionRules, totals
from tournaments.results import played

from . import league, model
from .models import Pool, PoolEntry, Rating, RatingHistory


@dataclass(frozen=True)
class RatedSession:
    session_id: int
    finished_at: datetime
    players: tuple[int, ...]
    totals: tuple[int, ...]

    @property
    def fingerprint(self) -> str:
        text = json.dumps([self.finished_at.isoformat(), self.players, self.totals])
        return hashlib.sha256(text.encode()).hexdigest()


def decay_config() -> model.DecayConfig | None:
    """``RATINGS_DECAY_PER_DAY`` (sigma² added per day without a session; 0 turns decay off)."""
    per_day = settings.RATINGS_DECAY_PER_DAY
    return model.DecayConfig(per_day) if per_day > 0 else None


def rated_sessions(game: str) -> list[RatedSession]:
    """The sessions a pool should hold, in the order they finished (ties by id)."""
    # Only what the public sees is rated (tournaments/policy.py): sessions of published events
    # and released rounds.
    counted = policy.public().sessions().filter(
        table__round__event__game=game, status=Session.Status.FINISHED, finished_at__isnull=False,
    )
    sessions = list(
        counted.order_by("finished_at", "id").values_list("pk", "table_id", "finished_at", "table__round__event_id")
    )
    # Joins rather than lists of ids: a league of 100,000 sessions is read in three queries.
    seats: dict[int, list[int]] = {}
    seat_rows = Seat.objects.filter(table__sessions__in=counted)
    for table_id, player_id in seat_rows.order_by("table", "position").values_list("table", "player").distinct():
        seats.setdefault(table_id, []).append(player_id)
    hands: dict[int, list] = {}
    hand_rows = Hand.objects.filter(session__in=counted)
    for hand in hand_rows.only("session_id", "number", "dealer", "voided", "result", "record", "unconfirmed").order_by("session", "number"):
        hands.setdefault(hand.session_id, []).append(played(hand))
    events = {event.pk: event for event in Event.objects.filter(game=game)}
    rules_cache: dict[tuple[int, int], SessionRules] = {}
    result = []
    for pk, table_id, finished_at, event_id in sessions:
        players = seats.get(table_id, [])
        key = (event_id, len(players))
        rules = rules_cache.get(key)
        if rules is None:
            rules = rules_cache[key] = SessionRules.for_event(events[event_id], len(players))
        result.append(RatedSession(pk, finished_at, tuple(players), tuple(totals(rules, hands.get(pk, [])))))
    return result


def pool_sync(
    game: str, *, progress: Callable[[int], None] | None = None, from_scratch: bool = False,
    on_start: Callable[[int], None] | None = None,
) -> dict:
    """Bring the pool of ``game`` in step; returns how many sessions were rolled back and rated."""
    with transaction.atomic():
        Pool.objects.get_or_create(game=game)
        Pool.objects.select_for_update().get(game=game)  # one writer per pool
        wanted = rated_sessions(game)
        applied = list(PoolEntry.objects.filter(game=game).order_by("position").values_list("session_id", "fingerprint"))
        start = 0
        if not from_scratch:
            while start < min(len(applied), len(wanted)) and applied[start] == (wanted[start].session_id, wanted[start].fingerprint):
                start += 1
        rolled_back = len(applied) - start
        if on_start:
            on_start(len(wanted) - start)
        if rolled_back:
            _roll_back(game, start)
        _apply(game, wanted[start:], start, progress)
        return {"game": game, "rolled_back": rolled_back, "rated": len(wanted) - start, "pool": len(wanted)}


def _roll_back(game: str, position: int) -> None:
    """Forget the pool from ``position`` on; each player's rating returns to his last kept event."""
    if position == 0:  # everything: no rating is kept
        RatingHistory.objects.filter(game=game).delete()
        PoolEntry.objects.filter(game=game).delete()
        Rating.objects.filter(game=game).delete()
        return
    affected = set(RatingHistory.objects.filter(game=game, position__gte=position).values_list("player", flat=True))
    RatingHistory.objects.filter(game=game, position__gte=position).delete()
    PoolEntry.objects.filter(game=game, position__gte=position).delete()
    for player in affected:
        kept = RatingHistory.objects.filter(game=game, player=player).order_by("-position")
        last = kept.first()
        if last is None:
            Rating.objects.filter(game=game, player=player).delete()
        else:
            Rating.objects.filter(game=game, player=player).update(
                mu=last.mu_after, sigma=last.sigma_after, sessions=kept.count(), last_finished_at=last.finished_at
            )


def _apply(game: str, sessions: list[RatedSession], position: int, progress) -> None:
    if not sessions:
        return
    players = {p for s in sessions for p in s.players}
    ratings: dict[int, model.Rating] = {}
    counts: dict[int, int] = {}
    last_played: dict[int, float] = {}
    last_finished: dict[int, datetime | None] = {}
    pks: dict[int, int] = {}
    for rating in Rating.objects.filter(game=game, player__in=players) if len(players) < 900 else Rating.objects.filter(game=game):
        ratings[rating.player_id] = (rating.mu, rating.sigma)
        counts[rating.player_id] = rating.sessions
        last_finished[rating.player_id] = rating.last_finished_at
        if rating.last_finished_at is not None:
            last_played[rating.player_id] = rating.last_finished_at.timestamp()
        pks[rating.player_id] = rating.pk
    # The compiled rater of the benchmark (ratings/league.py): the numbers of model.rate_many,
    # with each seat's rating before (decay included) and after its session for the history.
    rated = league.rate_league_history(
        [model.Session(s.players, s.totals, s.finished_at.timestamp()) for s in sessions],
        ratings, decay=decay_config(), last_played=last_played,
    )
    mu_before, sigma_before = rated.mu_before.tolist(), rated.sigma_before.tolist()
    mu_after, sigma_after = rated.mu_after.tolist(), rated.sigma_after.tolist()
    history, entries = [], []
    adapt = connection.ops.adapt_datetimefield_value
    seat = 0
    for offset, session in enumerate(sessions):
        finished_at = adapt(session.finished_at)
        for player in session.players:
            history.append((player, game, session.session_id, position + offset, finished_at,
                            mu_before[seat], sigma_before[seat], mu_after[seat], sigma_after[seat]))
            counts[player] = counts.get(player, 0) + 1
            last_finished[player] = session.finished_at
            seat += 1
        entries.append((game, position + offset, session.session_id, session.fingerprint, finished_at))
        if progress:
            progress(1)
    # Plain INSERTs: a recompute writes a row per player and session, and model instances
    # cost more than the database does.
    _insert(RatingHistory, ["player", "game", "session", "position", "finished_at",
                            "mu_before", "sigma_before", "mu_after", "sigma_after"], history)
    _insert(PoolEntry, ["game", "position", "session", "fingerprint", "finished_at"], entries)
    rows = [
        Rating(pk=pks.get(p), player_id=p, game=game, mu=mu, sigma=sigma, sessions=counts.get(p, 0),
               last_finished_at=last_finished.get(p))
        for p, (mu, sigma) in ratings.items()
    ]
    Rating.objects.bulk_update([r for r in rows if r.pk], ["mu", "sigma", "sessions", "last_finished_at"], batch_size=2000)
    Rating.objects.bulk_create([r for r in rows if not r.pk], batch_size=2000)


def _insert(table, fields: list[str], rows: list[tuple], batch: int = 5000) -> None:
    quote = connection.ops.quote_name
    columns = ", ".join(quote(table._meta.get_field(name).column) for name in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY: PostgreSQL's bulk load, several times faster than INSERTs for a recompute.
            with cursor.cursor.copy(f"COPY {quote(table._meta.db_table)} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        sql = f"INSERT INTO {quote(table._meta.db_table)} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})"
        for start in range(0, len(rows), batch):
            cursor.executemany(sql, rows[start:start + batch])
