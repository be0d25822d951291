"""An exact shortcut for `lean_statement.match_statement` on plain code: regexes instead of the lexer, same verdict.

The format reward checks every completion, and lexing a final proof costs more than all its other rules together, so
the statement rule first asks this module. It answers only when it can prove that `match_statement` finds no
problem: the text is plain (no string, character literal, `«»` escape, `_root_`, `namespace` or `/-/`-style comment
opener, the places where reading Lean needs the lexer), the statement declares only theorems, and each of them is in
the code exactly once, with the same tokens up to `:=` (and no `let`, `have`, `do`, `calc` or `by` before it, after
which that `:=` may not end the statement). Otherwise it says "ask the lexer" (None), never "no": a
changed statement always goes through `match_statement`, so there is one statement normaliser and one verdict.
Tokens are those of `lean_lexer` (the tests compare them on the real data): on plain text, Lean's tokens are names,
numbers and single symbol characters between whitespace and comments.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from kimina_format.lean_decls import COMMAND_WORDS, DECLARATION_KEYWORDS, THEOREM_KEYWORDS
from kimina_format.lean_lexer import ID_FIRST_CLASS, ID_REST_CLASS, QUOTE_TOKEN_HEADS
from kimina_format.lean_source import strip_comments

__all__ = ["PlainStatement", "is_plain", "plain_match", "plain_statement", "plain_tokens"]

_PART = f"[{ID_FIRST_CLASS}][{ID_REST_CLASS}]*"
_NUMBER = r"0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
# `lean_lexer`'s number, name and symbol rules, in the order its `step` tries them (on plain text: no literal).
TOKEN = re.compile(rf"{_NUMBER}|{_PART}(?:\.{_PART})*|[^ \t\r\n]")
"""One Lean token of plain text (see `plain_tokens`)."""
_NAME_AFTER_KEYWORD = re.compile(rf"[ \t\r\n]+({_PART}(?:\.{_PART})*)")
# What `str.split()` takes for whitespace and Lean does not (a no-break space is a symbol to Lean): text holding one
# is left to the lexer, so that the key (`signature_key`) may split on any whitespace.
_OTHER_SPACE = re.compile("[\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_BRACKET_CHARS = re.compile("[][(){}⟨⟩⦃⦄]")
# Text where only the lexer knows what Lean reads: literals, escapes, root names and namespaces, comment openers whose
# third character Lean skips. A `'` that may start a token (not after a name character) opens a character literal.
_UNSAFE = ('"', "«", "»", "/-/", "/--/", "_root_", "namespace")
# The name characters before a `'`: when they start with a letter the quote continues a name (`h2'`); otherwise it
# starts a token (`2'` is a number and a quote).
_RUN_BEFORE_QUOTE = re.compile(rf"(?<![{ID_REST_CLASS}])[{ID_REST_CLASS}]+\Z")
_ID_FIRST = re.compile(f"[{ID_FIRST_CLASS}]")
# What may not follow Mathlib's quote tokens on plain text: the lexer's `_resumes_cleanly` refuses these characters.
_QUOTE_TOKEN_STOPS = frozenset("-/\"'«»`")
_AFTER_NAME = re.compile(rf"[{ID_REST_CLASS}]|\.[{ID_FIRST_CLASS}]")
_NAME_CHAR = re.compile(rf"[{ID_REST_CLASS}.]")
_END = rf"(?![{ID_REST_CLASS}]|\.[{ID_FIRST_CLASS}])"
# Command words besides the theorem keywords and the header's: the statement then has definitions, scopes or
# modifiers, which the lexer path compares. Words are runs of ASCII-name characters here, so a word inside `x.def`,
# `2def` or `h₀def` counts too (the lexer path decides those).
_OTHER_COMMANDS = COMMAND_WORDS - THEOREM_KEYWORDS - {"open", "set_option"} | {"where"}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_'!?]*")
# Words of a type after which a `:=` at depth 0 may not end the statement (`lean_decls`' `let`/`have` rule).
_ASSIGNING_WORDS = frozenset({"let", "have", "letI", "haveI", "let_fun", "let_delayed", "do", "calc", "by"})
# A command starting a line ends the declaration before it (`lean_decls._starts_command`); in a statement, past its
# first theorem, only the next theorem may.
_COMMAND_LINE = re.compile(rf"\n(?:[#@]|(?:{'|'.join(sorted(COMMAND_WORDS, key=len, reverse=True))}){_END})")
_OTHER_COMMAND_LINE = re.compile(
    rf"\n(?:[#@]|(?:{'|'.join(sorted(COMMAND_WORDS - THEOREM_KEYWORDS, key=len, reverse=True))}){_END})"
)
# The run of name characters that ends a text (the word before a name), and how far back it is looked for.
_LAST_WORD = re.compile(rf"[{ID_REST_CLASS}.]+\Z")
_WINDOW = 64
_DECLARATION_WORDS = tuple(DECLARATION_KEYWORDS)
_BRACKETS = {"(": 1, "[": 1, "{": 1, "⟨": 1, "⦃": 1, ")": -1, "]": -1, "}": -1, "⟩": -1, "⦄": -1}


class PlainStatement(NamedTuple):
    """A dataset statement that declares only theorems, each as (name, key of the tokens after it up to `:=`)."""

    theorems: tuple[tuple[str, str], ...]


def is_plain(text: str, *, spaces: bool = True) -> bool:
    """Whether `text` has nothing that only the lexer reads right (see the module docstring).

    With `spaces=False` the whitespace that Lean does not take for whitespace (`_OTHER_SPACE`) is left to the caller,
    who checks it where a key is taken.
    """
    for mark in _UNSAFE:  # a loop rather than `any(...)`: no generator for the few marks
        if mark in text:
            return False
    if spaces and _OTHER_SPACE.search(text) is not None:
        return False
    at = text.find("'")
    while at != -1:
        run = _RUN_BEFORE_QUOTE.search(text, max(0, at - 64), at) if at else None
        if (run is None or _ID_FIRST.match(run.group()) is None) and not _quote_token(text, at):
            return False  # a `'` that starts a token: a character literal, or Mathlib's `''`
        at = text.find("'", at + 1)
    return True


def _quote_token(text: str, at: int) -> bool:
    """Whether the `'` at `at` is Mathlib's one-quote token after `⁻¹`, `∑` or `∏` (`f ⁻¹' s`), read as the lexer does.

    The lexer takes it as a symbol (`lean_lexer._Lexer.quote_token`), as `TOKEN` does, when the two characters after
    it open nothing (a second `'` makes the two-quote token, which `TOKEN` would split).
    """
    return (
        text.endswith(QUOTE_TOKEN_HEADS, 0, at)
        and not any(c in _QUOTE_TOKEN_STOPS for c in text[at + 1 : at + 3])
        and "r#" not in text[at + 1 : at + 5]
    )


def plain_tokens(text: str) -> list[str]:
    """The token texts `lean_lexer.lex(text)` gives, for plain text (`is_plain`); comments are skipped."""
    return TOKEN.findall(strip_comments(text)[0])


def signature_key(text: str) -> str:
    r"""The key of plain, comment-free Lean text: its runs of whitespace as one space, the ends stripped.

    Equal keys mean equal text up to the length of whitespace runs, so equal tokens (plain text has no whitespace but
    Lean's: space, tab, `\r` and `\n`). A statement re-spaced around symbols (`x^2` for
    `x ^ 2`) has another key: the lexer path compares its tokens.
    """
    return " ".join(text.split())


@lru_cache(maxsize=4096)
def plain_statement(formal_statement: str) -> PlainStatement | None:
    """The theorems of a plain statement that declares nothing else, or None (the lexer path then decides).

    Cached: RL checks many completions of each statement.
    """
    if not is_plain(formal_statement):
        return None
    code, _ = strip_comments(formal_statement)
    if not _OTHER_COMMANDS.isdisjoint(_WORD.findall(code)):
        return None
    starts = sorted(_keyword_starts(code, "theorem") + _keyword_starts(code, "lemma"))
    if len(starts) != code.count("theorem") + code.count("lemma"):
        return None  # a keyword inside a name, or after a digit (`2theorem`): the lexer path tells them apart
    if not starts or _OTHER_COMMAND_LINE.search(code, starts[0]) is not None:
        return None
    theorems: list[tuple[str, str]] = []
    for start, end in zip(starts, [*starts[1:], len(code)], strict=True):
        named = _NAME_AFTER_KEYWORD.match(code, start + (7 if code.startswith("theorem", start) else 5))
        if named is None or named.group(1) in COMMAND_WORDS:
            return None
        colon = code.find(":=", named.end(), end)
        if colon == -1:
            return None
        signature = code[named.end() : colon]
        if not _balanced(_BRACKET_CHARS.findall(signature)):
            return None
        if not _ASSIGNING_WORDS.isdisjoint(_WORD.findall(signature)):
            return None  # that `:=` may be a `let`'s or a `have`'s: the lexer path finds the type's real end
        theorems.append((named.group(1), signature_key(signature)))
    if len({name for name, _ in theorems}) != len(theorems):
        return None
    return PlainStatement(tuple(theorems))


def _keyword_starts(code: str, keyword: str) -> list[int]:
    """Offsets of `keyword` where it is a whole token (not inside a longer name)."""
    found = []
    at = code.find(keyword)
    while at != -1:
        end = at + len(keyword)
        if _AFTER_NAME.match(code, end) is None and not (at and _NAME_CHAR.match(code, at - 1)):
            found.append(at)
        at = code.find(keyword, end)
    return found


def _balanced(brackets: list[str]) -> bool:
    """Whether the brackets are back at depth 0 after them, counted as `lean_decls` counts them."""
    depth = 0
    for bracket in brackets:
        depth = max(0, depth + _BRACKETS[bracket])
    return depth == 0


def plain_match(source: str, code: str, statement: PlainStatement) -> bool | None:
    """True when `match_statement` would find the statement's theorems in the code unchanged; None when unsure.

    Args:
        source: The code as written.
        code: The same code with its comments blanked out (`lean_source.strip_comments`).
        statement: The statement's theorems (`plain_statement`).
    """
    if not is_plain(source, spaces=False):
        return None
    for name, key in statement.theorems:
        at = _only_declaration(code, name)
        if at is None:
            return None
        after = at + len(name)
        colon = code.find(":=", after)
        if colon == -1 or _COMMAND_LINE.search(code, at, colon) or _OTHER_SPACE.search(code, after, colon):
            return None
        if signature_key(code[after:colon]) != key:
            return None
    return True


def _only_declaration(code: str, name: str) -> int | None:
    """Offset of `name` where `theorem`/`lemma` declares it, when nothing else declares a constant of that name.

    Other occurrences of the name are uses (a recursive call, `exact name`): `lean_decls` reads a declaration's name
    only right after its keyword, past whitespace (comments are blanked to spaces). An occurrence whose previous word
    lies beyond `_WINDOW` characters makes it unsure (None), as does a second declaration.
    """
    found = None
    at = code.find(name)
    while at != -1:
        if _AFTER_NAME.match(code, at + len(name)) is None and (not at or code[at - 1] in " \t\r\n"):
            start = max(0, at - _WINDOW)
            before = code[start:at].rstrip()
            word = _LAST_WORD.search(before)
            if (start and (not before or (word is not None and word.start() == 0))) or (word and "." in word.group()):
                return None  # the previous word may be cut off, or a dotted name ends there
            if word is not None and word.group() in DECLARATION_KEYWORDS:
                if found is not None or word.group() not in THEOREM_KEYWORDS:
                    return None  # declared twice, or by another keyword: the lexer path reports it
                found = at
            elif word is not None and word.group().endswith(_DECLARATION_WORDS):
                return None  # `2theorem` is a number and a keyword to Lean
        at = code.find(name, at + 1)
    return found
