r"""Lean 4's tokenizer, for static checks that must see exactly the code Lean sees.

Followed: Lean v4.15.0, `src/Lean/Parser/Basic.lean` (`whitespace`, `finishCommentBlock`, `strLitFnAux`,
`quotedCharCoreFn`, `stringGapFn`, `charLitFnAux`, `isRawStrLitStart`/`rawStrLitFnAux`, `identFnAux`, `numberFnAux`,
`tokenFnAux`), `src/Lean/Parser/StrInterpolation.lean` (`interpolatedStrFn`), `src/Lean/Parser/Module.lean`
(`parseCommand`: how Lean reads on after an error) and `src/Init/Meta.lean` (`isIdFirst`, `isIdRest`,
`isLetterLike`, `isSubScriptAlnum`). Read from leanprover/lean4 at master and checked against v4.15.0 where they
changed since: identifier characters grew after v4.15 (`ⱼ` in lean4#6679, Latin-1 and Latin Extended-A letters in
lean4#9035, Unicode XID planned), numerals gained `_` separators, isolated `\r` became an error.

What Lean decides and this lexer follows exactly: whitespace is only space, tab, `\r` and `\n`; `--` and `/-` open
comments only where whitespace is read (between tokens: always after a name, a literal or a closing bracket); block
comments nest; every block comment's body starts three characters in (`/--` and `/-!` are doc comment tokens, and
`whitespace` steps over the third character of a plain `/-`), so `/-/-/` is a whole comment and `/--/` stays open; string escapes and string gaps; a `'` at the
start of a token opens a character literal unless a second `'` follows; `r#"..."#` raw strings start only at the start
of a token (`Foo.r#"` continues the identifier); `«...»` escapes run to the first `»`, newlines included, and may
follow a `.` inside a name.

Where Lean's reading depends on what this lexer cannot know, it fails closed with a `LexProblem` of kind `ambiguous`:

- Lean splits a run of symbol characters with its token table, which the imports extend. A comment opener, quote or
  `«` glued to a preceding symbol (or a comment opener glued to a word) may be inside a token (`<-` before `-`, `//`
  before `-`) or start one.
- After an error Lean parses on from the error's position, which may be inside a literal: an invalid escape, a `'`
  that opens no character literal, or an unterminated literal expose the rest of it to Lean as code.
- A string holding `{` is an interpolated string after `s!`, `m!`, `f!`, `throwError` and any syntax declared with
  `interpolatedStr`; its braces then hold code, and an error inside them resumes in the literal text. A string after
  a symbol that no such syntax ends with (`:=`, `(`, `,`) is a plain string: `"{x}"` there is four characters.
- A `«...»` name escape across lines (Lean allows it; no proof needs it).
- Letters that are identifier characters in some Lean versions and not in v4.15.

`Mathlib`'s `''` token (`Set.image`) is taken as a token; without Mathlib it is an error after which Lean reads on two
characters later, so those two characters must be plain. Every scan is linear in the input.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal, NamedTuple

__all__ = [
    "ID_FIRST_CLASS",
    "ID_REST_CLASS",
    "QUOTE_TOKEN_HEADS",
    "Comment",
    "LexProblem",
    "Lexed",
    "ProblemKind",
    "Token",
    "TokenKind",
    "lex",
    "line_of",
    "strip_comments_and_strings",
]

TokenKind = Literal["ident", "number", "string", "char", "symbol"]
ProblemKind = Literal["unterminated", "ambiguous"]

# `isLetterLike` of Lean v4.15 (Greek without λ, Π and Σ; Coptic; polytonic Greek; letter-like symbols; mathematical
# alphanumerics) and `isSubScriptAlnum`.
_LETTER_LIKE = (
    "\u03b1-\u03ba\u03bc-\u03c9\u0391-\u039f\u03a1-\u03a2\u03a4-\u03a9\u03ca-\u03fb\u1f00-\u1ffe\u2100-\u214f"
    "\U0001d49c-\U0001d59f"
)
_SUBSCRIPTS = "\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a"
ID_FIRST_CLASS = f"A-Za-z_{_LETTER_LIKE}"
"""Lean's `isIdFirst` as the body of a regex character class."""
ID_REST_CLASS = f"A-Za-z0-9_'!?{_LETTER_LIKE}{_SUBSCRIPTS}"
"""Lean's `isIdRest` as the body of a regex character class."""
# Identifier characters of later Lean versions only: Latin-1 and Latin Extended-A letters, `ⱼ`.
_LATER_ID_CHARS = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017f\u2c7c]")
# Categories of the letters Unicode XID admits, which Lean plans to adopt (modifier letters such as Mathlib's `ᶜ`
# excluded: they are notation tokens there).
_FUTURE_ID_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lo", "Mn", "Mc", "Nd", "Nl"})

_PART = f"(?:«[^»]*»|[{ID_FIRST_CLASS}][{ID_REST_CLASS}]*)"
_IDENT = re.compile(rf"{_PART}(?:\.{_PART})*")
_ID_START = re.compile(f"[{ID_FIRST_CLASS}«]")
_NUMBER = re.compile(r"0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WHITESPACE = re.compile(r"[ \t\r\n]+")
_LONE_CR = re.compile(r"\r(?!\n)")
_BLOCK_DELIMITERS = re.compile(r"/-|-/")
_RAW_START = re.compile(r'r(#*)"')
# Plain string characters up to the next one Lean looks at.
_STRING_PLAIN = re.compile(r'[^"\\{]*')
_HEX = re.compile(r"[0-9a-fA-F]")
_SIMPLE_ESCAPES = frozenset("\\\"'rnt")
_NOT_NEWLINE = re.compile(r"[^\n]")
# What comes before the quote of Mathlib's tokens that end in one (`''` is recognised from its first quote).
QUOTE_TOKEN_HEADS = ("⁻¹", "∑", "∏")
"""Symbols that Mathlib continues with a `'` into one token (`f ⁻¹' s`, `∑' n, f n`)."""
# Characters after which Lean's next token starts for sure (`clean`), or may not (`symbol`, `word`).
Before = Literal["clean", "word", "symbol", "closer", "literal"]
# Closing brackets: no token of Lean or Mathlib starts with one and goes on, so what follows starts a new token.
_CLOSERS = frozenset(")]}⟩")
# Symbols after which a `«` starts a name for sure: no token of Lean or Mathlib continues them with `«`.
_BEFORE_ESCAPE = frozenset("([{⟨,")


class Token(NamedTuple):
    """One Lean token.

    Attributes:
        kind: `ident`, `number`, `string`, `char` or `symbol` (one character of a symbol run).
        text: The source text; for identifiers the name with `«»` escapes removed (`«my thm».x` is `my thm.x`).
        start: Offset of the token in the source.
        end: Offset just after it.
        escaped: An identifier written with `«»` somewhere: it is never a keyword (`«theorem»` is a name).
    """

    kind: TokenKind
    text: str
    start: int
    end: int
    escaped: bool = False

    def is_keyword(self, word: str) -> bool:
        """Whether this token is the keyword `word` as Lean reads it (an unescaped identifier spelled so)."""
        return self.kind == "ident" and not self.escaped and self.text == word


class LexProblem(NamedTuple):
    """Something Lean may read differently from this lexer (`ambiguous`), or a literal that never ends."""

    kind: ProblemKind
    offset: int
    message: str


class Comment(NamedTuple):
    """One comment: where it is, and whether it is a doc comment (`/--` or `/-!`)."""

    start: int
    end: int
    doc: bool


@dataclass(frozen=True)
class Lexed:
    """The result of lexing.

    Attributes:
        source: The text lexed.
        stripped: `source` with comments and literal contents blanked (newlines kept) and the `«»` of names turned
            into spaces, offsets unchanged.
        tokens: The tokens, comments and whitespace dropped.
        comments: The comments, in order.
        problems: Where Lean may read the source differently, or a comment, string or name never ends.
    """

    source: str
    stripped: str
    tokens: tuple[Token, ...]
    comments: tuple[Comment, ...]
    problems: tuple[LexProblem, ...]


class _Lexer:
    """One pass over the source: tokens, comments, problems, and the edits that build the stripped copy."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.n = len(src)
        self.tokens: list[Token] = []
        self.comments: list[Comment] = []
        self.problems: list[LexProblem] = []
        self.edits: list[tuple[int, int, str | None]] = []  # (start, end, replacement; None: blank it)
        self.before: Before = "clean"
        self.closing_escape = src.rfind("»")

    def run(self) -> None:
        i = 0
        while i < self.n:
            i = self.step(i)

    def step(self, i: int) -> int:
        """Read what starts at `i`; return where the next thing starts."""
        src = self.src
        c = src[i]
        if c in " \t\r\n":
            self.before = "clean"
            end = _WHITESPACE.match(src, i).end()  # type: ignore[union-attr]  # matches at least `c`
            if (cr := _LONE_CR.search(src, i, end)) is not None:
                self.ambiguous(
                    cr.start(), "a carriage return without a newline: whitespace in Lean v4.15, an error later"
                )
            return end
        if c == "-" and src.startswith("--", i):
            return self.line_comment(i)
        if c == "/" and src.startswith("/-", i):
            return self.block_comment(i)
        if c == '"':
            return self.string(i)
        if c == "'":
            return self.quote(i)
        if c.isdigit() and c.isascii():
            return self.number(i)
        if c == "r" and (raw := _RAW_START.match(src, i)):
            return self.raw_string(i, raw)
        if _ID_START.match(c):
            return self.ident(i)
        return self.symbol(i)

    # --- problems and output ----------------------------------------------------------------------------------------

    def ambiguous(self, offset: int, message: str) -> None:
        self.problems.append(LexProblem("ambiguous", offset, message))

    def unterminated(self, offset: int, what: str) -> None:
        self.problems.append(LexProblem("unterminated", offset, f"unterminated {what}: it would hide the rest"))

    def glued(self, i: int, what: str) -> None:
        """A literal or comment starting right after a symbol: Lean's token table decides what it is.

        After a name, a literal, whitespace or a closing bracket Lean's `whitespace` runs before anything else (every
        token parser ends with it), so a comment starts there for sure: no token of Lean or Mathlib continues a name
        or a closing bracket with `-`, `/`, a quote or `«`.
        """
        if self.before == "symbol":
            self.ambiguous(i, f"{what} right after `{self.src[i - 1]}`: Lean may read them as one token")

    def emit(self, kind: TokenKind, start: int, end: int, text: str | None = None, *, escaped: bool = False) -> None:
        self.tokens.append(Token(kind, self.src[start:end] if text is None else text, start, end, escaped))

    def blank(self, start: int, end: int) -> None:
        if end > start:
            self.edits.append((start, end, None))

    # --- comments ---------------------------------------------------------------------------------------------------

    def line_comment(self, i: int) -> int:
        self.glued(i, "a comment")
        end = self.src.find("\n", i)
        end = self.n if end < 0 else end
        self.comment(i, end, doc=False)
        return end

    def block_comment(self, i: int) -> int:
        self.glued(i, "a comment")
        doc = self.src[i + 2 : i + 3] in ("-", "!")
        # `finishCommentBlock` starts three characters in, for every block comment: a doc comment's `/--` or `/-!` is
        # a token of three characters, and `whitespace` reads the third character of a plain `/-` (to tell it from a
        # doc comment) and steps over it (`s.next input i`). So that character never opens or closes anything:
        # `/-/-/` is a whole comment, `/-/- a -/` closes at its only `-/`, and `/--/` stays open.
        depth = 1
        for m in _BLOCK_DELIMITERS.finditer(self.src, min(i + 3, self.n)):
            depth += 1 if m.group() == "/-" else -1
            if depth == 0:
                self.comment(i, m.end(), doc=doc)
                return m.end()
        self.unterminated(i, "comment")
        self.comment(i, self.n, doc=doc)
        return self.n

    def comment(self, start: int, end: int, *, doc: bool) -> None:
        self.comments.append(Comment(start, end, doc))
        self.blank(start, end)
        self.before = "clean"

    # --- literals ---------------------------------------------------------------------------------------------------

    def string(self, i: int) -> int:
        """A string literal: `strLitFnAux`, escapes checked as `quotedCharCoreFn` does."""
        self.glued(i, "a string")
        src, n = self.src, self.n
        j = i + 1
        while True:
            j = _STRING_PLAIN.match(src, j).end()  # type: ignore[union-attr]  # can match empty
            if j >= n:
                self.unterminated(i, "string")
                return self.finish_literal("string", i, n, closed=False)
            c = src[j]
            if c == '"':
                return self.finish_literal("string", i, j + 1, closed=True)
            if c == "{":
                if self.may_interpolate():
                    self.ambiguous(
                        j, "a string with `{` may be interpolated (`s!`, `m!`, `throwError`, ...): code in braces"
                    )
                j += 1
            else:
                j = self.escape(j, in_string=True)
                if j < 0:
                    return self.finish_literal("string", i, n, closed=False)

    def may_interpolate(self) -> bool:
        """Whether the string starting now may be an `interpolatedStr` (then its braces hold code).

        Lean reads a string as interpolated only where a syntax asks for `interpolatedStr`: after its leading token
        (`s!`, `m!`, `f!`, `println!`, `throwError`, `dbg_trace`: names to this lexer) or after an argument (the
        `ref` of `throwErrorAt ref "..."`, the `]` of `trace[cls] "..."`): a name, a literal or a closing bracket.
        After any other symbol (`:=`, `(`, `,`, `++`, `=>`) a string is a term, and a plain string's `{` is a
        character. New syntax (`syntax ... interpolatedStr(term)`) is refused on its own, but with an unknown
        previous token this fails closed.
        """
        if not self.tokens:
            return True
        last = self.tokens[-1]
        return last.kind != "symbol" or last.text in _CLOSERS or last.text == "!"

    def escape(self, j: int, *, in_string: bool) -> int:
        """Check the escape starting at the backslash `src[j]`; return the offset after it (-1: the source ends)."""
        src = self.src
        if j + 1 >= self.n:
            self.unterminated(j, "string")
            return -1
        c = src[j + 1]
        if c in _SIMPLE_ESCAPES:
            return j + 2
        digits = {"x": 2, "u": 4}.get(c)
        if digits is not None:
            if all(_HEX.match(src, j + 2 + k) for k in range(digits)):
                return j + 2 + digits
        elif in_string and c == "\n":
            return self.string_gap(j + 1)
        self.ambiguous(j, "invalid escape: Lean stops there and reads the rest of the literal as code")
        return j + 2

    def string_gap(self, j: int) -> int:
        """A backslash, a newline and indentation: `stringGapFn`, which allows exactly one newline."""
        k = _WHITESPACE.match(self.src, j).end()  # type: ignore[union-attr]  # `src[j]` is a newline
        if self.src.count("\n", j, k) > 1:
            self.ambiguous(j, "a string gap with more than one newline is an error in Lean")
        return k

    def finish_literal(self, kind: TokenKind, start: int, end: int, *, closed: bool) -> int:
        self.blank(start + 1, end - 1 if closed else end)
        self.emit(kind, start, end)
        self.before = "literal"
        return end

    def quote(self, i: int) -> int:
        """A `'` at the start of a token: a character literal, or the end of one of Mathlib's tokens `''`, `⁻¹'`."""
        src = self.src
        if src.startswith("''", i):
            self.glued(i, "`''`")
            return self.quote_token(i)
        if self.before == "symbol" and src.endswith(QUOTE_TOKEN_HEADS, 0, i):
            return self.quote_token(i)
        self.glued(i, "a character literal")
        if i + 1 >= self.n:
            self.unterminated(i, "character literal")
            return self.finish_literal("char", i, self.n, closed=False)
        end = self.escape(i + 1, in_string=False) if src[i + 1] == "\\" else i + 2
        if end < 0:
            return self.finish_literal("char", i, self.n, closed=False)
        if end >= self.n or src[end] != "'":
            self.ambiguous(i, "`'` opens no character literal here: Lean reads on from inside it")
            return self.symbol(i)
        return self.finish_literal("char", i, end + 1, closed=True)

    def quote_token(self, i: int) -> int:
        """Mathlib's `''` (`Set.image`), `⁻¹'` (`Set.preimage`), `∑'`, `∏'`, taken as the tokens Mathlib makes them.

        Without Mathlib they are errors, and Lean reads on three characters after their last quote (it tries a
        character literal there): what it skips must be plain.
        """
        last = i + 1 if self.src.startswith("''", i) else i
        if not _resumes_cleanly(self.src, last + 1, last + 3):
            self.ambiguous(i, "a `'` token followed by a literal or comment: without Mathlib Lean reads on inside it")
        end = last + 1
        self.emit("symbol", i, end)
        self.before = "symbol"
        return end

    def raw_string(self, i: int, start: re.Match[str]) -> int:
        """`r#"..."#` (`rawStrLitFnAux`): no escapes, closed by `"` and as many `#` as it opened with."""
        self.glued(i, "a raw string")
        closing = '"' + start.group(1)
        k = self.src.find(closing, start.end())
        if k < 0:
            self.unterminated(i, "string")
            self.blank(start.end(), self.n)
            self.emit("string", i, self.n)
            self.before = "literal"
            return self.n
        self.blank(start.end(), k)
        self.emit("string", i, k + len(closing))
        self.before = "literal"
        return k + len(closing)

    def number(self, i: int) -> int:
        end = _NUMBER.match(self.src, i).end()  # type: ignore[union-attr]  # `src[i]` is a digit
        self.emit("number", i, end)
        self.before = "literal"
        return end

    # --- names and symbols ------------------------------------------------------------------------------------------

    def ident(self, i: int) -> int:
        """A name (`identFnAux`): parts joined by `.`, each plain or `«escaped»` (newlines allowed inside)."""
        src = self.src
        if src[i] == "«":
            # After an opening bracket or `,` no token of Lean or Mathlib goes on with `«`: `(«my helper»)`.
            if not (i > 0 and src[i - 1] in _BEFORE_ESCAPE):
                self.glued(i, "`«`")
            if self.closing_escape < i:
                return self.unterminated_escape(i)
        m = _IDENT.match(src, i)
        assert m is not None  # `src[i]` starts a part, and an escape has its `»` (checked above)
        end = m.end()
        if src.startswith(".«", end) and self.closing_escape < end:
            return self.unterminated_escape(end + 1)
        text = m.group()
        escaped = "«" in text
        if escaped:
            if "\n" in src[i:end]:
                # Lean reads `«` up to the next `»` across lines; no proof needs that, and a header line ending in
                # `«` would make a name of the commands below it for anything that reads the header line by line.
                self.ambiguous(i, "a name escape `«...»` across lines: a line-by-line reading of it differs")
            text = text.replace("«", "").replace("»", "")
            # In the stripped copy the guillemets become spaces, in place: offsets and newlines stay.
            self.edits.append((i, end, src[i:end].replace("«", " ").replace("»", " ")))
        self.emit("ident", i, end, text, escaped=escaped)
        self.before = "word"
        return end

    def unterminated_escape(self, i: int) -> int:
        # Lean reports it at the escape and reads on from inside it.
        self.unterminated(i, "name escape `«`")
        self.blank(i, self.n)
        return self.n

    def symbol(self, i: int) -> int:
        c = self.src[i]
        # A letter that is an identifier character in other Lean versions than v4.15 (inside `«»` it is safe).
        if _LATER_ID_CHARS.match(c) or (not c.isascii() and unicodedata.category(c) in _FUTURE_ID_CATEGORIES):
            self.ambiguous(i, f"`{c}` is part of names in other Lean versions than v4.15")
        self.emit("symbol", i, i + 1)
        self.before = "closer" if c in _CLOSERS else "symbol"
        return i + 1

    def stripped(self) -> str:
        out, at = [], 0
        for start, end, replacement in sorted(self.edits, key=lambda edit: edit[0]):
            if start < at:  # an edit inside a blanked region (nothing is blanked twice, but be safe)
                continue
            out.append(self.src[at:start])
            out.append(_NOT_NEWLINE.sub(" ", self.src[start:end]) if replacement is None else replacement)
            at = end
        out.append(self.src[at:])
        return "".join(out)


def _resumes_cleanly(src: str, start: int, end: int) -> bool:
    """Whether Lean, skipping `src[start:end]` after an error, reads on in step with this lexer.

    It does when nothing skipped opens or closes a literal, comment or name escape, and no raw string starts where it
    reads on.
    """
    if any(c in "-/\"'«»`" for c in src[start:end]):
        return False
    return not any(src.startswith(("r#", 'r"'), k) for k in range(start, end + 1))


def lex(source: str) -> Lexed:
    """Lex Lean source as Lean v4.15 does: tokens, comments, a stripped copy, and where Lean may read it otherwise.

    Args:
        source: Lean 4 code.

    Returns:
        The tokens (comments and whitespace dropped), the comments, the stripped text (offsets unchanged) and the
        problems (`ambiguous` or `unterminated`), in order.

    Example:
        >>> [t.text for t in lex("theorem «my thm» : 1 = 1 := rfl -- done").tokens]
        ['theorem', 'my thm', ':', '1', '=', '1', ':', '=', 'rfl']
    """
    lexer = _Lexer(source)
    lexer.run()
    return Lexed(source, lexer.stripped(), tuple(lexer.tokens), tuple(lexer.comments), tuple(lexer.problems))


def strip_comments_and_strings(source: str) -> str:
    """`source` with comments and string/char literal contents replaced by spaces (newlines kept)."""
    return lex(source).stripped


def line_of(text: str, offset: int) -> int:
    """1-based line number of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1
