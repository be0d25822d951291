"""Verifier check: the Lean server answers `/health`, accepts a true theorem and rejects a false one."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from urllib.parse import urlparse

from kimina_verify.client import Verifier
from kimina_verify.options import Endpoint, Retries, Timeouts, VerifierOptions
from kimina_verify.verdict import Verdict, VerdictKind

from kimina_train.preflight.checklist import CheckResult, Status

__all__ = ["CANARY_INVALID", "CANARY_VALID", "START_HINT", "check_verifier", "effective_url"]

# The canary pair. The `-- sim:` comment is inert for Lean; it makes `lean-repl-sim` (which runs no Lean) report the
# error real Lean reports, so the same pair checks the plumbing against the stand-in and the prover against Lean.
CANARY_VALID = "import Mathlib\n\ntheorem kimina_canary_valid : (2 : ℕ) + 2 = 4 := by\n  norm_num\n"
CANARY_INVALID = (
    "import Mathlib\n\ntheorem kimina_canary_invalid : (2 : ℕ) + 2 = 5 := by\n  norm_num -- sim: error unsolved goals\n"
)

START_HINT = "start one (`kimina-verify serve`, see infra/verifier/) and set kimina_rl.verifier.endpoint.url or LEAN_SERVER_API_URL"


def effective_url(url: str | None) -> str:
    """The server a client built with `url` talks to: `url`, else `$LEAN_SERVER_API_URL`, else localhost:8000."""
    return Endpoint(url).resolved_url()


async def _probe(verifier: Verifier, canary: bool) -> tuple[str, list[Verdict]]:
    async with verifier:
        health = await verifier.health()
        verdicts = await verifier.verify([CANARY_VALID, CANARY_INVALID]) if canary else []
        return str(health.get("status", "ok")), verdicts


def _came_back(verdict: Verdict) -> str:
    return verdict.kind.value + (f" ({verdict.detail})" if verdict.detail else "")


def _is_loopback(url: str) -> bool:
    return (urlparse(url).hostname or "") in ("localhost", "127.0.0.1", "::1")


def check_verifier(
    options: VerifierOptions | None = None,
    *,
    canary: bool = True,
    timeout_s: float = 120.0,
    nnodes: int = 1,
) -> CheckResult:
    """Ask the server for `/health`, then (with `canary`) verify one true and one false theorem.

    Args:
        options: The run's verifier options (`kimina_rl.verifier`), so the canary talks to the server the reward
            will, the same way; its Lean timeout, retries and cache are the canary's own.
        canary: Run the valid/invalid pair, not only `/health`.
        timeout_s: Lean time limit for the canary (a cold server imports Mathlib first).
        nnodes: Nodes of the run; with several, a loopback URL is an error (other nodes cannot reach it).
    """
    canary_options = replace(
        options or VerifierOptions(),
        timeouts=Timeouts(lean_s=timeout_s),
        retries=Retries(count=1, backoff_s=2.0),
        cache=None,
    )
    verifier = Verifier(canary_options)
    where = verifier.url
    if nnodes > 1 and _is_loopback(where):
        return CheckResult(
            "verifier",
            Status.FAIL,
            f"{where} is a loopback address, which the other {nnodes - 1} node(s) cannot reach",
            "point kimina_rl.verifier.endpoint.url (or LEAN_SERVER_API_URL) at a host every node can reach",
        )
    try:
        status, verdicts = asyncio.run(_probe(verifier, canary))
    except Exception as exc:  # httpx raises many types for "down"; every one means the same thing here
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return CheckResult("verifier", Status.FAIL, f"no answer from {where}/health ({reason})", START_HINT)
    if not canary:
        return CheckResult("verifier", Status.OK, f"{where}: health {status} (canary off)")
    valid, invalid = verdicts
    if valid.kind is not VerdictKind.VALID:
        return CheckResult(
            "verifier",
            Status.FAIL,
            f"canary failed at {where}: a true theorem came back {_came_back(valid)}, expected valid",
            "check the server's log: its Lean/Mathlib workspace is broken or overloaded",
        )
    if invalid.kind is VerdictKind.VALID:
        return CheckResult(
            "verifier",
            Status.FAIL,
            f"canary failed at {where}: a false theorem came back valid; rewards would pay for wrong proofs",
            "the server is not checking proofs: fix its Lean workspace before training",
        )
    if invalid.kind is not VerdictKind.LEAN_ERROR:
        return CheckResult(
            "verifier",
            Status.FAIL,
            f"canary failed at {where}: a false theorem came back {_came_back(invalid)}, expected lean_error",
            "check the server's log and its time and memory limits",
        )
    return CheckResult("verifier", Status.OK, f"{where}: health {status}, canary valid/lean_error as expected")
