"""Static integrity rules against reward hacking, checked on Lean tokens as Lean v4.15 reads them.

`check_integrity` runs every rule: text hygiene, the lexer's own doubts (`kimina_format.lean_lexer`), forbidden
tokens (`token_rules`), names and scopes (`scope_rules`), the dataset statement found by full name and compared token
for token (`kimina_format.lean_statement`), and the formal statement's own header and body. Each rule has a stable
violation code; README.md lists them with what they defend against.
"""

from __future__ import annotations

import functools

from kimina_format.lean_decls import Declaration
from kimina_format.lean_statement import match_statement

from kimina_verify.code import LeanCode
from kimina_verify.header import check_header, statement_header
from kimina_verify.hygiene import text_violation
from kimina_verify.policy import (
    DEFAULT_ALLOWED_AXIOMS,
    DEFAULT_ALLOWED_OPTION_PREFIXES,
    DEFAULT_ALLOWED_OPTIONS,
    LEXER_CODES,
    NATIVE_AXIOMS,
    IntegrityPolicy,
    IntegrityViolation,
    violation,
)
from kimina_verify.scope_rules import meaning_violations, scope_violations
from kimina_verify.token_rules import TokenScan, before_target, context_commands

__all__ = [
    "DEFAULT_ALLOWED_AXIOMS",
    "DEFAULT_ALLOWED_OPTIONS",
    "DEFAULT_ALLOWED_OPTION_PREFIXES",
    "NATIVE_AXIOMS",
    "SORRY_RULES",
    "IntegrityPolicy",
    "IntegrityViolation",
    "check_integrity",
]

SORRY_RULES = frozenset({"sorry", "admit", "sorry_ax", "stop"})
"""Rules about unfinished proofs: skipped for statements (which end in `sorry`) and for `allow_sorry` items."""


def check_integrity(
    code: str | LeanCode,
    formal_statement: str | None = None,
    policy: IntegrityPolicy | None = None,
    *,
    theorem: str | None = None,
) -> list[IntegrityViolation]:
    r"""Check Lean code against every static integrity rule, without running Lean.

    Args:
        code: The code to check (a model's final `lean4` block, or a whole file).
        formal_statement: The dataset's statement; when given, the theorem of that full name must appear in `code`
            at top level with the same statement, token for token (comments and whitespace ignored), its names must
            mean what they mean in the statement, and the statement itself must pass the header and code rules.
        policy: What to accept; defaults to `IntegrityPolicy()` (`native_decide` allowed).
        theorem: Name of the target theorem when there is no formal statement (default: the last theorem).

    Returns:
        The violations in order of appearance (those of the formal statement first); empty when the code passes.

    Example:
        >>> [v.code for v in check_integrity("theorem t : 1 = 2 := by sorry")]
        ['sorry']
        >>> check_integrity("-- no sorry here\\ntheorem axiomatic_bound : 1 = 1 := rfl")
        []
    """
    policy = policy or IntegrityPolicy()
    lean = code if isinstance(code, LeanCode) else LeanCode(code)
    bad_text = text_violation(lean.text)
    if bad_text is not None:
        return [bad_text]
    size = len(lean.text.encode("utf-8"))
    if size > policy.max_code_bytes:
        return [IntegrityViolation("too_long", f"the code is {size} bytes, over the limit of {policy.max_code_bytes}")]
    statement_problems = list(check_statement(formal_statement, policy)) if formal_statement is not None else []
    found = code_violations(lean, policy)
    target, statement_found = _statement_violations(lean, formal_statement, theorem)
    found.extend(statement_found)
    if target is not None:
        if "private" in target.modifiers:
            message = (
                "the target theorem may not be `private` (helpers may): the checks name it by its public full name"
            )
            found.append(violation(lean.text, target.start, "private", message))
        dataset = LeanCode.shared(formal_statement) if formal_statement is not None else None
        context: tuple[tuple[str, ...], ...] = ()
        if dataset is not None:
            found.extend(meaning_violations(lean, dataset, target))
            expected = dataset.target(target.name)
            if expected is not None:
                context = tuple(command for _, command in context_commands(dataset, expected.start))
        found.extend(before_target(lean, target.start, context))
    found.sort(key=lambda item: item[0])
    return statement_problems + [v for _, v in found]


def code_violations(lean: LeanCode, policy: IntegrityPolicy) -> list[tuple[int, IntegrityViolation]]:
    """The rules that need no statement: the lexer's doubts, forbidden tokens, scopes; each with its offset."""
    found = [violation(lean.text, p.offset, LEXER_CODES[p.kind], p.message) for p in lean.lexed.problems]
    found.extend(TokenScan(lean, policy).run())
    found.extend(scope_violations(lean))
    return found


@functools.lru_cache(maxsize=1024)
def check_statement(formal_statement: str, policy: IntegrityPolicy | None = None) -> tuple[IntegrityViolation, ...]:
    """The violations of a formal statement itself: its header (`check_header`) and its code (`sorry` aside).

    A statement reaches a REPL too (the checks in Lean elaborate it), so it passes the same rules as code. The
    messages say they are about the statement; the lines are the statement's own.
    """
    policy = policy or IntegrityPolicy()
    bad_text = text_violation(formal_statement, "the formal statement")
    if bad_text is not None:
        return (bad_text,)
    header = statement_header(formal_statement)
    found = check_header(header, policy)
    lean = LeanCode.shared(formal_statement)
    for offset, v in sorted(code_violations(lean, policy), key=lambda item: item[0]):
        in_header = offset < len(header) and v.code in ("lexer_ambiguous", "unterminated", "set_option")
        if v.code not in SORRY_RULES and not in_header:
            found.append(v)
    return tuple(IntegrityViolation(v.code, f"in the formal statement: {v.message}", v.line) for v in found)


def _statement_violations(
    lean: LeanCode, formal_statement: str | None, theorem: str | None
) -> tuple[Declaration | None, list[tuple[int, IntegrityViolation]]]:
    """Find the target theorem and compare it, and every other declaration of the statement, with the dataset's."""
    if formal_statement is None:
        return lean.target(theorem), []
    match = match_statement(lean.source, LeanCode.shared(formal_statement).source, theorem)
    return match.target, [(p.offset, IntegrityViolation(p.code, p.message, p.line)) for p in match.problems]
