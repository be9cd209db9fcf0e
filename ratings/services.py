"""Keeping a game's pool of ratings in step with its finished sessions.

``pool_sync(game)`` is the one writer. The pool holds the sessions that should be rated (finished,
not abandoned, of released rounds of published events, in the order they finished, ties by id),
each applied on a fingerprint of its result. A sync finds what changed since the last one without
reading the pool:

- the sessions marked by ``tournaments.results.services`` (``Session.rating_dirty_at``: finished, reopened,
  corrected or voided after finishing, abandoned);
- the sessions of rounds whose visibility changed: the pool keeps the rounds of its game that the
  public does not see (``Pool.hidden``, from ``tournaments.policy``); a released round brings its
  sessions, a round held back (or an event unpublished) takes its sessions out.

When those are new sessions that finished after the last one applied (the usual case: a table
finished), they are rated on the ratings of their players only. Otherwise (a correction, a late
session, a released or held round) the pool rolls back to the first place that changed and rates
the sessions after it again. So a session applied twice changes nothing, a late or corrected
session is put in its place, and the numbers equal a recompute from scratch (``from_scratch``, and
the first sync of a pool, compare every session as the reference does). A row lock on the pool
keeps two workers from running at once.
"""
from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import datetime
from functools import reduce
from operator import or_
from typing import Callable

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from tournaments import live, policy
from tournaments.models import Seat, Session

from . import league, model, outlook
from .models import Pool, PoolEntry, Rating, RatingHistory
from .selectors import TREND_EVENTS

logger = logging.getLogger(__name__)

MANY = 900  # above this many ids, read the whole game rather than a list of ids (SQLite's limits)
FEW = 8  # up to this many players (a table), their newest rating events are read one player at a time


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

    @property
    def order(self) -> tuple[datetime, int]:
        return self.finished_at, self.session_id


def decay_config() -> model.DecayConfig | None:
    """``RATINGS_DECAY_PER_DAY`` (sigma² added per day without a session; 0 turns decay off)."""
    per_day = settings.RATINGS_DECAY_PER_DAY
    return model.DecayConfig(per_day) if per_day > 0 else None


def counted_sessions(game: str) -> QuerySet[Session]:
    """The sessions a pool should hold. Only what the public sees is rated (tournaments/policy.py):
    sessions of published events and released rounds."""
    return policy.public().sessions().filter(
        table__round__event__game=game, status=Session.Status.FINISHED, finished_at__isnull=False,
    )


def rated_sessions(game: str, *, only: list[int] | None = None, after: tuple[datetime, int] | None = None) -> list[RatedSession]:
    """The sessions a pool should hold, in the order they finished (ties by id): all of them, those
    of ``only`` (session ids), or those after ``after`` (finish time, id). Their totals are the
    sessions' own (``Session.totals``), so no hand is read."""
    counted = counted_sessions(game)
    if only is not None:
        counted = counted.filter(pk__in=only)
    if after is not None:
        counted = counted.filter(Q(finished_at__gt=after[0]) | Q(finished_at=after[0], pk__gt=after[1]))
    sessions = list(counted.order_by("finished_at", "id").values_list("pk", "table_id", "finished_at", "totals"))
    if not sessions:
        return []
    # A join rather than a list of ids where there are many: a league of 100,000 sessions is read
    # in two queries.
    seat_rows = Seat.objects.filter(table__in=[row[1] for row in sessions]) if len(sessions) < MANY else (
        Seat.objects.filter(table__sessions__in=counted).distinct()
    )
    seats: dict[int, list[int]] = {}
    for table_id, player_id in seat_rows.order_by("table", "position").values_list("table", "player"):
        seats.setdefault(table_id, []).append(player_id)
    result = []
    for pk, table_id, finished_at, totals in sessions:
        players = seats.get(table_id, [])
        result.append(RatedSession(pk, finished_at, tuple(players), tuple(totals or [0] * len(players))))
    return result


def hidden_rounds(game: str) -> list[int]:
    """The rounds of ``game`` whose results the public does not see, by ``tournaments.policy``."""
    return policy.public().unseen_round_ids(game)


def pool_sync(
    game: str, *, progress: Callable[[int], None] | None = None, from_scratch: bool = False,
    on_start: Callable[[int], None] | None = None,
) -> dict:
    """Bring the pool of ``game`` in step; returns how many sessions were rolled back and rated."""
    with transaction.atomic():
        Pool.objects.get_or_create(game=game)
        pool = Pool.objects.select_for_update().get(game=game)  # one writer per pool
        marked = _marked(game)
        hidden = hidden_rounds(game)
        known = None if from_scratch or not pool.hidden else json.loads(pool.hidden)
        last = PoolEntry.objects.filter(game=game).order_by("-position").values_list("position", flat=True).first()
        size = 0 if last is None else last + 1
        if known is None or len(marked) >= MANY:
            # The first sync, a recompute, or a bulk load: compare every session.
            start, wanted = _compare_all(game, from_scratch)
        else:
            start, wanted = _compare_changed(game, [pk for pk, _ in marked], set(known), set(hidden))
            start = size if start is None else start
        rolled_back = size - start
        if on_start:
            on_start(len(wanted))
        if rolled_back:
            _roll_back(game, start)
        _apply(game, wanted, start, progress)
        pool.hidden = json.dumps(hidden)
        pool.save(update_fields=["hidden", "updated_at"])
        _unmark(marked)
        if wanted or rolled_back:
            # After the commit (of the caller's transaction too: the outbox syncs inside one), not
            # under the pool's lock: the fit can take seconds.
            transaction.on_commit(lambda: warm_chances(game))
            # The live pages' fragments show chances: their cache key moves with the ratings.
            transaction.on_commit(lambda: live.ratings_changed(game))
        return {"game": game, "rolled_back": rolled_back, "rated": len(wanted), "pool": start + len(wanted)}


def warm_chances(game: str) -> None:
    """After the pool changed, once committed: fit the win chances' scale of the pool's next
    sessions if it is not cached yet (``outlook.warm_scale``: seconds when the pool has just grown
    by a block or was recomputed, nothing otherwise), so that no page fits it. The ratings are
    written whatever happens here: a cache that cannot be reached is logged, and the next sync
    or beat's catch-up warms it."""
    try:
        outlook.warm_scale(game)
    except Exception:  # the sync is done; the pages keep the last scale meanwhile
        logger.warning("the %s pool's chance scale could not be fitted now", game, exc_info=True)


def _compare_all(game: str, from_scratch: bool) -> tuple[int, list[RatedSession]]:
    """Every session the pool should hold against every entry: the first that differs, and the
    sessions to rate from there."""
    wanted = rated_sessions(game)
    applied = list(PoolEntry.objects.filter(game=game).order_by("position").values_list("session_id", "fingerprint"))
    start = 0
    if not from_scratch:
        while start < min(len(applied), len(wanted)) and applied[start] == (wanted[start].session_id, wanted[start].fingerprint):
            start += 1
    return start, wanted[start:]


def _compare_changed(game: str, marked: list[int], known: set[int], hidden: set[int]) -> tuple[int | None, list[RatedSession]]:
    """Only the sessions that may have changed against their entries: where the pool must start
    again (None: nowhere, the new sessions go after the last entry) and the sessions to rate
    from there."""
    candidates = set(marked)
    released, withheld = known - hidden, hidden - known
    if released:
        candidates |= set(counted_sessions(game).filter(table__round__in=released).values_list("pk", flat=True))
    if withheld:
        candidates |= set(PoolEntry.objects.filter(game=game, session__table__round__in=withheld).values_list("session", flat=True))
    if not candidates:
        return None, []
    if len(candidates) >= MANY:  # a round of a large league released: compare every session
        return _compare_all(game, False)
    ids = sorted(candidates)
    current = {s.session_id: s for s in rated_sessions(game, only=ids)}
    entries = {
        session: (position, fingerprint)
        for session, position, fingerprint in PoolEntry.objects.filter(game=game, session__in=ids)
        .values_list("session", "position", "fingerprint")
    }
    last = PoolEntry.objects.filter(game=game).order_by("-position").values_list("position", "finished_at", "session").first()
    starts = []
    for session, (position, fingerprint) in entries.items():
        now = current.get(session)
        if now is None or now.fingerprint != fingerprint:
            starts.append(position)  # changed, or no longer counted
    new = sorted((s for pk, s in current.items() if pk not in entries), key=lambda s: s.order)
    if new and last is not None and new[0].order < (last[1], last[2]):
        # A late session: it goes before the first entry that finished after it.
        late = new[0].order
        starts.append(
            PoolEntry.objects.filter(game=game).filter(
                Q(finished_at__gt=late[0]) | Q(finished_at=late[0], session__gt=late[1])
            ).order_by("position").values_list("position", flat=True).first()
        )
    if not starts:
        return None, new
    start = min(starts)
    before = PoolEntry.objects.filter(game=game, position=start - 1).values_list("finished_at", "session").first()
    return start, rated_sessions(game, after=before)


def _marked(game: str) -> list[tuple[int, datetime]]:
    """The marked sessions of ``game``: the marks first (the partial index holds only them), then
    their game, so the session table is never joined as a whole."""
    marks = dict(Session.objects.filter(rating_dirty_at__isnull=False).values_list("pk", "rating_dirty_at"))
    if not marks:
        return []
    if len(marks) >= MANY:
        ours = Session.objects.filter(rating_dirty_at__isnull=False, table__round__event__game=game)
    else:
        ours = Session.objects.filter(pk__in=list(marks), table__round__event__game=game)
    return [(pk, marks[pk]) for pk in ours.values_list("pk", flat=True) if pk in marks]


def _unmark(marked: list[tuple[int, datetime]]) -> None:
    """Clear the marks this sync took into account; a mark set again meanwhile (another time)
    stays for the next sync."""
    for chunk in range(0, len(marked), 500):
        condition = reduce(or_, (Q(pk=pk, rating_dirty_at=at) for pk, at in marked[chunk:chunk + 500]))
        Session.objects.filter(condition).update(rating_dirty_at=None)


def _roll_back(game: str, position: int) -> None:
    """Forget the pool from ``position`` on; each player's rating returns to his last kept event."""
    if position == 0:  # everything: no rating is kept
        RatingHistory.objects.filter(game=game).delete()
        PoolEntry.objects.filter(game=game).delete()
        Rating.objects.filter(game=game).delete()
        return
    forgotten = RatingHistory.objects.filter(game=game, position__gte=position)
    dropped = dict(forgotten.order_by().values("player").annotate(n=Count("pk")).values_list("player", "n"))
    forgotten.delete()
    PoolEntry.objects.filter(game=game, position__gte=position).delete()
    recent = _recent(game, list(dropped))
    rows, gone = [], []
    for rating in _ratings(game, list(dropped)):
        if rating.player_id not in dropped:
            continue
        kept = recent.get(rating.player_id)
        if not kept:
            gone.append(rating.pk)
            continue
        last = kept[0]
        rating.mu, rating.sigma = last["mu_after"], last["sigma_after"]
        rating.sessions -= dropped[rating.player_id]
        rating.last_finished_at = last["finished_at"]
        _show(rating, kept)
        rows.append(rating)
    Rating.objects.filter(pk__in=gone).delete()
    Rating.objects.bulk_update(rows, ["mu", "sigma", "sessions", "last_finished_at", "displayed", "trend"], batch_size=2000)


def _ratings(game: str, players: list[int]) -> QuerySet[Rating]:
    ratings = Rating.objects.filter(game=game)
    return ratings.filter(player__in=players) if len(players) < MANY else ratings


def _recent(game: str, players: list[int]) -> dict[int, list[dict]]:
    """Each player's last ``TREND_EVENTS`` rating events, newest first (a query per player for a
    table's players, one query otherwise)."""
    rows = RatingHistory.objects.filter(game=game)
    columns = ("player", "mu_before", "sigma_before", "mu_after", "sigma_after", "finished_at")
    if len(players) <= FEW:
        # A table's players (the usual sync): each one's newest rows through the index, so the
        # cost does not grow with their history as a window over all of it would.
        recent = {}
        for player in players:
            newest = list(rows.filter(player=player).order_by("-position").values(*columns)[:TREND_EVENTS])
            if newest:
                recent[player] = newest
        return recent
    if len(players) < MANY:
        rows = rows.filter(player__in=players)
    rows = rows.annotate(
        recency=Window(RowNumber(), partition_by=[F("player")], order_by=F("position").desc())
    ).filter(recency__lte=TREND_EVENTS).order_by("player", "recency")
    recent: dict[int, list[dict]] = {}
    for row in rows.values(*columns):
        recent.setdefault(row["player"], []).append(row)
    return recent


def _show(rating: Rating, recent: list[dict]) -> None:
    """The leaderboard's columns: the displayed rating, and its change since before the oldest of
    the player's last ``TREND_EVENTS`` rating events (``recent``, newest first)."""
    rating.displayed = model.displayed_rating(rating.mu, rating.sigma)
    start = recent[-1] if recent else None
    rating.trend = rating.displayed - model.displayed_rating(start["mu_before"], start["sigma_before"]) if start else 0


def _apply(game: str, sessions: list[RatedSession], position: int, progress) -> None:
    if not sessions:
        return
    players = list({p for s in sessions for p in s.players})
    ratings: dict[int, model.Rating] = {}
    rows: dict[int, Rating] = {}
    last_played: dict[int, float] = {}
    for rating in _ratings(game, players):
        rows[rating.player_id] = rating
        ratings[rating.player_id] = (rating.mu, rating.sigma)
        if rating.last_finished_at is not None:
            last_played[rating.player_id] = rating.last_finished_at.timestamp()
    # The compiled loop over the batch (ratings/league.py, calling the one kernel, ratings/kernel.py),
    # with each seat's rating before (decay included) and after its session for the history.
    rated = league.rate_league_history(
        [model.Session(s.players, s.totals, s.finished_at.timestamp()) for s in sessions],
        ratings, decay=decay_config(), last_played=last_played,
    )
    mu_before, sigma_before = rated.mu_before.tolist(), rated.sigma_before.tolist()
    mu_after, sigma_after = rated.mu_after.tolist(), rated.sigma_after.tolist()
    history, entries = [], []
    counts: dict[int, int] = {}
    last_finished: dict[int, datetime] = {}
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
    recent = _recent(game, players)
    changed, created = [], []
    for player in players:
        rating = rows.get(player) or Rating(player_id=player, game=game, sessions=0)
        rating.mu, rating.sigma = ratings[player]
        rating.sessions += counts[player]
        rating.last_finished_at = last_finished[player]
        _show(rating, recent.get(player, []))
        (changed if rating.pk else created).append(rating)
    Rating.objects.bulk_update(changed, ["mu", "sigma", "sessions", "last_finished_at", "displayed", "trend"], batch_size=2000)
    Rating.objects.bulk_create(created, batch_size=2000)


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
