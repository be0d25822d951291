"""`LeanCode`: a Lean file split into header and body, with its imports normalised and its declarations located."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from functools import cached_property

from kimina_verify.lexer import Lexed, Token, lex, line_of

DECLARATION_KEYWORDS = frozenset(
    {"theorem", "lemma", "def", "abbrev", "instance", "example", "axiom", "opaque", "structure", "class", "inductive"}
)
THEOREM_KEYWORDS = frozenset({"theorem", "lemma"})
COMMAND_WORDS = DECLARATION_KEYWORDS | {
    *("namespace", "section", "end", "mutual", "open", "export", "set_option", "attribute", "variable", "include"),
    *("omit", "universe", "private", "protected", "noncomputable", "partial", "nonrec", "unsafe", "deriving"),
    *("macro", "macro_rules", "syntax", "elab", "elab_rules", "notation", "infix", "infixl", "infixr", "prefix"),
    *("postfix", "initialize", "run_cmd", "lemma"),
}
"""Words that begin a top-level command when they start a line; they end the declaration before them."""
_OPENERS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄"}
_CLOSERS = frozenset(_OPENERS.values())
_HEADER_LINE = re.compile(r"(import|set_option|open)\s")


@dataclass(frozen=True)
class Declaration:
    """One top-level declaration found in Lean code.

    Attributes:
        keyword: `theorem`, `lemma`, `def`, `instance`, `example`, ...
        name: Full name including enclosing namespaces (`_root_.` removed); None for `example` and anonymous instances.
        start: Offset of the keyword in the code.
        line: 1-based line of the keyword.
        statement: Tokens after the name up to the top-level `:=` (binders, colon and type), comments excluded.
        proof_start: Offset just after that `:=`, or None when the declaration has none.
        tokens: Every token after the name up to the next top-level command (the whole definition).
    """

    keyword: str
    name: str | None
    start: int
    line: int
    statement: tuple[str, ...]
    proof_start: int | None
    tokens: tuple[str, ...] = ()


def normalize_imports(modules: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Collapse every `Mathlib...` import into `Mathlib` (first), then keep the others once, in order, as servers do."""
    has_mathlib = any(m == "Mathlib" or m.startswith("Mathlib.") for m in modules)
    rest = list(dict.fromkeys(m for m in modules if not (m == "Mathlib" or m.startswith("Mathlib."))))
    return (("Mathlib",) if has_mathlib else ()) + tuple(rest)


class LeanCode:
    r"""A piece of Lean 4 code, split into a header (imports, `set_option`, `open`) and a body.

    Example:
        >>> code = LeanCode("import Mathlib.Tactic\\nopen Real\\n\\ntheorem t : 1 = 1 := rfl\\n")
        >>> code.imports, code.target().name
        (('Mathlib',), 't')
    """

    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n")

    @staticmethod
    @functools.lru_cache(maxsize=4096)
    def shared(text: str) -> LeanCode:
        """A `LeanCode` for `text` shared between callers: dataset statements repeat across many proofs."""
        return LeanCode(text)

    def __repr__(self) -> str:
        return f"LeanCode({self.text[:60]!r}{'...' if len(self.text) > 60 else ''})"

    @cached_property
    def lexed(self) -> Lexed:
        """Tokens and the comment- and string-stripped text."""
        return lex(self.text)

    @cached_property
    def lines(self) -> tuple[str, ...]:
        """The source lines."""
        return tuple(self.text.split("\n"))

    @cached_property
    def header_line_count(self) -> int:
        """Number of leading lines forming the header.

        The header runs to the last `import`/`set_option`/`open` line of the prefix made only of such lines, blank
        lines and comments; a trailing `in` makes a line part of the body.
        """
        count = 0
        for i, line in enumerate(self.lexed.stripped.split("\n")):
            stripped = line.strip()
            if not stripped:
                continue
            if _HEADER_LINE.match(stripped + " ") and not re.search(r"\sin$", stripped):
                count = i + 1
            else:
                break
        return count

    @cached_property
    def header_lines(self) -> tuple[str, ...]:
        """The non-blank header lines with comments removed, stripped."""
        stripped = self.lexed.stripped.split("\n")[: self.header_line_count]
        return tuple(line.strip() for line in stripped if line.strip())

    @cached_property
    def imports(self) -> tuple[str, ...]:
        """The imported modules, normalised (`Mathlib.*` collapses to `Mathlib`, duplicates dropped)."""
        modules = [m for line in self.header_lines if line.startswith("import ") for m in line.split()[1:]]
        return normalize_imports(modules)

    @cached_property
    def options_and_opens(self) -> tuple[str, ...]:
        """The header's `set_option` and `open` lines, whitespace-normalised, in order."""
        return tuple(" ".join(line.split()) for line in self.header_lines if not line.startswith("import"))

    @property
    def body(self) -> str:
        """Everything after the header."""
        return "\n".join(self.lines[self.header_line_count :])

    @property
    def body_start_line(self) -> int:
        """1-based line number where the body starts."""
        return self.header_line_count + 1

    @cached_property
    def server_header_line_count(self) -> int:
        """Leading blank and `import` lines: what kimina-lean-server strips before sending the body to a REPL."""
        count = 0
        for line in self.lines:
            if line.strip() == "" or line.strip().startswith("import "):
                count += 1
            else:
                break
        return count

    @cached_property
    def declarations(self) -> tuple[Declaration, ...]:
        """Top-level declarations, in order, with their full names."""
        return tuple(_find_declarations(self.text, self.lexed.tokens))

    def find(self, name: str) -> Declaration | None:
        """The first declaration with full name `name` (a leading `_root_.` is ignored), or None."""
        name = name.removeprefix("_root_.")
        return next((d for d in self.declarations if d.name == name), None)

    def target(self, name: str | None = None) -> Declaration | None:
        """The theorem to verify: the one called `name`, else the last `theorem`/`lemma`, else the last `example`."""
        if name is not None:
            return self.find(name)
        theorems = [d for d in self.declarations if d.keyword in THEOREM_KEYWORDS]
        if theorems:
            return theorems[-1]
        examples = [d for d in self.declarations if d.keyword == "example"]
        return examples[-1] if examples else None


def _find_declarations(text: str, tokens: tuple[Token, ...]) -> list[Declaration]:
    depths = _depths(tokens)
    starts = [
        i
        for i, tok in enumerate(tokens)
        if depths[i] == 0 and (_starts_command(text, tok) or (tok.kind == "ident" and tok.text in DECLARATION_KEYWORDS))
    ]
    found: list[Declaration] = []
    scopes: list[tuple[str, str]] = []  # (kind, namespace name) for namespace / section / mutual
    n = len(tokens)
    for i, tok in enumerate(tokens):
        if tok.kind != "ident" or depths[i]:
            continue
        nxt = tokens[i + 1] if i + 1 < n else None
        if tok.text == "namespace" and nxt is not None and nxt.kind == "ident":
            scopes.append(("namespace", nxt.text))
        elif tok.text in ("section", "mutual"):
            scopes.append((tok.text, ""))
        elif tok.text == "end" and scopes:
            scopes.pop()
        elif tok.text in DECLARATION_KEYWORDS:
            prev = tokens[i - 1].text if i else ""
            if prev in ("deriving", "class") or (tok.text == "instance" and prev == "attribute"):
                continue
            end = next((j for j in starts if j > i), n)
            namespace = ".".join(name for kind, name in scopes if kind == "namespace")
            found.append(_declaration(text, tokens[i:end], namespace))
    return found


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
    """Whether `tok` starts a top-level command: a command word (or `#`, `@[`) at the very start of a line."""
    if tok.start and text[tok.start - 1] != "\n":
        return False
    return tok.text in COMMAND_WORDS if tok.kind == "ident" else tok.text in ("#", "@")


def _declaration(text: str, tokens: tuple[Token, ...], namespace: str) -> Declaration:
    """Read one declaration from its tokens (keyword first, up to the next top-level command)."""
    keyword = tokens[0]
    j = 1
    name: str | None = None
    if keyword.text != "example" and len(tokens) > 1 and tokens[1].kind == "ident":
        name = tokens[1].text
        j = 2
    if name is not None:
        if name.startswith("_root_."):
            name = name.removeprefix("_root_.")
        elif namespace:
            name = f"{namespace}.{name}"
    statement: list[str] = []
    proof_start: int | None = None
    depth = 0
    for k in range(j, len(tokens)):
        tok = tokens[k]
        if tok.kind == "symbol" and tok.text in _OPENERS:
            depth += 1
        elif tok.kind == "symbol" and tok.text in _CLOSERS:
            depth = max(0, depth - 1)
        elif depth == 0 and tok.text == ":" and k + 1 < len(tokens) and tokens[k + 1].text == "=":
            if tokens[k + 1].start == tok.end:
                proof_start = tokens[k + 1].end
                break
        elif depth == 0 and tok.text == "where" and tok.kind == "ident":
            break
        statement.append(tok.text)
    return Declaration(
        keyword=keyword.text,
        name=name,
        start=keyword.start,
        line=line_of(text, keyword.start),
        statement=tuple(statement),
        proof_start=proof_start,
        tokens=tuple(t.text for t in tokens[j:]),
    )
