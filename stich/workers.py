"""gunicorn's worker class for the ASGI application (deploy/): uvicorn without its proxy headers.

uvicorn by default rewrites the client's address from ``X-Forwarded-For`` when the connection
comes from an address in ``forwarded_allow_ips`` (127.0.0.1 unless configured), whatever
``NUM_PROXIES`` says: behind nothing, any local client could then name its own address to the
throttles and the log. Here the connection's peer stays the client's address, and the project
alone decides how far to trust the header (``NUM_PROXIES``, as under WSGI).
"""
from __future__ import annotations

from uvicorn_worker import UvicornWorker as _UvicornWorker


class UvicornWorker(_UvicornWorker):
    CONFIG_KWARGS = {**_UvicornWorker.CONFIG_KWARGS, "proxy_headers": False}
