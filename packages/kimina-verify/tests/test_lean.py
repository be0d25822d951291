"""Against a real Lean workspace (infra/lean/setup-workspace.sh): the server's verdicts, timeouts and isolation.

Set KIMINA_LEAN_WORKSPACE to the workspace directory (holding mathlib4/ and repl/); skipped otherwise.
"""

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from kimina_format.testing import data_file
from kimina_verify.server.settings import ServerSettings
from kimina_verify.testing import ServerThread

WORKSPACE = os.environ.get("KIMINA_LEAN_WORKSPACE")
pytestmark = [
    pytest.mark.lean,
    pytest.mark.skipif(not WORKSPACE, reason="set KIMINA_LEAN_WORKSPACE to a Lean workspace to run real-Lean tests"),
]
HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)


def workspace() -> Path:
    root = Path(WORKSPACE or "")
    for part in ("mathlib4", "repl/.lake/build/bin/repl"):
        if not (root / part).exists():
            pytest.fail(f"KIMINA_LEAN_WORKSPACE={root} has no {part}; build it with infra/lean/setup-workspace.sh")
    return root


def lean_version() -> str:
    return (workspace() / "mathlib4" / "lean-toolchain").read_text().strip().rsplit(":", 1)[-1]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    root = workspace()
    settings = ServerSettings(
        host="127.0.0.1",
        port=0,
        project_dir=str(root / "mathlib4"),
        repl_path=str(root / "repl" / ".lake" / "build" / "bin" / "repl"),
        max_repls=2,
        timeout=120,
        import_timeout=900,
        init_repls={"import Mathlib\nimport Aesop": 2},
    )
    server = ServerThread(settings).start(timeout=1200)  # importing Mathlib into fresh REPLs takes minutes
    try:
        yield server.url
    finally:
        server.stop()


def check(url: str, codes: list[str], **options: Any) -> list[dict[str, Any]]:
    snippets = [{"id": str(i), "code": code} for i, code in enumerate(codes)]
    response = httpx.post(f"{url}/api/check", json={"snippets": snippets, **options}, timeout=1800)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def test_check_nat_without_header(url: str) -> None:
    (result,) = check(url, ["#check Nat"])
    assert result["response"]["messages"] == [
        {"severity": "info", "pos": {"line": 1, "column": 0}, "endPos": {"line": 1, "column": 6}, "data": "Nat : Type"}
    ]


def test_valid_sorry_and_error(url: str) -> None:
    valid, sorry, error = check(
        url,
        [
            HEADER + "theorem t (a b : ℝ) : a + b = b + a := by\n  ring",
            HEADER + "theorem t (a b : ℝ) : a + b = b + a := by\n  sorry",
            HEADER + "theorem t : (2 : ℕ) + 2 = 5 := by\n  norm_num",
        ],
    )
    assert "messages" not in valid["response"] and "sorries" not in valid["response"]
    assert sorry["response"]["sorries"][0]["pos"]["line"] == HEADER.count("\n") + 2  # the snippet's own line
    assert "sorry" in sorry["response"]["messages"][0]["data"]
    assert any(m["severity"] == "error" for m in error["response"]["messages"])


def test_no_state_leaks_between_snippets(url: str) -> None:
    code = HEADER + "theorem same_name : (1 : ℕ) + 1 = 2 := by norm_num"
    first, second = check(url, [code, code + "\n"])  # distinct texts: both really run
    for result in (first, second):
        assert "messages" not in result["response"], result


def test_timeout_kills_and_replaces_the_repl(url: str) -> None:
    slow, after = check(url, [HEADER + "#eval IO.sleep 100000", HEADER + "theorem t : True := trivial"], timeout=3)
    assert "timed out" in slow["error"]
    assert "messages" not in after["response"]


def test_kimina_prover_proofs_still_verify(url: str) -> None:
    if lean_version() != "v4.15.0":
        pytest.skip(f"the recorded Kimina-Prover verdicts are for Lean v4.15.0, this workspace has {lean_version()}")
    with open(data_file("recorded_verdicts.jsonl"), encoding="utf-8") as rows:
        kimina = [r for r in map(json.loads, rows) if r["model"] == "Kimina-Prover-Preview"][:8]
    results = check(url, [r["full_code"] for r in kimina], timeout=300)
    for row, result in zip(kimina, results, strict=True):
        response = result.get("response") or {}
        errors = [m for m in response.get("messages", []) if m["severity"] == "error"]
        assert not errors and not response.get("sorries"), (row["name"], result)


def test_real_repl_reproduces_its_v4_15_transcripts() -> None:
    """The transcripts the sim is checked against come from this REPL version: confirm them on the real one."""
    if lean_version() != "v4.15.0":
        pytest.skip(f"the transcripts are for Lean v4.15.0, this workspace has {lean_version()}")
    root = workspace()
    with open(data_file("repl_transcripts.jsonl"), encoding="utf-8") as rows:
        cases = [
            r
            for r in map(json.loads, rows)
            if r["repl_ref"] == "v4.15.0" and not r["lean_file"] and "pickle" not in r["input"]
        ]
    repl = str(root / "repl" / ".lake" / "build" / "bin" / "repl")
    for row in cases[:20]:
        done = subprocess.run(
            ["lake", "env", repl],
            input=row["input"],
            capture_output=True,
            text=True,
            cwd=root / "mathlib4",
            timeout=600,
        )
        assert done.stdout == row["expected_output"], row["case"]


# --- the checks run in Lean (lean_checks): what lean-repl-sim assumes about Lean v4.15, on the real thing -------

STATEMENT = HEADER + "theorem target (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by\n  sorry\n"
PROOF = (
    HEADER
    + "theorem target (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by\n  rw [Real.log_pow]\n  norm_num\n"
)


def checked(url: str, code: str) -> Any:
    from kimina_verify import build_check_code, verdict_from_result

    check = build_check_code(code, STATEMENT, lean_checks=True)
    assert check.checks is not None
    snippet = {"id": "0", "code": check.text, "kimina_checks": check.checks.to_json()}
    response = httpx.post(f"{url}/api/check", json={"snippets": [snippet], "timeout": 300}, timeout=1800)
    assert response.status_code == 200, response.text
    (result,) = response.json()["results"]
    return result, verdict_from_result(result, check)


def test_checks_in_lean_accept_a_real_proof(url: str) -> None:
    from kimina_verify import Endpoint, Timeouts, VerdictKind, VerifierOptions, VerifyItem, verify_sync

    (verdict,) = verify_sync([VerifyItem(PROOF, STATEMENT)], VerifierOptions(Endpoint(url), Timeouts(lean_s=300)))
    assert verdict.kind is VerdictKind.VALID and verdict.lean_checks, verdict.detail
    result, direct = checked(url, PROOF)
    answer = result["kimina_checks"]
    # The options exist (no error), the kind, the full type and the axioms are read from Lean's own output.
    assert answer["target"]["errors"] == [] and answer["target"]["kind"] == "theorem"
    assert answer["target"]["type"] == answer["statement"]["type"] and "@Eq" in answer["target"]["type"]
    assert "⋯" not in answer["target"]["type"] and direct.ok


def test_checks_in_lean_see_a_shadowed_statement(url: str) -> None:
    shadowed = HEADER + (
        "namespace Hack\nnoncomputable def Real.log (x : ℝ) : ℝ := 0\n\n"
        "theorem _root_.target (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by\n"
        "  simp [Real.log]\n\nend Hack\n"
    )
    _, verdict = checked(url, shadowed)
    assert verdict.violations[0].code == "type_mismatch", verdict.detail


def test_checks_in_lean_see_a_def_and_a_missing_theorem(url: str) -> None:
    as_def = PROOF.replace("theorem target", "noncomputable def target")
    assert checked(url, as_def)[1].violations[0].code == "target_not_theorem"
    in_namespace = PROOF.replace("theorem target", "namespace N\ntheorem target") + "end N\n"
    assert checked(url, in_namespace)[1].violations[0].code == "target_missing"


def test_a_reply_printed_by_the_snippet_is_caught(url: str) -> None:
    """Code run by the snippet (past the static rules, sent directly) prints a reply before the REPL's own."""
    forger = HEADER + '#eval IO.print "{\\"env\\": 1}\\n\\n"\n\ntheorem t : True := trivial\n'
    honest = HEADER + "theorem t : True := trivial\n"
    snippets = [{"id": "f", "code": forger}, {"id": "h", "code": honest}]
    response = httpx.post(f"{url}/api/check", json={"snippets": snippets, "timeout": 300}, timeout=1800)
    forged, fine = response.json()["results"]
    assert forged["error"].startswith("integrity:"), forged
    assert "messages" not in fine["response"], fine
