"""Headers are code: the rules every header line passes before it reaches a REPL, whoever sends it.

A header may only hold `import`s of allowed packages, plain `open` lines and `set_option` lines for allowed options
with literal values, plus comments: what miniF2F and NuminaMath-LEAN headers hold (`import Mathlib`, `import Aesop`,
`set_option maxHeartbeats 400000`, `open BigOperators Real Nat Topology Rat`). Anything else (`#eval`,
`set_option debug.skipKernelTC true`, `open Foo in`, a declaration) is refused with the rule named.
"""

from __future__ import annotations

from kimina_format.lean_lexer import Token
from kimina_format.lean_statement import LeanText

from kimina_verify.hygiene import text_violation
from kimina_verify.policy import LEXER_CODES, IntegrityPolicy, IntegrityViolation
from kimina_verify.token_rules import is_meta_name

__all__ = ["check_header", "statement_header"]


def statement_header(formal_statement: str) -> str:
    r"""The header of a formal statement: its text before the first declaration (attributes and modifiers included).

    Example:
        >>> statement_header("import Mathlib\nopen Real\n\ntheorem t : 1 = 1 := by sorry")
        'import Mathlib\nopen Real\n\n'
    """
    declarations = LeanText.of(formal_statement).declarations
    return formal_statement[: declarations[0].command_start] if declarations else formal_statement


def check_header(text: str, policy: IntegrityPolicy | None = None) -> list[IntegrityViolation]:
    r"""Check a header before it reaches a REPL: every command must be an allowed `import`, `open` or `set_option`.

    Args:
        text: The header (for a formal statement, `statement_header(statement)`; for a snippet, its import lines).
        policy: Allowed packages and options; default `IntegrityPolicy()`.

    Returns:
        The violations, in order (empty when the header may be sent): `header_import` (a package outside
        `policy.allowed_imports`, or an import after another command), `header_option` (an option outside the
        allow-list, or a value that is not a literal), `header_command` (anything else), and `text_encoding`,
        `lexer_ambiguous`, `unterminated` as in `check_integrity`.

    Example:
        >>> [v.code for v in check_header("import Mathlib\n#eval IO.Process.run {cmd := \"id\"}")]
        ['header_command']
    """
    policy = policy or IntegrityPolicy()
    bad_text = text_violation(text, "the header")
    if bad_text is not None:
        return [bad_text]
    lean = LeanText.of(text)
    found: list[tuple[int, IntegrityViolation]] = []

    def add(offset: int, code: str, message: str) -> None:
        found.append((offset, IntegrityViolation(code, message, text.count("\n", 0, offset) + 1)))

    for lexed_problem in lean.lexed.problems:
        add(lexed_problem.offset, LEXER_CODES[lexed_problem.kind], lexed_problem.message)
    lines = _command_lines(text, lean.lexed.tokens)
    seen_other = False
    for line in lines:
        first = line[0]
        if first.is_keyword("import"):
            if seen_other:
                add(first.start, "header_import", "imports must come before every other command")
            for module in line[1:]:
                if module.kind != "ident" or not policy.import_allowed(module.text):
                    allowed = ", ".join(policy.allowed_imports)
                    add(module.start, "header_import", f"`import {module.text}` is not allowed (packages: {allowed})")
            if len(line) == 1:
                add(first.start, "header_import", "`import` without a module")
            continue
        seen_other = True
        problem = _open_problem(line) if first.is_keyword("open") else None
        if first.is_keyword("set_option"):
            problem = _option_problem(line, policy)
            if problem is not None:
                add(first.start, "header_option", problem)
            continue
        if first.is_keyword("open") and problem is None:
            continue
        shown = text[first.start : line[-1].end]
        add(first.start, "header_command", problem or f"`{shown[:80]}` is not an import, `open` or `set_option`")
    return [v for _, v in sorted(found, key=lambda item: item[0])]


def _command_lines(text: str, tokens: tuple[Token, ...]) -> list[list[Token]]:
    """The tokens grouped by source line (a header has one command per line)."""
    lines: list[list[Token]] = []
    for tok in tokens:
        if lines and "\n" not in text[lines[-1][-1].end : tok.start]:
            lines[-1].append(tok)
        else:
            lines.append([tok])
    return lines


def _open_problem(line: list[Token]) -> str | None:
    words = line[1:]
    if words and words[0].is_keyword("scoped"):
        words = words[1:]
    if not words:
        return "`open` without a namespace"
    if all(w.kind == "ident" and not w.escaped and w.text not in ("in", "hiding", "renaming") for w in words):
        meta = [w.text for w in words if is_meta_name(w.text)]
        if meta:
            return f"`open {meta[0]}` brings names of host or elaborator code in (IO, System, Lean, ...)"
        return None
    return "only a plain `open A B ...` may stand in a header (no `in`, `hiding`, `renaming` or name list)"


def _option_problem(line: list[Token], policy: IntegrityPolicy) -> str | None:
    if len(line) < 3 or line[1].kind != "ident":
        return "`set_option` needs an option name and a value"
    name, value = line[1].text, line[2]
    if not policy.option_allowed(name):
        return f"`set_option {name}` is not on the allow-list"
    literal = value.kind == "number" or (value.kind == "ident" and value.text in ("true", "false"))
    if not literal or len(line) > 3:
        return f"`set_option {name}` takes one literal value in a header"
    return None
