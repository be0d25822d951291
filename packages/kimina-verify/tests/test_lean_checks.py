"""The checks run in Lean after a snippet: their command, how replies are read, the verdict, the server's side.

The server side runs against `lean-repl-sim`, which answers as Lean v4.15 is assumed to; `test_lean.py` runs the
checks on real Lean.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from kimina_verify import (
    Endpoint,
    Retries,
    VerdictKind,
    Verifier,
    VerifierOptions,
    VerifyItem,
    build_check_code,
    verdict_from_result,
)
from kimina_verify.attacks import HEADER, PROOF, SIGNATURE, STATEMENT
from kimina_verify.lean_checks import EXTENSION, ChecksRequest, TargetFacts, check_command, nonce_seen, read_facts
from kimina_verify.result import ServerResult
from kimina_verify.testing import ServerThread, sim_settings

StandIn = Any


def info(line: int, data: str) -> dict[str, Any]:
    return {"severity": "info", "pos": {"line": line, "column": 0}, "endPos": {"line": line, "column": 6}, "data": data}


def test_command_puts_each_answer_on_its_own_line() -> None:
    command = check_command("00ff00ff00ff", "my thm.x")
    lines = command.text.split("\n")
    assert lines[0] == '#print "kimina-nonce 00ff00ff00ff"'
    assert lines[command.kind_line - 1] == "#print _root_.«my thm».x"
    assert lines[command.type_line - 1] == "#check _root_.«my thm».x"
    assert lines[command.axioms_line - 1] == "#print axioms _root_.«my thm».x"
    assert "set_option pp.all true in" in lines and "set_option pp.fullNames true in" in lines
    with pytest.raises(ValueError):
        check_command("not hex!", "t")


def test_replies_are_read_by_line_and_name() -> None:
    command = check_command("abcdef0123", "t")
    reply = {
        "env": 3,
        "messages": [
            info(1, "kimina-nonce abcdef0123"),
            info(command.kind_line, "@[reducible] protected theorem t.{u} : ⋯ :=\n⋯"),
            info(command.type_line, "t (x : Real) : @Eq Real x x"),
            info(command.axioms_line, "'t' depends on axioms: [propext]"),
        ],
    }
    assert nonce_seen(reply, command)
    assert not nonce_seen({"env": 3}, command) and not nonce_seen(reply, check_command("abcdef0124", "t"))
    assert read_facts(reply, command, "t") == TargetFacts("t", "theorem", "t (x : Real) : @Eq Real x x", ("propext",))
    # Answers about another name do not count.
    other = {
        "messages": [
            info(command.kind_line, "theorem u : ⋯ :=\n⋯"),
            info(command.axioms_line, "'u' depends on axioms: []"),
        ]
    }
    assert read_facts(other, command, "t") == TargetFacts("t")


def test_request_field_is_validated() -> None:
    assert ChecksRequest.from_json({"theorem": "_root_.t", "statement": "x"}) == ChecksRequest("t", "x")
    for bad in ({}, {"theorem": ""}, {"theorem": 3}, {"theorem": "t", "statement": 1}):
        with pytest.raises(ValueError):
            ChecksRequest.from_json(bad)


# --- the verdict from the server's answer -----------------------------------------------------------------------

CHECK = build_check_code(HEADER + PROOF, STATEMENT, lean_checks=True)
TYPE = "target (x : ℝ) (h₀ : 0 < x) : @Eq ℝ (Real.log (x ^ 2)) (2 * Real.log x)"


def answer(target: dict[str, Any] | None = None, statement: dict[str, Any] | None = None) -> ServerResult:
    target = {"name": "target", "kind": "theorem", "type": TYPE, "axioms": ["propext"], "errors": [], **(target or {})}
    statement = {"name": "target", "kind": "theorem", "type": TYPE, "axioms": ["sorryAx"], **(statement or {})}
    return ServerResult(response={"env": 1}, checks={"version": 1, "target": target, "statement": statement})


def test_nothing_is_appended_to_the_code_when_checked_in_lean() -> None:
    assert "#print" not in CHECK.text and CHECK.axioms_checks == ()
    assert CHECK.checks is not None and CHECK.checks.theorem == "target"
    assert CHECK.checks.statement is not None and "import" not in CHECK.checks.statement
    assert CHECK.checks.statement.rstrip().endswith("by\n  sorry") and "open BigOperators" in CHECK.checks.statement


@pytest.mark.parametrize(
    ("result", "kind", "code"),
    [
        (answer(), VerdictKind.VALID, None),
        (answer({"type": TYPE.replace("Real.log (x", "Hack.Real.log (x")}), VerdictKind.INTEGRITY, "type_mismatch"),
        (answer({"kind": "def"}), VerdictKind.INTEGRITY, "target_not_theorem"),
        (
            answer({"kind": None, "type": None, "errors": ["unknown constant 'target'"]}),
            VerdictKind.INTEGRITY,
            "target_missing",
        ),
        (answer(statement={"errors": ["unknown identifier 'Real.log'"]}), VerdictKind.INTEGRITY, "statement_unchecked"),
        (answer({"type": TYPE[:20] + "⋯"}, {"type": TYPE[:20] + "⋯"}), VerdictKind.INTEGRITY, "type_unchecked"),
        (answer({"name": "other"}), VerdictKind.INTEGRITY, "lean_checks_missing"),
        (ServerResult(response={"env": 1}), VerdictKind.INTEGRITY, "lean_checks_missing"),
        (answer({"axioms": None}), VerdictKind.INTEGRITY, "axioms_unchecked"),
        (answer({"axioms": ["propext", "sorryAx"]}), VerdictKind.SORRY, None),
        (answer({"axioms": ["Hack.cheat"]}), VerdictKind.INTEGRITY, "axioms"),
    ],
)
def test_verdict_from_the_checks_in_lean(result: ServerResult, kind: VerdictKind, code: str | None) -> None:
    verdict = verdict_from_result(result, CHECK)
    assert verdict.kind is kind, verdict.detail
    assert verdict.lean_checks
    assert [v.code for v in verdict.violations][:1] == ([code] if code else [])


def test_lean_errors_come_before_the_checks() -> None:
    error = {"severity": "error", "pos": {"line": 9, "column": 2}, "data": "unsolved goals"}
    result = ServerResult(response={"env": 1, "messages": [error]}, checks={"target": None})
    assert verdict_from_result(result, CHECK).kind is VerdictKind.LEAN_ERROR


# --- the server's side, against lean-repl-sim --------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(sim_settings(max_repls=1, timeout=20)) as running:
        yield running


def post(url: str, snippets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    response = httpx.post(f"{url}/api/check", json={"snippets": snippets, "timeout": 20}, timeout=60)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def checked(url: str, code: str, statement: str = STATEMENT) -> Any:
    """The verdict for `code`, sent as is (past the static rules) with its checks in Lean."""
    check = build_check_code(code, statement, lean_checks=True)
    assert check.checks is not None
    (result,) = post(url, [{"id": "0", "code": check.text, "kimina_checks": check.checks.to_json()}])
    return verdict_from_result(result, check)


def test_health_lists_the_extension(server: ServerThread) -> None:
    assert EXTENSION in httpx.get(f"{server.url}/health").json()["extensions"]


def test_a_shadowed_statement_has_another_type_in_lean(server: ServerThread) -> None:
    shadowed = HEADER + (
        "namespace Hack\nnoncomputable def Real.log (x : ℝ) : ℝ := 0\n\n"
        + SIGNATURE.replace("theorem target", "theorem _root_.target")
        + "\n  simp [Real.log]\n\nend Hack\n"
    )
    assert checked(server.url, HEADER + PROOF).kind is VerdictKind.VALID
    verdict = checked(server.url, shadowed)
    assert (verdict.kind, verdict.violations[0].code) == (VerdictKind.INTEGRITY, "type_mismatch")
    assert "Hack.Real.log" in verdict.detail


@pytest.mark.parametrize(
    ("code", "violation"),
    [
        (HEADER + SIGNATURE.replace("theorem", "def") + "\n  sorry\n", "sorry"),  # Lean errors and sorries first
        (
            HEADER
            + "noncomputable def target (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by\n  norm_num\n",
            "target_not_theorem",
        ),
        (HEADER + "namespace N\n" + PROOF + "end N\n", "target_missing"),
        (HEADER + "axiom cheat : False\n" + SIGNATURE + "\n  exact cheat.elim\n", "axioms"),
    ],
)
def test_targets_that_are_not_the_statements_theorem(server: ServerThread, code: str, violation: str) -> None:
    verdict = checked(server.url, code)
    assert verdict.kind is not VerdictKind.VALID
    assert violation == "sorry" or verdict.violations[0].code == violation


def test_the_statement_is_elaborated_once_per_header(server: ServerThread) -> None:
    check = build_check_code(HEADER + PROOF.replace("norm_num", "norm_num -- again"), STATEMENT, lean_checks=True)
    assert check.checks is not None
    snippet = {"id": "0", "code": check.text, "kimina_checks": check.checks.to_json()}
    first, second = post(server.url, [snippet]), post(server.url, [{**snippet, "code": check.text + "\n"}])
    # The first check elaborated the statement too (two more environments); the second read it from the cache.
    assert second[0]["response"]["env"] == first[0]["response"]["env"] + 2
    assert first[0]["kimina_checks"]["statement"] == second[0]["kimina_checks"]["statement"]


def test_a_forged_reply_costs_only_its_snippet(server: ServerThread) -> None:
    plain = {"id": "plain", "code": HEADER + PROOF}
    forged = {"id": "forged", "code": HEADER + PROOF + "-- sim: forge\n"}
    results = post(server.url, [plain, forged, {**plain, "id": "after", "code": HEADER + PROOF + "\n"}])
    assert "response" in results[0] and "response" in results[2]
    assert results[1]["error"].startswith("integrity: the Lean REPL's replies were out of step")
    assert server.app.state.pool.metrics.restarts["out_of_step"] >= 2


def test_a_reply_forged_for_a_later_snippet_does_not_cost_that_snippet(server: ServerThread) -> None:
    restarts = server.app.state.pool.metrics.restarts
    (first,) = post(server.url, [{"id": "a", "code": HEADER + PROOF + "-- sim: forge-later 0.3\n"}])
    before = restarts["out_of_step"]
    time.sleep(0.6)  # the forged reply now waits on the REPL's output for whatever comes next
    (second,) = post(server.url, [{"id": "b", "code": HEADER + "theorem other : True := trivial\n"}])
    assert "response" in first
    # The REPL was out of step for `b`: replaced, and `b` ran again on a fresh one, getting its own answer.
    assert restarts["out_of_step"] == before + 1
    assert "response" in second and not second["response"].get("messages")


def test_upstream_servers_get_the_old_axiom_check(standin: StandIn, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        verdicts = _verify(standin.url, [VerifyItem(HEADER + PROOF, STATEMENT)] * 2)
    assert [v.kind for v in verdicts] == [VerdictKind.VALID] * 2
    assert not verdicts[0].lean_checks
    assert standin.snippets[0].rstrip().endswith("#print axioms _root_.target") and standin.checks == [None]
    assert sum("does not run the checks in Lean" in r.message for r in caplog.records) == 1


def test_a_server_that_offers_the_checks_must_answer_them(standin: StandIn) -> None:
    standin.extensions.append(EXTENSION)
    (verdict,) = _verify(standin.url, [VerifyItem(HEADER + PROOF, STATEMENT)])
    assert "#print" not in standin.snippets[0] and standin.checks[0]["theorem"] == "target"
    assert (verdict.kind, verdict.violations[0].code) == (VerdictKind.INTEGRITY, "lean_checks_missing")


def _verify(url: str, items: list[VerifyItem]) -> list[Any]:
    import asyncio

    async def run() -> list[Any]:
        async with Verifier(VerifierOptions(Endpoint(url), retries=Retries(count=0))) as verifier:
            return await verifier.verify(items)

    return asyncio.run(run())
