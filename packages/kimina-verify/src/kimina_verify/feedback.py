"""Render a failed verdict as feedback for the error-correction turn, within a character budget."""

from __future__ import annotations

from kimina_verify.verdict import SORRY_WARNING, LeanMessage, Verdict, VerdictKind

__all__ = ["TRUNCATION_MARKER", "render_feedback"]

TRUNCATION_MARKER = "\n[... feedback truncated ...]"


def render_feedback(
    code: str,
    verdict: Verdict,
    *,
    max_errors: int = 3,
    max_chars: int = 3000,
    context_lines: int = 2,
) -> str:
    """Describe why a proof failed, quoting the model's own code around each problem.

    Args:
        code: The model's code, as verified (line numbers in the verdict refer to it).
        verdict: The verdict to explain.
        max_errors: How many errors (or violations) to show; the rest are counted.
        max_chars: Character budget; longer feedback is cut and ends with a truncation marker, never dropped.
        context_lines: Lines of code shown before and after the problem line, which is marked with `>`.

    Returns:
        The feedback text; empty for a valid proof and for an infrastructure failure (which is not the model's
        fault and must not become an error-fix prompt).

    Example:
        >>> from kimina_verify.verdict import Verdict, VerdictKind
        >>> render_feedback("theorem t : 1 = 1 := rfl", Verdict(VerdictKind.VALID))
        ''
    """
    if verdict.kind in (VerdictKind.VALID, VerdictKind.INFRA):
        return ""
    lines = code.replace("\r\n", "\n").split("\n")
    sections: list[str] = []
    if verdict.kind is VerdictKind.TIMEOUT:
        limit = f" after {verdict.time_s:g} s" if verdict.time_s else ""
        sections.append(f"# Timeout\nLean did not finish checking the proof{limit}. Find a shorter or faster proof.")
    elif verdict.kind is VerdictKind.INTEGRITY:
        for i, violation in enumerate(verdict.violations[:max_errors], start=1):
            text = f"# Rejected {i}: {violation.code}\n{violation.message}"
            sections.append(text + _window(lines, violation.line, context_lines))
        sections.extend(_more(len(verdict.violations), max_errors, "problems"))
    else:
        problems = _problems(verdict)
        for i, message in enumerate(problems[:max_errors], start=1):
            sections.append(_render_message(i, message, lines, context_lines))
        sections.extend(_more(len(problems), max_errors, "errors"))
        if not problems:
            sections.append(f"# Error\n{verdict.detail or verdict.kind.value}")
    return _fit("\n\n".join(sections), max_chars)


def _problems(verdict: Verdict) -> list[LeanMessage]:
    if verdict.kind is VerdictKind.SORRY:
        return [m for m in verdict.messages if m.severity == "error" or SORRY_WARNING.search(m.data)]
    return [m for m in verdict.messages if m.severity == "error"]


def _render_message(index: int, message: LeanMessage, lines: list[str], context_lines: int) -> str:
    where = f" (line {message.line})" if message.line is not None else ""
    parts = [f"# Error {index}{where}"]
    if message.goals_before:
        parts.append(f"Goals before the error:\n{message.goals_before.strip()}")
    parts.append(f"Error message:\n{message.data.strip()}")
    return "\n".join(parts) + _window(lines, message.line, context_lines)


def _window(lines: list[str], line: int | None, context_lines: int) -> str:
    """The code around `line` (1-based), each line numbered, the problem line marked with `>`."""
    if line is None or not 1 <= line <= len(lines):
        return ""
    first, last = max(1, line - context_lines), min(len(lines), line + context_lines)
    width = len(str(last))
    shown = [f"{n:>{width}} {'>' if n == line else '|'} {lines[n - 1]}" for n in range(first, last + 1)]
    return "\nCode:\n```lean4\n" + "\n".join(shown) + "\n```"


def _more(total: int, shown: int, what: str) -> list[str]:
    return [f"({total - shown} more {what} not shown)"] if total > shown else []


def _fit(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    keep = max(0, max_chars - len(TRUNCATION_MARKER))
    return text[:keep].rstrip() + TRUNCATION_MARKER
