"""`IntegrityViolation` and `IntegrityPolicy`: the result of an integrity rule, and what the rules accept.

Every rule has a stable violation code and a default message; README.md (integrity section) lists them all.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFAULT_ALLOWED_ATTRIBUTES",
    "DEFAULT_ALLOWED_AXIOMS",
    "DEFAULT_ALLOWED_HASH_COMMANDS",
    "DEFAULT_ALLOWED_IMPORTS",
    "DEFAULT_ALLOWED_OPTIONS",
    "DEFAULT_ALLOWED_OPTION_PREFIXES",
    "LEXER_CODES",
    "MESSAGES",
    "NATIVE_AXIOMS",
    "IntegrityPolicy",
    "IntegrityViolation",
    "violation",
]

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

DEFAULT_ALLOWED_OPTION_PREFIXES = ("linter.",)
"""Option families that only change which warnings Lean prints. (`pp.*` is not one: the checks run in Lean read
printed types.)"""

DEFAULT_ALLOWED_ATTRIBUTES = frozenset(
    {"simp", "reducible", "irreducible", "inline", "ext", "norm_cast", "push_cast", "elab_as_elim", "nolint"}
)
"""Attributes a proof may put on its helper lemmas: they only steer tactics and elaboration of later uses."""

DEFAULT_ALLOWED_HASH_COMMANDS = frozenset({"check", "reduce", "synth"})
"""`#` commands that only print (every other one, `#eval`, `#print`, `#guard_msgs`, `#exit`, ..., is refused)."""

DEFAULT_ALLOWED_IMPORTS = ("Mathlib", "Aesop", "Batteries", "Std", "Init", "Lean", "Qq", "Plausible", "ImportGraph")
"""Packages a header may import (a module's first component)."""


@dataclass(frozen=True)
class IntegrityViolation:
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
    """What the static rules and the checks in Lean accept.

    Attributes:
        allow_native_decide: Accept `native_decide` (and `decide +native`), trusting the compiler as upstream's
            evaluation does; its axioms (`Lean.ofReduceBool`, ...) are then accepted too.
        allowed_options: `set_option` names a proof (or a header) may set.
        allowed_option_prefixes: Option families a proof may set.
        allowed_axioms: Axioms a valid proof may depend on (besides the native ones when allowed).
        allowed_attributes: Attributes allowed in `@[...]` and `attribute [...]`.
        allowed_hash_commands: `#` commands allowed (without the `#`).
        allowed_imports: Packages a header may import.
        max_code_bytes: Longer code is rejected unread (`too_long`); the default matches our server's limit.
    """

    allow_native_decide: bool = True
    allowed_options: frozenset[str] = DEFAULT_ALLOWED_OPTIONS
    allowed_option_prefixes: tuple[str, ...] = DEFAULT_ALLOWED_OPTION_PREFIXES
    allowed_axioms: frozenset[str] = field(default=DEFAULT_ALLOWED_AXIOMS)
    allowed_attributes: frozenset[str] = DEFAULT_ALLOWED_ATTRIBUTES
    allowed_hash_commands: frozenset[str] = DEFAULT_ALLOWED_HASH_COMMANDS
    allowed_imports: tuple[str, ...] = DEFAULT_ALLOWED_IMPORTS
    max_code_bytes: int = 1 << 20

    @property
    def accepted_axioms(self) -> frozenset[str]:
        """Every axiom a valid proof may depend on under this policy."""
        return self.allowed_axioms | (NATIVE_AXIOMS if self.allow_native_decide else frozenset())

    def option_allowed(self, name: str) -> bool:
        """Whether `set_option name ...` is allowed."""
        return name in self.allowed_options or name.startswith(self.allowed_option_prefixes)

    def import_allowed(self, module: str) -> bool:
        """Whether `import module` is allowed: a well-formed name in an allowed package."""
        return module.split(".")[0] in self.allowed_imports and all(part.isidentifier() for part in module.split("."))


MESSAGES = {
    "sorry": "`sorry` leaves the proof unfinished",
    "admit": "`admit` leaves the proof unfinished",
    "stop": "`stop` discards the rest of the proof",
    "sorry_ax": "`sorryAx` is sorry in disguise",
    "axiom": "`axiom` declarations can assume anything",
    "side_command": "only `#check`, `#reduce` and `#synth` are allowed (`#eval`, `#print`, `#guard_msgs`, `#exit`, ...)",
    "run_command": "running meta code (`run_cmd`, `run_tac`, `run_elab`, `initialize`) is not allowed",
    "meta_code": "code that runs while Lean elaborates (`by_elab`, `eval%`) or reaches IO, the compiler or Lean's own"
    " elaborator (`IO.*`, `System.*`, `Lean.*`, `unsafe...`) is not allowed",
    "unsafe": "`unsafe` code is not allowed",
    "partial": "`partial` definitions are compiled code the kernel never checks",
    "implemented_by": "`@[implemented_by]` swaps in unchecked code",
    "extern": "`@[extern]` swaps in unchecked code",
    "attribute": "this attribute is not allowed (it can register meta code or change how later code elaborates)",
    "syntax_extension": "defining syntax (`macro`, `syntax`, `elab`, `notation`, ...) can change what the statement means",
    "native_decide": "`native_decide` trusts compiled code; this policy forbids it",
    "instance": "instances declared before the theorem can change its statement's meaning; use `haveI` inside",
    "variable": "`variable`/`include` before the theorem can add hypotheses to it",
    "private": "`private` is allowed on helper declarations only (not on the target, not `open private`): private"
    " names print like public ones",
    "export": "`export` makes names of one namespace resolve in another",
    "open": "opening namespaces the statement does not open, before the theorem, can change what its names mean",
    "root_namespace": "`_root_.` declares a name outside the namespace it is written in",
    "shadowing": "a declaration named like a constant the statement uses can change what the statement means",
    "end_mismatch": "this `end` does not close the scope Lean closes",
    "unclosed_scope": "a namespace or section is left open at the end",
    "lexer_ambiguous": "Lean may read this differently from the static rules",
    "unterminated": "an unterminated comment, string or name would hide the rest of the file",
    "text_encoding": "the text holds characters that cannot be sent to Lean",
}
"""Default message of each static rule code."""

LEXER_CODES = {"ambiguous": "lexer_ambiguous", "unterminated": "unterminated"}
"""The rule code of each kind of problem the lexer reports (`kimina_format.lean_lexer`), in code and in headers."""


def violation(text: str, offset: int, code: str, message: str | None = None) -> tuple[int, IntegrityViolation]:
    """A violation of rule `code` at `offset` of `text` (its line computed), with its offset for sorting."""
    line = text.count("\n", 0, offset) + 1
    return offset, IntegrityViolation(code, message or MESSAGES[code], line)


# Renamed in 0.5 (kimina-format's `Violation` is the format rule's); the old name warns and still works.
_DEPRECATED = {"Violation": "IntegrityViolation"}


def __getattr__(name: str) -> Any:
    if name in _DEPRECATED:
        new = _DEPRECATED[name]
        message = f"kimina_verify.policy.{name} is deprecated: use kimina_verify.policy.{new}"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return globals()[new]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
