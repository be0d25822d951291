"""`Verdict`: what a Lean check means for a proof, decided more strictly than kimina-client's `analyze()`.

Valid means: no server error, no REPL-level `message`, no error-severity message, no `sorries`, no warning that a
declaration uses sorry (`'sorry'` up to Lean v4.27, `` `sorry` `` from v4.28), and the target checked: by the
server in Lean (`lean_checks`: the constant exists by full name, is a theorem, has the dataset statement's type,
depends on accepted axioms only), or, with a server without that extension, by our appended `#print axioms` (the
one answer for that name, at its line). Infrastructure failures are their own kind, never a proof failure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

from kimina_verify.assembly import CheckCode
from kimina_verify.axioms import parse_axioms
from kimina_verify.infotree import goals_before
from kimina_verify.integrity import IntegrityPolicy, IntegrityViolation
from kimina_verify.lean_checks import OMITTED, TargetFacts, same_name
from kimina_verify.result import ServerResult

__all__ = [
    "SORRY_WARNING",
    "LeanMessage",
    "Positions",
    "Verdict",
    "VerdictKind",
    "result_kind",
    "verdict_from_result",
]

Positions = Literal["auto", "file", "body"]
"""How a server reports message lines: `file` (whole snippet, upstream since 2025-10), `body` (after the import
header, kimina-lean-server 2.0.0 image and PyPI fork), or `auto` (calibrated on our `#print axioms` line, else
`file`)."""

SORRY_WARNING = re.compile(r"declaration uses ['`]sorry['`]")
_REPL_INFRA_MESSAGES = ("Unknown environment", "Unknown proof state")


class VerdictKind(StrEnum):
    """The outcome of verifying one proof.

    `valid`: accepted. `sorry`: incomplete (sorry, `sorryAx`). `lean_error`: Lean rejected it. `integrity`: a rule
    against reward hacking rejected it (statically, or by its axioms). `timeout`: Lean ran out of time (or memory) on
    it. `infra`: the verification infrastructure failed; says nothing about the proof.
    """

    VALID = "valid"
    SORRY = "sorry"
    LEAN_ERROR = "lean_error"
    INTEGRITY = "integrity"
    TIMEOUT = "timeout"
    INFRA = "infra"


@dataclass(frozen=True)
class LeanMessage:
    """A Lean message, positioned in the model's own code.

    Attributes:
        severity: `error`, `warning`, `info` or `trace`.
        data: The message text.
        line: 1-based line in the model's code; None when the message is about code the model did not write.
        column: 0-based column.
        end_line: 1-based end line in the model's code, when known.
        end_column: 0-based end column, when known.
        goals_before: The goals before the failing tactic, when the server returned an infotree.
    """

    severity: str
    data: str
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    goals_before: str | None = None


@dataclass(frozen=True)
class Verdict:
    """The verdict on one proof.

    Attributes:
        kind: What happened.
        messages: Lean's messages (our `#print axioms` output removed), positioned in the model's code.
        violations: Broken integrity rules (static ones, or the axiom check).
        time_s: Lean time reported by the server, when known.
        cached: True when the verdict came from the verdict cache.
        detail: A one-line explanation (the server error, the first Lean error, ...).
        axioms: The axioms the target theorem depends on, when `#print axioms` ran.
        lean_checks: True when the target was checked in Lean by separate commands (kind, type, axioms); False when
            only an appended `#print axioms` was read (a server without the `kimina_checks` extension).
    """

    kind: VerdictKind
    messages: tuple[LeanMessage, ...] = ()
    violations: tuple[IntegrityViolation, ...] = ()
    time_s: float | None = None
    cached: bool = False
    detail: str = ""
    axioms: tuple[str, ...] | None = None
    lean_checks: bool = False

    @property
    def ok(self) -> bool:
        """True only for a valid proof."""
        return self.kind is VerdictKind.VALID

    @property
    def is_infra(self) -> bool:
        """True when the verifier, not the proof, failed: retry or mask the sample, never score it 0."""
        return self.kind is VerdictKind.INFRA

    @property
    def errors(self) -> tuple[LeanMessage, ...]:
        """The error-severity messages."""
        return tuple(m for m in self.messages if m.severity == "error")

    @classmethod
    def integrity(cls, violations: Sequence[IntegrityViolation]) -> Verdict:
        """A verdict for code rejected by the static integrity rules."""
        first = violations[0]
        return cls(VerdictKind.INTEGRITY, violations=tuple(violations), detail=f"{first.code}: {first.message}")

    @classmethod
    def infra(cls, detail: str) -> Verdict:
        """A verdict for an infrastructure failure (server down, HTTP 5xx, REPL crash, overload)."""
        return cls(VerdictKind.INFRA, detail=detail)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (kind as its string value)."""
        return {
            "kind": self.kind.value,
            "ok": self.ok,
            "detail": self.detail,
            "time_s": self.time_s,
            "cached": self.cached,
            "axioms": list(self.axioms) if self.axioms is not None else None,
            "lean_checks": self.lean_checks,
            "violations": [{"code": v.code, "message": v.message, "line": v.line} for v in self.violations],
            "messages": [vars(m) for m in self.messages],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Verdict:
        """Read back a dict written by `to_dict`."""
        axioms = data.get("axioms")
        return cls(
            kind=VerdictKind(data["kind"]),
            messages=tuple(LeanMessage(**m) for m in data.get("messages", ())),
            violations=tuple(IntegrityViolation(**v) for v in data.get("violations", ())),
            time_s=data.get("time_s"),
            cached=bool(data.get("cached", False)),
            detail=str(data.get("detail", "")),
            axioms=tuple(axioms) if axioms is not None else None,
            lean_checks=bool(data.get("lean_checks", False)),
        )


def _classify_error(error: str) -> VerdictKind:
    """Kind of a server error string.

    Lean running out of time or memory on the proof body is `timeout`; a snippet over the server's size limit is
    `lean_error` (retrying cannot help); a snippet whose output forged REPL replies, or whose header the server
    refused, is `integrity` (errors that start `integrity:`); a snippet that crashed Lean on two fresh REPLs is
    `lean_error` (errors that start `lean_error:`); everything else (header import timeout, no REPL available, REPL crash,
    unreadable output, transport failure) is `infra`.
    """
    lowered = error.lower()
    if lowered.startswith("integrity:"):
        return VerdictKind.INTEGRITY
    if lowered.startswith("lean_error:"):  # e.g. a snippet that crashed two fresh REPLs (a stack overflow)
        return VerdictKind.LEAN_ERROR
    if "header" not in lowered and ("timed out" in lowered or "out of memory" in lowered):
        return VerdictKind.TIMEOUT
    if "over this server's limit" in lowered:
        return VerdictKind.LEAN_ERROR
    return VerdictKind.INFRA


def result_kind(result: ServerResult) -> VerdictKind | None:
    """The verdict kind decided by the result's envelope alone, or None when Lean answered with messages to read.

    Transport failures, server errors other than a body timeout, a missing response and REPL-level
    `Unknown environment` errors are `infra`; other REPL-level errors are `lean_error`.
    """
    if result.infra:
        return VerdictKind.INFRA
    if result.error is not None:
        return _classify_error(result.error)
    if result.response is None:
        return VerdictKind.INFRA
    if "message" in result.response:
        text = str(result.response["message"])
        return VerdictKind.INFRA if text.startswith(_REPL_INFRA_MESSAGES) else VerdictKind.LEAN_ERROR
    return None


def _failure_detail(result: ServerResult) -> str:
    if result.error is not None:
        return result.error
    if result.response is not None and "message" in result.response:
        return f"REPL error: {result.response['message']}"
    return "the server returned neither a response nor an error"


@dataclass
class _Reader:
    """Reads one server response against the code that was sent."""

    check: CheckCode | None
    positions: Positions
    offset: int = 0
    axioms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    answers: dict[str, int] = field(default_factory=dict)  # messages that read as an axioms answer, by name

    def calibrate(self, raw: list[Mapping[str, Any]]) -> None:
        check = self.check
        if check is None or self.positions == "file":
            return
        if self.positions == "body":
            self.offset = check.server_header_lines
            return
        lines = {line for line, _ in check.axioms_checks}
        reported = {_line(m) for m in raw}
        if not lines & reported and {line - check.server_header_lines for line in lines} & reported:
            self.offset = check.server_header_lines

    def message(self, raw: Mapping[str, Any], infotree: Any) -> LeanMessage | None:
        """Convert one raw message; return None (after recording it) for our own `#print axioms` output."""
        line = _line(raw)
        full = line + self.offset if line is not None else None
        data = str(raw.get("data", ""))
        parsed = parse_axioms(data) if self.check is not None and self.check.axioms_checks else None
        if parsed is not None:
            # Another message spelled like the answer (a `trace` of that text) makes the answer unreadable.
            for _, name in self.check.axioms_checks if self.check is not None else ():
                if same_name(parsed[0], name):
                    self.answers[name] = self.answers.get(name, 0) + 1
        if self.check is not None and full is not None and parsed is not None:
            names = [name for at, name in self.check.axioms_checks if at == full]
            column = _column(raw.get("pos"))
            if names and same_name(parsed[0], names[0]) and column == 0:
                self.axioms[names[0]] = parsed[1]
                return None
        end = raw.get("endPos") if isinstance(raw.get("endPos"), Mapping) else None
        end_full = _line({"pos": end}) if end else None
        end_full = end_full + self.offset if end_full is not None else None
        goals = None
        column = _column(raw.get("pos"))
        if infotree is not None and full is not None and column is not None and raw.get("severity") == "error":
            repl_line = full - (self.check.server_header_lines if self.check is not None else 0)
            goals = goals_before(infotree, repl_line, column)
        return LeanMessage(
            severity=str(raw.get("severity", "info")),
            data=data,
            line=self._source(full),
            column=column,
            end_line=self._source(end_full),
            end_column=_column(end),
            goals_before=goals,
        )

    def _source(self, line: int | None) -> int | None:
        if line is None or self.check is None:
            return line
        return self.check.source_line(line)


def _line(raw: Mapping[str, Any]) -> int | None:
    pos = raw.get("pos")
    if isinstance(pos, Mapping) and isinstance(pos.get("line"), int):
        return int(pos["line"])
    return None


def _column(pos: Any) -> int | None:
    if isinstance(pos, Mapping) and isinstance(pos.get("column"), int):
        return int(pos["column"])
    return None


def verdict_from_result(
    result: ServerResult | Mapping[str, Any],
    check: CheckCode | None = None,
    *,
    policy: IntegrityPolicy | None = None,
    positions: Positions = "auto",
    cached: bool = False,
) -> Verdict:
    """Decide the verdict for one server result.

    Args:
        result: The snippet's result (`ServerResult`, or one item of `/api/check`'s `results` as a dict).
        check: The code that was sent (from `build_check_code`), to map positions back to the model's code and to
            read our `#print axioms` output. Without it, positions are kept as reported and axioms are not required.
        policy: Which axioms are accepted (default `IntegrityPolicy()`).
        positions: How the server reports lines (see `Positions`).
        cached: Mark the verdict as served from the cache.

    Returns:
        The verdict. `infra` when the server failed; `timeout` when Lean ran out of time on the body.
    """
    if not isinstance(result, ServerResult):
        result = ServerResult.from_json(result)
    policy = policy or IntegrityPolicy()
    base = Verdict(VerdictKind.INFRA, time_s=result.time, cached=cached)
    failure = result_kind(result)
    if failure is not None or result.response is None:
        return replace(base, kind=failure or VerdictKind.INFRA, detail=_failure_detail(result))
    response = result.response

    raw_messages = [m for m in response.get("messages") or () if isinstance(m, Mapping)]
    reader = _Reader(check, positions)
    reader.calibrate(raw_messages)
    infotree = response.get("infotree")
    messages = tuple(m for raw in raw_messages if (m := reader.message(raw, infotree)) is not None)
    verdict = replace(base, messages=messages)

    errors = [m for m in messages if m.severity == "error"]
    if errors:
        return replace(verdict, kind=VerdictKind.LEAN_ERROR, detail=_first_line(errors[0]))
    sorry_warnings = [m for m in messages if m.severity == "warning" and SORRY_WARNING.search(m.data)]
    if response.get("sorries") or sorry_warnings:
        return replace(verdict, kind=VerdictKind.SORRY, detail="the proof uses sorry")
    if check is not None and check.checks is not None:
        return _check_in_lean(verdict, check, result.checks, policy)
    found = {name: axioms for name, axioms in reader.axioms.items() if reader.answers.get(name) == 1}
    return _check_axioms(verdict, check, found, policy)


def _integrity(verdict: Verdict, code: str, message: str) -> Verdict:
    violation = IntegrityViolation(code, message)
    return replace(verdict, kind=VerdictKind.INTEGRITY, violations=(violation,), detail=f"{code}: {message}")


def _check_in_lean(
    verdict: Verdict, check: CheckCode, answer: Mapping[str, Any] | None, policy: IntegrityPolicy
) -> Verdict:
    """Decide from the server's checks in Lean: the target exists, is a theorem, has the statement's type."""
    assert check.checks is not None
    name = check.checks.theorem
    verdict = replace(verdict, lean_checks=True)
    target_json = answer.get("target") if answer is not None else None
    if not isinstance(target_json, Mapping):
        return _integrity(verdict, "lean_checks_missing", "the server did not answer the checks in Lean it offers")
    target = TargetFacts.from_json(target_json)
    if not same_name(target.name, name):
        return _integrity(verdict, "lean_checks_missing", f"the server checked `{target.name}`, not `{name}`")
    if target.errors or (target.kind is None and target.type is None):
        detail = target.errors[0] if target.errors else "no answer"
        return _integrity(verdict, "target_missing", f"Lean has no theorem `{name}` at the root: {detail}")
    if target.kind != "theorem":
        return _integrity(verdict, "target_not_theorem", f"`{name}` is a `{target.kind}` in Lean, not a theorem")
    if check.checks.statement is not None:
        problem = _type_problem(target, answer.get("statement") if answer is not None else None)
        if problem is not None:
            return _integrity(verdict, *problem)
    return _check_axioms(verdict, check, {name: target.axioms} if target.axioms is not None else {}, policy, name)


def _type_problem(target: TargetFacts, statement_json: Any) -> tuple[str, str] | None:
    if not isinstance(statement_json, Mapping):
        return "statement_unchecked", "the server did not elaborate the formal statement"
    statement = TargetFacts.from_json(statement_json)
    if statement.errors or statement.type is None:
        detail = statement.errors[0] if statement.errors else "no type"
        return "statement_unchecked", f"the formal statement could not be checked in Lean: {detail}"
    if target.type is None or OMITTED in target.type or OMITTED in statement.type:
        return "type_unchecked", "Lean did not print the whole type of the theorem"
    if target.type != statement.type:
        at = next((i for i, (a, b) in enumerate(zip(target.type, statement.type, strict=False)) if a != b), None)
        at = min(len(target.type), len(statement.type)) if at is None else at
        got, want = target.type[max(0, at - 40) : at + 40], statement.type[max(0, at - 40) : at + 40]
        return "type_mismatch", f"in Lean the theorem's type differs from the statement's: `{got}` vs `{want}`"
    return None


def _check_axioms(
    verdict: Verdict,
    check: CheckCode | None,
    found: dict[str, tuple[str, ...]],
    policy: IntegrityPolicy,
    target: str | None = None,
) -> Verdict:
    if check is None or not (check.axioms_checks or target):
        return replace(verdict, kind=VerdictKind.VALID)
    all_axioms: list[str] = []
    names = [target] if target is not None else [name for _, name in check.axioms_checks]
    for name in names:
        if name not in found:
            violation = IntegrityViolation("axioms_unchecked", f"Lean did not report the axioms of `{name}`")
            return replace(verdict, kind=VerdictKind.INTEGRITY, violations=(violation,), detail=violation.message)
        all_axioms.extend(a for a in found[name] if a not in all_axioms)
    axioms = tuple(all_axioms)
    if "sorryAx" in axioms:
        return replace(verdict, kind=VerdictKind.SORRY, axioms=axioms, detail="the proof depends on sorryAx")
    extra = [a for a in axioms if a not in policy.accepted_axioms]
    if extra:
        violation = IntegrityViolation(
            "axioms", f"the proof depends on axioms outside the accepted set: {', '.join(extra)}"
        )
        return replace(
            verdict, kind=VerdictKind.INTEGRITY, violations=(violation,), axioms=axioms, detail=violation.message
        )
    return replace(verdict, kind=VerdictKind.VALID, axioms=axioms)


def _first_line(message: LeanMessage) -> str:
    where = f"line {message.line}: " if message.line is not None else ""
    return where + (message.data.strip().splitlines() or [""])[0]
