"""Just enough Lean 4 lexing for format checks: comments, header / statement / proof-body lines, normalised text.

This is not a Lean parser. It knows Lean's comment syntax (`--` to the end of the line, nestable `/- ... -/`,
strings that may contain either) and the shape of a file: header commands, then declarations whose signature runs
to the first `:=`, followed by the proof. Every scan is linear in the input, hostile input included.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kimina_format.lean_decls import EXTENSION_WORDS

__all__ = [
    "Comment",
    "LeanParts",
    "extension_line",
    "line_end",
    "non_space_length",
    "normalise_lean",
    "plain_tactic_blocks",
    "plain_tactic_lines",
    "proof_lines",
    "split_lean",
    "strip_comments",
]

# A line that starts a command extending Lean's syntax (`notation`, `macro`, ...) ends a proof, as in Lean.
_HEADER_WORDS = (
    frozenset(
        {"import", "set_option", "open", "namespace", "section", "end", "universe", "variable", "attribute", "#check"}
    )
    | EXTENSION_WORDS
)
_DECL_WORDS = frozenset({"theorem", "lemma", "example", "def", "abbrev", "instance", "structure", "inductive", "class"})
_DECL_MODIFIERS = frozenset({"private", "protected", "noncomputable", "nonrec", "partial", "unsafe", "scoped", "local"})
_DECL_START_WORDS = _DECL_WORDS | _DECL_MODIFIERS

_COMMENT_OR_STRING = re.compile(r'--|/-|"')
_BLOCK_COMMENT_TOKEN = re.compile(r"/-|-/")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
# Does a line start a header command or a declaration? If no line does, the snippet is plain tactics. Matched
# against "\n" + code: the leading newline lets the regex engine jump from line start to line start. The indent is
# taken whole, as an atomic group would (`(?=(...))\1`), so the words are not tried again after each shorter indent.
_STRUCTURE = re.compile(
    r"\n(?=([ \t]*))\1(?:@\[|#check\b|(?:"
    + "|".join(sorted(_HEADER_WORDS - {"#check"} | _DECL_WORDS | _DECL_MODIFIERS))
    + r")(?![\w'.]))"
)
# A line that starts with a header or declaration word (or an attribute), indented by any whitespace (as `str.strip`
# sees it): a line the loop in `split_lean` would not take as a proof line. Matched against "\n" + code, like
# `_STRUCTURE` (which differs in taking only spaces and tabs as indentation).
# What makes a text not plain tactics for `plain_tactic_lines`: a comment opener, or a line `_STRUCTURE` matches.
_NOT_PLAIN = re.compile("--|/-|" + _STRUCTURE.pattern)
_KEYWORD_LINE = re.compile(
    r"\n(?=([^\S\n]*))\1(?:@\[|(?:" + "|".join(map(re.escape, sorted(_HEADER_WORDS | _DECL_START_WORDS))) + r")(?!\S))"
)
_ATTRIBUTE = re.compile(r"@\[[^\]\n]*\]\s*")
# A space next to a symbol carries no meaning in Lean (`x^2` is `x ^ 2`); one between two name characters does.
# Written to start with the space, so the regex engine jumps from space to space.
_SPACE_BETWEEN_NAMES = re.compile(r" (?=[\w'.?!])(?<=[\w'.?!] )")
_LEMMA_KEYWORD = re.compile(r"(?<![\w'.?!])lemma(?= )")


class Comment(NamedTuple):
    """One Lean comment: its text (markers included) and its offset in the source."""

    text: str
    start: int

    @property
    def is_doc(self) -> bool:
        """Whether this is a doc comment (`/-- ... -/` or `/-! ... -/`), which documents a declaration."""
        return self.text.startswith(("/--", "/-!"))


class LeanParts(NamedTuple):
    """A Lean snippet taken apart: comments removed, lines sorted into header, declaration signatures and proof body.

    A named tuple because every tactic block of every completion gets one, and it is several times faster to create
    than a frozen dataclass.

    Attributes:
        source: The snippet as given.
        code: The snippet with every comment blanked out (same length and line structure as `source`).
        comments: Every comment, in order.
        header: Stripped header lines (`import`, `set_option`, `open`, ...).
        statements: Each declaration signature, from its first keyword up to and including `:=`, on one line.
        body: Stripped, non-blank proof lines (everything after a declaration's `:=` and a leading `by`).
        body_regions: Offset ranges of the proofs, to tell body comments from statement and doc comments.
        declarations_start: Offset of the first declaration's first line (`len(code)` when there is none).
        code_lines: Non-blank lines once comments are removed.
    """

    source: str
    code: str
    comments: tuple[Comment, ...]
    header: tuple[str, ...]
    statements: tuple[str, ...]
    body: tuple[str, ...]
    body_regions: tuple[tuple[int, int], ...]
    declarations_start: int
    code_lines: int

    @property
    def body_comments(self) -> tuple[Comment, ...]:
        """Comments inside a proof body (doc comments excluded: they document the next declaration)."""
        if not self.comments:
            return ()
        return tuple(
            c for c in self.comments if not c.is_doc and any(start <= c.start < end for start, end in self.body_regions)
        )


def strip_comments(source: str) -> tuple[str, tuple[Comment, ...]]:
    """Blank out Lean comments, keeping offsets and newlines, so positions in the result match the source.

    Args:
        source: Lean code.

    Returns:
        The code with each comment replaced by spaces (newlines kept), and the comments in order.
    """
    if "--" not in source and "/-" not in source:
        return source, ()
    pieces: list[str] = []
    comments: list[Comment] = []
    pos = search_from = 0
    strings_ok = True
    while True:
        match = _COMMENT_OR_STRING.search(source, search_from)
        if match is None:
            break
        start, token = match.start(), match.group()
        if token == '"':
            string = _STRING.match(source, start) if strings_ok else None
            if string is None:
                # An unterminated string: ignore quotes from here on, which also keeps hostile input linear.
                strings_ok = False
                search_from = start + 1
            else:
                search_from = string.end()
            continue
        end = line_end(source, start) if token == "--" else _block_comment_end(source, start)
        text = source[start:end]
        comments.append(Comment(text, start))
        pieces.append(source[pos:start])
        pieces.append(_blank(text))
        pos = search_from = end
    pieces.append(source[pos:])
    return "".join(pieces), tuple(comments)


def line_end(text: str, at: int) -> int:
    """Offset of the newline that ends the line holding offset `at` of `text` (its length after the last line)."""
    end = text.find("\n", at)
    return len(text) if end == -1 else end


def _block_comment_end(source: str, start: int) -> int:
    """End of the nestable block comment opening at `start` (the end of the text when it is never closed)."""
    depth, pos = 1, start + 2
    while depth:
        match = _BLOCK_COMMENT_TOKEN.search(source, pos)
        if match is None:
            return len(source)
        depth += 1 if match.group() == "/-" else -1
        pos = match.end()
    return pos


def _blank(text: str) -> str:
    """Spaces of the same length as `text`, with its newlines kept."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(line) for line in text.split("\n"))


def split_lean(source: str) -> LeanParts:
    """Take a Lean snippet apart into comments, header lines, declaration signatures and proof-body lines.

    A declaration starts at a line whose first word (after attributes and modifiers) is `theorem`, `lemma`,
    `example`, `def`, ...; its signature runs to the first `:=`, and what follows (minus a leading `by`) is proof.
    Lines outside any declaration that are not header commands count as proof too (a tactic block usually holds
    only tactics).

    Args:
        source: Lean code: a whole file, a statement, or a fragment of tactics.

    Returns:
        The parts; see `LeanParts`.
    """
    code, comments = strip_comments(source)
    if _STRUCTURE.search("\n" + code) is None:
        # Most tactic blocks are plain tactics: every non-blank line is proof (and this path is much faster).
        body = proof_lines(code)
        return LeanParts(source, code, comments, (), (), body, ((0, len(code)),) if body else (), len(code), len(body))
    header: list[str] = []
    statements: list[str] = []
    body_lines: list[str] = []
    regions: list[tuple[int, int]] = []
    signature: list[str] | None = None
    body_start: int | None = None  # offset where the current stretch of proof began
    declarations_start: int | None = None
    code_lines = offset = 0
    keyword_lines = "\n" + code  # for `_KEYWORD_LINE`: a match at index i is the line that starts at code[i]
    for raw in code.split("\n"):
        line_start, offset = offset, offset + len(raw) + 1
        line = raw.strip()
        if not line:
            continue
        code_lines += 1
        if signature is None:
            first = line.split(None, 1)[0]
            declaration = (first in _DECL_START_WORDS or first.startswith("@[")) and _starts_declaration(line)
            if (
                not declaration
                and first not in _HEADER_WORDS
                and not ((first in _DECL_MODIFIERS or first.startswith("@[")) and extension_line(line))
            ):
                if body_start is None:
                    body_start = line_start
                body_lines.append(line)
                continue
            if body_start is not None:
                regions.append((body_start, line_start))
                body_start = None
            if not declaration:
                header.append(line)
                continue
            signature = []
            if declarations_start is None:
                declarations_start = line_start
        assign = line.find(":=")
        if assign == -1:
            signature.append(line)
            continue
        signature.append(line[: assign + 2])
        statements.append(" ".join(signature))
        signature = None
        body_start = line_start + raw.find(":=") + 2
        rest = _drop_leading_by(line[assign + 2 :].strip())
        if rest:
            body_lines.append(rest)
        if _KEYWORD_LINE.search(keyword_lines, offset) is None:
            # The usual file ends with a proof that runs to its end: take the remaining lines in bulk.
            proof = proof_lines(code[offset:])
            body_lines += proof
            code_lines += len(proof)
            break
    if signature:
        statements.append(" ".join(signature))
    if body_start is not None:
        regions.append((body_start, len(code)))
    return LeanParts(
        source=source,
        code=code,
        comments=comments,
        header=tuple(header),
        statements=tuple(statements),
        body=tuple(body_lines),
        body_regions=tuple(regions),
        declarations_start=len(code) if declarations_start is None else declarations_start,
        code_lines=code_lines,
    )


def plain_tactic_lines(source: str) -> tuple[str, ...] | None:
    """`split_lean(source).body` when `source` is plain tactics (no comment, header or declaration line), else None.

    Most tactic blocks are plain, and this skips building the other parts, which no one reads for them.
    """
    if "--" in source or "/-" in source or _STRUCTURE.search("\n" + source) is not None:
        return None
    return proof_lines(source)


def plain_tactic_blocks(texts: list[str]) -> list[tuple[str, ...] | None]:
    """`[plain_tactic_lines(text) for text in texts]`, with one regex search over all the texts rather than three a text.

    The texts are searched joined by newlines, each after one as in `plain_tactic_lines`: no comment opener or
    structure line spans a newline, so each match lies in the text whose line it is, and a text without one is plain.
    """
    joined = "\n" + "\n".join(texts)
    search = _NOT_PLAIN.search
    found = search(joined)
    result: list[tuple[str, ...] | None] = []
    start = 0  # offset in `joined` of the newline before the text
    for text in texts:
        end = start + len(text) + 1  # the newline before the next text
        if found is not None and found.start() < end:
            result.append(None)
            found = search(joined, end)
        else:
            result.append(proof_lines(text))
        start = end
    return result


def proof_lines(code: str) -> tuple[str, ...]:
    """The stripped non-blank lines of `code`."""
    if "\n" not in code:  # a one-line block, the most common kind
        line = code.strip()
        return (line,) if line else ()
    return tuple(filter(None, map(str.strip, code.split("\n"))))


def extension_line(line: str) -> bool:
    """Whether the stripped `line` starts a command that extends Lean's syntax.

    As written plain (`notation`, `macro`) or behind modifiers, an attribute or options (`local notation`,
    `@[inherit_doc] infixl`, `set_option hygiene false in macro`).
    """
    while line.startswith(("set_option ", "open ")):
        at = line.find(" in ")
        if at == -1:
            return False
        line = line[at + 4 :].lstrip()
    return _keyword(line) in EXTENSION_WORDS


def _starts_declaration(line: str) -> bool:
    """Whether `line` begins a declaration (`@[simp] private theorem foo ...`)."""
    return _keyword(line) in _DECL_WORDS


def _keyword(line: str) -> str:
    """The first word of `line` after an attribute and up to four modifiers ("" after more).

    `@[simp] private theorem foo` gives `theorem`.
    """
    if line.startswith("@["):
        line = _ATTRIBUTE.sub("", line, count=1)
    for word in line.split(None, 4):
        if word not in _DECL_MODIFIERS:
            return word
    return ""


def _drop_leading_by(text: str) -> str:
    if text == "by":
        return ""
    if text.startswith("by ") or text.startswith("by\t"):
        return text[3:].lstrip()
    return text


def normalise_lean(text: str) -> str:
    """Canonical spelling of comment-free Lean text: whitespace runs become one space, dropped next to symbols.

    `x^2 ≤ 4` and `x ^ 2  ≤  4` normalise alike, while `x y` and `xy` stay different. `lemma` is spelled `theorem`
    (Mathlib treats them alike).
    """
    # Runs of whitespace become one space; the spaces between names are kept (as newlines, which no longer occur
    # in the text) while every other space is deleted. Substituting only the few meaningful spaces, rather than
    # every meaningless one, keeps the regex work small.
    text = _SPACE_BETWEEN_NAMES.sub("\n", " ".join(text.split())).replace(" ", "").replace("\n", " ")
    return _LEMMA_KEYWORD.sub("theorem", text) if "lemma" in text else text


def non_space_length(text: str) -> int:
    """Number of characters in `text` that are not whitespace."""
    return len(text) - text.count(" ") - text.count("\n") - text.count("\t")
