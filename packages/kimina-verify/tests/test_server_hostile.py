"""Hostile input, as an attacker on the network would send it: a 4xx with one line for every malformed value, the key
checked before the body is read, limits that count every snippet, slow clients disconnected, HEAD served, and
/health telling the truth after a REPL dies behind the server's back. Each attack sits next to its harmless twin."""

import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from kimina_verify.testing import ServerThread, sim_settings

OK = "theorem t : True := trivial"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(sim_settings(max_repls=2, timeout=5, api_key="k")) as running:
        yield running


@pytest.fixture(scope="module")
def impatient() -> Iterator[ServerThread]:
    """A server that gives clients one second to send their requests."""
    with ServerThread(sim_settings(max_repls=1, timeout=5, api_key="k", read_timeout=1.0)) as running:
        yield running


def post(url: str, body: bytes, path: str = "/api/check", key: str | None = "k") -> httpx.Response:
    headers = {"content-type": "application/json"} | ({"Authorization": f"Bearer {key}"} if key else {})
    return httpx.post(url + path, content=body, headers=headers, timeout=60)


def check_body(code: str = OK, ident: str = "a", **options: Any) -> bytes:
    return json.dumps({"snippets": [{"id": ident, "code": code}], **options}).encode()


def assert_healthy(url: str) -> None:
    assert httpx.get(f"{url}/health").json()["status"] == "ok"
    response = post(url, check_body("theorem still_fine : True := trivial"))
    assert response.status_code == 200 and response.json()["results"][0]["response"]["env"] >= 1


def one_line_reasons(response: httpx.Response) -> list[str]:
    detail = response.json()["detail"]
    reasons = [detail] if isinstance(detail, str) else [item["msg"] for item in detail]
    assert reasons and all(reason and "\n" not in reason for reason in reasons), reasons
    return reasons


SNIPPET = b'{"snippets": [{"id": "a", "code": "theorem t : True := trivial"}]'


@pytest.mark.parametrize(
    ("body", "path", "reason"),
    [
        (SNIPPET + b', "timeout": NaN}', "/api/check", "NaN and Infinity are not JSON numbers"),
        (SNIPPET + b', "timeout": Infinity}', "/api/check", "NaN and Infinity are not JSON numbers"),
        (SNIPPET + b', "timeout": -Infinity}', "/api/check", "NaN and Infinity are not JSON numbers"),
        (SNIPPET + b', "timeout": 1e400}', "/api/check", "finite number"),
        (SNIPPET + b', "timeout": -1}', "/api/check", "greater than or equal to 0"),
        (SNIPPET + b', "timeout": ' + b"9" * 5000 + b"}", "/api/check", "a number too long to read"),
        (
            b'{"snippets": [{"id": "a", "code": "def x := \\ud800"}, {"id": "b", "code": "def y := 1"}]}',
            "/api/check",
            "lone surrogate",
        ),
        (b'{"snippets": [{"id": "\\udfff", "code": "def x := 1"}]}', "/api/check", "lone surrogate"),
        (b'{"snippets": [{"id": "a", "code": "def x := \xed\xa0\x80"}]}', "/api/check", "not valid UTF-8"),
        (b'{"snippets": ' + b"[" * 1000 + b"]" * 1000 + b"}", "/api/check", "nested deeper than 200 levels"),
        (b"[" * 100_000 + b"]" * 100_000, "/api/check", "nested deeper than 200 levels"),
        (b'{"codes": [{"custom_id": 1, "proof": "x"}], "timeout": NaN}', "/verify", "NaN and Infinity"),
        (b'{"codes": [{"custom_id": "\\ud800", "proof": "x"}]}', "/verify", "lone surrogate"),
        (b'{"codes": [{"custom_id": 1, "proof": "x"}], "timeout": -1}', "/verify", "greater than or equal to 0"),
        (b'{"codes": [{"custom_id": 1, "proof": "x"}], "timeout": 1e400}', "/verify", "finite number"),
    ],
)
def test_malformed_values_get_422_with_one_line_reason(
    server: ServerThread, body: bytes, path: str, reason: str
) -> None:
    response = post(server.url, body, path)
    assert response.status_code == 422, response.text
    assert any(reason in line for line in one_line_reasons(response)), response.text
    assert_healthy(server.url)  # only that request was refused


@pytest.mark.parametrize(
    "body",
    [
        check_body("theorem t : True := trivial -- \U0001f600 and the word NaN, Infinity"),  # escaped surrogate pair
        check_body("theorem t : True := trivial -- \\ud800 written out", ident="\U0001f600"),
        json.dumps({"snippets": [{"id": "a", "code": OK}], "timeout": 1e1}).encode(),  # 10.0: a whole number
        json.dumps({"snippets": [{"id": "a", "code": OK}], "extra": [[[[{"deep": [1, 2]}]]]]}).encode(),
        json.dumps({"snippets": [{"id": "a", "code": OK}]}, ensure_ascii=False).encode(),
    ],
)
def test_harmless_look_alikes_are_checked(server: ServerThread, body: bytes) -> None:
    response = post(server.url, body)
    assert response.status_code == 200, response.text
    (result,) = response.json()["results"]
    assert result["response"]["env"] >= 1


def test_verify_timeout_zero_is_the_server_default_not_an_error(server: ServerThread) -> None:
    body = json.dumps({"codes": [{"custom_id": 1, "proof": OK}], "timeout": 0}).encode()
    response = post(server.url, body, "/verify")
    assert response.status_code == 200 and response.json()["results"][0]["response"]["env"] >= 1


@pytest.mark.parametrize(
    "body", [b"{not json", b'{"snippets": [{"id": "a", "code": "x"}], "timeout": NaN}', b"x" * 200_000]
)
def test_the_key_is_checked_before_the_body(server: ServerThread, body: bytes) -> None:
    for key, detail in ((None, "Missing API key"), ("wrong", "Invalid API key")):
        response = post(server.url, body, key=key)
        assert (response.status_code, response.json()["detail"]) == (401, detail)
    assert post(server.url, body).status_code in (413, 422)  # with the key, the body is read and judged


def read_response(sock: socket.socket) -> bytes:
    """One whole HTTP response (headers and a Content-Length body), or what came before the server closed."""
    answer = b""
    while True:
        head, _, body = answer.partition(b"\r\n\r\n")
        length = next(
            (int(line.split(b":")[1]) for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")),
            None,
        )
        if length is not None and len(body) >= length:
            return answer
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, ConnectionResetError):
            return answer
        if not chunk:
            return answer
        answer += chunk


def raw_exchange(url: str, data: bytes, *, wait: float = 10.0) -> bytes:
    """Send raw bytes and return the server's answer (waiting at most `wait` seconds for it)."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=wait) as sock:
        sock.sendall(data)
        return read_response(sock)


def test_an_unauthenticated_body_is_never_read(server: ServerThread) -> None:
    """The 401 comes back while the client has sent only its headers, announcing 47 MB it never sends."""
    head = b"POST /api/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 47000000\r\n\r\n"
    began = time.monotonic()
    answer = raw_exchange(server.url, head, wait=5)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]
    assert time.monotonic() - began < 2


def test_batch_limit_counts_every_snippet_identical_ones_too(server: ServerThread) -> None:
    def batch(n: int) -> bytes:
        return json.dumps({"snippets": [{"id": str(i), "code": OK} for i in range(n)]}).encode()

    refused = post(server.url, batch(4097))  # the default max_batch is 4096
    assert refused.status_code == 413, refused.text[:300]
    assert one_line_reasons(refused) == ["'snippets' holds 4097 items; this server takes at most 4096 per request"]
    accepted = post(server.url, batch(4096))
    assert accepted.status_code == 200
    assert [r["id"] for r in accepted.json()["results"]] == [str(i) for i in range(4096)]


def test_max_batch_is_a_setting() -> None:
    with ServerThread(sim_settings(max_repls=1, max_batch=3)) as small:
        codes = [{"custom_id": i, "proof": OK} for i in range(4)]
        refused = post(small.url, json.dumps({"codes": codes}).encode(), "/verify", key=None)
        assert refused.status_code == 413 and "at most 3 per request" in refused.json()["detail"]
        accepted = post(small.url, json.dumps({"codes": codes[:3]}).encode(), "/verify", key=None)
        assert accepted.status_code == 200 and len(accepted.json()["results"]) == 3


def chunks(total: int, size: int = 65536) -> Iterator[bytes]:
    yield b'{"snippets": [{"id": "a", "code": "'
    sent = 0
    while sent < total:
        yield b"x" * size
        sent += size
    yield b'"}]}'


def test_a_chunked_body_over_the_limit_gets_413() -> None:
    with ServerThread(sim_settings(max_repls=1, max_request_bytes=200_000)) as small:
        headers = {"content-type": "application/json"}
        refused = httpx.post(f"{small.url}/api/check", content=chunks(400_000), headers=headers, timeout=30)
        assert refused.status_code == 413
        assert one_line_reasons(refused) == ["the request body is larger than this server's limit of 200000 bytes"]
        accepted = httpx.post(f"{small.url}/api/check", content=chunks(100_000), headers=headers, timeout=30)
        assert accepted.status_code == 200, accepted.text  # chunked and within the limit
        assert accepted.json()["results"][0]["response"]["env"] >= 1


def open_sockets(url: str, n: int) -> list[socket.socket]:
    parts = urlsplit(url)
    return [socket.create_connection((parts.hostname, parts.port), timeout=10) for _ in range(n)]


def closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_idle_connections_are_closed(impatient: ServerThread) -> None:
    sockets = open_sockets(impatient.url, 50)
    try:
        began = time.monotonic()
        assert all(closed_by_server(sock, within=5) for sock in sockets)
        assert time.monotonic() - began < 5
    finally:
        for sock in sockets:
            sock.close()
    assert_healthy(impatient.url)


def test_headers_sent_a_byte_at_a_time_are_cut_off(impatient: ServerThread) -> None:
    (sock,) = open_sockets(impatient.url, 1)
    began = time.monotonic()
    with sock:
        try:
            for byte in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"y" * 100:
                sock.sendall(bytes([byte]))
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert closed_by_server(sock, within=5)
    assert time.monotonic() - began < 4, "the connection lived past the header deadline while it trickled"


def test_a_stalled_body_gets_408_and_a_slow_steady_one_is_served(impatient: ServerThread) -> None:
    body = check_body()
    head = (
        b"POST /api/check HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    stalled = raw_exchange(impatient.url, head + body[:10], wait=5)
    assert stalled.startswith(b"HTTP/1.1 408"), stalled[:200]
    assert b"nothing for 1 s" in stalled

    parts = urlsplit(impatient.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(head)
        for i in range(0, len(body), 20):  # slower than the deadline in all, but never silent for as long
            time.sleep(0.3)
            sock.sendall(body[i : i + 20])
        answer = read_response(sock)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


def test_a_kept_alive_connection_is_reused_within_the_deadline(impatient: ServerThread) -> None:
    (sock,) = open_sockets(impatient.url, 1)
    with sock:
        for _ in range(3):  # three requests on one connection, each after a pause shorter than the deadline
            time.sleep(0.6)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = read_response(sock)
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


def test_a_client_that_stops_reading_its_answer_is_dropped(impatient: ServerThread) -> None:
    snippets = [{"id": f"{i:05d}" + "y" * 10_000, "code": OK} for i in range(1000)]  # a 10 MB answer
    body = json.dumps({"snippets": snippets}).encode()
    head = (
        b"POST /api/check HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    parts = urlsplit(impatient.url)
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)  # a small window: the server's buffer fills
        sock.connect((parts.hostname, parts.port))
        sock.sendall(head + body)
        time.sleep(4)  # read nothing for longer than the server's one second
        sock.settimeout(5)
        answer, reset = b"", False
        try:
            while chunk := sock.recv(1 << 20):
                answer += chunk
        except ConnectionResetError:
            reset = True
    head_part, _, rest = answer.partition(b"\r\n\r\n")
    assert head_part.startswith(b"HTTP/1.1 200")
    length = int(next(h for h in head_part.lower().split(b"\r\n") if h.startswith(b"content-length:")).split(b":")[1])
    assert reset or len(rest) < length, "the whole answer waited for a client that had stopped reading"
    assert_healthy(impatient.url)


def repl_states(url: str) -> dict[str, int]:
    repls: dict[str, int] = httpx.get(f"{url}/health").json()["repls"]
    return repls


def metric(url: str, state: str) -> float:
    for line in httpx.get(f"{url}/metrics").text.splitlines():
        if line.startswith(f'kimina_repls{{state="{state}"}} '):
            return float(line.split()[-1])
    raise AssertionError(f"no kimina_repls{{state={state!r}}} line")


def test_health_and_metrics_stay_truthful_after_an_idle_repl_is_killed() -> None:
    with ServerThread(sim_settings(max_repls=1)) as running:
        assert repl_states(running.url) == {"max": 1, "busy": 0, "idle": 1, "empty": 0}
        (slot,) = running.app.state.pool.slots
        os.killpg(slot.repl.proc.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while repl_states(running.url)["idle"]:
            assert time.monotonic() < deadline, "/health still lists the dead REPL as idle"
            time.sleep(0.05)
        assert repl_states(running.url) == {"max": 1, "busy": 0, "idle": 0, "empty": 1}
        assert (metric(running.url, "idle"), metric(running.url, "empty")) == (0, 1)
        after = post(running.url, check_body(), key=None)
        assert after.json()["results"][0]["response"]["env"] >= 1  # a new REPL took over
        assert repl_states(running.url)["idle"] == 1 and metric(running.url, "idle") == 1


def get_routes(server: ServerThread) -> list[str]:
    paths = []
    for route in server.app.routes:
        if "GET" in (getattr(route, "methods", None) or ()) and "{" not in route.path:
            paths.append(route.path)
    return paths


def test_head_is_served_wherever_get_is(server: ServerThread) -> None:
    paths = get_routes(server)
    assert {"/health", "/health/", "/", "/metrics", "/api/openapi.json", "/docs"} <= set(paths)
    for path in paths:
        got, head = httpx.get(server.url + path), httpx.head(server.url + path)
        assert (head.status_code, head.content) == (got.status_code, b""), path
        assert head.headers["content-type"] == got.headers["content-type"], path
    assert httpx.head(f"{server.url}/api/check").status_code == 405  # no GET there, so no HEAD either
