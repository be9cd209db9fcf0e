"""Win chances of stored tables: the players' ratings read, ``chances.room_chances`` computed.

Which ratings: those of the table card, the players' ratings when the table was published
(``Table.created_at``, its draw published), so that the chances printed on the card, shown on the
pages and kept once the table has played are the same numbers. They are read from the rating
history: a player's rating at that time is his rating just before the first rated session he
played after it (``RatingHistory.mu_before``), or his current rating if he has played none since
(a player with none is new: the prior). A table whose latest session is rated shows the chances
of that session: for its first session the card's, for a later one the ratings after the one
before; either way never a rating that includes the session's own result. ``basis`` says which:
``current`` (the card's ratings are the current ones), ``published`` (the card's, and a player has
been rated since), ``before_session``.

A player is *provisional* while he has fewer than ``RATINGS_PROVISIONAL_SESSIONS`` rated sessions
before the chance (or his sigma is the prior's).

The chances depend on the ratings and the pool's fitted scale (``pool_scales``: fitted on the
pool's own history by the rating writer, ``warm_scale``; a page never fits), so they are cached by
both.

Callers pass tables they may show (``tournaments.policy.Visibility``): the ratings themselves are
public (only public results are rated).
"""
from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F, Max, OuterRef, Q, Subquery

from games.cache_pause import CachePause
from tournaments.models import Seat, Session, Table

from .calibration import (
    METHODS,
    MIN_FIT,
    PRIOR_SCALE,
    REFIT,
    WINDOW,
    Report,
    fit_scale,
    observed_wins,
    predict,
    reliability,
    score,
)
from .chances import Chance, Scale, is_provisional, room_chances
from .model import NEW_PLAYER
from .models import PoolEntry, Rating, RatingHistory

CACHE_SECONDS = 24 * 3600
# After the shared cache failed, this process computes without it for so long (a Redis that is down
# answers each command only after its connect timeout: a page must not wait for it at every table).
CACHE_PAUSE_SECONDS = 5.0

log = logging.getLogger(__name__)
_cache_pause = CachePause(CACHE_PAUSE_SECONDS)


def _from_cache(call, default):
    """``call()`` on the shared cache, or ``default`` when it fails: the chances are then computed
    (a page with chances never fails because the cache is down; it costs their computation)."""
    if _cache_pause.active:
        return default
    try:
        return call()
    except Exception:  # noqa: BLE001 - a cache backend's failures are many (Redis down, timeouts)
        _cache_pause.start()
        log.warning("the shared cache failed: win chances are computed without it", exc_info=True)
        return default

logger = logging.getLogger(__name__)


class SeatChance(NamedTuple):
    position: int
    player_id: int
    win: float
    expected_place: float
    provisional: bool
    mu: float
    sigma: float


class TableOutlook(NamedTuple):
    table_id: int
    # "current": the players' ratings now, which are those when the table was published;
    # "published": as they were when the table was published (somebody has been rated since);
    # "before_session": as they were before the table's latest rated session
    basis: str
    session_id: int | None
    seats: list[SeatChance]

    @property
    def favourite(self) -> SeatChance | None:
        """The seat with the best chance, when it is strictly the best."""
        ordered = sorted(self.seats, key=lambda seat: seat.win, reverse=True)
        if not ordered or (len(ordered) > 1 and ordered[1].win >= ordered[0].win - 1e-9):
            return None
        return ordered[0]


def _cached_chances(tables: list[list[tuple[float, float]]], scales: list[Scale]) -> list[list[Chance]]:
    keys = [
        "chances:" + hashlib.sha1(repr((
            [(round(mu, 9), round(sigma, 9)) for mu, sigma in table],
            sorted((size, round(t, 9)) for size, t in scale.temperature.items()), round(scale.sigma_factor, 9),
        )).encode()).hexdigest()
        for table, scale in zip(tables, scales)
    ]
    found = dict(_from_cache(lambda: cache.get_many(keys), {}))
    missing: dict[tuple, tuple[Scale, list[int]]] = {}
    for index, key in enumerate(keys):
        if key not in found:
            scale = scales[index]
            signature = (tuple(sorted(scale.temperature.items())), scale.sigma_factor)
            missing.setdefault(signature, (scale, []))[1].append(index)
    for scale, indexes in missing.values():
        computed = room_chances([tables[index] for index in indexes], scale)
        fresh = {keys[index]: [tuple(chance) for chance in result] for index, result in zip(indexes, computed)}
        _from_cache(lambda fresh=fresh: cache.set_many(fresh, CACHE_SECONDS), None)
        found.update(fresh)
    return [[Chance(*chance) for chance in found[key]] for key in keys]


def _stored_tables(game: str, first: int, end: int) -> tuple[list[list[tuple[float, float]]], list[list[float]], list[int]]:
    """The pool's sessions at positions ``first`` to ``end`` (exclusive) as the calibration reads
    them: each one's players' ratings just before it (``RatingHistory``), its observed win
    shares and its position; sessions that cannot be read so (a seat without history) are left
    out. Three queries."""
    entries = list(
        PoolEntry.objects.filter(game=game, position__gte=first, position__lt=end).order_by("position")
        .values_list("session", "session__totals", "position")
    )
    sessions = [session for session, _, _ in entries]
    history: dict[int, dict[int, tuple[float, float]]] = {}
    for session_id, player_id, mu, sigma in RatingHistory.objects.filter(session__in=sessions).values_list(
        "session", "player", "mu_before", "sigma_before"
    ):
        history.setdefault(session_id, {})[player_id] = (mu, sigma)
    seated: dict[int, list[int]] = {}
    for session_id, player_id in Seat.objects.filter(table__sessions__in=sessions).order_by(
        "table", "position"
    ).values_list("table__sessions", "player"):
        seated.setdefault(session_id, []).append(player_id)
    tables, outcomes, positions = [], [], []
    for session_id, totals, position in entries:
        players = seated.get(session_id, [])
        ratings = history.get(session_id, {})
        if not 2 <= len(players) <= 6 or len(totals) != len(players) or any(p not in ratings for p in players):
            continue
        tables.append([ratings[p] for p in players])
        outcomes.append(observed_wins(totals))
        positions.append(position)
    return tables, outcomes, positions


def _cached(key: str, compute, fit: bool = True):
    """The cached value of ``key``, else ``compute()`` stored (with ``fit``), else ``None``; with the
    cache unreachable, computed (``_from_cache``)."""
    found = _from_cache(lambda: cache.get(key), None)
    if found is None and fit:
        found = compute()
        _from_cache(lambda: cache.set(key, found, 30 * CACHE_SECONDS), None)
    return found


def _fitted(game: str, block: int, *, fit: bool = True) -> Scale | None:
    """The scale fitted on the ``WINDOW`` pool sessions before position ``block·REFIT``
    (``calibration.fit_scale``; ``PRIOR_SCALE`` below ``MIN_FIT``). Cached until those sessions
    are rated again (a corrected result rolls the pool back and renumbers its entries). Without
    ``fit``, ``None`` when it is not cached: a fit takes seconds (``warm_scale``)."""
    end = block * REFIT
    last = PoolEntry.objects.filter(game=game, position=end - 1).values_list("pk", flat=True).first() if end else None
    if end < MIN_FIT or last is None:
        return PRIOR_SCALE

    def compute():
        tables, outcomes, _ = _stored_tables(game, max(0, end - WINDOW), end)
        return tuple(fit_scale(tables, outcomes))

    found = _cached(f"chance-scale:{game}:{block}:{last}", compute, fit)
    return None if found is None else Scale(*found)


def scale_of_block(game: str, block: int, *, fit: bool = True) -> Scale | None:
    """The scale the pool predicts its sessions at positions ``block·REFIT`` onwards with, as the
    calibration report replays it (``calibration.fitted_chances``): the one fitted on the
    sessions before. Without ``fit``, ``None`` when it is not cached."""
    return _fitted(game, block, fit=fit)


def _pool_sizes(games: list[str]) -> dict[str, int]:
    return dict(
        PoolEntry.objects.filter(game__in=games).order_by().values("game").annotate(size=Max("position") + 1)
        .values_list("game", "size")
    )


def warm_scale(game: str) -> Scale:
    """Fit the scale of the pool's next sessions if it is not cached yet, and keep it as the
    pool's scale for the pages (``pool_scales``); also the fits the calibration page needs for the
    pool's latest ``PAGE_SESSIONS``. Called by the rating writer after every sync
    (``services.pool_sync``, so also by ``recompute_ratings``) and by Celery beat's catch-up: a
    fit takes seconds (2.6–13 s on a pool of 100,000 sessions), which no page waits for. Cheap
    when nothing changed (cached)."""
    size = _pool_sizes([game]).get(game, 0)
    block = size // REFIT
    for earlier in range(max(0, (size - PAGE_SESSIONS) // REFIT), block):
        scale_of_block(game, earlier)
    scale = scale_of_block(game, block)
    cache.set(f"chance-scale-now:{game}", (block, tuple(scale)), 30 * CACHE_SECONDS)
    return scale


def scale_is_warm(game: str) -> bool:
    """Whether the pages have the scale of the pool's next sessions (``warm_scale`` has run)."""
    found = cache.get(f"chance-scale-now:{game}")
    return found is not None and found[0] == _pool_sizes([game]).get(game, 0) // REFIT


def pool_scales(games: Iterable[str]) -> dict[str, Scale]:
    """The scale each pool's pages compute the chances with: the one ``warm_scale`` fitted for the
    pool's next sessions (``scale_of_block``). One query for the pools' sizes and one cache read;
    never a fit. Until the writer has fitted the scale of a block just reached (a recompute, a
    pool that just grew by a block) the pages keep the pool's last fitted scale; a pool never
    fitted (or a cache emptied, or unreachable) has the prior's cautious scale
    (``calibration.PRIOR_SCALE``) until the writer's next sync or the catch-up. The pools' sizes
    are read only for the games whose scale the cache holds (an empty pool has the prior's scale
    whatever the cache says): none when the cache is down."""
    games = list(games)
    # The shared cache down: the page shows the prior scale's chances (and asks the cache again
    # after ``CACHE_PAUSE_SECONDS``, not at every page).
    known = _from_cache(lambda: cache.get_many([f"chance-scale-now:{game}" for game in games]), {})
    sizes = _pool_sizes([game for game in games if f"chance-scale-now:{game}" in known]) if known else {}
    result = {}
    for game in games:
        found = known.get(f"chance-scale-now:{game}")
        result[game] = Scale(*found[1]) if game in sizes and found is not None else PRIOR_SCALE
    return result


def pool_scale(game: str) -> Scale:
    return pool_scales([game])[game]


def _prefetched(table: Table, name: str):
    """``table.<name>.all()`` when the caller prefetched it (no query), else ``None``."""
    cache_ = getattr(table, "_prefetched_objects_cache", {})
    return list(cache_[name]) if name in cache_ else None


def _sessions_of(table: Table, sessions: dict[int, list] | None):
    """The table's sessions as the caller read them: from ``sessions`` (table id → its sessions,
    read without prefetching) when given, else prefetched; ``None`` when neither."""
    return sessions.get(table.pk, []) if sessions is not None else _prefetched(table, "sessions")


def _seats_of(table: Table, seats: dict[int, list[tuple[int, int]]] | None) -> list[tuple[int, int]] | None:
    """The table's (position, player id) pairs by position as the caller read them: from ``seats``
    (table id → its pairs) when given, else from its prefetched seats; ``None`` when neither."""
    if seats is not None:
        return list(seats.get(table.pk, []))
    fetched = _prefetched(table, "seats")
    return None if fetched is None else sorted((seat.position, seat.player_id) for seat in fetched)


def _first_finish(table: Table, sessions: dict[int, list] | None = None):
    """When the table's first session finished, from its sessions as the caller read them
    (``_sessions_of``); ``None`` when none has or they were not read."""
    fetched = _sessions_of(table, sessions)
    finished = [session.finished_at for session in fetched or () if session.finished_at is not None
                and session.status == Session.Status.FINISHED]
    return min(finished) if finished else None


class _Row(NamedTuple):
    session_id: int
    table_id: int
    player_id: int
    game: str
    position: int
    finished_at: object
    mu: float
    sigma: float
    seasoned: bool  # enough rated sessions before this one (``provisional_sessions``)


def provisional_sessions() -> int:
    """``RATINGS_PROVISIONAL_SESSIONS``: the rated sessions a player needs before his chance is
    no longer marked provisional."""
    return settings.RATINGS_PROVISIONAL_SESSIONS


def _history(seats: dict[int, list[tuple[int, int]]], by_id: dict[int, Table], games: dict[int, str],
             sessions: dict[int, list] | None = None) -> list[_Row]:
    """In one query, the rating history the tables' chances are read from: the rows of their own
    rated sessions, and the rows of their players' sessions rated after the tables were published
    (per round, from its earliest table; up to the table's first finished session when the caller
    read the sessions: ``_sessions_of``). Each row says whether the player had
    ``provisional_sessions`` rated sessions before it (an index seek on the player's history)."""
    rounds: dict[tuple[int, str], tuple[object, object, set[int]]] = {}
    for table_id, seated in seats.items():
        table = by_id[table_id]
        key = (table.round_id, games[table_id])
        published, finished, players = rounds.get(key, (table.created_at, _first_finish(table, sessions), set()))
        first = _first_finish(table, sessions)
        finished = None if finished is None or first is None else max(finished, first)
        rounds[key] = (min(published, table.created_at), finished, players | {player for _, player in seated})
    wanted = Q(session__table__in=list(seats))
    for (_, game), (published, finished, players) in rounds.items():
        since = Q(player__in=players, game=game, finished_at__gt=published)
        wanted |= since & Q(finished_at__lte=finished) if finished is not None else since
    needed = provisional_sessions()
    seasoned = (
        Subquery(RatingHistory.objects.filter(
            player=OuterRef("player"), game=OuterRef("game"), position__lt=OuterRef("position"),
        ).order_by("-position").values("pk")[needed - 1:needed])
        if needed > 0 else F("pk")  # not null: nobody is provisional by his count of sessions
    )
    rows = RatingHistory.objects.filter(wanted).annotate(seasoned=seasoned).values_list(
        "session", "session__table", "player", "game", "position", "finished_at", "mu_before", "sigma_before",
        "seasoned",
    )
    return [_Row(*row[:8], row[8] is not None) for row in rows]


def _tables_seats(tables: list[Table], given: dict[int, list[tuple[int, int]]] | None
                  ) -> dict[int, list[tuple[int, int]]]:
    """Table id → its (position, player id) pairs by position: as given or prefetched
    (``_seats_of``), else read (one query for the tables whose seats were not)."""
    seats: dict[int, list[tuple[int, int]]] = {}
    unfetched = []
    for table in tables:
        fetched = _seats_of(table, given)
        if fetched is None:
            unfetched.append(table.pk)
        else:
            seats[table.pk] = fetched
    if unfetched:
        for table_id in unfetched:
            seats[table_id] = []
        for table_id, position, player_id in Seat.objects.filter(table__in=unfetched).order_by(
            "table", "position"
        ).values_list("table", "position", "player"):
            seats[table_id].append((position, player_id))
    return seats


def tables_outlook(tables: Iterable[Table], *, game: str | None = None,
                   seats: dict[int, list[tuple[int, int]]] | None = None,
                   sessions: dict[int, list] | None = None) -> dict[int, TableOutlook]:
    """The outlook of each table of 2 to 6 seated players (others are left out), by table id.

    Two queries whatever the number of tables (the rating history, ``_history``; the current
    ratings, unless every table's latest session is rated), one for the pools' scales (none when
    the cache holds none), and one more for the seats unless they are prefetched
    (``Prefetch("seats")``) or given. ``game``: the tables' game when they are of one event (else
    read from ``table.round.event``). ``seats`` (table id → its (position, player id) pairs by
    position) and ``sessions`` (table id → its sessions by number: anything with ``pk``,
    ``status``, ``finished_at`` and ``totals``): what the caller read of the tables without
    prefetching them (``tournaments.standings.selectors.tables_seats_and_sessions``); else the
    tables' prefetched ``seats`` and ``sessions`` are read, when there are.
    """
    tables = list(tables)
    if not tables:
        return {}
    by_id = {table.pk: table for table in tables}
    games = {table.pk: game or table.round.event.game for table in tables}
    seats = {table_id: seated for table_id, seated in _tables_seats(tables, seats).items() if 2 <= len(seated) <= 6}
    if not seats:
        return {}

    rows = _history(seats, by_id, games, sessions)
    own: dict[int, dict[int, list[_Row]]] = {}  # table -> its rated sessions' rows, by session
    by_player: dict[tuple[int, str], list[_Row]] = {}  # (player, game) -> his rows read
    for row in rows:
        if row.table_id in seats:
            own.setdefault(row.table_id, {}).setdefault(row.session_id, []).append(row)
        by_player.setdefault((row.player_id, row.game), []).append(row)
    needed = provisional_sessions()

    order = list(seats)
    scales = pool_scales({games[table_id] for table_id in order})
    # Each table's latest rated session with all its players, if it has one: its chances are read
    # from the history; the others' from the ratings when they were published, the current ones
    # of the players not rated since (one query, none when every table has played and been rated).
    latest_of: dict[int, list[_Row] | None] = {}
    for table_id in order:
        sessions = sorted(own.get(table_id, {}).values(), key=lambda session_rows: session_rows[0].position)
        latest = sessions[-1] if sessions else None
        players = {player for _, player in seats[table_id]}
        latest_of[table_id] = sessions if latest is not None and players <= {row.player_id for row in latest} else None
    wanted = {player for table_id in order if latest_of[table_id] is None for _, player in seats[table_id]}
    current = {
        (player, rated_game): (mu, sigma, sessions)
        for player, rated_game, mu, sigma, sessions in Rating.objects.filter(player__in=wanted).values_list(
            "player", "game", "mu", "sigma", "sessions"
        )
    } if wanted else {}
    ratings, bases, seasoned = [], [], []
    for table_id in order:
        table, players = by_id[table_id], [player for _, player in seats[table_id]]
        sessions = latest_of[table_id]
        if sessions is not None:
            latest = sessions[-1]
            at_latest = {row.player_id: row for row in latest}
            # The chances of the latest rated session: the ratings from when it could first be
            # predicted (the table's publication, or the end of the table's session before it).
            start = sessions[-2][0].finished_at if len(sessions) > 1 else table.created_at
            end = latest[0].position
            chosen = []
            for player in players:
                candidates = [row for row in by_player.get((player, games[table_id]), [])
                              if row.finished_at > start and row.position <= end]
                chosen.append(min(candidates + [at_latest[player]], key=lambda row: row.position))
            ratings.append([(row.mu, row.sigma) for row in chosen])
            seasoned.append([row.seasoned for row in chosen])
            bases.append(("before_session", latest[0].session_id))
            continue
        # Not played yet (or not rated): the ratings when the table was published.
        table_ratings, flags, moved = [], [], False
        for player in players:
            later = [row for row in by_player.get((player, games[table_id]), [])
                     if row.finished_at > table.created_at]
            if later:
                row = min(later, key=lambda row: row.position)
                table_ratings.append((row.mu, row.sigma))
                flags.append(row.seasoned)
                moved = True
            else:
                mu, sigma, count = current.get((player, games[table_id]), (*NEW_PLAYER, 0))
                table_ratings.append((mu, sigma))
                flags.append(count >= needed)
        ratings.append(table_ratings)
        seasoned.append(flags)
        bases.append(("published" if moved else "current", None))
    result = {}
    for table_id, table_ratings, (basis, session_id), flags, chances in zip(
        order, ratings, bases, seasoned,
        _cached_chances(ratings, [scales[games[table_id]] for table_id in order]),
    ):
        result[table_id] = TableOutlook(table_id, basis, session_id, [
            SeatChance(position, player, chance.win, chance.expected_place,
                       is_provisional(sigma) or not enough, mu, sigma)
            for (position, player), (mu, sigma), chance, enough in zip(
                seats[table_id], table_ratings, chances, flags)
        ])
    return result


# How long a table's chances are kept for the pages (``kept_tables_outlook``): the ratings' count
# moves with every rating, so this bounds only what a scale fitted later (beat's catch-up) waits.
KEPT_SECONDS = 300


def _table_key(table: Table, game: str, seats: dict[int, list[tuple[int, int]]] | None = None,
               sessions: dict[int, list] | None = None) -> str | None:
    """The cache key of the table's chances under the game's ratings: everything of the table its
    outlook reads (publication, seats, its sessions' state); None without its seats and sessions
    read (``_seats_of``, ``_sessions_of``: then nothing is kept)."""
    seated, read = _seats_of(table, seats), _sessions_of(table, sessions)
    if seated is None or read is None:
        return None
    state = (table.round_id, table.created_at.isoformat(), seated,
             [(session.pk, session.status, session.finished_at and session.finished_at.isoformat())
              for session in read])
    return f"outlook:{game}:{table.pk}:" + hashlib.sha1(repr(state).encode()).hexdigest()


def kept_tables_outlook(tables: Iterable[Table], *, game: str, ratings_key: str,
                        seats: dict[int, list[tuple[int, int]]] | None = None,
                        sessions: dict[int, list] | None = None) -> dict[int, TableOutlook]:
    """``tables_outlook`` of an event's tables (of ``game``, seats and sessions prefetched or given:
    ``seats`` and ``sessions`` as ``tables_outlook`` takes them), kept in the shared cache per
    table under the game's ratings count (``ratings_key``, moved by every
    rating: ``tournaments.live.ratings_changed``) and the table's own state (``_table_key``): a
    page rendered again after a hand reads them in one round trip to the cache with the count, no
    query; a table that started or finished a session, or new ratings, compute the page's tables
    again (all of them, so that each is computed with the others as ``tables_outlook`` reads them
    together). Without the cache, computed; and inside a transaction, whose writes may never be
    committed (nor the count moved), neither read from the cache nor kept."""
    tables = list(tables)
    keys = {table.pk: _table_key(table, game, seats, sessions) for table in tables}
    if not tables or None in keys.values() or transaction.get_connection().in_atomic_block:
        return tables_outlook(tables, game=game, seats=seats, sessions=sessions)
    missing = object()
    found = _from_cache(lambda: cache.get_many([ratings_key, *keys.values()]), missing)
    if found is missing:
        return tables_outlook(tables, game=game, seats=seats, sessions=sessions)
    count = found.get(ratings_key, 0)
    kept = {table_id: found.get(key) for table_id, key in keys.items()}
    if all(entry is not None and entry[0] == count for entry in kept.values()):
        return {table_id: entry[1] for table_id, entry in kept.items() if entry[1] is not None}
    result = tables_outlook(tables, game=game, seats=seats, sessions=sessions)
    _from_cache(lambda: cache.set_many({key: (count, result.get(table_id)) for table_id, key in keys.items()},
                                       KEPT_SECONDS), None)
    return result


def table_outlook(table: Table) -> TableOutlook | None:
    return tables_outlook([table]).get(table.pk)


class Upset(NamedTuple):
    session_id: int
    table_id: int
    round_number: int
    table_number: int
    player_id: int
    win: float  # the winner's chance before the session
    players: int


def event_upset(tables: Sequence[Table], outlooks: dict[int, TableOutlook],
                sessions_of: dict[int, list] | None = None) -> Upset | None:
    """Of ``tables`` (an event's tables the caller may show) and their ``outlooks``, the
    finished, rated session whose sole winner had the smallest chance before it, where the table
    had a favourite and it was somebody else. Reads the sessions unless they are prefetched or
    given (``sessions_of``: table id → its sessions, as ``tables_outlook`` takes them)."""
    by_id = {table.pk: table for table in tables}
    wanted = {o.session_id for o in outlooks.values() if o.session_id}
    sessions = {}
    missing = False
    for table in tables:
        fetched = _sessions_of(table, sessions_of)
        if fetched is None:
            missing = True
            continue
        sessions.update({session.pk: session for session in fetched if session.pk in wanted})
    if missing:
        sessions.update({session.pk: session for session in Session.objects.filter(pk__in=wanted)})
    best = None
    for outlook in outlooks.values():
        session = sessions.get(outlook.session_id)
        if session is None or session.status != Session.Status.FINISHED or len(session.totals) != len(outlook.seats):
            continue
        top = max(session.totals)
        winners = [seat for seat in outlook.seats if session.totals[seat.position] == top]
        if len(winners) != 1:
            continue
        winner = winners[0]
        favourite = outlook.favourite
        if favourite is None or favourite.player_id == winner.player_id:
            continue  # even chances upset nobody; a favourite who wins is no upset
        if best is None or winner.win < best.win:
            table = by_id[outlook.table_id]
            best = Upset(session.pk, table.pk, table.round.number, table.number, winner.player_id, winner.win,
                         len(outlook.seats))
    return best


PAGE_SESSIONS = 2000  # the calibration page scores the pool's latest sessions


def recent_calibration(game: str, sessions: int = PAGE_SESSIONS):
    """The calibration report (``ratings.calibration.Report``) of the pool's latest ``sessions``,
    each predicted from the ratings its players had just before it as the pool stored them
    (``RatingHistory``) and with the scale the pool had fitted then (``scale_of_block``): what
    ``manage.py calibration_report`` finds by replaying, without the replay. Cached until the
    pool changes."""
    last = PoolEntry.objects.filter(game=game).order_by("-position").values_list("position", flat=True).first()
    if last is None:
        return None
    key = f"calibration:{game}:{last}:{sessions}"
    cached = _from_cache(lambda: cache.get(key), None)
    if cached is not None:
        return cached
    tables, outcomes, positions = _stored_tables(game, max(0, last + 1 - sessions), last + 1)
    chances: list[list[float]] = []
    for block in sorted({position // REFIT for position in positions}):
        rows = [index for index, position in enumerate(positions) if position // REFIT == block]
        chances.extend(predict([tables[index] for index in rows], "chances", scale_of_block(game, block)))
    report = Report(
        len(outcomes), sum(map(len, outcomes)),
        {method: score(chances if method == "chances" else predict(tables, method), outcomes) for method in METHODS},
        reliability(chances, outcomes),
    )
    _from_cache(lambda: cache.set(key, report, CACHE_SECONDS), None)
    return report
