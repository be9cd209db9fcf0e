"""A network cable between the browser and the live server that a test can pull.

Playwright's ``context.set_offline`` tells the page it is offline (``navigator.onLine``, the
``offline`` event) and fails its requests through DevTools' network emulation, applied target by
target (page, service worker). The sheet's offline test failed about one full run in three with a
hand stored while the page was offline, which was never reproduced alone and whose path was not
found; the sheet checks ``navigator.onLine`` before every send. Through this cable the browser talks
to the server over a real TCP connection, and pulling it closes the open connections and refuses new
ones: nothing reaches the server while it is pulled, whatever the emulation does, so the test checks
the sheet (hands kept on the phone, sent once and in order) and not the emulation.
"""
from __future__ import annotations

import socket
import threading
from urllib.parse import urlsplit


class Cable:
    def __init__(self, upstream_url: str):
        parts = urlsplit(upstream_url)
        self.upstream = (parts.hostname, parts.port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.pulled = False
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.passed = 0  # connections carried to the server
        threading.Thread(target=self._accept, daemon=True).start()

    def pull(self) -> None:
        with self.lock:
            self.pulled = True
            for sock in self.open:
                _close(sock)
            self.open.clear()

    def plug(self) -> None:
        with self.lock:
            self.pulled = False

    def close(self) -> None:
        self.pull()
        _close(self.listener)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            with self.lock:
                if self.pulled:
                    _close(client)
                    continue
                try:
                    server = socket.create_connection(self.upstream)
                except OSError:
                    _close(client)
                    continue
                self.open.update((client, server))
                self.passed += 1
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            with self.lock:
                self.open.discard(source)
                self.open.discard(target)
            _close(source)
            _close(target)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
