"""The real kimina-client (sync and async), unchanged, against our server: statuses come out right."""

from collections.abc import Iterator

import pytest
from kimina_client import AsyncKiminaClient, KiminaClient, Snippet, SnippetStatus
from kimina_verify.testing import sim_server

HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)
CASES = {
    "valid": (HEADER + "theorem t (x : ℝ) : x = x := by\n  rfl", SnippetStatus.valid),
    "sorry": (HEADER + "theorem t (x : ℝ) : x = x := by\n  sorry", SnippetStatus.sorry),
    "error": (
        HEADER + "theorem t : (1 : ℕ) = 2 := by\n  norm_num -- sim: error unsolved goals",
        SnippetStatus.lean_error,
    ),
    "timeout": (HEADER + "theorem t : True := by\n  trivial -- sim: hang", SnippetStatus.timeout_error),
    "crash": ("def x := 1 -- sim: crash", SnippetStatus.server_error),
}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with sim_server(max_repls=2) as base:
        yield base


def snippets() -> list[Snippet]:
    return [Snippet(id=name, code=code) for name, (code, _) in CASES.items()]


def test_sync_client_statuses(url: str) -> None:
    client = KiminaClient(api_url=url, n_retries=1)
    assert client.health() == {**client.health(), "status": "ok"}
    response = client.check(snippets(), timeout=2, show_progress=False, batch_size=2)
    statuses = {r.id: r.analyze().status for r in response.results}  # the sync client returns completion order
    assert statuses == {name: status for name, (_, status) in CASES.items()}


async def test_async_client_statuses_in_order(url: str) -> None:
    client = AsyncKiminaClient(api_url=url, n_retries=1)
    try:
        response = await client.check(snippets(), timeout=2, show_progress=False, batch_size=3)
    finally:
        await client.close()
    assert [r.id for r in response.results] == list(CASES)
    assert [r.analyze().status for r in response.results] == [status for _, status in CASES.values()]
    timeout = response.results[3]
    assert timeout.error == "Lean REPL command timed out in 2.0 seconds"
    assert timeout.diagnostics is not None and "repl_uuid" in timeout.diagnostics


def test_client_api_key_and_single_string() -> None:
    with sim_server(max_repls=1, api_key="k") as base:
        ok = KiminaClient(api_url=base, api_key="k", n_retries=1).check(
            "theorem t : True := trivial", show_progress=False
        )
        assert ok.results[0].analyze().status == SnippetStatus.valid
        refused = KiminaClient(api_url=base, api_key="wrong", n_retries=1).check("def x := 1", show_progress=False)
        assert refused.results[0].analyze().status == SnippetStatus.server_error
        assert refused.results[0].error == "Request failed after 1 retries"  # the client hides the 401


async def test_async_api_check_with_infotree_and_debug(url: str) -> None:
    client = AsyncKiminaClient(api_url=url, n_retries=1)
    try:
        response = await client.api_check(
            [Snippet(id="a", code=HEADER + "theorem t : True := trivial")], timeout=5, debug=True, infotree="original"
        )
    finally:
        await client.close()
    (result,) = response.results
    assert result.analyze().status == SnippetStatus.valid
    assert result.diagnostics and len(result.diagnostics["repl_uuid"]) == 32
