"""A small Lean 4 lexer: strips comments and string literals, and splits code into comparable tokens.

It follows Lean's own rules for identifiers, nested block comments, string, raw-string, char and interpolated-string
literals closely enough that static checks cannot be fooled by hiding code in a comment or a comment in a string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TokenKind = Literal["ident", "number", "string", "char", "symbol"]


@dataclass(frozen=True, slots=True)
class Token:
    """One Lean token: its kind, its text (escaped identifiers «x» unescaped) and its offset in the source."""

    kind: TokenKind
    text: str
    start: int
    end: int


def _is_letter_like(c: str) -> bool:
    # Lean's `isLetterLike`: Greek (but λ, Π, Σ), Coptic, Greek extended, letter-like symbols, math alphanumerics.
    v = ord(c)
    return (
        (0x3B1 <= v <= 0x3C9 and v != 0x3BB)
        or (0x391 <= v <= 0x3A9 and v not in (0x3A0, 0x3A3))
        or 0x3CA <= v <= 0x3FB
        or 0x1F00 <= v <= 0x1FFE
        or 0x2100 <= v <= 0x214F
        or 0x1D49C <= v <= 0x1D59F
    )


def _is_subscript(c: str) -> bool:
    v = ord(c)
    return 0x2080 <= v <= 0x2089 or 0x2090 <= v <= 0x209C or 0x1D62 <= v <= 0x1D6A


def is_id_first(c: str) -> bool:
    """Whether `c` can start a Lean identifier (ASCII letters, `_`, letter-like Unicode)."""
    return (c.isascii() and c.isalpha()) or c == "_" or _is_letter_like(c)


def is_id_rest(c: str) -> bool:
    """Whether `c` can continue a Lean identifier (adds digits, `'`, `!`, `?` and subscripts)."""
    return (c.isascii() and c.isalnum()) or c in "_'!?" or _is_letter_like(c) or _is_subscript(c)


class _Lexer:
    """Single pass over the source producing tokens and a same-length copy with comments and strings blanked."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.n = len(src)
        self.out = list(src)
        self.tokens: list[Token] = []
        self.unterminated: list[tuple[str, int]] = []

    def blank(self, start: int, end: int) -> None:
        for k in range(start, min(end, self.n)):
            if self.out[k] != "\n":
                self.out[k] = " "

    def run(self) -> None:
        self.code(0, stop_at_brace=False)

    def code(self, i: int, *, stop_at_brace: bool) -> int:
        """Lex code from `i`; inside an interpolation, return the index just after the closing `}`."""
        src, n = self.src, self.n
        depth = 0
        while i < n:
            c = src[i]
            if c == "-" and src.startswith("--", i):
                j = src.find("\n", i)
                j = n if j < 0 else j
                self.blank(i, j)
                i = j
            elif c == "/" and src.startswith("/-", i):
                i = self.block_comment(i)
            elif c == '"':
                interpolated = i > 0 and src[i - 1] == "!"
                i = self.string(i, interpolated=interpolated)
            elif c == "r" and self.raw_string_start(i):
                i = self.raw_string(i)
            elif c == "'" and self.char_literal_end(i) is not None:
                end = self.char_literal_end(i)
                assert end is not None
                self.tokens.append(Token("char", src[i:end], i, end))
                self.blank(i + 1, end - 1)
                i = end
            elif c == "«" or is_id_first(c):
                i = self.ident(i)
            elif c.isdigit():
                j = i + 1
                while j < n and (
                    src[j].isalnum() or src[j] == "_" or (src[j] == "." and j + 1 < n and src[j + 1].isdigit())
                ):
                    j += 1
                self.tokens.append(Token("number", src[i:j], i, j))
                i = j
            elif c.isspace():
                i += 1
            else:
                if stop_at_brace:
                    if c == "{":
                        depth += 1
                    elif c == "}":
                        if depth == 0:
                            return i + 1
                        depth -= 1
                self.tokens.append(Token("symbol", c, i, i + 1))
                i += 1
        return i

    def ident(self, i: int) -> int:
        """Lex a (possibly dotted, possibly «escaped») identifier starting at `i`."""
        src, n = self.src, self.n
        start, parts = i, []
        while True:
            if i < n and src[i] == "«":
                j = src.find("»", i + 1)
                j = n if j < 0 else j
                parts.append(src[i + 1 : j])
                i = min(j + 1, n)
            elif i < n and is_id_first(src[i]):
                j = i + 1
                while j < n and is_id_rest(src[j]):
                    j += 1
                parts.append(src[i:j])
                i = j
            else:
                break
            if i + 1 < n and src[i] == "." and (is_id_first(src[i + 1]) or src[i + 1] == "«"):
                i += 1
                continue
            break
        text = ".".join(parts)
        if "«" in src[start:i]:
            # Rewrite the escaped name in the stripped copy too, so `«sorry»` is seen as `sorry` by word rules.
            padded = text.ljust(i - start)
            self.out[start:i] = list(padded)
        self.tokens.append(Token("ident", text, start, i))
        return i

    def block_comment(self, i: int) -> int:
        src, n = self.src, self.n
        depth, j = 1, i + 2
        while j < n and depth:
            if src.startswith("/-", j):
                depth, j = depth + 1, j + 2
            elif src.startswith("-/", j):
                depth, j = depth - 1, j + 2
            else:
                j += 1
        if depth:
            self.unterminated.append(("comment", i))
        self.blank(i, j)
        return j

    def string(self, i: int, *, interpolated: bool) -> int:
        src, n = self.src, self.n
        j = segment = i + 1
        while j < n and src[j] != '"':
            if src[j] == "\\":
                j += 2
            elif interpolated and src[j] == "{":
                # Interpolated pieces are code: keep them visible to the rules.
                self.blank(segment, j)
                j = segment = self.code(j + 1, stop_at_brace=True)
            else:
                j += 1
        if j >= n:
            self.unterminated.append(("string", i))
        end = min(j + 1, n)
        self.blank(segment, end - 1 if j < n else end)
        self.tokens.append(Token("string", src[i:end], i, end))
        return end

    def raw_string_start(self, i: int) -> bool:
        src = self.src
        if i > 0 and is_id_rest(src[i - 1]):
            return False
        j = i + 1
        while j < self.n and src[j] == "#":
            j += 1
        return j < self.n and src[j] == '"'

    def raw_string(self, i: int) -> int:
        src = self.src
        j = i + 1
        while src[j] == "#":
            j += 1
        closing = '"' + "#" * (j - i - 1)
        k = src.find(closing, j + 1)
        if k < 0:
            self.unterminated.append(("string", i))
            end = self.n
        else:
            end = k + len(closing)
        self.tokens.append(Token("string", src[i:end], i, end))
        self.blank(j + 1, end - len(closing))
        return end

    def char_literal_end(self, i: int) -> int | None:
        """End of a char literal at `i`, or None when this `'` belongs to an identifier or is not a literal."""
        src, n = self.src, self.n
        if i > 0 and is_id_rest(src[i - 1]):
            return None
        if i + 2 < n and src[i + 1] == "\\":
            k = src.find("'", i + 3)
            return k + 1 if 0 < k <= i + 12 else None
        if i + 2 < n and src[i + 2] == "'" and src[i + 1] != "\n":
            return i + 3
        return None


@dataclass(frozen=True)
class Lexed:
    """The result of lexing: `stripped` has the source's length and line structure, with comments and literals blank."""

    source: str
    stripped: str
    tokens: tuple[Token, ...]
    unterminated: tuple[tuple[str, int], ...]


def lex(source: str) -> Lexed:
    """Lex Lean source into tokens and a stripped copy in which comments and string contents are spaces.

    Args:
        source: Lean 4 code.

    Returns:
        The tokens (comments and whitespace dropped) and the stripped text, offsets unchanged.
    """
    lexer = _Lexer(source)
    lexer.run()
    return Lexed(source, "".join(lexer.out), tuple(lexer.tokens), tuple(lexer.unterminated))


def strip_comments_and_strings(source: str) -> str:
    """Return `source` with comments and string/char literal contents replaced by spaces (newlines kept)."""
    return lex(source).stripped


def line_of(text: str, offset: int) -> int:
    """1-based line number of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1
