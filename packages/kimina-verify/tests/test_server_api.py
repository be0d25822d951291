"""The HTTP API against lean-repl-sim REPLs: v2 shapes, /verify, health, metrics, auth, reuse, no leaks, de-dup."""

import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from kimina_verify.testing import ServerThread, sim_server, sim_settings

MATHLIB = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\n"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with sim_server(max_repls=2, timeout=5) as base:
        yield base


def check(url: str, codes: list[str], **options: Any) -> list[dict[str, Any]]:
    snippets = [{"id": f"s{i}", "code": code} for i, code in enumerate(codes)]
    response = httpx.post(f"{url}/api/check", json={"snippets": snippets, **options}, timeout=60)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    assert [r["id"] for r in results] == [s["id"] for s in snippets]
    return results


def metric(url: str, name: str, labels: str = "") -> float:
    text = httpx.get(f"{url}/metrics").text
    match = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def test_check_returns_one_v2_result_per_snippet_in_order(url: str) -> None:
    valid, sorry, error, repl_error = check(
        url,
        [
            MATHLIB + "theorem t : True := trivial",
            MATHLIB + "theorem t : True := by\n  sorry",
            "theorem t : 1 = 2 := by\n  rfl -- sim: error The rfl tactic failed.",
            "def x := 1 -- sim: crash",
        ],
    )
    assert set(valid) == {"id", "time", "response"} and isinstance(valid["time"], float)
    assert set(valid["response"]) == {"env"}
    assert sorry["response"]["sorries"][0]["goal"] == "⊢ True"
    assert error["response"]["messages"][0]["severity"] == "error"
    assert "error" in repl_error and "crashed" in repl_error["error"] and "response" not in repl_error


def test_positions_refer_to_the_snippets_own_lines(url: str) -> None:
    code = MATHLIB + "theorem t (x : Nat) : x = x := by\n  sorry"
    (result,) = check(url, [code])
    lines = code.split("\n")
    sorry = result["response"]["sorries"][0]
    warning = result["response"]["messages"][0]
    assert lines[sorry["pos"]["line"] - 1][sorry["pos"]["column"] :].startswith("sorry")
    assert lines[warning["pos"]["line"] - 1][warning["pos"]["column"] :].startswith("t (x")


def test_verify_speaks_the_backward_compatible_format(url: str) -> None:
    body = {
        "codes": [
            {"custom_id": 7, "proof": "theorem t : True := trivial"},
            {"custom_id": "b", "code": "def x := 1 -- sim: sleep 10"},
            {"custom_id": 7, "proof": "theorem t : True := trivial"},
        ],
        "timeout": 1,
    }
    results = httpx.post(f"{url}/verify", json=body, timeout=60).json()["results"]
    assert results[0]["custom_id"] == "7" and set(results[0]["response"]) == {"env", "time"}
    assert results[1] == {"custom_id": "b", "error": "Lean REPL command timed out in 1.0 seconds"}
    assert results[2]["custom_id"] == "7"


def test_verify_needs_proof_or_code(url: str) -> None:
    response = httpx.post(f"{url}/verify", json={"codes": [{"custom_id": 1}]})
    assert response.status_code == 422
    assert "no proof/code" in response.text


def test_health_and_metrics(url: str) -> None:
    for path in ("/health", "/health/", "/"):
        body = httpx.get(f"{url}{path}").json()
        assert body["status"] == "ok"
    assert body["repls"]["max"] == 2
    check(url, ["theorem t : True := trivial"])
    text = httpx.get(f"{url}/metrics").text
    for name in (
        "kimina_queue_depth",
        "kimina_repls{state=",
        "kimina_checks_total{outcome=",
        "kimina_check_duration_seconds_bucket",
        "kimina_dedup_hits_total",
        "kimina_repl_restarts_total",
    ):
        assert name in text
    assert metric(url, "kimina_checks_total", '{outcome="valid"}') >= 1


def test_timeout_fails_only_that_snippet_and_the_repl_is_replaced(url: str) -> None:
    results = check(url, ["def x := 1 -- sim: hang", "theorem t : True := trivial"], timeout=1)
    assert results[0]["error"] == "Lean REPL command timed out in 1.0 seconds"
    assert results[0]["time"] == 1.0 and "repl_uuid" in results[0]["diagnostics"]
    assert results[1]["response"] == {"env": 1}
    assert check(url, ["theorem u : True := trivial"])[0]["response"]["env"] >= 1


def test_request_timeout_is_capped_and_defaulted() -> None:
    with sim_server(max_repls=1, timeout=1, max_timeout=2) as base:
        started = httpx.post(
            f"{base}/api/check", json={"snippets": [{"id": "a", "code": "def x := 1 -- sim: hang"}]}, timeout=30
        ).json()
        assert "timed out in 1.0 seconds" in started["results"][0]["error"]  # no timeout given: the default
        capped = check(base, ["def x := 1 -- sim: hang"], timeout=100)
        assert "timed out in 2.0 seconds" in capped[0]["error"]


def test_debug_adds_diagnostics(url: str) -> None:
    (result,) = check(url, ["theorem t : True := trivial"], debug=True)
    assert len(result["diagnostics"]["repl_uuid"]) == 32


def test_a_refused_import_fails_its_snippets_only(url: str) -> None:
    bad, good = check(url, ["import NoSuchLib\ntheorem t : True := trivial", MATHLIB + "theorem t : True := trivial"])
    assert bad["error"].startswith("integrity: header refused, header_import:") and "NoSuchLib" in bad["error"]
    assert good["response"] == {"env": 1}


def test_header_is_imported_once_and_reused() -> None:
    with ServerThread(sim_settings(max_repls=1, import_latency=0.3)) as server:
        pool = server.app.state.pool
        before = pool.metrics.repl_starts
        results = check(server.url, [MATHLIB + f"theorem t{i} : True := trivial" for i in range(20)])
        assert all(r["response"]["env"] >= 1 for r in results)
        assert pool.metrics.repl_starts - before == 1
        fresh = check(server.url, [MATHLIB + "theorem t : True := trivial"] * 3, reuse=False)
        assert [r["response"] for r in fresh] == [{"env": 1}] * 3  # a new REPL for the one (de-duplicated) check
        assert pool.metrics.repl_starts - before == 2


@pytest.mark.parametrize("header", ["", MATHLIB])
def test_no_state_leaks_between_snippets(header: str) -> None:
    """Two snippets declaring the same name on one REPL: each sees only its header's environment."""
    with sim_server(max_repls=1) as base:
        first = check(base, [header + "theorem same : True := trivial"])
        second = check(base, [header + "theorem same : True := trivial\n"])
        both = check(base, [header + "def f := 1", header + "def f := 1\n\n"])
    for result in first + second + both:
        assert "messages" not in result["response"], result


def test_identical_snippets_in_flight_are_checked_once() -> None:
    with ServerThread(sim_settings(max_repls=2, latency=1.5)) as server:
        pool = server.app.state.pool
        code = "theorem t : True := trivial -- shared"
        results: list[list[dict[str, Any]]] = []

        def client() -> None:
            results.append(check(server.url, [code, code, "theorem other : True := trivial"]))

        threads = [threading.Thread(target=client) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(results) == 4
        assert all(r[0]["response"] == r[1]["response"] for r in results)
        assert pool.metrics.check_seconds.count == 2  # one run of `code`, one of the other snippet
        assert pool.metrics.dedup_hits == 10


def test_api_key() -> None:
    with sim_server(max_repls=1, api_key="s3cret") as base:
        body = {"snippets": [{"id": "a", "code": "def x := 1"}]}
        missing = httpx.post(f"{base}/api/check", json=body)
        assert (missing.status_code, missing.json()["detail"]) == (401, "Missing API key")
        wrong = httpx.post(f"{base}/api/check", json=body, headers={"Authorization": "Bearer nope"})
        assert (wrong.status_code, wrong.json()["detail"]) == (401, "Invalid API key")
        assert httpx.post(f"{base}/verify", json={"codes": []}).status_code == 401
        for auth in ("Bearer s3cret", "s3cret"):
            assert httpx.post(f"{base}/api/check", json=body, headers={"Authorization": auth}).status_code == 200
        assert httpx.get(f"{base}/health").status_code == 200


def test_openapi_schema_is_served(url: str) -> None:
    schema = httpx.get(f"{url}/api/openapi.json").json()
    assert {"/api/check", "/verify", "/health", "/metrics"} <= set(schema["paths"])
