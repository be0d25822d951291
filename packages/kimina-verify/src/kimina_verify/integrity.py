"""Static integrity rules against reward hacking, checked on Lean tokens (comments and string literals skipped).

Each rule has a stable violation code. Words are whole Lean identifiers, so `axiomatic_bound`, `h_sorry` or a
comment saying "no sorry here" pass while `sorry`, `«sorry»` or `_root_.sorryAx` do not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kimina_verify.code import THEOREM_KEYWORDS, Declaration, LeanCode
from kimina_verify.lexer import Token, line_of

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
        max_code_bytes: Longer code is rejected unread (`too_long`); the default matches our server's limit.
    """

    allow_native_decide: bool = True
    allowed_options: frozenset[str] = DEFAULT_ALLOWED_OPTIONS
    allowed_option_prefixes: tuple[str, ...] = DEFAULT_ALLOWED_OPTION_PREFIXES
    allowed_axioms: frozenset[str] = field(default=DEFAULT_ALLOWED_AXIOMS)
    max_code_bytes: int = 1 << 20

    @property
    def accepted_axioms(self) -> frozenset[str]:
        """Every axiom a valid proof may depend on under this policy."""
        return self.allowed_axioms | (NATIVE_AXIOMS if self.allow_native_decide else frozenset())

    def option_allowed(self, name: str) -> bool:
        """Whether `set_option name ...` is allowed."""
        return name in self.allowed_options or name.startswith(self.allowed_option_prefixes)


_SYNTAX_COMMANDS = (
    *("macro", "macro_rules", "syntax", "elab", "elab_rules", "declare_syntax_cat", "binder_predicate"),
    *("notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "simproc", "dsimproc"),
)
_MESSAGES = {
    "sorry": "`sorry` leaves the proof unfinished",
    "admit": "`admit` leaves the proof unfinished",
    "sorry_ax": "`sorryAx` is sorry in disguise",
    "axiom": "`axiom` declarations can assume anything",
    "side_command": "`#eval`, `#exit` and `#print` are not allowed in a proof",
    "run_command": "running meta code (`run_cmd`, `run_tac`, `run_elab`) is not allowed",
    "unsafe": "`unsafe` code is not allowed",
    "implemented_by": "`@[implemented_by]` swaps in unchecked code",
    "extern": "`@[extern]` swaps in unchecked code",
    "syntax_extension": "defining syntax (`macro`, `syntax`, `elab`, `notation`, ...) can change what the statement means",
    "native_decide": "`native_decide` trusts compiled code; this policy forbids it",
    "instance": "instances declared before the theorem can change its statement's meaning; use `haveI` inside",
    "variable": "`variable`/`include` before the theorem can add hypotheses to it",
}
# Keywords: a plain (undotted) identifier token. Constants: the last component of any identifier token.
_KEYWORDS = {
    "sorry": "sorry",
    "admit": "admit",
    "axiom": "axiom",
    "axioms": "axiom",
    "unsafe": "unsafe",
    "implemented_by": "implemented_by",
    "extern": "extern",
    **dict.fromkeys(("run_cmd", "run_tac", "run_elab", "run_meta"), "run_command"),
    **dict.fromkeys(_SYNTAX_COMMANDS, "syntax_extension"),
}
_CONSTANTS = {"sorryAx": "sorry_ax"}
_NATIVE_CONSTANTS = frozenset({"ofReduceBool", "ofReduceNat"})
_SIDE_COMMANDS = ("eval", "exit", "print")


class _Scan:
    """One pass over the tokens collecting violations, each with its offset."""

    def __init__(self, lean: LeanCode, policy: IntegrityPolicy) -> None:
        self.lean = lean
        self.policy = policy
        self.tokens = lean.lexed.tokens
        self.found: list[tuple[int, Violation]] = []

    def add(self, offset: int, code: str, message: str | None = None) -> None:
        line = line_of(self.lean.text, offset)
        self.found.append((offset, Violation(code, message or _MESSAGES[code], line)))

    def adjacent(self, i: int) -> Token | None:
        """The token right after token `i` with no space between them."""
        if i + 1 < len(self.tokens) and self.tokens[i + 1].start == self.tokens[i].end:
            return self.tokens[i + 1]
        return None

    def run(self) -> None:
        for i, tok in enumerate(self.tokens):
            if tok.kind == "ident":
                self.ident(i, tok)
            elif tok.kind == "symbol" and tok.text in "#+":
                nxt = self.adjacent(i)
                if nxt is None or nxt.kind != "ident":
                    continue
                if tok.text == "#" and nxt.text.startswith(_SIDE_COMMANDS):
                    self.add(tok.start, "side_command")
                elif tok.text == "+" and nxt.text == "native" and not self.policy.allow_native_decide:
                    self.add(tok.start, "native_decide")

    def ident(self, i: int, tok: Token) -> None:
        text = tok.text
        last = text.rpartition(".")[2]
        if text in _KEYWORDS:
            self.add(tok.start, _KEYWORDS[text])
        if last in _CONSTANTS:
            self.add(tok.start, _CONSTANTS[last])
        if text == "set_option":
            nxt = self.tokens[i + 1] if i + 1 < len(self.tokens) else None
            name = nxt.text if nxt is not None and nxt.kind == "ident" else ""
            if not self.policy.option_allowed(name):
                self.add(tok.start, "set_option", f"`set_option {name}` is not on the allow-list")
        if not self.policy.allow_native_decide and (
            text == "native_decide" or last in _NATIVE_CONSTANTS or (text == "native" and self._assigned_true(i))
        ):
            self.add(tok.start, "native_decide")

    def _assigned_true(self, i: int) -> bool:
        """`native := true` (a decide configuration)."""
        window = self.tokens[i + 1 : i + 4]
        return [t.text for t in window] == [":", "=", "true"]

    def before_target(self, target: Declaration) -> None:
        """Instances and variables declared before the target can change what its (token-identical) statement means."""
        for i, tok in enumerate(self.tokens):
            if tok.start >= target.start:
                break
            if tok.kind != "ident":
                continue
            if tok.text in ("instance", "default_instance") and (i == 0 or self.tokens[i - 1].text != "deriving"):
                self.add(tok.start, "instance")
            elif tok.text in ("variable", "include"):
                self.add(tok.start, "variable")


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
    size = len(lean.text.encode("utf-8", errors="replace"))
    if size > policy.max_code_bytes:
        return [Violation("too_long", f"the code is {size} bytes, over the limit of {policy.max_code_bytes}")]
    scan = _Scan(lean, policy)
    for kind, offset in lean.lexed.unterminated:
        scan.add(offset, "unterminated", f"unterminated {kind}: it would hide the rest of the file from Lean")
    scan.run()
    target, statement_violations = _statement_violations(lean, formal_statement, theorem)
    scan.found.extend(statement_violations)
    if target is not None and not _statement_has_context(formal_statement, theorem):
        scan.before_target(target)
    scan.found.sort(key=lambda item: item[0])
    return [v for _, v in scan.found]


def _statement_violations(
    lean: LeanCode, formal_statement: str | None, theorem: str | None
) -> tuple[Declaration | None, list[tuple[int, Violation]]]:
    """Find the target theorem and compare it, and every other declaration of the statement, with the dataset's."""
    if formal_statement is None:
        return lean.target(theorem), []
    dataset = LeanCode.shared(formal_statement)
    expected = dataset.target(theorem)
    if expected is None:
        return None, [(0, Violation("statement_unparsable", "the formal statement declares no theorem"))]
    found = [] if expected.name is None else _definition_violations(lean, dataset, expected)
    if expected.name is None:
        same = [d for d in lean.declarations if d.keyword == "example" and d.statement == expected.statement]
        if same:
            return same[0], found
        return None, [(0, Violation("statement_mismatch", "no `example` with the formal statement's statement"))]
    actual = lean.find(expected.name)
    if actual is None:
        message = f"theorem `{expected.name}` of the formal statement is missing (renamed or not stated)"
        return None, [*found, (0, Violation("statement_missing", message))]
    problem = _compare_statements(expected, actual)
    if problem is not None:
        found.append((actual.start, Violation("statement_mismatch", problem, actual.line)))
    return actual, found


def _statement_has_context(formal_statement: str | None, theorem: str | None) -> bool:
    """Whether the dataset statement itself declares instances or variables before its theorem (then they are given)."""
    if formal_statement is None:
        return False
    dataset = LeanCode.shared(formal_statement)
    target = dataset.target(theorem)
    words = {"instance", "default_instance", "variable", "include"}
    return target is not None and any(
        t.kind == "ident" and t.text in words and t.start < target.start for t in dataset.lexed.tokens
    )


def _definition_violations(lean: LeanCode, dataset: LeanCode, target: Declaration) -> list[tuple[int, Violation]]:
    """The statement's other declarations (definitions it relies on) must be in the code unchanged, bodies included."""
    found: list[tuple[int, Violation]] = []
    for expected in dataset.declarations:
        if expected.name is None or expected.name == target.name:
            continue
        actual = lean.find(expected.name)
        if actual is None:
            message = f"`{expected.name}` of the formal statement is missing (renamed or not stated)"
            found.append((0, Violation("statement_missing", message)))
            continue
        if expected.keyword in THEOREM_KEYWORDS:
            problem = _compare_statements(expected, actual)
        elif (actual.keyword, actual.tokens) != (expected.keyword, expected.tokens):
            problem = f"definition of `{actual.name}` differs from the formal statement"
        else:
            problem = None
        if problem is not None:
            found.append((actual.start, Violation("statement_mismatch", problem, actual.line)))
    return found


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
