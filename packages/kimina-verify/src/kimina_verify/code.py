"""`LeanCode`: a Lean file split into header and body, with its imports normalised and its declarations located."""

from __future__ import annotations

import functools
import re
from functools import cached_property

from kimina_format.lean_decls import COMMAND_WORDS, DECLARATION_KEYWORDS, THEOREM_KEYWORDS, Declaration, Outline
from kimina_format.lean_lexer import Lexed
from kimina_format.lean_statement import LeanText

__all__ = ["COMMAND_WORDS", "DECLARATION_KEYWORDS", "THEOREM_KEYWORDS", "Declaration", "LeanCode", "normalize_imports"]

_HEADER_LINE = re.compile(r"(import|set_option|open)\s")


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
    def source(self) -> LeanText:
        """The text with its tokens and outline (shared with every other `LeanCode` of the same text)."""
        return LeanText.of(self.text)

    @property
    def lexed(self) -> Lexed:
        """Tokens, comments, the comment- and string-stripped text, and where Lean may read the text differently."""
        return self.source.lexed

    @property
    def outline(self) -> Outline:
        """Declarations, `open` commands and scope problems."""
        return self.source.outline

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
        # Read from the tokens, whose names have their `«»` escapes removed: `import Mathlib.«Tactic»` imports
        # `Mathlib.Tactic` (the stripped copy turns the guillemets into spaces).
        end = sum(len(line) + 1 for line in self.lines[: self.header_line_count])
        tokens = [t for t in self.lexed.tokens if t.start < end]
        modules: list[str] = []
        for i, tok in enumerate(tokens):
            if not tok.is_keyword("import"):
                continue
            for module in tokens[i + 1 :]:
                if module.kind != "ident" or "\n" in self.text[tok.end : module.start]:
                    break
                modules.append(module.text)
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

    @property
    def declarations(self) -> tuple[Declaration, ...]:
        """Top-level declarations, in order, with their full names."""
        return self.source.declarations

    def find(self, name: str) -> Declaration | None:
        """The first declaration with full name `name` (a leading `_root_.` is ignored), or None."""
        return self.outline.find(name)

    def target(self, name: str | None = None) -> Declaration | None:
        """The theorem to verify: the one called `name`, else the last `theorem`/`lemma`, else the last `example`."""
        return self.source.target(name)
