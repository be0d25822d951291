"""Integrity rules on single tokens: forbidden words, `#` commands, options, attributes and `native_decide`.

Words are whole Lean identifiers, so `axiomatic_bound`, `h_sorry` or a comment saying "no sorry here" pass while
`sorry`, `«sorry»` or `_root_.sorryAx` do not.
"""

from __future__ import annotations

from collections import Counter

from kimina_format.lean_decls import COMMAND_WORDS, DECLARATION_KEYWORDS, MODIFIERS, attribute_names
from kimina_format.lean_lexer import Token

from kimina_verify.code import LeanCode
from kimina_verify.policy import MESSAGES, IntegrityPolicy, IntegrityViolation, violation

__all__ = ["TokenScan", "before_target", "context_commands", "is_meta_name"]

_SYNTAX_COMMANDS = (
    *("macro", "macro_rules", "syntax", "elab", "elab_rules", "declare_syntax_cat", "binder_predicate"),
    *("notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "simproc", "dsimproc"),
    *("declare_simp_like_tactic", "register_simp_attr", "add_decl_doc"),
)
# Keywords: the identifier itself (escaped or not: `«sorry»` is refused too). Constants: the last component.
_KEYWORDS = {
    "sorry": "sorry",
    "admit": "admit",
    "stop": "stop",
    "axiom": "axiom",
    "axioms": "axiom",
    "unsafe": "unsafe",
    "partial": "partial",
    "private": "private",
    "export": "export",
    "implemented_by": "implemented_by",
    "extern": "extern",
    **dict.fromkeys(("run_cmd", "run_tac", "run_elab", "run_meta", "initialize", "builtin_initialize"), "run_command"),
    **dict.fromkeys(_SYNTAX_COMMANDS, "syntax_extension"),
}
# Syntax that runs code while Lean elaborates (besides the commands above, `#eval` and the other `#` commands):
# Lean core's `by_elab` term (`Init/Notation.lean`, `elabRunElab`), Mathlib's `eval%` term (`Mathlib/Util/Eval`) and
# `compile_inductive%`/`compile_def%` commands, and the commands that register options, attributes or elaborators.
_META_WORDS = frozenset(
    {
        *("by_elab", "declare_config_elab", "declare_command_config_elab", "register_option"),
        *("register_builtin_option", "register_label_attr", "register_tactic_tag", "declare_aesop_rule_sets"),
        *("register_linter", "register_error_explanation", "elab_stx"),
    }
)
# `word%` forms that run code (the other `%` forms, `binop%`, `type_of%`, ..., only steer elaboration).
_META_PERCENT = frozenset({"eval", "compile_inductive", "compile_def"})
_META_ROOTS = frozenset({"IO", "EIO", "BaseIO", "System", "Lean", "Lake", "ImportGraph"})
"""Namespaces of code that reaches the host or Lean's own elaborator: IO, the file system and processes, the
compiler, `Lean.Elab`/`Lean.Meta`/`Lean.addDecl`. Evaluated code runs at elaboration time even without a meta command
(a tactic's `(config := ...)`, `decide +native`), so no name of these may appear at all (imports aside)."""
_META_PREFIXES = ("Std.Internal",)
_CONSTANTS = {"sorryAx": "sorry_ax"}
_NATIVE_CONSTANTS = frozenset({"ofReduceBool", "ofReduceNat"})
# Attributes with a rule of their own.
_ATTRIBUTE_CODES = {"implemented_by": "implemented_by", "extern": "extern", "instance": "instance"}


class TokenScan:
    """One pass over the tokens collecting violations, each with its offset."""

    def __init__(self, lean: LeanCode, policy: IntegrityPolicy) -> None:
        self.lean = lean
        self.policy = policy
        self.tokens = lean.lexed.tokens
        self.found: list[tuple[int, IntegrityViolation]] = []

    def add(self, offset: int, code: str, message: str | None = None) -> None:
        """Record a violation of `code` at `offset`."""
        self.found.append(violation(self.lean.text, offset, code, message))

    def adjacent(self, i: int) -> Token | None:
        """The token right after token `i` with no space between them."""
        if i + 1 < len(self.tokens) and self.tokens[i + 1].start == self.tokens[i].end:
            return self.tokens[i + 1]
        return None

    def run(self) -> list[tuple[int, IntegrityViolation]]:
        """Scan every token; return the violations found, each with its offset."""
        modules = self.import_modules()
        for i, tok in enumerate(self.tokens):
            if tok.kind == "ident":
                self.ident(i, tok)
                if i not in modules:
                    self.meta(i, tok)
            elif tok.kind == "symbol" and tok.text in "#+@":
                self.symbol(i, tok)
        return self.found

    def symbol(self, i: int, tok: Token) -> None:
        """`#command`, `+native`, `@[attributes]`."""
        nxt = self.adjacent(i)
        if nxt is None:
            return
        if tok.text == "#" and nxt.kind == "ident" and nxt.text not in self.policy.allowed_hash_commands:
            self.add(tok.start, "side_command", f"`#{nxt.text}` is not allowed: {MESSAGES['side_command']}")
        elif tok.text == "+" and nxt.text == "native" and not self.policy.allow_native_decide:
            self.add(tok.start, "native_decide")
        elif tok.text == "@" and nxt.text == "[":
            self.attributes(i + 2)

    def ident(self, i: int, tok: Token) -> None:
        """Forbidden words and constants, `set_option`, `attribute [...]`, `native_decide`."""
        text = tok.text
        last = text.rpartition(".")[2]
        if text in _KEYWORDS and not (text == "private" and self._modifies_declaration(i)):
            self.add(tok.start, _KEYWORDS[text])
        if last in _CONSTANTS:
            self.add(tok.start, _CONSTANTS[last])
        if tok.is_keyword("set_option"):
            nxt = self.tokens[i + 1] if i + 1 < len(self.tokens) else None
            name = nxt.text if nxt is not None and nxt.kind == "ident" else ""
            if not self.policy.option_allowed(name):
                self.add(tok.start, "set_option", f"`set_option {name}` is not on the allow-list")
        elif tok.is_keyword("attribute") and i + 1 < len(self.tokens) and self.tokens[i + 1].text == "[":
            self.attributes(i + 2)
        elif tok.is_keyword("import"):
            self.imports(i)
        if not self.policy.allow_native_decide and (
            text == "native_decide" or last in _NATIVE_CONSTANTS or (text == "native" and self._assigned_true(i))
        ):
            self.add(tok.start, "native_decide")

    def import_modules(self) -> set[int]:
        """Indices of the module names of `import` commands (`import Lean.Elab` names a module, not code)."""
        found: set[int] = set()
        text = self.lean.text
        for i, tok in enumerate(self.tokens):
            if not tok.is_keyword("import"):
                continue
            for j in range(i + 1, len(self.tokens)):
                module = self.tokens[j]
                if module.kind != "ident" or "\n" in text[tok.end : module.start]:
                    break
                found.add(j)
        return found

    def meta(self, i: int, tok: Token) -> None:
        """Code that runs at elaboration time, or names that reach the host or Lean's elaborator (`meta_code`)."""
        if tok.text in _META_WORDS and not tok.escaped:
            self.add(tok.start, "meta_code", f"`{tok.text}` runs code while Lean elaborates: {MESSAGES['meta_code']}")
            return
        nxt = self.adjacent(i)
        if tok.text in _META_PERCENT and not tok.escaped and nxt is not None and nxt.text == "%":
            self.add(tok.start, "meta_code", f"`{tok.text}%` runs code while Lean elaborates: {MESSAGES['meta_code']}")
            return
        if is_meta_name(tok.text) and tok.text.rpartition(".")[2] not in _NATIVE_CONSTANTS:  # `native_decide`'s
            self.add(tok.start, "meta_code", f"`{tok.text}`: {MESSAGES['meta_code']}")

    def attributes(self, first: int) -> None:
        """The attribute list starting at token `first` (just after its `[`)."""
        depth, end = 0, first
        while end < len(self.tokens):
            text = self.tokens[end].text
            if text == "[":
                depth += 1
            elif text == "]":
                if depth == 0:
                    break
                depth -= 1
            end += 1
        at = self.tokens[first - 1].start
        for name in attribute_names(self.tokens[first:end]):
            if name in self.policy.allowed_attributes:
                continue
            code = _ATTRIBUTE_CODES.get(name, "attribute")
            if code == "attribute":
                allowed = ", ".join(sorted(self.policy.allowed_attributes))
                self.add(at, code, f"attribute `{name}` is not allowed (allowed: {allowed})")
            elif code != "instance":  # instances are refused before the target only (see `before_target`)
                self.add(at, code)

    def imports(self, i: int) -> None:
        """The modules `import` (token `i`) names on its line must be in allowed packages."""
        text = self.lean.text
        for tok in self.tokens[i + 1 :]:
            if tok.kind != "ident" or "\n" in text[self.tokens[i].end : tok.start]:
                break
            if not self.policy.import_allowed(tok.text):
                allowed = ", ".join(self.policy.allowed_imports)
                self.add(tok.start, "header_import", f"`import {tok.text}` is not allowed (packages: {allowed})")

    def _modifies_declaration(self, i: int) -> bool:
        """Whether the unescaped `private` at token `i` is a modifier of a declaration (`private lemma helper`).

        That only makes the name private to this file, which the rules (`shadowing`, the target's full name) see as
        they see any name; `open private`, `private` on the target (see `check_integrity`) and escaped `«private»`
        stay refused.
        """
        if self.tokens[i].escaped:
            return False
        j = i + 1
        while j < len(self.tokens) and self.tokens[j].kind == "ident" and self.tokens[j].text in MODIFIERS:
            j += 1
        if j >= len(self.tokens):
            return False
        keyword = self.tokens[j]
        return keyword.kind == "ident" and not keyword.escaped and keyword.text in DECLARATION_KEYWORDS

    def _assigned_true(self, i: int) -> bool:
        """`native := true` (a decide configuration)."""
        window = self.tokens[i + 1 : i + 4]
        return [t.text for t in window] == [":", "=", "true"]


def is_meta_name(name: str) -> bool:
    """Whether `name` (as written, `«»` removed) lies in a namespace of host or elaborator code, or is `unsafeX...`.

    Example:
        >>> [is_meta_name(n) for n in ("IO.Process.run", "_root_.Lean.addDecl", "unsafeBaseIO", "Real.log")]
        [True, True, True, False]
    """
    name = name.removeprefix("_root_.")
    parts = name.split(".")
    if parts[0] in _META_ROOTS or name.startswith(_META_PREFIXES):
        return True
    last = parts[-1]
    # Lean's unsafe escapes are camel case: `unsafeBaseIO`, `unsafeIO`, `unsafeCast`, `ptrAddrUnsafe`, ...
    return (last.startswith("unsafe") and last[6:7].isupper()) or last.endswith("Unsafe")


_VARIABLE_WORDS = frozenset({"variable", "include"})


def _is_variable_word(tok: Token) -> bool:
    """`variable`, `include` or another spelling of them (Mathlib's `variable?`; `!` for good measure)."""
    return tok.kind == "ident" and tok.text.rstrip("?!") in _VARIABLE_WORDS


def context_commands(lean: LeanCode, target_start: int) -> list[tuple[int, tuple[str, ...]]]:
    """The `instance`/`variable`/`include` commands before `target_start`: (token index, the command's token texts).

    A command runs from its word to the next token that starts a command at the start of a line.
    """
    tokens = lean.lexed.tokens
    text = lean.text
    found: list[tuple[int, tuple[str, ...]]] = []
    for i, tok in enumerate(tokens):
        if tok.start >= target_start:
            break
        if tok.kind != "ident" or not (tok.text in ("instance", "default_instance") or _is_variable_word(tok)):
            continue
        j = i + 1
        while j < len(tokens) and tokens[j].start < target_start and not _starts_command(text, tokens[j]):
            j += 1
        found.append((i, tuple(t.text for t in tokens[i:j])))
    return found


def _starts_command(text: str, tok: Token) -> bool:
    if tok.start and text[tok.start - 1] != "\n":
        return False
    return (not tok.escaped and tok.text in COMMAND_WORDS) if tok.kind == "ident" else tok.text in ("#", "@")


def before_target(
    lean: LeanCode, target_start: int, context: tuple[tuple[str, ...], ...] = ()
) -> list[tuple[int, IntegrityViolation]]:
    """Instances and variables declared before the target can change what its (token-identical) statement means.

    `deriving instance C for T` is allowed when every `T` is a type this code declares (it cannot change the
    statement's own types). A statement that brings its own context (`context`: its `context_commands` texts) lets
    the code repeat exactly those commands, each once; any other instance or variable is still refused.
    """
    found: list[tuple[int, IntegrityViolation]] = []
    tokens = lean.lexed.tokens
    own_types = {d.name for d in lean.declarations if d.keyword in ("inductive", "structure", "class") and d.name}
    own_types |= {name.rpartition(".")[2] for name in own_types}
    allowed = Counter(context)
    for i, command in context_commands(lean, target_start):
        tok = tokens[i]
        if allowed[command] > 0:
            allowed[command] -= 1
            continue
        if _is_variable_word(tok):
            found.append(violation(lean.text, tok.start, "variable"))
        elif i and tokens[i - 1].is_keyword("deriving"):
            if not _derives_own_types(lean.text, tokens, i, own_types):
                found.append(violation(lean.text, tok.start, "instance"))
        else:
            found.append(violation(lean.text, tok.start, "instance"))
    return found


def _derives_own_types(text: str, tokens: tuple[Token, ...], i: int, own_types: set[str]) -> bool:
    """Whether `deriving instance ... for T, U` at token `i` (`instance`) names only types in `own_types`."""
    j = i + 1
    while j < len(tokens) and not tokens[j].is_keyword("for"):
        j += 1
    targets: list[str] = []
    for tok in tokens[j + 1 :]:
        if "\n" in text[tokens[j].end : tok.start] and targets:
            break
        if tok.kind == "ident":
            targets.append(tok.text)
        elif tok.text != ",":
            break
    return bool(targets) and all(t in own_types for t in targets)
