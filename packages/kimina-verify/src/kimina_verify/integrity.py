"""Static integrity rules against reward hacking, run on code with comments and strings removed, before any Lean.

Each rule has a stable violation code. Words are matched on Lean identifier boundaries, so `axiomatic_bound`,
`h_sorry` or a comment saying "no sorry here" pass while `sorry`, `«sorry»` or `_root_.sorryAx` do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from kimina_verify.code import THEOREM_KEYWORDS, Declaration, LeanCode
from kimina_verify.lexer import ID_REST_CLASS, line_of

DEFAULT_ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
"""The axioms of ordinary Lean/Mathlib mathematics."""

NATIVE_AXIOMS = frozenset({"Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler"})
"""The axioms a `native_decide` proof depends on (trusting the compiler)."""

DEFAULT_ALLOWED_OPTIONS = frozenset(
    {
        "maxHeartbeats",
        "maxRecDepth",
        "synthInstance.maxHeartbeats",
        "synthInstance.maxSize",
        "exponentiation.threshold",
    }
)
"""`set_option` names a proof may set: resource limits only."""

DEFAULT_ALLOWED_OPTION_PREFIXES = ("linter.", "pp.")
"""Option families that only change what Lean prints."""

_ID = ID_REST_CLASS
_KW_BEFORE = rf"(?<![.{_ID}])"  # a keyword, not the last component of a dotted name
_NAME_BEFORE = rf"(?<![{_ID}])"  # a constant, possibly qualified (`_root_.sorryAx`, `Lean.ofReduceBool`)
_AFTER = rf"(?![{_ID}])"


@dataclass(frozen=True)
class Violation:
    """One broken integrity rule.

    Attributes:
        code: Stable identifier of the rule (for example `sorry`, `axiom`, `statement_mismatch`).
        message: What was found, for humans and for the error-fix turn.
        line: 1-based line in the checked code, when the violation has a place.
    """

    code: str
    message: str
    line: int | None = None


@dataclass(frozen=True)
class IntegrityPolicy:
    """What the static rules and the axiom check accept.

    Attributes:
        allow_native_decide: Accept `native_decide` (and `decide +native`), trusting the compiler as upstream's
            evaluation does; its axioms (`Lean.ofReduceBool`, ...) are then accepted too.
        allowed_options: `set_option` names a proof may set.
        allowed_option_prefixes: Option families a proof may set.
        allowed_axioms: Axioms a valid proof may depend on (besides the native ones when allowed).
    """

    allow_native_decide: bool = True
    allowed_options: frozenset[str] = DEFAULT_ALLOWED_OPTIONS
    allowed_option_prefixes: tuple[str, ...] = DEFAULT_ALLOWED_OPTION_PREFIXES
    allowed_axioms: frozenset[str] = field(default=DEFAULT_ALLOWED_AXIOMS)

    @property
    def accepted_axioms(self) -> frozenset[str]:
        """Every axiom a valid proof may depend on under this policy."""
        return self.allowed_axioms | (NATIVE_AXIOMS if self.allow_native_decide else frozenset())

    def option_allowed(self, name: str) -> bool:
        """Whether `set_option name ...` is allowed."""
        return name in self.allowed_options or name.startswith(self.allowed_option_prefixes)


@dataclass(frozen=True)
class _Rule:
    code: str
    pattern: re.Pattern[str]
    message: str


def _words(*words: str) -> str:
    return "|".join(re.escape(w) for w in words)


_SYNTAX_COMMANDS = (
    *("macro", "macro_rules", "syntax", "elab", "elab_rules", "declare_syntax_cat", "binder_predicate"),
    *("notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "simproc", "dsimproc"),
)
_RULES = (
    _Rule("sorry", re.compile(rf"{_KW_BEFORE}sorry{_AFTER}"), "`sorry` leaves the proof unfinished"),
    _Rule("admit", re.compile(rf"{_KW_BEFORE}admit{_AFTER}"), "`admit` leaves the proof unfinished"),
    _Rule("sorry_ax", re.compile(rf"{_NAME_BEFORE}(?:[{_ID}.]*\.)?sorryAx{_AFTER}"), "`sorryAx` is sorry in disguise"),
    _Rule(
        "axiom",
        re.compile(rf"{_KW_BEFORE}axioms?{_AFTER}"),
        "`axiom` declarations can assume anything",
    ),
    _Rule(
        "side_command",
        re.compile(rf"{_NAME_BEFORE}#(?:eval|exit|print)"),
        "`#eval`, `#exit` and `#print` are not allowed in a proof",
    ),
    _Rule(
        "run_command",
        re.compile(rf"{_KW_BEFORE}(?:{_words('run_cmd', 'run_tac', 'run_elab', 'run_meta')}){_AFTER}"),
        "running meta code (`run_cmd`, `run_tac`, `run_elab`) is not allowed",
    ),
    _Rule("unsafe", re.compile(rf"{_KW_BEFORE}unsafe{_AFTER}"), "`unsafe` code is not allowed"),
    _Rule(
        "implemented_by",
        re.compile(rf"{_KW_BEFORE}implemented_by{_AFTER}"),
        "`@[implemented_by]` swaps in unchecked code",
    ),
    _Rule("extern", re.compile(rf"{_KW_BEFORE}extern{_AFTER}"), "`@[extern]` swaps in unchecked code"),
    _Rule(
        "syntax_extension",
        re.compile(rf"{_KW_BEFORE}(?:{_words(*_SYNTAX_COMMANDS)}){_AFTER}"),
        "defining syntax (`macro`, `syntax`, `elab`, `notation`, ...) can change what the statement means",
    ),
)
_NATIVE = re.compile(
    rf"{_KW_BEFORE}native_decide{_AFTER}|(?<![{_ID}])\+native{_AFTER}|{_KW_BEFORE}native\s*:=\s*true"
    rf"|{_NAME_BEFORE}(?:[{_ID}.]*\.)?ofReduce(?:Bool|Nat){_AFTER}"
)
_SET_OPTION = re.compile(rf"{_KW_BEFORE}set_option{_AFTER}\s*([^\s]*)")
_INSTANCE = re.compile(rf"{_KW_BEFORE}(?:instance|default_instance){_AFTER}")
_DERIVING = re.compile(r"deriving\s+$")
_VARIABLE = re.compile(rf"{_KW_BEFORE}(?:variable|include){_AFTER}")


def check_integrity(
    code: str | LeanCode,
    formal_statement: str | None = None,
    policy: IntegrityPolicy | None = None,
    *,
    theorem: str | None = None,
) -> list[Violation]:
    r"""Check Lean code against every static integrity rule, without running Lean.

    Args:
        code: The code to check (a model's final `lean4` block, or a whole file).
        formal_statement: The dataset's statement; when given, the theorem of that name must appear in `code` with
            the same statement, token for token (comments and whitespace ignored).
        policy: What to accept; defaults to `IntegrityPolicy()` (`native_decide` allowed).
        theorem: Name of the target theorem when there is no formal statement (default: the last theorem).

    Returns:
        The violations in order of appearance; empty when the code passes.

    Example:
        >>> [v.code for v in check_integrity("theorem t : 1 = 2 := by sorry")]
        ['sorry']
        >>> check_integrity("-- no sorry here\\ntheorem axiomatic_bound : 1 = 1 := rfl")
        []
    """
    policy = policy or IntegrityPolicy()
    lean = code if isinstance(code, LeanCode) else LeanCode(code)
    stripped = lean.lexed.stripped
    found: list[tuple[int, Violation]] = []

    def add(offset: int, code_: str, message: str) -> None:
        found.append((offset, Violation(code_, message, line_of(stripped, offset))))

    for kind, offset in lean.lexed.unterminated:
        add(offset, "unterminated", f"unterminated {kind}: it would hide the rest of the file from Lean")
    for rule in _RULES:
        for m in rule.pattern.finditer(stripped):
            add(m.start(), rule.code, rule.message)
    for m in _SET_OPTION.finditer(stripped):
        name = m.group(1)
        if not policy.option_allowed(name):
            add(m.start(), "set_option", f"`set_option {name}` is not on the allow-list")
    if not policy.allow_native_decide:
        for m in _NATIVE.finditer(stripped):
            add(m.start(), "native_decide", "`native_decide` trusts compiled code; this policy forbids it")

    target, statement_violations = _statement_violations(lean, formal_statement, theorem)
    found.extend(statement_violations)
    if target is not None:
        found.extend(_context_violations(lean, target))
    found.sort(key=lambda item: item[0])
    return [v for _, v in found]


def _statement_violations(
    lean: LeanCode, formal_statement: str | None, theorem: str | None
) -> tuple[Declaration | None, list[tuple[int, Violation]]]:
    """Find the target theorem and compare its statement with the dataset's."""
    if formal_statement is None:
        return lean.target(theorem), []
    expected = LeanCode(formal_statement).target(theorem)
    if expected is None:
        return None, [(0, Violation("statement_unparsable", "the formal statement declares no theorem"))]
    if expected.name is None:
        same = [d for d in lean.declarations if d.keyword == "example" and d.statement == expected.statement]
        if same:
            return same[0], []
        return None, [(0, Violation("statement_mismatch", "no `example` with the formal statement's statement"))]
    actual = lean.find(expected.name)
    if actual is None:
        message = f"theorem `{expected.name}` of the formal statement is missing (renamed or not stated)"
        return None, [(0, Violation("statement_missing", message))]
    problem = _compare_statements(expected, actual)
    if problem is None:
        return actual, []
    return actual, [(actual.start, Violation("statement_mismatch", problem, actual.line))]


def _compare_statements(expected: Declaration, actual: Declaration) -> str | None:
    """Say how `actual` differs from `expected`, or return None when they match token for token."""
    if (expected.keyword in THEOREM_KEYWORDS) != (actual.keyword in THEOREM_KEYWORDS):
        return f"`{actual.name}` is declared with `{actual.keyword}`, the formal statement uses `{expected.keyword}`"
    if expected.statement == actual.statement:
        return None
    for i, (want, got) in enumerate(zip(expected.statement, actual.statement, strict=False)):
        if want != got:
            context = " ".join(expected.statement[max(0, i - 3) : i])
            return f"statement of `{actual.name}` differs from the formal statement after `{context}`: " + (
                f"expected `{want}`, found `{got}`"
            )
    shorter = "shorter" if len(actual.statement) < len(expected.statement) else "longer"
    return f"statement of `{actual.name}` is {shorter} than the formal statement"


def _context_violations(lean: LeanCode, target: Declaration) -> Iterator[tuple[int, Violation]]:
    """Instances and variables declared before the target can change what its (token-identical) statement means."""
    before = lean.lexed.stripped[: target.start]
    for m in _INSTANCE.finditer(before):
        if not _DERIVING.search(before[: m.start()]):
            message = "instances declared before the theorem can change its statement's meaning; use `haveI` inside"
            yield m.start(), Violation("instance", message, line_of(before, m.start()))
    for m in _VARIABLE.finditer(before):
        message = "`variable`/`include` before the theorem can add hypotheses to it"
        yield m.start(), Violation("variable", message, line_of(before, m.start()))
