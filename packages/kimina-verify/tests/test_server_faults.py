"""Faults and bad input: each gets its documented outcome, fails only what it must, and the server stays healthy."""

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from kimina_verify.testing import ServerThread, sim_settings


@pytest.fixture
def server() -> Iterator[ServerThread]:
    with ServerThread(sim_settings(max_repls=2, timeout=5)) as running:
        yield running


def post(url: str, codes: list[str], **options: Any) -> httpx.Response:
    snippets = [{"id": str(i), "code": code} for i, code in enumerate(codes)]
    return httpx.post(f"{url}/api/check", json={"snippets": snippets, **options}, timeout=60)


def results(url: str, codes: list[str], **options: Any) -> list[dict[str, Any]]:
    response = post(url, codes, **options)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["results"]
    assert [r["id"] for r in found] == [str(i) for i in range(len(codes))]
    return found


def assert_healthy(url: str) -> None:
    assert httpx.get(f"{url}/health").json()["status"] == "ok"
    (result,) = results(url, ["theorem still_fine : True := trivial"])
    assert result["response"]["env"] >= 1


def test_repl_killed_with_sigkill_mid_command_fails_only_its_snippet(server: ServerThread) -> None:
    pool = server.app.state.pool
    answer: list[list[dict[str, Any]]] = []
    thread = threading.Thread(
        target=lambda: answer.append(results(server.url, ["def slow := 1 -- sim: sleep 3", "def quick := 2"]))
    )
    thread.start()
    deadline = time.monotonic() + 10
    victim = None
    while victim is None:
        assert time.monotonic() < deadline, "the slow snippet never started"
        busy = [s for s in pool.slots if s.busy and s.repl is not None and s.repl.alive]
        victim = busy[0].repl if len(busy) == 1 and pool.running == 1 else None
        time.sleep(0.02)
    os.kill(victim.proc.pid, signal.SIGKILL)
    thread.join(30)
    slow, quick = answer[0]
    # A REPL that dies under a snippet once may have been left so by others (here: killed from outside): the
    # snippet runs again on a fresh REPL and gets its own answer.
    assert slow["response"]["env"] >= 1
    assert quick["response"]["env"] >= 1
    assert pool.metrics.restarts["crash"] == 1
    assert_healthy(server.url)


def test_crash_hang_and_garbage_fail_only_their_snippets(server: ServerThread) -> None:
    found = results(
        server.url,
        [
            "def a := 1 -- sim: crash",
            "def b := 1",
            "def c := 1 -- sim: hang",
            "def d := 1 -- sim: garbage",
            "theorem e : True := by\n  sorry",
        ],
        timeout=1,
    )
    # Crashing a fresh REPL too (a stack overflow) is the snippet's failure: a verdict of its own, not `infra`.
    assert found[0]["error"].startswith("lean_error: Lean crashed on this snippet on two fresh REPLs")
    assert "Stack overflow" in found[0]["error"]
    assert found[1]["response"]["env"] >= 1
    assert found[2]["error"] == "Lean REPL command timed out in 1.0 seconds"
    # Output that is not the reply, on a fresh REPL too, is the snippet's doing: only code it runs can print it.
    assert found[3]["error"].startswith("integrity: the Lean REPL's replies were out of step")
    assert "sorries" in found[4]["response"]
    restarts = server.app.state.pool.metrics.restarts
    assert restarts["crash"] == 2 and restarts["timeout"] == 1 and restarts["out_of_step"] == 2
    assert_healthy(server.url)


def test_repl_over_its_memory_limit() -> None:
    settings = sim_settings(max_repls=1, max_repl_mem=400, mem_per_command=60)
    with ServerThread(settings) as server:
        oom, after = results(server.url, ["def a := 1 -- sim: alloc 1000", "def b := 1"])
        assert oom["error"] == "Lean REPL ran out of memory while checking this snippet (limit 400 MiB)"
        assert after["response"]["env"] >= 1
        # Growing by 60 MiB a command, the REPL passes 80% of 400 MiB within a few checks and is replaced.
        for i in range(8):
            results(server.url, [f"def c{i} := 1"])
        assert server.app.state.pool.metrics.restarts["memory"] >= 2
        assert_healthy(server.url)


def test_repl_replaced_after_max_uses() -> None:
    with ServerThread(sim_settings(max_repls=1, max_repl_uses=3)) as server:
        found = [results(server.url, [f"def a{i} := {i}"])[0] for i in range(7)]
        # Each snippet's environment, then the follow-up command's that confirms the reply was its own.
        assert [r["response"]["env"] for r in found] == [1, 3, 5, 1, 3, 5, 1]
        assert server.app.state.pool.metrics.restarts["uses"] == 2


def test_full_queue_answers_429_with_retry_after() -> None:
    with ServerThread(sim_settings(max_repls=1, max_queue=2, latency=1.0)) as server:
        first: list[httpx.Response] = []
        thread = threading.Thread(
            target=lambda: first.append(post(server.url, ["def a := 1", "def b := 1", "def c := 1"]))
        )
        thread.start()
        time.sleep(0.5)
        refused = post(server.url, ["def d := 1"])
        assert refused.status_code == 429
        assert int(refused.headers["Retry-After"]) >= 1
        too_big = post(server.url, [f"def e{i} := 1" for i in range(4)])
        assert too_big.status_code == 413
        thread.join(30)
        assert first[0].status_code == 200 and len(first[0].json()["results"]) == 3
        assert_healthy(server.url)


def test_check_waiting_longer_than_max_wait_fails() -> None:
    with ServerThread(sim_settings(max_repls=1, max_wait=0.5)) as server:
        slow, waited = results(server.url, ["def a := 1 -- sim: sleep 2", "def b := 1"])
        assert slow["response"]["env"] >= 1
        assert waited["error"] == "No available REPLs within 0.5 seconds"


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        (b"{not json", 422, "JSON decode error"),
        (b'{"snippets": []}', 422, "`snippets` must be non empty"),
        (b'{"snippets": [{"id": "a", "code": "x"}, {"id": "a", "code": "y"}]}', 422, "must have unique ids"),
        (b'{"snippets": [{"custom_id": "a", "code": "x"}]}', 422, "Field required"),
        (b'{"snippets": [{"id": "a", "code": "x"}], "timeout": -1}', 422, "greater than or equal to 0"),
    ],
)
def test_malformed_requests_get_422(server: ServerThread, body: bytes, status: int, detail: str) -> None:
    response = httpx.post(f"{server.url}/api/check", content=body, headers={"content-type": "application/json"})
    assert response.status_code == status
    assert detail in response.text
    assert_healthy(server.url)


def test_ten_megabyte_snippet_fails_alone(server: ServerThread) -> None:
    huge = "theorem t : True := trivial\n" + "-- padding\n" * (1 << 20)
    big, small = results(server.url, [huge, "def small := 1"])
    assert big["error"] == f"snippet is {len(huge)} bytes, over this server's limit of 1048576 bytes"
    assert small["response"]["env"] >= 1
    assert_healthy(server.url)


def test_request_body_over_the_limit_gets_413() -> None:
    with ServerThread(sim_settings(max_repls=1, max_request_bytes=100_000)) as server:
        response = post(server.url, ["x" * 200_000])
        assert response.status_code == 413
        assert "limit of 100000 bytes" in response.json()["detail"]
        assert_healthy(server.url)


def test_huge_reply_and_stderr_chatter_are_fine(server: ServerThread) -> None:
    (result,) = results(server.url, ["def a := 1 -- sim: huge 200000\n-- sim: stderr 2000000"])
    assert len(result["response"]["messages"][0]["data"]) == 200_000


def test_graceful_shutdown_finishes_or_fails_in_flight_checks_explicitly() -> None:
    server = ServerThread(sim_settings(max_repls=1, shutdown_grace=1.5)).start()
    answers: list[httpx.Response] = []
    codes = ["def a := 1 -- sim: sleep 1", "def b := 1 -- sim: sleep 1", "def c := 1 -- sim: sleep 1"]
    thread = threading.Thread(target=lambda: answers.append(post(server.url, codes)))
    thread.start()
    time.sleep(0.5)
    pool = server.app.state.pool
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    deadline = time.monotonic() + 5
    while not pool.closing:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    late = post(server.url, ["def d := 1"])
    assert late.status_code == 503 and late.headers["Retry-After"] == "5"
    stopper.join(30)
    thread.join(30)
    found = answers[0].json()["results"]
    assert found[0]["response"]["env"] >= 1  # finished within the grace period
    assert [r.get("error") for r in found[1:]].count("server shutting down: this snippet was not checked") >= 1
    assert all(("response" in r) != ("error" in r) for r in found)
    assert all(not s.repl or not s.repl.alive for s in pool.slots)


def test_server_refuses_to_start_with_a_broken_repl_command() -> None:
    settings = sim_settings(max_repls=1, repl_cmd=("false",))
    with pytest.raises(RuntimeError, match="does not work"):
        ServerThread(settings).start()


def test_every_error_text_is_json_serialisable() -> None:
    from kimina_verify.server import outcome

    texts = [outcome.TIMEOUT, outcome.CRASHED, outcome.OUT_OF_MEMORY, outcome.GARBAGE, outcome.SHUTDOWN]
    assert json.loads(json.dumps(texts)) == texts
