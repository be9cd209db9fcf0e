"""deploy/nginx's proxy rules, run by Debian's nginx in front of two stand-in web servers: one that
dies mid-request (reads the request, closes the connection unanswered) and one that answers.
A request the dying one took goes on to the other when that is safe (GET; a POST with an
Idempotency-Key), never twice otherwise; when no server can answer, the client gets the service's
503 `unavailable` JSON with Retry-After, never nginx's 502."""
from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (Debian: nginx-light)")


def listening_socket() -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    return server


def serve(server: socket.socket, answer: bool, seen: list) -> None:
    """Read each request; answer it with 201 and its body, or close the connection unanswered."""
    while True:
        try:
            connection, _ = server.accept()
        except OSError:
            return
        with connection:
            data = b""
            while b"\r\n\r\n" not in data:
                data += connection.recv(65536)
            head, body = data.split(b"\r\n\r\n", 1)
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                body += connection.recv(65536)
            seen.append((head.split(b" ")[0].decode(), b"\r\nidempotency-key:" in head.lower()))
            if answer:
                connection.sendall(b"HTTP/1.1 201 Created\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                                   % (len(body), body))


@pytest.fixture
def nginx(tmp_path):
    """``start(web_servers)``: nginx with deploy/nginx's rules in front of ``web_servers`` (the
    upstream's server lines); returns its port."""
    started = []

    def start(web_servers: str, access_log: str = "off") -> int:
        port = listening_socket().getsockname()[1]  # free now; nginx takes it
        (tmp_path / "nginx").mkdir()
        rules = ROOT / "deploy" / "nginx"
        (tmp_path / "nginx.conf").write_text(f"""
daemon off;
worker_processes 1;
pid {tmp_path}/nginx/nginx.pid;
error_log {tmp_path}/nginx/error.log warn;
events {{ worker_connections 64; }}
http {{
    client_body_temp_path {tmp_path}/nginx/body;
    proxy_temp_path {tmp_path}/nginx/proxy;
    fastcgi_temp_path {tmp_path}/nginx/fastcgi;
    uwsgi_temp_path {tmp_path}/nginx/uwsgi;
    scgi_temp_path {tmp_path}/nginx/scgi;
    upstream stich_web {{
{web_servers}
    }}
    upstream stich_live {{ server 127.0.0.1:9; }}
    include {rules}/stich-http.conf;
    access_log {access_log};
    server {{
        listen 127.0.0.1:{port};
        include {rules}/stich-locations.conf;
    }}
}}
""")
        process = subprocess.Popen(["nginx", "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path / "nginx")],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started.append(process)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return port
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, process.stderr.read().decode()
                time.sleep(0.05)

    yield start
    for process in started:
        process.terminate()
        process.wait(10)


@pytest.fixture
def proxy(nginx):
    """nginx in front of a dying and an answering server; yields (port, the dying server's
    requests, the answering server's requests). Neither is ever taken out of the upstream
    (max_fails=0), and a hash spreads the requests over both."""
    dying, answering = listening_socket(), listening_socket()
    seen_dying, seen_answering = [], []
    for server, answer, seen in ((dying, False, seen_dying), (answering, True, seen_answering)):
        threading.Thread(target=serve, args=(server, answer, seen), daemon=True).start()
    port = nginx(f"""        hash $request_id consistent;
        server 127.0.0.1:{dying.getsockname()[1]} max_fails=0;
        server 127.0.0.1:{answering.getsockname()[1]} max_fails=0;""")
    yield port, seen_dying, seen_answering
    dying.close()
    answering.close()


def ask(port: int, method: str, headers: dict | None = None, body: bytes | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    connection.request(method, "/api/v1/tables/1/hands/", body, headers or {})
    response = connection.getresponse()
    answer = (response.status, response.getheader("Retry-After"), response.read())
    connection.close()
    return answer


def test_requests_the_dying_server_took_go_on_only_when_safe(proxy):
    port, seen_dying, seen_answering = proxy
    gets, keyed, unkeyed = [], [], []
    for index in range(16):  # the upstream's hash spreads them over both servers
        gets.append(ask(port, "GET")[0])
        keyed.append(ask(port, "POST", {"Idempotency-Key": f"key-{index}"}, b'{"hand": 1}')[0])
        unkeyed.append(ask(port, "POST", {}, b'{"hand": 1}'))
    # The dying server took some of each kind ...
    assert {("GET", False), ("POST", True), ("POST", False)} <= set(seen_dying)
    # ... and every GET and keyed POST it dropped was answered by the other one.
    assert gets == [201] * 16 and keyed == [201] * 16
    # An unkeyed POST it dropped is not sent twice: the service's own 503 (never 502), to retry.
    refused = [answer for answer in unkeyed if answer[0] != 201]
    assert refused
    for status, retry_after, body in refused:
        assert (status, retry_after, json.loads(body)["code"]) == (503, "2", "unavailable")
    assert seen_answering.count(("POST", False)) == 16 - len(refused)


def test_no_server_left_is_the_services_503(nginx):
    closed = listening_socket()
    closed_port = closed.getsockname()[1]
    closed.close()  # nothing listens there
    port = nginx(f"        server 127.0.0.1:{closed_port};")
    for method, headers in (("GET", {}), ("POST", {"Idempotency-Key": "k"}), ("POST", {})):
        status, retry_after, body = ask(port, method, headers, b"{}" if method == "POST" else None)
        assert (status, retry_after, json.loads(body)["code"]) == (503, "2", "unavailable")


def test_the_access_log_holds_no_scorer_token(nginx, tmp_path):
    """deploy/nginx's log format "stich" masks the token of a scorer link (/t/<token>/) in the
    request line and in the Referer its pages send; other addresses are logged as they are."""
    answering = listening_socket()
    threading.Thread(target=serve, args=(answering, True, []), daemon=True).start()
    log = tmp_path / "access.log"
    port = nginx(f"        server 127.0.0.1:{answering.getsockname()[1]};", access_log=f"{log} stich")
    token = "Zq3-secret-token_9"
    for path, referer in ((f"/t/{token}/", ""), (f"/t/{token}/running/?round=2", ""),
                          ("/api/v1/tables/1/hands/", f"https://turnier.example.org/t/{token}/"),
                          ("/events/7/", "https://turnier.example.org/events/")):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        connection.request("GET", path, headers={"Referer": referer} if referer else {})
        assert connection.getresponse().status == 201
        connection.close()
    deadline = time.monotonic() + 5
    while len(log.read_text().splitlines()) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = log.read_text().splitlines()
    assert len(lines) == 4 and token not in log.read_text()
    assert '"GET /t/***/ HTTP/1.1"' in lines[0] and '"GET /t/***/running/?round=2 HTTP/1.1"' in lines[1]
    assert '"https://turnier.example.org/t/***/"' in lines[2]
    assert '"GET /events/7/ HTTP/1.1"' in lines[3] and '"https://turnier.example.org/events/"' in lines[3]
