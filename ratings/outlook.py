"""Win chances of stored tables: the players' ratings read, ``chances.room_chances`` computed.

Which ratings: a table whose latest session is rated is shown with the ratings its players had
just before that session (``RatingHistory``), so a prediction does not change once the result is
in; any other table with its players' current ratings (a player with none is new: the prior,
provisional). The chances depend on the ratings and the pool's fitted scale
(``pool_scale``: fitted on the pool's own history, ``ratings.calibration.fit_scale``), so they
are cached by both.

Callers pass tables they may show (``tournaments.policy.Visibility``): the ratings themselves are
public (only public results are rated).
"""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from django.core.cache import cache
from django.db.models import Max

from tournaments.models import Seat, Session, Table

from .calibration import (
    METHODS,
    MIN_FIT,
    REFIT,
    WINDOW,
    Report,
    fit_scale,
    observed_wins,
    predict,
    reliability,
    score,
    trusted,
)
from .chances import DEFAULT_SCALE, Chance, Scale, room_chances
from .model import NEW_PLAYER
from .models import PoolEntry, Rating, RatingHistory

CACHE_SECONDS = 24 * 3600
# After the shared cache failed, this process computes without it for so long (a Redis that is down
# answers each command only after its connect timeout: a page must not wait for it at every table).
CACHE_PAUSE_SECONDS = 5.0

log = logging.getLogger(__name__)
_cache_down_until = 0.0


def _from_cache(call, default):
    """``call()`` on the shared cache, or ``default`` when it fails: the chances are then computed
    (a page with chances never fails because the cache is down; it costs their computation)."""
    global _cache_down_until
    if time.monotonic() < _cache_down_until:
        return default
    try:
        return call()
    except Exception:  # noqa: BLE001 - a cache backend's failures are many (Redis down, timeouts)
        _cache_down_until = time.monotonic() + CACHE_PAUSE_SECONDS
        log.warning("the shared cache failed: win chances are computed without it", exc_info=True)
        return default


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
    basis: str  # "current": the players' ratings now; "before_session": as they were before the session
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


def _cached(key: str, compute):
    found = _from_cache(lambda: cache.get(key), None)
    if found is None:
        found = compute()
        _from_cache(lambda: cache.set(key, found, 30 * CACHE_SECONDS), None)
    return found


def _fitted(game: str, block: int) -> Scale:
    """The scale fitted on the ``WINDOW`` pool sessions before position ``block·REFIT``
    (``calibration.fit_scale``; the default below ``MIN_FIT``). Cached until those sessions are
    rated again (a corrected result rolls the pool back and renumbers its entries)."""
    end = block * REFIT
    last = PoolEntry.objects.filter(game=game, position=end - 1).values_list("pk", flat=True).first() if end else None
    if end < MIN_FIT or last is None:
        return DEFAULT_SCALE

    def fit():
        tables, outcomes, _ = _stored_tables(game, max(0, end - WINDOW), end)
        return tuple(fit_scale(tables, outcomes))

    return Scale(*_cached(f"chance-scale:{game}:{block}:{last}", fit))


def scale_of_block(game: str, block: int) -> Scale:
    """The scale the pool predicts its sessions at positions ``block·REFIT`` onwards with, as the
    calibration report replays it (``calibration.fitted_chances``): this block's fit when the
    previous block's fit predicted the previous block better than the default scale
    (``calibration.trusted``), else the default."""
    fitted, previous = _fitted(game, block), _fitted(game, block - 1) if block else DEFAULT_SCALE
    if fitted == DEFAULT_SCALE or previous == DEFAULT_SCALE:
        return DEFAULT_SCALE
    last = PoolEntry.objects.filter(game=game, position=block * REFIT - 1).values_list("pk", flat=True).first()

    def judged():
        tables, outcomes, _ = _stored_tables(game, (block - 1) * REFIT, block * REFIT)
        return trusted(previous, False, tables, outcomes)[1]

    return fitted if _cached(f"chance-scale-trusted:{game}:{block}:{last}", judged) else DEFAULT_SCALE


def pool_scales(games: Iterable[str]) -> dict[str, Scale]:
    """The scale of each pool's next sessions (``scale_of_block``): one query for the pools' sizes,
    and none more once the fits are cached (the rating worker calls ``pool_scale`` after each sync,
    so that a page seldom pays for a fit)."""
    games = list(games)
    sizes = dict(
        PoolEntry.objects.filter(game__in=games).order_by().values("game").annotate(size=Max("position") + 1)
        .values_list("game", "size")
    )
    return {game: scale_of_block(game, sizes[game] // REFIT) if game in sizes else DEFAULT_SCALE for game in games}


def pool_scale(game: str) -> Scale:
    return pool_scales([game])[game]


def _prefetched(table: Table, name: str):
    """``table.<name>.all()`` when the caller prefetched it (no query), else ``None``."""
    cache_ = getattr(table, "_prefetched_objects_cache", {})
    return list(cache_[name]) if name in cache_ else None


def tables_outlook(tables: Iterable[Table], *, game: str | None = None) -> dict[int, TableOutlook]:
    """The outlook of each table of 2 to 6 seated players (others are left out), by table id.

    Two queries whatever the number of tables (the rating history of their sessions, the current
    ratings), and one more for the seats unless they are prefetched (``Prefetch("seats")``).
    ``game``: the tables' game when they are of one event (else read from ``table.round.event``).
    """
    tables = list(tables)
    if not tables:
        return {}
    games = {table.pk: game or table.round.event.game for table in tables}
    seats: dict[int, list[tuple[int, int]]] = {}
    unfetched = []
    for table in tables:
        fetched = _prefetched(table, "seats")
        if fetched is None:
            unfetched.append(table.pk)
        else:
            seats[table.pk] = sorted((seat.position, seat.player_id) for seat in fetched)
    if unfetched:
        for table_id in unfetched:
            seats[table_id] = []
        for table_id, position, player_id in Seat.objects.filter(table__in=unfetched).order_by(
            "table", "position"
        ).values_list("table", "position", "player"):
            seats[table_id].append((position, player_id))
    seats = {table_id: seated for table_id, seated in seats.items() if 2 <= len(seated) <= 6}

    # The latest rated session of each table and its players' ratings just before it.
    latest: dict[int, int] = {}
    before: dict[tuple[int, int], tuple[float, float]] = {}
    for session_id, table_id, player_id, mu, sigma in RatingHistory.objects.filter(
        session__table__in=list(seats)
    ).values_list("session", "session__table", "player", "mu_before", "sigma_before"):
        before[(session_id, player_id)] = (mu, sigma)
        latest[table_id] = max(latest.get(table_id, session_id), session_id)
    wanted = {player for seated in seats.values() for _, player in seated}
    current = {
        (player, rated_game): (mu, sigma)
        for player, rated_game, mu, sigma in Rating.objects.filter(player__in=wanted).values_list(
            "player", "game", "mu", "sigma"
        )
    }

    order = list(seats)
    scales = pool_scales({games[table_id] for table_id in order})
    ratings, bases = [], []
    for table_id in order:
        session_id = latest.get(table_id)
        if session_id is not None and all((session_id, player) in before for _, player in seats[table_id]):
            ratings.append([before[(session_id, player)] for _, player in seats[table_id]])
            bases.append(("before_session", session_id))
        else:
            ratings.append([current.get((player, games[table_id]), NEW_PLAYER) for _, player in seats[table_id]])
            bases.append(("current", None))
    result = {}
    for table_id, table_ratings, (basis, session_id), chances in zip(
        order, ratings, bases, _cached_chances(ratings, [scales[games[table_id]] for table_id in order])
    ):
        result[table_id] = TableOutlook(table_id, basis, session_id, [
            SeatChance(position, player, chance.win, chance.expected_place, chance.provisional, mu, sigma)
            for (position, player), (mu, sigma), chance in zip(seats[table_id], table_ratings, chances)
        ])
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


def event_upset(tables: Sequence[Table], outlooks: dict[int, TableOutlook]) -> Upset | None:
    """Of ``tables`` (an event's tables the caller may show) and their ``outlooks``, the
    finished, rated session whose sole winner had the smallest chance before it, where the table
    had a favourite and it was somebody else. Reads the sessions unless they are prefetched."""
    by_id = {table.pk: table for table in tables}
    wanted = {o.session_id for o in outlooks.values() if o.session_id}
    sessions = {}
    missing = False
    for table in tables:
        fetched = _prefetched(table, "sessions")
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
