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
        crossed = self._crossed_lines
        for i, line in enumerate(self.lexed.stripped.split("\n")):
            stripped = line.strip()
            if not stripped:
                continue
            # A header line is re-emitted on its own (build_check_code): one that a comment, literal or `«»` name
            # enters or leaves is no line Lean reads by itself, so the header ends before it and it goes raw.
            if i in crossed:
                break
            if _HEADER_LINE.match(stripped + " ") and not re.search(r"\sin$", stripped):
                count = i + 1
            else:
                break
        return count

    @cached_property
    def _crossed_lines(self) -> frozenset[int]:
        """0-based lines whose start or end lies inside a token or comment (one spanning lines)."""
        text = self.text
        crossed: set[int] = set()
        spans = [(t.start, t.end) for t in self.lexed.tokens] + [(c.start, c.end) for c in self.lexed.comments]
        for start, end in spans:
            if "\n" not in text[start:end]:
                continue
            first, last = text.count("\n", 0, start), text.count("\n", 0, end)
            crossed.update(range(first, last + 1))
        return frozenset(crossed)

    @cached_property
    def _header_entries(self) -> tuple[tuple[int, str], ...]:
        """(0-based line, the line as Lean reads it) for the non-blank header lines, rebuilt without loss.

        From the source line itself, never from the stripped copy (where `«»` became spaces): the line's tokens
        joined by single spaces when every token is a plain name, number or symbol and no comment sits between
        them (Lean reads the same tokens then), else the source from the first token to the last, unchanged.
        """
        entries: list[tuple[int, str]] = []
        offsets = [0]
        for line in self.lines:
            offsets.append(offsets[-1] + len(line) + 1)
        count = self.header_line_count
        end = offsets[count] if count else 0
        by_line: dict[int, list[int]] = {}
        for k, tok in enumerate(self.lexed.tokens):
            if tok.start >= end:
                break
            by_line.setdefault(self.text.count("\n", 0, tok.start), []).append(k)
        comments = [c for c in self.lexed.comments if c.start < end]
        for i, indices in sorted(by_line.items()):
            toks = [self.lexed.tokens[k] for k in indices]
            start, stop = toks[0].start, toks[-1].end
            plain = all(t.kind in ("ident", "number", "symbol") and not t.escaped for t in toks) and not any(
                start < c.end and c.start < stop for c in comments
            )
            raw = self.text[start:stop]
            entries.append((i, " ".join(raw.split()) if plain else raw))
        return tuple(entries)

    @cached_property
    def header_lines(self) -> tuple[str, ...]:
        """The non-blank header lines with their comments removed, as Lean reads them (rebuilt from the source)."""
        return tuple(line for _, line in self._header_entries)

    @cached_property
    def header_line_numbers(self) -> dict[str, int]:
        """Each header line (as `header_lines` spells it) -> its first 1-based line in the source."""
        found: dict[str, int] = {}
        for i, line in self._header_entries:
            found.setdefault(line, i + 1)
        return found

    @cached_property
    def imports(self) -> tuple[str, ...]:
        """The imported modules, normalised (`Mathlib.*` collapses to `Mathlib`, duplicates dropped)."""
        # Read from the tokens, never from the stripped copy (which turns the guillemets into spaces).
        end = sum(len(line) + 1 for line in self.lines[: self.header_line_count])
        tokens = [t for t in self.lexed.tokens if t.start < end]
        modules: list[str] = []
        for i, tok in enumerate(tokens):
            if not tok.is_keyword("import"):
                continue
            for module in tokens[i + 1 :]:
                if module.kind != "ident" or "\n" in self.text[tok.end : module.start]:
                    break
                # The name as written (`Mathlib.«Tactic»`): its unescaped text may not be one name (`«A B»`).
                modules.append(self.text[module.start : module.end] if module.escaped else module.text)
        return normalize_imports(modules)

    @cached_property
    def options_and_opens(self) -> tuple[str, ...]:
        """The header's `set_option` and `open` lines, in order, as `header_lines` spells them."""
        return tuple(line for line in self.header_lines if not line.startswith("import "))

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
