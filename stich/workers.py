"""gunicorn's worker class for the ASGI application (deploy/): uvicorn without its proxy headers.

uvicorn by default rewrites the client's address from ``X-Forwarded-For`` when the connection
comes from an address in ``forwarded_allow_ips`` (127.0.0.1 unless configured), whatever
``NUM_PROXIES`` says: behind nothing, any local client could then name its own address to the
throttles and the log. Here the connection's peer stays the client's address, and the project
alone decides how far to trust the header (``NUM_PROXIES``, as under WSGI).

WebSocket messages are sent uncompressed (no permessage-deflate): a live page's message carries a
fragment of HTML that every screen of the room gets alike, encoded once for all of them
(tournaments/live.py), while compression keeps a state per connection and compresses it again for
each screen. The rehearsal with 200 screens (README, Live pages) measured 0.82 ms of CPU per screen
and change uncompressed against 1.00 ms compressed, for about four times the bytes through the proxy
(a fragment is a few kilobytes once per change).
"""
from __future__ import annotations

from uvicorn_worker import UvicornWorker as _UvicornWorker


class UvicornWorker(_UvicornWorker):
    CONFIG_KWARGS = {**_UvicornWorker.CONFIG_KWARGS, "proxy_headers": False, "ws_per_message_deflate": False}
