"""A small Lean 4 lexer: strips comments and string literals, and splits code into comparable tokens.

It follows Lean's own rules for identifiers, nested block comments, string, raw-string, char and interpolated-string
literals closely enough that static checks cannot be fooled by hiding code in a comment or a comment in a string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, NamedTuple

TokenKind = Literal["ident", "number", "string", "char", "symbol"]


class Token(NamedTuple):
    """One Lean token: its kind, its text (escaped identifiers «x» unescaped) and its offset in the source."""

    kind: TokenKind
    text: str
    start: int
    end: int


_LETTER_LIKE = (
    "\u03b1-\u03ba\u03bc-\u03c9\u0391-\u039f\u03a1-\u03a2\u03a4-\u03a9\u03ca-\u03fb\u1f00-\u1ffe\u2100-\u214f"
    "\U0001d49c-\U0001d59f"
)
_SUBSCRIPTS = "\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a"
ID_REST_CLASS = f"A-Za-z0-9_'!?{_LETTER_LIKE}{_SUBSCRIPTS}"
"""Lean's identifier characters as the body of a regex character class."""
# «escaped» names are bounded so that a line of unclosed «s stays linear to scan.
_ATOM = f"(?:«[^»\\n]{{0,256}}»|[A-Za-z_{_LETTER_LIKE}][{ID_REST_CLASS}]*)"
# Where comments and literals start; plain code in between is tokenised by `_CODE` in one `finditer` call.
_SPECIAL = re.compile(
    rf"""--|/-|(?<![{ID_REST_CLASS}])r\#*"|"
    |(?<![{ID_REST_CLASS}])'(?:\\(?:u\{{[0-9A-Fa-f]+\}}|x[0-9A-Fa-f]{{2}}|.)|[^\\\n])'""",
    re.VERBOSE,
)
_CODE = re.compile(rf"(?P<ident>{_ATOM}(?:\.{_ATOM})*)|(?P<number>[0-9](?:[0-9A-Za-z_]|\.[0-9])*)|(?P<symbol>\S)")
_BLOCK_DELIMITERS = re.compile(r"/-|-/")
_STRING_BODY = re.compile(r'(?:[^"\\]|\\.)*', re.DOTALL)
_NOT_NEWLINE = re.compile(r"[^\n]")


class _Lexer:
    """Builds the tokens and the list of edits that turn the source into its stripped copy."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.n = len(src)
        self.tokens: list[Token] = []
        self.unterminated: list[tuple[str, int]] = []
        self.edits: list[tuple[int, int, str | None]] = []  # (start, end, replacement; None = blank it)

    def stripped(self) -> str:
        out, at = [], 0
        for start, end, replacement in sorted(self.edits, key=lambda edit: edit[0]):
            out.append(self.src[at:start])
            out.append(_NOT_NEWLINE.sub(" ", self.src[start:end]) if replacement is None else replacement)
            at = end
        out.append(self.src[at:])
        return "".join(out)

    def code(self, i: int, *, stop_at_brace: bool) -> int:
        """Lex code from `i`; inside an interpolation, return the index just after the closing `}`."""
        src, n = self.src, self.n
        while i < n:
            special = _SPECIAL.search(src, i)
            stop = special.start() if special else n
            if stop_at_brace:
                closing = self.closing_brace(i, stop)
                if closing is not None:
                    self.plain(i, closing)
                    return closing + 1
            self.plain(i, stop)
            if special is None:
                return n
            i = self.literal(special)
        return i

    def closing_brace(self, i: int, stop: int) -> int | None:
        depth = 0
        for k in range(i, stop):
            c = self.src[k]
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    return k
                depth -= 1
        return None

    def plain(self, start: int, stop: int) -> None:
        """Tokenise comment- and literal-free code."""
        matches = _CODE.finditer(self.src, start, stop)
        tokens = [Token(m.lastgroup, m.group(), *m.span()) for m in matches]  # type: ignore[arg-type]
        if "«" in self.src[start:stop]:
            tokens = [self.unescape(t) if t.kind == "ident" and "«" in t.text else t for t in tokens]
        self.tokens.extend(tokens)

    def unescape(self, tok: Token) -> Token:
        """`«sorry»` is the identifier `sorry`: unescape it, in the stripped copy too."""
        text = re.sub(r"«([^»]*)»", r"\1", tok.text)
        self.edits.append((tok.start, tok.end, text.ljust(tok.end - tok.start)))
        return Token("ident", text, tok.start, tok.end)

    def literal(self, special: re.Match[str]) -> int:
        """Handle the comment or literal `special` starts; return the index after it."""
        i, text = special.start(), special.group()
        if text == "--":
            end = self.src.find("\n", i)
            end = self.n if end < 0 else end
            self.edits.append((i, end, None))
            return end
        if text == "/-":
            return self.block_comment(i)
        if text == '"':
            return self.string(i, interpolated=i > 0 and self.src[i - 1] == "!")
        if text.startswith("'"):
            self.tokens.append(Token("char", text, i, special.end()))
            self.edits.append((i + 1, special.end() - 1, None))
            return special.end()
        return self.raw_string(i, special.end())

    def block_comment(self, i: int) -> int:
        depth = 0
        for m in _BLOCK_DELIMITERS.finditer(self.src, i):
            depth += 1 if m.group() == "/-" else -1
            if depth == 0:
                self.edits.append((i, m.end(), None))
                return m.end()
        self.unterminated.append(("comment", i))
        self.edits.append((i, self.n, None))
        return self.n

    def string(self, i: int, *, interpolated: bool) -> int:
        src, n = self.src, self.n
        if not interpolated:
            body_end = _STRING_BODY.match(src, i + 1).end()  # type: ignore[union-attr]  # can match empty
            closed = body_end < n and src[body_end] == '"'
            return self.finish_string(i, body_end + 1 if closed else n, i + 1, closed=closed)
        j = segment = i + 1
        while j < n and src[j] != '"':
            if src[j] == "\\":
                j += 2
            elif src[j] == "{":
                # Interpolated pieces are code: keep them visible to the rules.
                self.edits.append((segment, j, None))
                j = segment = self.code(j + 1, stop_at_brace=True)
            else:
                j += 1
        closed = j < n
        return self.finish_string(i, j + 1 if closed else n, segment, closed=closed)

    def finish_string(self, i: int, end: int, blank_from: int, *, closed: bool) -> int:
        self.edits.append((blank_from, end - 1 if closed else end, None))
        if not closed:
            self.unterminated.append(("string", i))
        self.tokens.append(Token("string", self.src[i:end], i, end))
        return end

    def raw_string(self, i: int, body: int) -> int:
        closing = '"' + "#" * (body - i - 2)
        k = self.src.find(closing, body)
        if k < 0:
            self.unterminated.append(("string", i))
            end = self.n
            self.edits.append((body, end, None))
        else:
            end = k + len(closing)
            self.edits.append((body, k, None))
        self.tokens.append(Token("string", self.src[i:end], i, end))
        return end


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
    lexer.code(0, stop_at_brace=False)
    return Lexed(source, lexer.stripped(), tuple(lexer.tokens), tuple(lexer.unterminated))


def strip_comments_and_strings(source: str) -> str:
    """Return `source` with comments and string/char literal contents replaced by spaces (newlines kept)."""
    return lex(source).stripped


def line_of(text: str, offset: int) -> int:
    """1-based line number of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1
