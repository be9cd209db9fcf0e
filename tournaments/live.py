"""Server push for the live pages: the room screen, the public event page, the console's board and
the series pages.

When a table's results change (``signals.table_results_changed``, sent on commit after a hand is
stored, corrected or voided), a round is held back or released
(``signals.results_visibility_changed``) or anything else the event's pages show changes
(``signals.event_shown_changed``: the services that write it announce it, on commit), the event's
*version* is bumped at once (a counter in the shared cache) and the event's groups on the channel
layer get a message naming it. The version moves with every change that moves a page, after its
commit: a fragment is cached under the version read before its data, so no fragment of a version
is older than the version's last change. A hand from a table's scorer token, whose writer reads no
page after it, has its versions bumped by the process's sender right before its message, with the
other changes of that moment in one round trip (``announce_all``'s ``coalesced``); everything an
organiser or a player changes moves them before the answer, so that a page read after it never
finds the fragments of the version before it. Two groups per event:
the public one hears of changes the public can see (not of hands in a held-back round), the
organisers' one of every change.

Pages are fed, not refetched: the live regions a page asks for when it connects
(``?push=screen`` or ``?push=standings,rounds``, with ``lang=``) are fragments of one audience —
the public's, or the event's organisers' (the console's board, ``?push=board:<round>``, sent to
their sockets only) —, rendered once per (event, audience, version, language, page) whatever the
number of screens (``fragment``: this process's memo, then the shared cache, then one renderer
across the processes, the others waiting for its answer), and sent in the message; the page
(static/stich/live.js) puts them in place without a request. Regions that are not pushed (other
pages of a long list) are fetched with the version, and the same cache answers them. The
renderers are the pages' and the console's (``settings.LIVE_FRAGMENTS``,
``LIVE_ORGANISER_FRAGMENTS``, ``LIVE_SERIES_FRAGMENTS``: those apps sit above this one).
Rendering happens after the commit, in the live process that sends (never inside a hand's
transaction), and a cache or channel layer that cannot be reached costs freshness only, never the
write: the pages then render without the cache and poll.

A series has a version of its own (``announce_series``), bumped when a write that may move its
public standings commits its sync request (``signals.series_sync_requested``) and when one of its
events announces a change; its pages' standings are rendered once per (series, version, language,
page) (``series_fragment``) and sent to the sockets of the series' own group (``series_group``).
The room screen of an event in a series shows the series' top as a region of the series (pushed
as ``series-top``: its socket joins the series' group too), so a hand moves the versions of its
own event and of its series only, however many events the season has.
"""
from __future__ import annotations

import asyncio
import atexit
import logging
import os
import random
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable
from functools import partial
from urllib.parse import parse_qs

from asgiref.sync import async_to_sync
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.redis import RedisCache
from django.db import transaction
from django.dispatch import receiver
from django.urls import path
from django.utils import translation
from django.utils.module_loading import import_string
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from games.cache_pause import CachePause

from . import policy
from .models import Event
from .signals import (
    event_shown_changed,
    results_visibility_changed,
    series_sync_requested,
    table_results_changed,
)

log = logging.getLogger(__name__)


# -- The event's version and its fragments ---------------------------------------------------------

PUBLIC, ORGANISERS = "public", "organisers"  # the audiences a fragment is rendered for

# A fragment is kept this long in the shared cache (every change that moves a page bumps the version,
# so this bounds only the memory: a version nobody asks for any more is forgotten).
FRAGMENT_SECONDS = 60
VERSION_SECONDS = 7 * 24 * 3600
RENDER_LOCK_SECONDS = 10  # one renderer per fragment across the processes: the others wait so long at most
RENDER_WAIT_SECONDS = 3.0
# After the cache failed, this process leaves it alone for so long (a Redis that is down answers each
# command only after its connect timeout: a page must not wait for it twice).
CACHE_PAUSE_SECONDS = 5.0

_cache_pause = CachePause(CACHE_PAUSE_SECONDS)


def _cache_call(call, default=None):
    """``call()`` on the shared cache, or ``default`` when it fails (the failure is logged, and the
    cache is left alone for ``CACHE_PAUSE_SECONDS``)."""
    if _cache_pause.active:
        return default
    try:
        return call()
    except Exception as error:  # noqa: BLE001 - a cache backend's failures are many (Redis down, timeouts)
        if isinstance(error, LAYER_ERRORS):  # cannot be reached: not asked again for a while
            _cache_pause.start()
        log.warning("the shared cache failed: live fragments are rendered without it", exc_info=True)
        return default


def _version_key(event_id: int) -> str:
    return f"live:version:{event_id}"


def _series_version_key(series_id: int) -> str:
    return f"live:series-version:{series_id}"


def _bump(key: str) -> int | None:
    """The next value of the version counter ``key`` (None when the cache cannot be reached). A
    version that the cache lost (Redis restarted empty) starts again from the clock in
    milliseconds, so it never goes back to a number a process may still hold a fragment of."""
    return _bump_all([key]).get(key)


def _bump_all(keys: list[str], backend=None) -> dict[str, int]:
    """``_bump`` of each key, in one round trip to Redis (a hand in an event of a series moves the
    series' version too); empty when the cache cannot be reached. ``backend``: the shared cache's
    backend to use (the sender's own), else this thread's."""
    def bump():
        return _bump_with(caches[DEFAULT_CACHE_ALIAS] if backend is None else backend, keys)
    return _cache_call(bump, {}) if keys else {}


def _bump_with(backend, keys: list[str]) -> dict[str, int]:
    """``_bump_all``'s command on ``backend``."""
    if isinstance(backend, RedisCache):
        # One command on the hand's commit path (Django's add and incr take three round trips
        # per key). Django's Redis cache stores integers as they are, so ``cache.get`` reads
        # what INCR wrote.
        # ``make_key``: the keys are this module's own (``_version_key``), ASCII without
        # spaces; validating each one's characters cost more than the command.
        stored = [backend.make_key(key) for key in keys]
        versions = _bump_script(backend)(keys=stored, args=[int(time.time() * 1000), VERSION_SECONDS])
        return dict(zip(keys, versions))
    versions = {}
    for key in keys:
        backend.add(key, int(time.time() * 1000), VERSION_SECONDS)
        try:
            versions[key] = backend.incr(key)
        except ValueError:  # expired between the two: start again
            backend.add(key, int(time.time() * 1000), VERSION_SECONDS)
            versions[key] = backend.incr(key)
    return versions


# Each key's version made from the clock when missing (with its expiry), then counted on: what
# ``cache.add`` and ``cache.incr`` do, run by Redis as one command for all the keys.
_BUMP = """
local versions = {}
for i, key in ipairs(KEYS) do
    redis.call('SET', key, ARGV[1], 'EX', ARGV[2], 'NX')
    versions[i] = redis.call('INCR', key)
end
return versions
"""


def _bump_script(backend: RedisCache):
    """``_BUMP`` on ``backend``'s primary server, registered once per backend (the script's SHA is
    computed once; ``stich.cache.RedisCache`` keeps one client per connection pool)."""
    script = getattr(backend, "_live_bump", None)
    if script is None:
        script = backend._live_bump = backend._cache.get_client(write=True).register_script(_BUMP)
    return script


def _current(key: str) -> int | None:
    """The version counter ``key`` now (made when missing), or None when the cache cannot be reached."""
    def read():
        found = cache.get(key)
        if found is None:
            cache.add(key, int(time.time() * 1000), VERSION_SECONDS)
            found = cache.get(key)
        return found
    return _cache_call(read)


def bump_version(event_id: int) -> int | None:
    """The event's next version (None when the cache cannot be reached)."""
    return _bump(_version_key(event_id))


def ratings_key(game: str) -> str:
    """The cache key of the game's ratings count (``ratings_changed``): the fragments and the
    tables' chances kept for the pages (``ratings.outlook.kept_tables_outlook``) are keyed by it."""
    return f"live:ratings:{game}"


def ratings_changed(game: str) -> None:
    """The game's ratings changed (the rating writer's commit): the win chances every page of the
    game shows may have moved, so its fragments are rendered anew (their key holds this count).
    The pages are not told: they show the new chances with their next change or fetch."""
    def bump():
        key = ratings_key(game)
        cache.add(key, 0, None)
        return cache.incr(key)
    _cache_call(bump)


def current_version(event_id: int) -> int | None:
    """The event's version now (made when it has none), or None when the cache cannot be reached."""
    return _current(_version_key(event_id))


def current_series_version(series_id: int) -> int | None:
    """The series' version now (made when it has none), or None when the cache cannot be reached."""
    return _current(_series_version_key(series_id))


SERIES = "series"  # the series' pages: their fragments are public, cached by the series' version

# The renderers of the live regions, by audience (dotted paths in the settings: the pages and the
# console sit above this module): each takes the event's (or series') id and a page, and answers
# None when that audience does not see it.
_REGISTRIES = {PUBLIC: "LIVE_FRAGMENTS", ORGANISERS: "LIVE_ORGANISER_FRAGMENTS", SERIES: "LIVE_SERIES_FRAGMENTS"}
# The page a pushed fragment is of when the page names none (``?push=name``); None: it must name
# one (the console's board names its round, ``board:<round id>``).
DEFAULT_PAGE = {PUBLIC: 1, ORGANISERS: None, SERIES: 0}


def fragment_names(audience: str = PUBLIC) -> set[str]:
    """The fragments a page may ask to be pushed to ``audience``: the public pages' live regions,
    the console's (``ORGANISERS``) or the series pages' (``SERIES``)."""
    return set(getattr(settings, _REGISTRIES[audience], {}))


def render_fragment(subject_id: int, name: str, *, page: int = 1, audience: str = PUBLIC) -> str | None:
    """The fragment ``name`` of the event (or series, for ``SERIES``) as ``audience`` sees it now
    (None: it does not see it), rendered by its renderer in the active language. ``page``: the
    region's page (the console's board: its round)."""
    return import_string(getattr(settings, _REGISTRIES[audience])[name])(subject_id, page=page)


def fragment(event_id: int, name: str, *, language: str, game: str, version: int | None = None, page: int = 1,
             audience: str = PUBLIC, render=None) -> tuple[str | None, int | None]:
    """The fragment and the version it belongs to: from the shared cache when some process rendered
    it for this (event, audience, version, the ratings of its ``game``, language, page), else
    rendered here, once across the processes (the first takes a lock, the others wait for its
    answer up to ``RENDER_WAIT_SECONDS``). ``version``: the event's current one unless given.
    Without the cache it is rendered here. ``render()``: the renderer (``audience``'s fragment
    ``name`` unless given). Every input of the HTML is in the key: what the event's writes change
    (the version), the win chances (the game's ratings, ``ratings_changed``), the language, the
    audience and the page; the renderers read nothing else (no user, no clock: a fragment of the
    organisers is what every organiser of the event sees, ``policy.event_organisers``)."""
    if render is None:
        def render():
            return render_fragment(event_id, name, page=page, audience=audience)
    if version is None:
        version = current_version(event_id)
    [html], version = _cached(f"live:fragment:{event_id}:{audience}", [(name, page, render)], language=language,
                              version=version, game=game)
    return html, version


def event_state(event_id: int, game: str) -> tuple[int | None, int | None]:
    """The event's version now (made when it has none) and its ``game``'s ratings count
    (``ratings_changed``), read in one round trip: what ``fragments`` keys a page's regions by.
    (None, None) when the cache cannot be reached."""
    def read():
        key = _version_key(event_id)
        found = cache.get_many([key, ratings_key(game)])
        if key not in found:
            cache.add(key, int(time.time() * 1000), VERSION_SECONDS)
            found[key] = cache.get(key)
        return found[key], found.get(ratings_key(game), 0)
    return _cache_call(read, (None, None))


def fragments(event_id: int, parts: list[tuple[str, int, Callable[[], str | None]]], *, language: str, game: str,
              state: tuple[int | None, int | None]) -> list[str | None]:
    """``fragment`` for several regions of one page at once (``parts``: name, page and renderer of
    each), under the event's ``state`` as ``event_state`` read it: the regions cached are read in
    one round trip, the others rendered (once across the processes) and stored each."""
    version, ratings = state
    return _cached(f"live:fragment:{event_id}:{PUBLIC}", parts, language=language, version=version, game=game,
                   ratings=ratings)[0]


def series_fragment(series_id: int, name: str, *, language: str, version: int | None = None, page: int = 0,
                    render=None) -> tuple[str | None, int | None]:
    """A series page's fragment (its public standings) and the version it belongs to, as
    ``fragment`` for an event: cached by (series, version, language, page), rendered once across
    the processes. The series' version moves with every change of what its pages show
    (``announce_series``)."""
    if render is None:
        def render():
            return render_fragment(series_id, name, page=page, audience=SERIES)
    if version is None:
        version = current_series_version(series_id)
    [html], version = _cached(f"live:series-fragment:{series_id}", [(name, page, render)], language=language,
                              version=version, game=None)
    return html, version


def _cached(prefix: str, parts: list[tuple[str, int, Callable[[], str | None]]], *, language: str,
            version: int | None, game: str | None, ratings: int | None = None) -> tuple[list[str | None], int | None]:
    """Each part's ``render()`` (a part: name, page, renderer) in ``language``, from the shared
    cache under ``prefix``, the version, the game's ratings (none for ``game=None``; ``ratings``:
    the count when the caller read it), the language, the name and the page; the parts found read
    in one round trip, the others rendered and stored once across the processes."""
    def rendered(render):
        with translation.override(language):
            return render()
    if version is None:
        return [rendered(render) for _, _, render in parts], None
    if transaction.get_connection().in_atomic_block:
        # Inside a transaction the renderer may see writes of that transaction, not committed and
        # perhaps never to be (the version is bumped at their commit): such a fragment is neither
        # shared nor read from the cache, whose fragments may predate those writes.
        return [rendered(render) for _, _, render in parts], version
    if ratings is None:
        ratings = 0 if game is None else _cache_call(lambda: cache.get(ratings_key(game), 0), None)
    if ratings is None:
        return [rendered(render) for _, _, render in parts], version
    keys = [f"{prefix}:{version}:{ratings}:{language}:{name}:{page}" for name, page, _ in parts]
    found = _cache_call(lambda: cache.get_many(keys), {})
    return [found[key] if key in found else _render_once(key, partial(rendered, render))
            for key, (_, _, render) in zip(keys, parts)], version


def _render_once(key: str, render) -> str | None:
    """``render()``, stored under ``key``: rendered by one process at a time (the others wait for
    its answer up to ``RENDER_WAIT_SECONDS``)."""
    missing = object()
    if not _cache_call(lambda: cache.add(key + ":lock", 1, RENDER_LOCK_SECONDS), True):
        deadline = time.monotonic() + RENDER_WAIT_SECONDS
        while time.monotonic() < deadline:
            time.sleep(0.02)
            found = _cache_call(lambda: cache.get(key, missing), missing)
            if found is not missing:
                return found
    html = render()
    _cache_call(lambda: cache.set(key, html, FRAGMENT_SECONDS))
    return html


def public_group(event_id: int) -> str:
    return f"event-{event_id}"


def organisers_group(event_id: int) -> str:
    return f"event-{event_id}-organisers"


def series_group(series_id: int) -> str:
    """The group of the series pages' sockets that asked for its fragments (``?push=``)."""
    return f"series-{series_id}"


# Announcements of one event (or series) within this many seconds go out as one message (per web
# process): a room of 30 tables storing hands at once makes every live page refresh a few times a
# second at most, not once per hand, and the write that caused it never waits for Redis.
COALESCE_SECONDS = 0.1

EVENT, SERIES_KIND = "event", "series"  # what an announcement is of: (kind, id)


def announce(event_id: int, *, public: bool) -> None:
    """Tell the event's live pages that its results changed. A lost message costs only freshness
    (the pages also poll when their socket is down), so a broken channel layer is logged and never
    fails the write that caused it.

    A shared layer (Redis) is sent to from this process's sender loop, coalesced and without
    waiting (``_Sender``). The in-memory layer (one process: ``runserver``, tests) is sent to at
    once, on the caller's loop.
    """
    announce_all({event_id: public})


def announce_all(events: dict[int, bool], series: Iterable[int] = (), *, coalesced: bool = False) -> None:
    """``announce`` each event (event id -> whether the public hears of it) and ``announce_series``
    each of ``series``, their versions bumped in one round trip to the cache.

    ``coalesced``: a change whose writer reads none of the pages after it (a hand from a table's
    scorer token: the table's device shows its own sheet, never a cached fragment) has its
    versions bumped by this process's sender with the other changes of its ``COALESCE_SECONDS``,
    right before their message, in one round trip for all of them (``_Sender``) instead of one per
    change on the writer's request. Until then a page read shows the version before it, as a page
    read between any change's commit and its bump always did; the pages' sockets get the change with
    its version as before. Only with a shared layer (Redis): elsewhere the sender is not used."""
    series = list(series)
    targets = ([((EVENT, event_id), public) for event_id, public in events.items()]
               + [((SERIES_KIND, series_id), True) for series_id in series])
    if coalesced and _shared_layer() is not None:
        _send_all([(target, public, None) for target, public in targets], bump=True)
        return
    # The versions are bumped here, at once (after the change's commit, before anything else reads
    # the pages): a page read after the write never finds the fragments of the version before it.
    versions = _bump_all([_target_version_key(target) for target, _ in targets])
    _send_all([(target, public, versions.get(_target_version_key(target))) for target, public in targets])


def announce_series(series_id: int) -> None:
    """Tell the series' pages that what they show may have changed (its public standings): its
    version is bumped at once, as an event's, and the sockets that asked for its fragments get
    them (``series_group``)."""
    announce_all({}, series=[series_id])


def _shared_layer():
    """The channel layer when it is shared between processes (Redis), else None."""
    layer = get_channel_layer()
    return None if layer is None or isinstance(layer, InMemoryChannelLayer) else layer


def _send_all(sends: list[tuple[tuple[str, int], bool, int | None]], *, bump: bool = False) -> None:
    """Each (target, whether the public hears it, its version) to its live pages: to a shared
    layer all at once (``_Sender.send_all``; ``bump``: their versions bumped by the sender, a
    coalesced change), to the in-memory one each in turn."""
    layer = get_channel_layer()
    if layer is None or not sends:
        return
    if not isinstance(layer, InMemoryChannelLayer):
        try:
            _sender.send_all(layer, sends, bump=bump)
        except Exception:  # noqa: BLE001 - the channel layer's failures are many (Redis down, loop closed)
            log.exception("could not announce the changes of %s to their live pages", [target for target, _, _ in sends])
            if bump:  # nobody will bump them later: the versions move now, unannounced
                _bump_all([_target_version_key(target) for target, _, _ in sends])
        return
    for target, public, version in sends:
        try:
            for group in _target_groups(target, public):
                async_to_sync(layer.group_send)(group, _target_message(target, version))
        except Exception:  # noqa: BLE001 - as above
            log.exception("could not announce the changes of %s %s to its live pages", *target)


def _message(event_id: int, version: int | None = None) -> dict:
    # ``id``: the sockets of one process that hear this message for the same reader share one
    # decision of the policy (``_LiveSocket._decide``); ``version``: the event's, after the change
    # (left out when the cache could not be reached: the pages then fetch).
    message = {"type": "results.changed", "event": event_id, "id": uuid.uuid4().hex}
    if version is not None:
        message["version"] = version
    return message


def _series_message(series_id: int, version: int | None = None) -> dict:
    """As ``_message``, for the series' own group: ``version`` is the series'."""
    message = {"type": "series.changed", "series": series_id, "id": uuid.uuid4().hex}
    if version is not None:
        message["version"] = version
    return message


def _target_message(target: tuple[str, int], version: int | None) -> dict:
    kind, subject = target
    return _message(subject, version) if kind == EVENT else _series_message(subject, version)


def _groups(event_id: int, public: bool) -> list[str]:
    return [organisers_group(event_id)] + ([public_group(event_id)] if public else [])


def _target_groups(target: tuple[str, int], public: bool) -> list[str]:
    kind, subject = target
    return _groups(subject, public) if kind == EVENT else [series_group(subject)]


def _target_version_key(target: tuple[str, int]) -> str:
    kind, subject = target
    return _version_key(subject) if kind == EVENT else _series_version_key(subject)


class _Sender:
    """One event loop per process, on a daemon thread, that sends the announcements of the
    process's synchronous code (WSGI workers, Celery tasks): the layer's connections stay open
    between sends (``async_to_sync`` would start a loop, a thread and a connection for every one),
    and the announcements of one ``COALESCE_SECONDS`` go out together at its end, once per event
    (or series), in one call of the layer's ``group_send_many`` (``stich.layers``: one round trip
    for every group nobody listens to). The versions of the coalesced changes (``announce_all``)
    are bumped there first, all in one round trip to the cache. Started at the first send, and
    again in a forked child; what waits when the process exits is delivered then (``flush``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid: int | None = None
        # (kind, id) -> whether the public hears it too, the newest version bumped (None: unknown),
        # and whether its version is still to be bumped (a coalesced change)
        self._pending: dict[tuple[str, int], tuple[bool, int | None, bool]] = {}
        self._cache, self._cache_pid = None, None
        self._layer = None  # the layer of the latest send (``flush``)

    def cache(self):
        """The shared cache's backend of this process's sender: its own, made once (Django's
        backends are per thread and, in an event loop's thread, per task: each delivery would
        open a connection to Redis of its own)."""
        if self._cache is None or self._cache_pid != os.getpid():
            self._cache, self._cache_pid = caches.create_connection(DEFAULT_CACHE_ALIAS), os.getpid()
        return self._cache

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._pid != os.getpid() or self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="live-announce", daemon=True).start()
                self._loop, self._pid, self._pending = loop, os.getpid(), {}
            return self._loop

    def send_all(self, layer, sends: list[tuple[tuple[str, int], bool, int | None]], *, bump: bool = False) -> None:
        """Have each (target, whether the public hears it, its version) delivered at the end of the
        current ``COALESCE_SECONDS``, under one taking of the lock; ``bump``: their versions are
        bumped then, right before the message (a coalesced change: ``announce_all``)."""
        loop = self.loop()
        with self._lock:
            first = not self._pending  # no delivery is due yet: these start the next
            for target, public, version in sends:
                if target in self._pending:
                    # Already on its way: this change rides along (no wake-up of the loop).
                    was_public, was, to_bump = self._pending[target]
                    self._pending[target] = (was_public or public, max(was, version) if was and version else None,
                                             to_bump or bump)
                else:
                    self._pending[target] = (public, version, bump)
            first = first and bool(self._pending)
            self._layer = layer
        if first:
            try:
                loop.call_soon_threadsafe(loop.call_later, COALESCE_SECONDS,
                                          lambda: loop.create_task(self._deliver(layer)))
            except RuntimeError:  # the loop closed meanwhile: nothing would ever deliver what waits
                with self._lock:
                    self._pending = {}
                raise

    async def _deliver(self, layer) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        await self._send(layer, pending)

    async def _send(self, layer, pending: dict) -> None:
        if not pending:  # delivered by ``flush`` meanwhile
            return
        bumped = [target for target, (_, _, bump) in pending.items() if bump]
        if bumped:
            # The coalesced changes' versions, in one round trip (a blocking call on this loop's
            # thread, which has nothing else to do meanwhile); none when the cache cannot be
            # reached: their messages then carry no version, and the pages fetch.
            versions = _bump_all([_target_version_key(target) for target in bumped], backend=self.cache())
            for target in bumped:
                public, _, _ = pending[target]
                pending[target] = (public, versions.get(_target_version_key(target)), False)
        sends = [(group, _target_message(target, version)) for target, (public, version, _) in pending.items()
                 for group in _target_groups(target, public)]
        try:
            many = getattr(layer, "group_send_many", None)
            if many is not None:
                await many(sends)
            else:  # another shared layer than the project's
                for group, message in sends:
                    await layer.group_send(group, message)
        except Exception:  # noqa: BLE001 - as in announce()
            log.exception("could not announce the changes of %s to their live pages", sorted(pending))

    def flush(self, timeout: float = 2.0) -> None:
        """Deliver what waits now (the process exits: a coalesced change must not leave its
        event's version where it was), waiting up to ``timeout`` seconds."""
        with self._lock:
            loop, pending, self._pending, layer = self._loop, self._pending, {}, self._layer
            if self._pid != os.getpid():
                return  # a forked child's copy: the parent delivers its own
        if not pending:
            return
        if layer is None or loop is None or loop.is_closed():  # nothing can send: the versions move, unannounced
            _bump_all([_target_version_key(target) for target, (_, _, bump) in pending.items() if bump])
            return
        try:
            asyncio.run_coroutine_threadsafe(self._send(layer, pending), loop).result(timeout)
        except Exception:  # noqa: BLE001 - exiting: logged, never raised
            log.exception("could not deliver the changes of %s before exiting", sorted(pending))


_sender = _Sender()
atexit.register(_sender.flush)


@receiver(table_results_changed, dispatch_uid="live_table_results_changed")
def _table_results_changed(sender, event_id: int, table_id: int, held: bool, series_id: int | None,
                           series_requested: int | None = None, coalesced: bool = False, **kwargs) -> None:
    # The series' pages (and the series' top on the room screens of all its events, a region of
    # the series) move with the write's sync request: with this announcement when the write says
    # so (a submission: the versions of the event and the series in one round trip), else with
    # ``series_sync_requested`` (``_series_sync_requested``). The series' other events are not
    # told: what they show of this hand is that region.
    # ``coalesced``: a hand from a table's scorer token (``announce_all``).
    announce_all({event_id: not held}, series=() if series_requested is None else (series_requested,),
                 coalesced=coalesced)


@receiver(event_shown_changed, dispatch_uid="live_event_shown_changed")
def _event_shown_changed(sender, event_id: int, **kwargs) -> None:
    announce(event_id, public=True)
    # What the event's pages show that its series' pages show too (its name and date in their
    # columns, its players' names) moves the series' version.
    series_id = Event.objects.filter(pk=event_id).values_list("series_id", flat=True).first()
    if series_id is not None:
        announce_series(series_id)


@receiver(results_visibility_changed, dispatch_uid="live_results_visibility_changed")
def _results_visibility_changed(sender, event_id: int, **kwargs) -> None:
    announce(event_id, public=True)


@receiver(series_sync_requested, dispatch_uid="live_series_sync_requested")
def _series_sync_requested(sender, series_ids: list[int], announced: bool = False, **kwargs) -> None:
    """A write that may move the series' public standings committed its sync request
    (``standings/outbox.py``: hands, holds and releases, events attached, moved, published or
    redated, the series' scoring): the series' pages move now. Until the sync settles the request
    their fragments are computed (``series_standings.kept_rows``), so the version of this moment
    never shows the rows the request will replace; the sync itself changes nothing they show.
    ``announced``: the write's ``table_results_changed`` moves them (``series_requested``)."""
    if not announced:
        announce_all({}, series=series_ids)


# What a channel layer raises when its server cannot be reached (redis-py's errors, and the socket's).
LAYER_ERRORS = (OSError, RedisConnectionError, RedisTimeoutError)


async def _with_layer(layer, call):
    """``call(layer)``, once more after a connection error: the first command after Redis came back
    may meet a connection the outage broke; the retry gets a fresh one."""
    try:
        return await call(layer)
    except LAYER_ERRORS:
        await asyncio.sleep(0.05)
        return await call(layer)


# Close codes of the live socket (4000-4999: the application's own). The page polls meanwhile
# (static/stich/live.js) and connects again.
CLOSE_NOT_VISIBLE = 4404  # the user may not (or may no longer) see the event
CLOSE_ROLE_CHANGED = 4409  # the user's view of the event changed (organiser or not): connect again
CLOSE_LAYER_DOWN = 4503  # the channel layer cannot be reached now


# How often an open live socket adds itself to its groups again (jittered by a fifth, so that a
# room's screens do not renew at once): a Redis that came back without its data (no persistence)
# leaves a socket deaf for this long at most, and the page is then told to fetch again.
RENEW_SECONDS = 30.0


class _LiveSocket(AsyncJsonWebsocketConsumer):
    """What the live sockets share: they only speak (whatever a client sends is ignored unread),
    join their groups with one retry after a connection the outage broke, are closed with 4503
    while the channel layer cannot be reached, renew their membership every ``RENEW_SECONDS``
    (a membership Redis lost is restored and the page told to fetch again), and leave their
    groups without failing."""

    what = "socket"  # for the log: "event 3", "series 2"
    _renewer: asyncio.Task | None = None

    # The policy's decisions per (message, socket kind, event or series, reader), shared by the
    # sockets of this process: a room of 200 screens asks the database once per message, not 200
    # times. Each message still gets a decision made after it was sent.
    _decisions: OrderedDict = OrderedDict()
    DECISIONS_KEPT = 1000

    async def _decide(self, message, target: int, decide):
        """``decide(user)`` in a thread with database access, or the decision another socket of
        this process took for the same message and reader."""
        user = self.scope.get("user")
        if message.get("id") is None:
            return await database_sync_to_async(decide)(user)
        reader = user.pk if user is not None and user.is_authenticated else None
        key = (message["id"], type(self).__name__, target, reader)
        decision = self._decisions.get(key)
        if decision is None or decision.get_loop() is not asyncio.get_running_loop():
            decision = asyncio.ensure_future(database_sync_to_async(decide)(user))
            self._decisions[key] = decision
            while len(self._decisions) > self.DECISIONS_KEPT:
                self._decisions.popitem(last=False)
        return await asyncio.shield(decision)

    # The fragments rendered or read for a message, shared by the sockets of this process: a room
    # of 200 screens reads (or renders) each fragment once per version and language.
    _fragments: OrderedDict = OrderedDict()
    FRAGMENTS_KEPT = 200

    # The text of an answer, shared likewise: the sockets that hear one message and asked for the
    # same fragments in the same language as the same audience send the same text, encoded once
    # (a room screen's fragment is kilobytes of HTML: encoding it per socket was most of a screen's cost).
    _encoded: OrderedDict = OrderedDict()
    ENCODED_KEPT = 200

    async def _send_answer(self, message, answer: dict, audience) -> None:
        if message.get("id") is None:
            await self.send_json(answer)
            return
        key = (message["id"], type(self).__name__, audience, self.language, self.push)
        text = self._encoded.get(key)
        if text is None:
            text = self._encoded[key] = await self.encode_json(answer)
            while len(self._encoded) > self.ENCODED_KEPT:
                self._encoded.popitem(last=False)
        await self.send(text_data=text)

    def _asks(self, audiences: tuple[str, ...], prefixed: bool = False) -> tuple[str, tuple[tuple[str, str, str, int], ...]]:
        """The language and the fragments the page asked for in its URL (``?lang=de&push=screen``;
        ``name:page`` for another page of a region, the console's board ``board:<round>``), as
        (what the page called it, audience, name, page): a language the site does not speak is its
        default one; unknown fragments are left out, four at most. ``prefixed``: the series'
        fragments asked for on an event's socket, named ``series-<name>`` (``series-top``)."""
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        language = (query.get("lang") or [""])[0].lower()
        if language not in {code for code, _ in settings.LANGUAGES}:
            language = settings.LANGUAGE_CODE
        # What the page may call a fragment -> (its audience, its name there).
        known = {name: (audience, name) for audience in reversed(audiences) for name in fragment_names(audience)}
        if prefixed:
            known.update({f"series-{name}": (SERIES, name) for name in fragment_names(SERIES)})
        wanted = []
        for token in sorted(set(",".join(query.get("push", [])).split(","))):
            name, colon, page = token.partition(":")
            if name not in known:
                continue
            audience, fragment_name = known[name]
            if colon:
                if not (page.isdigit() and len(page) < 10):
                    continue
                page = int(page)
            elif DEFAULT_PAGE[audience] is None:
                continue
            else:
                page = DEFAULT_PAGE[audience]
            wanted.append((token, audience, fragment_name, page))
        return language, tuple(wanted[:4])

    async def _pushed(self, subject_id: int, version: int | None, audiences: tuple[str, ...]) -> dict[str, str]:
        """The fragments this page asked for at ``version`` of the event (or series), those of
        ``audiences`` (the reader's: an organiser's fragment goes to his sockets only); none
        without a version, or when one of them cannot be had: the page fetches them."""
        if version is None or not self.push:
            return {}
        found = {}
        for token, audience, name, page in self.push:
            if audience not in audiences:
                continue
            key = (audience, subject_id, name, page, version, self.language)  # (a memo of one message's moment)
            task = self._fragments.get(key)
            if task is None or task.get_loop() is not asyncio.get_running_loop():
                if audience == SERIES:
                    read = partial(series_fragment, subject_id, name, language=self.language, version=version,
                                   page=page)
                else:
                    read = partial(fragment, subject_id, name, language=self.language, game=self.game,
                                   version=version, page=page, audience=audience)
                task = asyncio.ensure_future(database_sync_to_async(read)())
                self._fragments[key] = task
                while len(self._fragments) > self.FRAGMENTS_KEPT:
                    self._fragments.popitem(last=False)
            try:
                html, _ = await asyncio.shield(task)
            except Exception:  # noqa: BLE001 - a renderer that failed: the page fetches instead
                log.exception("could not render the fragment %s of %s", name, self.what)
                self._fragments.pop(key, None)
                return {}
            if html is None:
                return {}
            found[token] = html
        return found

    language = settings.LANGUAGE_CODE
    push: tuple[tuple[str, str, str, int], ...] = ()
    game = ""

    async def _join(self, groups) -> bool:
        """Join ``groups``; False (the socket closed with 4503) when the layer cannot be reached,
        or has not answered within ``LIVE_JOIN_SECONDS``: the layer's own retries (for
        ``CHANNEL_LAYER_RETRY_SECONDS``, each connection attempt waiting up to 5 s) would keep the
        handshake waiting for a minute and more while Redis is down."""
        try:
            async with asyncio.timeout(settings.LIVE_JOIN_SECONDS):
                for group in groups:
                    await _with_layer(self.channel_layer,
                                      lambda layer, group=group: layer.group_add(group, self.channel_name))
        except (*LAYER_ERRORS, TimeoutError):
            log.warning("live socket of %s refused: the channel layer cannot be reached", self.what)
            await self.close(code=CLOSE_LAYER_DOWN)
            return False
        if hasattr(self.channel_layer, "group_renew"):
            self._renewer = asyncio.get_running_loop().create_task(self._renew(list(groups)))
        return True

    async def _renew(self, groups) -> None:
        """Every ``RENEW_SECONDS``: join ``groups`` again; when Redis had lost one of the
        memberships, the page may have missed changes: it is told to fetch."""
        while True:
            await asyncio.sleep(RENEW_SECONDS * random.uniform(0.8, 1.2))
            try:
                lost = [group for group in groups if await self.channel_layer.group_renew(group, self.channel_name)]
            except LAYER_ERRORS:
                continue  # the layer's own retries gave up: the next round tries again
            if lost:
                log.warning("live socket of %s: Redis had lost its membership of %s; joined again", self.what, lost)
                try:
                    await self.send_json(self._lost_message())
                except Exception:  # noqa: BLE001 - the socket closed meanwhile: nobody to tell
                    return

    def _lost_message(self) -> dict:
        """What the page is told when Redis lost its membership (it may have missed changes): a
        message without a version, so it fetches."""
        return {"type": "results_changed", "event": getattr(self, "event_id", None)}

    async def websocket_disconnect(self, message):
        if self._renewer is not None:
            self._renewer.cancel()
        await super().websocket_disconnect(message)

    async def _leave(self, groups) -> None:
        for group in groups:
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except LAYER_ERRORS:  # the group's entry expires by itself (the layer's group_expiry)
                log.warning("live socket of %s: could not leave its group", self.what)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """Nothing a client sends means anything here: not read, not logged."""

    async def dispatch(self, message):
        """channels' ``dispatch`` without its ``aclose_old_connections`` before every handler: that
        is one hop into the sync thread per socket and message (200 screens: 200 hops for one
        change, about a tenth of the live server's CPU under the rehearsal, py-spy). Every
        database access of these sockets goes through ``database_sync_to_async``, which closes
        the thread's old connections before and after itself."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class EventConsumer(_LiveSocket):
    """``/ws/events/<id>/``: sends ``{"type": "results_changed", "event": id, "version": v}`` on every
    change the connected user may see, with ``"fragments": {name: html}`` when the page asked for
    some (``?push=``: the public fragments; for the event's organisers also theirs, the console's
    board ``board:<round>``; rendered once per version, audience and language, ``fragment``).
    An event the user may not see is refused (closed with 4404).

    A page that asks for a fragment of the event's series (``series-<name>``: the room screen's
    ``series-top``) joins the series' group too, when the user sees the series, and gets
    ``{"type": "series_changed", "series": id, "version": v, "fragments": {...}}`` with the
    series' version, as a series page does (``SeriesConsumer``). A series attached to the event
    later is shown after the page is loaded again.

    Who may see the event is asked again, of the one policy, before each message goes out: an
    event unpublished (or an organiser removed) after the socket opened closes it instead of
    pinging. The socket only speaks: whatever a client sends is ignored unread. When the channel
    layer (Redis) cannot be reached, the socket is closed with 4503 instead of failing; a command
    that meets a connection the outage broke is tried once more, so the first socket after Redis
    returns connects.
    """

    group: str | None = None
    series_id: int | None = None  # the series whose fragments the page asked for and the user sees

    async def connect(self):
        self.event_id = int(self.scope["url_route"]["kwargs"]["event"])
        self.what = f"event {self.event_id}"
        self.language, self.push = self._asks((PUBLIC, ORGANISERS), prefixed=True)
        user = self.scope.get("user")
        allowed, organiser = await database_sync_to_async(self._access)(user)
        if not allowed:
            await self.close(code=CLOSE_NOT_VISIBLE)
            return
        group = organisers_group(self.event_id) if organiser else public_group(self.event_id)
        groups = [group]
        if any(audience == SERIES for _, audience, _, _ in self.push):
            series_id = await database_sync_to_async(self._series_seen)(user)
            if series_id is not None:
                groups.append(series_group(series_id))
        else:
            series_id = None
        if not await self._join(groups):
            return
        self.group, self.organiser, self.series_id = group, organiser, series_id
        await self.accept()

    def _access(self, user) -> tuple[bool, bool]:
        visibility = policy.Visibility(user)
        event = visibility.events().filter(pk=self.event_id).first()
        if event is None:
            return False, False
        self.game = event.game  # the fragments' key names the game's ratings
        return True, visibility.organises(event)

    def _series_seen(self, user) -> int | None:
        """The series the event counts for, when the user sees it (and the event), else None."""
        visibility = policy.Visibility(user)
        series_id = visibility.events().filter(pk=self.event_id).values_list("series_id", flat=True).first()
        if series_id is None or not visibility.series().filter(pk=series_id).exists():
            return None
        return series_id

    async def disconnect(self, code):
        group, self.group = self.group, None
        series_id, self.series_id = self.series_id, None
        await self._leave(([group] if group else []) + ([series_group(series_id)] if series_id is not None else []))

    async def results_changed(self, message):
        if self.group is None:  # closing
            return
        allowed, organiser = await self._decide(message, self.event_id, self._access)
        if not allowed or organiser != self.organiser:
            await self.disconnect(None)
            await self.close(code=CLOSE_NOT_VISIBLE if not allowed else CLOSE_ROLE_CHANGED)
            return
        version = message.get("version")
        answer = {"type": "results_changed", "event": message["event"]}
        if version is not None:
            answer["version"] = version
            fragments = await self._pushed(self.event_id, version, (PUBLIC, ORGANISERS) if organiser else (PUBLIC,))
            if fragments:
                answer["fragments"] = fragments
        if self.group is not None:
            await self._send_answer(message, answer, (self.event_id, organiser))

    async def series_changed(self, message):
        """The series' fragments this page asked for may show something new: sent at the
        message's version of the series. A series the user no longer sees (or the event left)
        closes the socket with 4409: the page connects again, without it."""
        series_id = self.series_id
        if self.group is None or series_id is None:
            return
        if await self._decide(message, series_id, self._series_seen) != series_id:
            await self.disconnect(None)
            await self.close(code=CLOSE_ROLE_CHANGED)
            return
        answer = {"type": "series_changed", "series": series_id}
        version = message.get("version")
        if version is not None:
            answer["version"] = version
            fragments = await self._pushed(series_id, version, (SERIES,))
            if fragments:
                answer["fragments"] = fragments
        if self.group is not None:
            await self._send_answer(message, answer, (SERIES, series_id))


class SeriesConsumer(_LiveSocket):
    """``/ws/series/<id>/``: a series page that asked for its fragments (``?push=standings``, the
    series pages' public standings) joins the series' own group and gets
    ``{"type": "series_changed", "series": id, "version": v, "fragments": {name: html}}`` whenever
    they may have changed (``announce_series``: rendered once per series version and language,
    ``series_fragment``). A socket that asked for none (an API client) joins the group of each of
    the series' events the user sees (the organisers' group of those he organises), so it hears
    every change that moves the standings he reads; it gets what ``EventConsumer`` sends, without
    fragments. A series the user may not see is refused (4404). An event attached later is heard
    after the page reconnects (or by its poll).

    As ``EventConsumer``: the policy is asked again before each message (a series or event no
    longer seen, or a changed role, closes the socket), client frames are ignored unread, and a
    channel layer that cannot be reached closes the socket with 4503.
    """

    groups_joined: dict | None = None  # event id -> the group joined for it; "series" -> the series' own

    async def connect(self):
        self.series_id = int(self.scope["url_route"]["kwargs"]["series"])
        self.what = f"series {self.series_id}"
        self.language, self.push = self._asks((SERIES,))
        if self.push:
            visible = await database_sync_to_async(self._visible)(self.scope.get("user"))
            groups = {"series": series_group(self.series_id)} if visible else None
        else:
            groups = await database_sync_to_async(self._groups)(self.scope.get("user"))
        if groups is None:
            await self.close(code=CLOSE_NOT_VISIBLE)
            return
        if not await self._join(groups.values()):
            return
        self.groups_joined = groups
        await self.accept()

    def _visible(self, user) -> bool:
        return policy.Visibility(user).series().filter(pk=self.series_id).exists()

    def _groups(self, user) -> dict[int, str] | None:
        """The group of each event of the series the user sees now, or None for a series he does
        not see."""
        visibility = policy.Visibility(user)
        if not visibility.series().filter(pk=self.series_id).exists():
            return None
        return {event.pk: organisers_group(event.pk) if visibility.organises(event) else public_group(event.pk)
                for event in visibility.events().filter(series=self.series_id).select_related("club")}

    async def disconnect(self, code):
        groups, self.groups_joined = self.groups_joined, None
        await self._leave((groups or {}).values())

    def _lost_message(self) -> dict:
        return {"type": "series_changed", "series": self.series_id}

    async def series_changed(self, message):
        """The series' pages may show something new: its fragments at the message's version."""
        if self.groups_joined is None:  # closing
            return
        if not await self._decide(message, self.series_id, self._visible):
            await self.disconnect(None)
            await self.close(code=CLOSE_NOT_VISIBLE)
            return
        answer = {"type": "series_changed", "series": self.series_id}
        version = message.get("version")
        if version is not None:
            answer["version"] = version
            fragments = await self._pushed(self.series_id, version, (SERIES,))
            if fragments:
                answer["fragments"] = fragments
        if self.groups_joined is not None:
            await self._send_answer(message, answer, self.series_id)

    async def results_changed(self, message):
        if self.groups_joined is None:  # closing
            return
        event = message["event"]
        groups = await self._decide(message, self.series_id, self._groups)
        if groups is None:
            await self.disconnect(None)
            await self.close(code=CLOSE_NOT_VISIBLE)
            return
        if event not in groups:  # an event of the series the user no longer sees: nothing goes out
            return
        if groups[event] != self.groups_joined.get(event):  # organiser now, or no longer
            await self.disconnect(None)
            await self.close(code=CLOSE_ROLE_CHANGED)
            return
        answer = {"type": "results_changed", "event": event}
        if message.get("version") is not None:
            answer["version"] = message["version"]
        await self.send_json(answer)


websocket_urlpatterns = [
    path("ws/events/<int:event>/", EventConsumer.as_asgi()),
    path("ws/series/<int:series>/", SeriesConsumer.as_asgi()),
]
