"""The outline of Lean code: its top-level declarations with their full names, and its scopes, as Lean tracks them.

Built on `lean_lexer` tokens. A declaration starts at an unescaped declaration keyword (`theorem`, `def`, ...): Lean
only accepts one where a command starts, so code that elaborates without errors has each of them at top level, and
`«theorem»` is a name, never a keyword. Its full name joins the enclosing namespaces, unless it is written
`_root_.name`. Scopes follow Lean's `namespace`/`section`/`end` (`Lean.Elab.Command.elabEnd`, `addScopes`): a dotted
`namespace A.B` opens one scope per component, `end B` closes one of them, `end A.B` both, and a bare `end` only an
anonymous section; `mutual ... end` is one command.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Literal

from kimina_format.lean_lexer import Lexed, Token, line_of

__all__ = [
    "COMMAND_WORDS",
    "DECLARATION_KEYWORDS",
    "EXTENSION_WORDS",
    "MODIFIERS",
    "THEOREM_KEYWORDS",
    "Declaration",
    "OpenCommand",
    "Outline",
    "ScopeProblem",
    "attribute_names",
    "outline",
]

DECLARATION_KEYWORDS = frozenset(
    {
        *("theorem", "lemma", "def", "abbrev", "instance", "example", "axiom", "opaque", "structure", "class"),
        *("inductive", "alias", "irreducible_def"),
    }
)
"""Keywords that declare constants (Mathlib's `lemma`, `alias` and `irreducible_def` included)."""
THEOREM_KEYWORDS = frozenset({"theorem", "lemma"})
MODIFIERS = frozenset({"private", "protected", "noncomputable", "partial", "unsafe", "nonrec", "local", "scoped"})
"""Words that may precede a declaration keyword."""
EXTENSION_WORDS = frozenset(
    {
        "notation",
        "infix",
        "infixl",
        "infixr",
        "prefix",
        "postfix",
        "macro",
        "macro_rules",
        "syntax",
        "elab",
        "elab_rules",
    }
)
"""Words that begin a command extending Lean's syntax (a notation, a macro, ...)."""
COMMAND_WORDS = (
    DECLARATION_KEYWORDS
    | MODIFIERS
    | EXTENSION_WORDS
    | {
        *("namespace", "section", "end", "mutual", "open", "export", "set_option", "attribute", "variable", "include"),
        *("omit", "universe", "deriving", "initialize", "run_cmd"),
    }
)
"""Words that begin a command when they start a line; they end the declaration before them."""
_OPENERS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄"}
_CLOSERS = frozenset(_OPENERS.values())
# Words after `open` that are not namespaces.
_OPEN_WORDS = frozenset({"in", "hiding", "renaming", "scoped"})

ScopeKind = Literal["namespace", "section", "mutual"]


@dataclass(frozen=True)
class Declaration:
    """One top-level declaration.

    Attributes:
        keyword: `theorem`, `lemma`, `def`, `instance`, `example`, ...
        name: Full name: enclosing namespaces joined to the written name (`_root_.` removed); None for `example` and
            anonymous instances.
        start: Offset of the keyword.
        line: 1-based line of the keyword.
        statement: Token texts after the name up to the declaration's own `:=` (binders, colon and type): the
            first `:=` at bracket depth 0 that no `let`/`have` (`letI`, `haveI`, `let_fun`) of the type still waits
            for (`theorem t : let y := 2; y = 2 := rfl` states `let y := 2; y = 2`).
        proof_start: Offset just after that `:=`, or None when the declaration has none.
        tokens: Every token text after the name up to the next command (the whole definition).
        written_name: The name as written (`_root_.x`, `Real.log`), or None.
        namespace: The namespace the declaration is in ("" at the root).
        modifiers: `private`, `protected`, `noncomputable`, ... written before the keyword.
        attributes: Names of the attributes in `@[...]` before it (`simp`, `implemented_by`, ...).
        command_start: Offset where its command starts (its first attribute or modifier, else the keyword).
        statement_unsure: Where the statement ends needs Lean's parser: a `do`, `calc` or `by` at depth 0 before
            the `:=` (a `do` block reassigns with `:=`, tactics bind with it), a `let`/`have` whose `:=` never
            comes, or a declaration that ends in `:= by sorry` at another `:=` than the one found. Comparisons
            of such a statement fail closed.
        compared: `statement` with each spelling Lean reads as another written as that one (`->` as `→`, `(x y : ℝ)`
            as `(x : ℝ) (y : ℝ)`) and each escaped name as written (`«¬»`): what statements are compared by.
        exact: `tokens` with each escaped name as written (`«¬»` is a name, not `¬`): what definitions are compared
            by.
    """

    keyword: str
    name: str | None
    start: int
    line: int
    statement: tuple[str, ...]
    proof_start: int | None
    tokens: tuple[str, ...] = ()
    written_name: str | None = None
    namespace: str = ""
    modifiers: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    command_start: int = 0
    statement_unsure: bool = False
    compared: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()


@dataclass(frozen=True)
class OpenCommand:
    """An `open` command: the namespaces it opens, whether it is `open ... in`, and whether it is plain.

    A plain `open` only lists namespaces (`open Real Nat`); `hiding`, `renaming`, `scoped` or an explicit list
    (`open Nat (succ)`) make it not plain.
    """

    start: int
    namespaces: tuple[str, ...]
    scoped_in: bool
    plain: bool


@dataclass(frozen=True)
class ScopeProblem:
    """An `end` Lean rejects or a scope never closed: `end_mismatch` or `unclosed_scope`."""

    code: Literal["end_mismatch", "unclosed_scope"]
    offset: int
    message: str


@dataclass(frozen=True)
class Outline:
    """What `outline` finds: declarations, `open` commands and scope problems, in order."""

    declarations: tuple[Declaration, ...]
    opens: tuple[OpenCommand, ...]
    problems: tuple[ScopeProblem, ...]

    def find(self, name: str) -> Declaration | None:
        """The first declaration with full name `name` (a leading `_root_.` is ignored), or None."""
        name = name.removeprefix("_root_.")
        return next((d for d in self.declarations if d.name == name), None)


class _Scopes:
    """The scope stack as Lean keeps it: one entry per namespace component, section or `mutual` block."""

    def __init__(self) -> None:
        self.stack: list[tuple[ScopeKind, str]] = []
        self.problems: list[ScopeProblem] = []
        self._namespace: str | None = None

    @property
    def namespace(self) -> str:
        # Cached until the stack changes: a long run of declarations deep in namespaces stays linear.
        if self._namespace is None:
            self._namespace = ".".join(name for kind, name in self.stack if kind == "namespace")
        return self._namespace

    def open(self, kind: ScopeKind, name: str) -> None:
        self._namespace = None
        parts = name.split(".") if name else [""]
        self.stack.extend((kind, part) for part in parts)

    def end(self, offset: int, name: str | None) -> None:
        self._namespace = None
        if self.stack and self.stack[-1][0] == "mutual" and name is None:
            self.stack.pop()
            return
        parts = name.split(".") if name else []
        count = max(len(parts), 1)
        if count > len(self.stack):
            self.problems.append(ScopeProblem("end_mismatch", offset, "`end` without a scope to close"))
            self.stack.clear()
            return
        closing = [part for _, part in self.stack[-count:]]
        self.stack[-count:] = []
        if name is None and closing != [""]:
            self.problems.append(ScopeProblem("end_mismatch", offset, f"`end` needs the name `{closing[-1]}`"))
        elif name is not None and closing != parts:
            expected = ".".join(closing) or "nothing"
            self.problems.append(ScopeProblem("end_mismatch", offset, f"`end {name}` closes `{expected}`"))

    def finish(self, offset: int) -> None:
        if self.stack:
            names = ".".join(name or kind for kind, name in self.stack)
            message = f"`{names}` is never closed: what follows the code would run inside it"
            self.problems.append(ScopeProblem("unclosed_scope", offset, message))


def outline(text: str, lexed: Lexed) -> Outline:
    """Find the declarations, `open` commands and scope problems of lexed Lean code.

    Args:
        text: The source (`lexed.source`).
        lexed: Its tokens.

    Returns:
        The outline, in source order.
    """
    tokens = lexed.tokens
    depths = _depths(tokens)
    starts = [
        i
        for i, tok in enumerate(tokens)
        if depths[i] == 0 and (_starts_command(text, tok) or (tok.kind == "ident" and _is_declaration(tokens, i)))
    ]
    scopes = _Scopes()
    found: list[Declaration] = []
    opens: list[OpenCommand] = []
    n = len(tokens)
    lines = _LineCounter(text)
    for i, tok in enumerate(tokens):
        if tok.kind != "ident" or tok.escaped:
            continue
        nxt = tokens[i + 1] if i + 1 < n else None
        named = nxt if nxt is not None and nxt.kind == "ident" and not _is_word(nxt) else None
        same_line = named is not None and "\n" not in text[tok.end : named.start]
        if tok.text == "namespace" and named is not None:
            scopes.open("namespace", named.text)
        elif tok.text == "section":
            scopes.open("section", named.text if same_line and named is not None else "")
        elif tok.text == "mutual":
            scopes.open("mutual", "")
        elif tok.text == "end":
            scopes.end(tok.start, named.text if same_line and named is not None else None)
        elif tok.text == "open":
            opens.append(_open_command(text, tokens, i))
        elif _is_declaration(tokens, i):
            # The next command start after `i` (a binary search: the outline stays linear in the declarations).
            k = bisect.bisect_right(starts, i)
            end = starts[k] if k < len(starts) else n
            found.append(_declaration(text, tokens, i, end, scopes.namespace, lines.line(tok.start)))
    scopes.finish(len(text))
    return Outline(tuple(found), tuple(opens), tuple(scopes.problems))


class _LineCounter:
    """1-based line numbers of increasing offsets, counted incrementally (`line_of` per declaration is quadratic)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0
        self.count = 1

    def line(self, offset: int) -> int:
        if offset < self.offset:
            return line_of(self.text, offset)
        self.count += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.count


def _is_word(tok: Token) -> bool:
    """A keyword that cannot be a namespace or section name."""
    return not tok.escaped and tok.text in COMMAND_WORDS


def _is_declaration(tokens: tuple[Token, ...], i: int) -> bool:
    """Whether token `i` is a declaration keyword starting a declaration.

    Not `deriving instance`, `class inductive`, `attribute [instance]` or `@[instance]`.
    """
    tok = tokens[i]
    if tok.escaped or tok.text not in DECLARATION_KEYWORDS:
        return False
    j = i - 1
    while tok.text == "instance" and j >= 0 and tokens[j].text in ("local", "scoped"):
        j -= 1  # `@[local instance]`, `attribute [scoped instance]`
    prev = tokens[j].text if j >= 0 else ""
    if prev == "deriving" or (tok.text == "instance" and prev in ("[", ",", "attribute", "-")):
        return False
    return not (tok.text == "class" and i + 1 < len(tokens) and tokens[i + 1].text in ("inductive", "abbrev"))


def _depths(tokens: tuple[Token, ...]) -> list[int]:
    """Bracket depth before each token."""
    depths, depth = [], 0
    for tok in tokens:
        depths.append(depth)
        if tok.kind == "symbol":
            if tok.text in _OPENERS:
                depth += 1
            elif tok.text in _CLOSERS:
                depth = max(0, depth - 1)
    return depths


def _starts_command(text: str, tok: Token) -> bool:
    """Whether `tok` starts a command: a command word (or `#`, `@[`) at the very start of a line."""
    if tok.start and text[tok.start - 1] != "\n":
        return False
    return (tok.text in COMMAND_WORDS and not tok.escaped) if tok.kind == "ident" else tok.text in ("#", "@")


def _column(text: str, offset: int) -> int:
    return offset - (text.rfind("\n", 0, offset) + 1)


def _open_command(text: str, tokens: tuple[Token, ...], i: int) -> OpenCommand:
    """The `open` command at token `i`.

    Its names go on past a line end only while they stand right of the `open` (Lean's `openSimple` reads
    `many1 (checkColGt >> ident)`): a line that starts at or left of its column begins another command.
    """
    names: list[str] = []
    plain, scoped_in = True, False
    column = _column(text, tokens[i].start)

    def continues(j: int) -> bool:
        tok = tokens[j]
        on_new_line = "\n" in text[tokens[j - 1].end : tok.start]
        return not on_new_line or _column(text, tok.start) > column

    j = i + 1
    if j < len(tokens) and tokens[j].is_keyword("scoped"):
        plain, j = False, j + 1
    while j < len(tokens) and tokens[j].kind == "ident" and not _is_word(tokens[j]) and continues(j):
        if tokens[j].text in _OPEN_WORDS and not tokens[j].escaped:
            scoped_in = tokens[j].text == "in"
            plain = plain and scoped_in
            break
        names.append(tokens[j].text)
        j += 1
    else:
        if j < len(tokens) and tokens[j].text == "(" and continues(j):
            plain = False
    return OpenCommand(tokens[i].start, tuple(names), scoped_in, plain)


def _prefix(tokens: tuple[Token, ...], i: int) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
    """Walk back from declaration keyword `i` over modifiers and `@[...]`: (command start, modifiers, attributes)."""
    modifiers: list[str] = []
    attributes: list[str] = []
    start = tokens[i].start
    j = i - 1
    while j >= 0:
        tok = tokens[j]
        if tok.kind == "ident" and not tok.escaped and tok.text in MODIFIERS:
            modifiers.insert(0, tok.text)
        elif tok.text == "]":
            opener = _attribute_opener(tokens, j)
            if opener is None:
                break
            attributes[:0] = attribute_names(tokens[opener + 2 : j])
            j = opener
        else:
            break
        start = tokens[j].start
        j -= 1
    return start, tuple(modifiers), tuple(attributes)


def _attribute_opener(tokens: tuple[Token, ...], close: int) -> int | None:
    """Index of the `@` of the `@[` that the `]` at `close` ends, or None when it is not an attribute list."""
    depth = 0
    for k in range(close, 0, -1):
        text = tokens[k].text
        if tokens[k].kind != "symbol":
            continue
        if text == "]":
            depth += 1
        elif text == "[":
            depth -= 1
            if depth == 0:
                adjacent = tokens[k - 1].end == tokens[k].start
                return k - 1 if tokens[k - 1].text == "@" and adjacent else None
    return None


def attribute_names(tokens: tuple[Token, ...] | list[Token]) -> list[str]:
    """The attribute names of the inside of `@[...]` or `attribute [...]`: the first word of each entry.

    `local`, `scoped` and a leading `-` (erase) are skipped: `@[local simp, -instance]` names `simp` and `instance`.
    """
    names: list[str] = []
    expect = True
    depth = 0
    for tok in tokens:
        if tok.kind == "symbol" and tok.text in _OPENERS:
            depth += 1
        elif tok.kind == "symbol" and tok.text in _CLOSERS:
            depth -= 1
        elif depth == 0 and tok.text == ",":
            expect = True
        elif expect and depth == 0 and tok.text not in ("local", "scoped", "-"):
            names.append(tok.text)
            expect = False
    return names


def _same_syntax(tokens: list[Token], source: str) -> tuple[str, ...]:
    r"""The texts of `tokens`, each spelling that Lean reads as another's written as that one (`->` as `→`).

    Lean's parser takes `->`, `<->`, `<=`, `>=`, `/\`, `\/`, `=>`, `forall`, `exists` and `fun` for `→`, `↔`, `≤`,
    `≥`, `∧`, `∨`, `↦`, `∀`, `∃` and `λ`: a statement written with either spelling is the same. (`!=` is `bne`, not
    `≠`; `Real` is a name the code may bind, where Mathlib's `ℝ` is a notation that cannot be.) An escaped name is
    its text in `source` as written: `«¬»` is a name the code may define, `¬` is `Not`.
    """
    out: list[str] = []
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        k += 1
        if tok.kind == "ident":
            out.append(_as_written(tok, source) if tok.escaped else _SAME_NAME.get(tok.text, tok.text))
            continue
        if tok.kind == "symbol" and tok.text in _ASCII_HEADS:
            # The lexer cuts symbols into characters: a spelling is its characters written together.
            for spelling, same in _SAME_SYMBOLS:
                last = k - 1 + len(spelling)
                if last <= len(tokens) and all(
                    tokens[k - 1 + n].text == char and (n == 0 or tokens[k - 2 + n].end == tokens[k - 1 + n].start)
                    for n, char in enumerate(spelling)
                ):
                    out.append(same)
                    k = last
                    break
            else:
                out.append(tok.text)
            continue
        out.append(tok.text)
    return tuple(out)


def _as_written(tok: Token, source: str) -> str:
    """The text `tok` is compared by: an escaped name as written in `source`, any other token its text.

    `«¬»` and `«Nat.Prime»` are the code's own names, not `¬` and Mathlib's `Nat.Prime`, though their texts without
    the escapes are those.
    """
    return source[tok.start : tok.end] if tok.escaped else tok.text


def _split_binders(tokens: list[Token]) -> list[Token]:
    """A statement's `tokens` with each binder group of several names split: `(x y : ℝ)` as `(x : ℝ) (y : ℝ)`.

    Lean elaborates a group as its binders one after another, so both spellings declare the same. Groups are read
    where only binders stand: before the signature's colon at depth 0, and after `∀`, `∃`, `λ`, `fun`, `forall` or
    `exists`. After `∀`, `∃`, `forall` and `exists` a bare typed run (`∀ x y : ℝ, P`) is bracketed too
    (`∀ (x : ℝ) (y : ℝ), P`); `fun x : ℕ => x` stays as written. A bracket elsewhere may be a term (`(f x : ℝ)` is
    an ascription) and stays as written. So do binders nested deeper than `_MOST_BINDER_LEVELS`, and splits past a
    budget of new tokens: hostile input costs linear time and space.
    """
    return _BinderSplit(tokens).run(0, len(tokens), signature=True, levels=0)


class _BinderSplit:
    """One statement's binder splitting (`_split_binders`): its brackets matched once, and what is left to spend."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.budget = 2 * len(tokens) + 256  # new tokens the splits may still write
        self.closes: dict[int, int] = {}
        open_at: list[int] = []
        for k, tok in enumerate(tokens):
            if tok.kind == "symbol" and tok.text in _OPENERS:
                open_at.append(k)
            elif tok.kind == "symbol" and tok.text in _CLOSERS and open_at:
                self.closes[open_at.pop()] = k

    def run(self, start: int, end: int, *, signature: bool, levels: int) -> list[Token]:
        """`tokens[start:end]` split, its signature binders too when `signature`."""
        tokens = self.tokens
        out: list[Token] = []
        depth = 0
        k = start
        in_binders = False  # just after a binder head, among its binders
        bare = False  # and that head takes a bare typed run up to a comma (`∀ x y : ℝ,`; `fun x : ℕ =>` does not)
        deeper = levels < _MOST_BINDER_LEVELS
        while k < end:
            tok = tokens[k]
            at_signature = signature and depth == 0
            if at_signature and tok.text == ":" and tok.kind == "symbol" and not _assigns(tokens, k):
                signature = at_signature = False
            close = self.closes.get(k, end)
            if (at_signature or in_binders) and deeper and tok.text in _BINDER_BRACKETS and close < end:
                out.extend(self.group(k, close, levels + 1))
                k = close + 1
                continue
            if in_binders and _is_binder_name(tok):
                names = k
                while names < end and _is_binder_name(tokens[names]):
                    names += 1
                type_end = _typed_run_end(tokens, names, end) if bare else None
                if type_end is not None and deeper:
                    type_ = self.run(names + 1, type_end, signature=False, levels=levels + 1)
                    out.extend(self.spread(tokens[k:names], [tokens[names], *type_], _SYNTHETIC_OPEN, _SYNTHETIC_CLOSE))
                    k = type_end
                    in_binders = False
                    continue
                out.extend(tokens[k:names])
                k = names
                continue
            in_binders = not tok.escaped and tok.text in _BINDER_HEADS
            bare = in_binders and tok.text in _COMMA_HEADS
            if tok.kind == "symbol" and tok.text in _OPENERS:
                depth += 1
            elif tok.kind == "symbol" and tok.text in _CLOSERS:
                depth = max(0, depth - 1)
            out.append(tok)
            k += 1
        return out

    def group(self, opener: int, close: int, levels: int) -> list[Token]:
        """The binder group `tokens[opener : close + 1]` one binder a name, its type's own binders split too."""
        tokens = self.tokens
        names = opener + 1
        while names < close and _is_binder_name(tokens[names]):
            names += 1
        if names == opener + 1 or (names < close and (not _is_colon(tokens[names]) or _assigns(tokens, names))):
            return [tokens[opener], *self.run(opener + 1, close, signature=False, levels=levels), tokens[close]]
        rest = self.run(names, close, signature=False, levels=levels)  # `: type` (and a default), or nothing
        return self.spread(tokens[opener + 1 : names], rest, tokens[opener], tokens[close])

    def spread(self, names: list[Token], rest: list[Token], opener: Token, closer: Token) -> list[Token]:
        """`opener name rest closer` for each of `names`, or all names in one group once the budget is spent."""
        extra = (len(names) - 1) * (len(rest) + 2) + 2 * (opener is _SYNTHETIC_OPEN)  # a bare run gains brackets
        if extra > self.budget:
            return [opener, *names, *rest, closer]
        self.budget -= extra
        out: list[Token] = []
        for name in names:
            out.extend([opener, name, *rest, closer])
        return out


def _typed_run_end(tokens: list[Token], colon_at: int, end: int) -> int | None:
    """Where the type of a bare typed binder run (`∀ x y : ℝ, P`) whose `:` is at `colon_at` ends.

    That is the first comma at bracket depth 0 after it (or `end`). None when `colon_at` holds no such `:`, or when the
    type holds a binder head, which may take that comma as its own (`∀ a : ∀ b : P, Q, R`).
    """
    if colon_at >= end or not _is_colon(tokens[colon_at]) or _assigns(tokens, colon_at):
        return None
    depth = 0
    for k in range(colon_at + 1, end):
        tok = tokens[k]
        if tok.text in _BINDER_HEADS and not tok.escaped:
            return None
        if tok.kind == "symbol" and tok.text in _OPENERS:
            depth += 1
        elif tok.kind == "symbol" and tok.text in _CLOSERS:
            depth -= 1
            if depth < 0:
                return k
        elif depth == 0 and tok.kind == "symbol" and tok.text == ",":  # `«,»` is a name
            return k
    return end


def _is_colon(tok: Token) -> bool:
    """Whether `tok` is a `:` symbol (`«:»` is a name)."""
    return tok.kind == "symbol" and tok.text == ":"


def _assigns(tokens: list[Token], colon_at: int) -> bool:
    """Whether the `:` at `colon_at` is the start of a `:=`."""
    return (
        colon_at + 1 < len(tokens)
        and tokens[colon_at + 1].kind == "symbol"
        and tokens[colon_at + 1].text == "="
        and tokens[colon_at + 1].start == tokens[colon_at].end
    )


def _is_binder_name(tok: Token) -> bool:
    """Whether `tok` can name a binder: an identifier, not a keyword, not a dotted name."""
    return tok.kind == "ident" and (tok.escaped or (tok.text not in _NOT_BINDER_NAMES and "." not in tok.text))


# The brackets of explicit, implicit and strict-implicit binders (an instance binder names one at most).
_BINDER_BRACKETS = frozenset({"(", "{", "⦃"})
_BINDER_HEADS = frozenset({"∀", "∃", "λ", "fun", "forall", "exists"})
_COMMA_HEADS = frozenset({"∀", "∃", "forall", "exists"})  # a bare typed run ends at a comma (`fun`'s at `=>`)
_NOT_BINDER_NAMES = frozenset(
    {
        "fun",
        "forall",
        "exists",
        "let",
        "have",
        "show",
        "if",
        "then",
        "else",
        "match",
        "with",
        "by",
        "do",
        "at",
        "from",
        "in",
        "where",
        "calc",
    }
)
# Binder groups nested deeper are compared as written: the splitting recurses, and hostile nesting must stay cheap.
_MOST_BINDER_LEVELS = 16
# Brackets the spelling never had: distinct offsets, so that no symbol spelling reads across them.
_SYNTHETIC_OPEN = Token("symbol", "(", -2, -2)
_SYNTHETIC_CLOSE = Token("symbol", ")", -4, -4)


# Keywords only: `Real` for `ℝ` is a name, which the code may bind to anything (`variable {Real : Type}`).
_SAME_NAME = {"forall": "∀", "exists": "∃", "fun": "λ"}
# The longest first: `<->` before `<=`.
_SAME_SYMBOLS = (
    ("<->", "↔"),
    ("->", "→"),
    ("<=", "≤"),
    (">=", "≥"),
    ("/\\", "∧"),
    ("\\/", "∨"),
    ("=>", "↦"),
)
_ASCII_HEADS = frozenset(spelling[0] for spelling, _ in _SAME_SYMBOLS)


def _declaration(
    text: str, tokens: tuple[Token, ...], i: int, end: int, namespace: str, line: int | None = None
) -> Declaration:
    """Read the declaration whose keyword is token `i`, up to token `end` (the next command)."""
    keyword = tokens[i]
    j = i + 1
    written: str | None = None
    if keyword.text != "example" and j < end and tokens[j].kind == "ident" and not _is_word(tokens[j]):
        written = tokens[j].text
        j += 1
    name = None
    if written is not None:
        name = (
            written.removeprefix("_root_.")
            if written.startswith("_root_.")
            else ".".join(filter(None, [namespace, written]))
        )
    statement: list[Token] = []
    proof_start: int | None = None
    depth = 0
    waiting = 0  # `let`/`have` at depth 0 whose own `:=` has not come yet
    unsure = False
    for k in range(j, end):
        tok = tokens[k]
        if tok.kind == "symbol" and tok.text in _OPENERS:
            depth += 1
        elif tok.kind == "symbol" and tok.text in _CLOSERS:
            depth = max(0, depth - 1)
        elif depth == 0 and tok.text == ":" and k + 1 < end and tokens[k + 1].text == "=":
            if tokens[k + 1].start == tok.end:
                if waiting:
                    waiting -= 1  # the `:=` of a `let`/`have` in the type: the type goes on after its value
                else:
                    proof_start = tokens[k + 1].end
                    break
        elif depth == 0 and tok.is_keyword("where"):
            break
        elif depth == 0 and tok.kind == "ident" and not tok.escaped:
            if tok.text in _BINDS_WITH_ASSIGN:
                waiting += 1
            elif tok.text in _UNSURE_IN_TYPE:
                unsure = True
        statement.append(tok)
    written_tokens = tuple(t.text for t in tokens[j:end])
    exact = (
        tuple(_as_written(t, text) for t in tokens[j:end]) if any(t.escaped for t in tokens[j:end]) else written_tokens
    )
    if waiting or _ends_elsewhere(written_tokens, len(statement), proof_start):
        unsure = True
    command_start, modifiers, attributes = _prefix(tokens, i)
    return Declaration(
        keyword=keyword.text,
        name=name,
        start=keyword.start,
        line=line_of(text, keyword.start) if line is None else line,
        statement=tuple([t.text for t in statement]),
        proof_start=proof_start,
        tokens=written_tokens,
        written_name=written,
        namespace=namespace,
        modifiers=modifiers,
        attributes=attributes,
        command_start=command_start,
        statement_unsure=unsure,
        compared=_same_syntax(_split_binders(statement), text),
        exact=exact,
    )


# Term syntax whose `:=` belongs to it when it stands at depth 0 in a type (`let y := 2; P`).
_BINDS_WITH_ASSIGN = frozenset({"let", "have", "letI", "haveI", "let_fun", "let_delayed"})
# Syntax at depth 0 in a type after which a `:=` may belong to it, or not: only Lean's parser knows.
_UNSURE_IN_TYPE = frozenset({"do", "calc", "by"})
_SORRY_ENDS = (("by", "sorry"), ("sorry",))


def _ends_elsewhere(written: tuple[str, ...], statement_length: int, proof_start: int | None) -> bool:
    """Whether the declaration ends in `:= by sorry` (or `:= sorry`) at another `:=` than the one found.

    A dataset statement ships its proof as `sorry`: the `:=` before it is where its statement surely ends.
    """
    for tail in _SORRY_ENDS:
        if written[len(written) - len(tail) - 2 :] == (":", "=", *tail):
            return proof_start is None or statement_length != len(written) - len(tail) - 2
    return False
