"""The result of one check inside the server, its outcome label, and the exact error texts clients see.

Error texts keep the upstream wording where one exists (kimina-client tells a timeout by "timed out").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

TIMEOUT = "Lean REPL command timed out in {timeout} seconds"
HEADER_TIMEOUT = "Lean REPL header command timed out in {timeout} seconds"
CRASHED = "Lean REPL crashed while checking this snippet (exit code {code}): {stderr}"
OUT_OF_MEMORY = "Lean REPL ran out of memory while checking this snippet (limit {limit} MiB)"
GARBAGE = "Lean REPL printed output that is not a JSON reply: {detail}"
START_FAILED = "could not start the Lean REPL: {detail}"
TOO_LARGE = "snippet is {size} bytes, over this server's limit of {limit} bytes"
NO_REPL = "No available REPLs within {wait} seconds"
SHUTDOWN = "server shutting down: this snippet was not checked"
OUT_OF_STEP = (
    "integrity: the Lean REPL's replies were out of step after this snippet, on two fresh REPLs "
    "(output that forges a reply): {detail}"
)
HEADER_REFUSED = "integrity: header refused, {detail}"
SNIPPET_CRASHED = "lean_error: Lean crashed on this snippet on two fresh REPLs (exit code {code}), so the snippet crashes it: {stderr}"

# Outcome labels, as counted by /metrics.
OUTCOMES = (
    "valid",
    "sorry",
    "lean_error",
    "repl_error",
    "timeout",
    "crash",
    "memory",
    "garbage",
    "start_failed",
    "too_large",
    "no_repl",
    "shutdown",
    "integrity",
    "header_refused",
    "snippet_crash",
)

_SORRY_WARNING = re.compile(r"declaration uses ['`]sorry['`]")


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """What one check produced: the REPL's reply (positions relative to the body) or an error text.

    Attributes:
        outcome: One of `OUTCOMES`.
        time: Seconds the body command took (the timeout itself on a timeout, 0 when nothing ran).
        reply: The REPL's JSON reply, when there is one.
        error: The error text, when the check could not produce a reply.
        in_header: The reply is the header's (an import failed), so its positions are not shifted.
        repl_uuid: Which REPL ran it, for diagnostics.
        memory_mb: The REPL's resident memory after the command, when measured.
        checks: The answer to the snippet's `kimina_checks` request (see `followup.checks_answer`), when asked.
    """

    outcome: str
    time: float = 0.0
    reply: dict[str, Any] | None = None
    error: str | None = None
    in_header: bool = False
    repl_uuid: str | None = None
    memory_mb: float | None = None
    checks: dict[str, Any] | None = None

    @classmethod
    def from_reply(cls, reply: dict[str, Any], time: float, **extra: Any) -> CheckOutcome:
        """Label a REPL reply the strict way: any error, sorry entry or sorry warning means not valid."""
        return cls(outcome=classify(reply), time=round(time, 6), reply=reply, **extra)

    @classmethod
    def failed(cls, outcome: str, error: str, time: float = 0.0, **extra: Any) -> CheckOutcome:
        """An outcome without a reply."""
        return cls(outcome=outcome, time=round(time, 6), error=error, **extra)


def classify(reply: dict[str, Any]) -> str:
    """`repl_error`, `lean_error`, `sorry` or `valid` for a REPL reply (both sorry spellings count)."""
    if "message" in reply:
        return "repl_error"
    messages = reply.get("messages") or []
    if any(isinstance(m, dict) and m.get("severity") == "error" for m in messages):
        return "lean_error"
    if reply.get("sorries") or any(
        isinstance(m, dict) and m.get("severity") == "warning" and _SORRY_WARNING.search(str(m.get("data", "")))
        for m in messages
    ):
        return "sorry"
    return "valid"
