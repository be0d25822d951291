"""An exact shortcut for `lean_statement.match_statement` on plain code: regexes instead of the lexer, same verdict.

The format reward checks every completion, and lexing a final proof costs more than all its other rules together, so
the statement rule first asks this module. It answers only when it can prove that `match_statement` finds no
problem: the text is plain (no string, character literal, `«»` escape, `_root_`, `namespace` or `/-/`-style comment
opener, the places where reading Lean needs the lexer), the statement declares only theorems, and each of them is in
the code exactly once, with the same tokens up to `:=`. Otherwise it says "ask the lexer" (None), never "no": a
changed statement always goes through `match_statement`, so there is one statement normaliser and one verdict.
Tokens are those of `lean_lexer` (the tests compare them on the real data): on plain text, Lean's tokens are names,
numbers and single symbol characters between whitespace and comments.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from kimina_format.lean_decls import COMMAND_WORDS
from kimina_format.lean_lexer import ID_FIRST_CLASS, ID_REST_CLASS
from kimina_format.lean_source import strip_comments

_PART = f"[{ID_FIRST_CLASS}][{ID_REST_CLASS}]*"
# `lean_lexer`'s number, name and symbol rules, in the order its `step` tries them (on plain text: no literal).
TOKEN = re.compile(
    rf"0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|{_PART}(?:\.{_PART})*|[^ \t\r\n]"
)
"""One Lean token of plain text (see `plain_tokens`)."""
# Text where only the lexer knows what Lean reads: literals, escapes, root names, comment openers whose third
# character Lean skips. A `'` that may start a token (not after a name character) opens a character literal.
_UNSAFE = ('"', "«", "»", "/-/", "/--/", "_root_", "namespace")
_QUOTE_START = re.compile(rf"(?<![{ID_REST_CLASS}])'")
_AFTER_NAME = re.compile(rf"[{ID_REST_CLASS}]|\.[{ID_FIRST_CLASS}]")
_NAME_CHAR = re.compile(rf"[{ID_REST_CLASS}.]")
_WORDS = "|".join(sorted(COMMAND_WORDS, key=len, reverse=True))
_END = rf"(?![{ID_REST_CLASS}]|\.[{ID_FIRST_CLASS}])"
_THEOREM = re.compile(rf"(?<![{ID_REST_CLASS}.])(?:theorem|lemma){_END}")
# Any other command word: the statement then has definitions, scopes or modifiers, which the lexer path compares.
_OTHER_WORDS = "|".join(sorted(COMMAND_WORDS - {"theorem", "lemma", "open", "set_option"}, key=len, reverse=True))
_LETTERS_BEFORE = ID_REST_CLASS.replace("0-9", "")  # after a digit a word is a new token: `2def` is `2` `def`
_OTHER_COMMAND = re.compile(rf"(?<![{_LETTERS_BEFORE}.])(?:{_OTHER_WORDS}){_END}")
# A command starting a line ends the declaration before it (`lean_decls._starts_command`).
_COMMAND_LINE = re.compile(rf"\n(?:[#@]|(?:{_WORDS}){_END})")
_KEYWORD_BEFORE = re.compile(rf"(?<![{ID_REST_CLASS}.])(?:theorem|lemma)[ \t\r\n]+\Z")
_NAME = re.compile(rf"{_PART}(?:\.{_PART})*")
_OPENERS = {"(": 1, "[": 1, "{": 1, "⟨": 1, "⦃": 1, ")": -1, "]": -1, "}": -1, "⟩": -1, "⦄": -1}


class PlainStatement(NamedTuple):
    """A dataset statement that declares only theorems, each as (name, tokens from after the name up to `:=`)."""

    theorems: tuple[tuple[str, tuple[str, ...]], ...]


def is_plain(text: str) -> bool:
    """Whether `text` has nothing that only the lexer reads right (see the module docstring)."""
    return not any(mark in text for mark in _UNSAFE) and _QUOTE_START.search(text) is None


def plain_tokens(text: str) -> list[str]:
    """The token texts `lean_lexer.lex(text)` gives, for plain text (`is_plain`); comments are skipped."""
    return TOKEN.findall(strip_comments(text)[0])


@lru_cache(maxsize=4096)
def plain_statement(formal_statement: str) -> PlainStatement | None:
    """The theorems of a plain statement that declares nothing else, or None (the lexer path then decides).

    Cached: RL checks many completions of each statement.
    """
    if not is_plain(formal_statement):
        return None
    code, _ = strip_comments(formal_statement)
    if _OTHER_COMMAND.search(code) is not None:
        return None
    starts = [m.start() for m in _THEOREM.finditer(code)]
    if not starts:
        return None
    keyword_lines = {start - 1 for start in starts}
    if any(m.start() not in keyword_lines for m in _COMMAND_LINE.finditer(code, starts[0])):
        return None  # a command inside a signature would end it there
    theorems: list[tuple[str, tuple[str, ...]]] = []
    for start, end in zip(starts, [*starts[1:], len(code)], strict=True):
        colon = code.find(":=", start, end)
        if colon == -1:
            return None
        tokens = TOKEN.findall(code, start, colon)
        if len(tokens) < 2 or not COMMAND_WORDS.isdisjoint(tokens[1:]) or "where" in tokens:
            return None
        name = tokens[1]
        if _NAME.fullmatch(name) is None or not _balanced(tokens[2:]):
            return None
        theorems.append((name, tuple(tokens[2:])))
    if len({name for name, _ in theorems}) != len(theorems):
        return None
    return PlainStatement(tuple(theorems))


def _balanced(tokens: list[str]) -> bool:
    """Whether the brackets are back at depth 0 after `tokens`, counted as `lean_decls` counts them."""
    depth = 0
    for token in tokens:
        step = _OPENERS.get(token)
        if step is not None:
            depth = max(0, depth + step)
    return depth == 0


def plain_match(source: str, code: str, statement: PlainStatement) -> bool | None:
    """True when `match_statement` would find the statement's theorems in the code unchanged; None when unsure.

    Args:
        source: The code as written.
        code: The same code with its comments blanked out (`lean_source.strip_comments`).
        statement: The statement's theorems (`plain_statement`).
    """
    if not is_plain(source):
        return None
    for name, tokens in statement.theorems:
        at = _only_declaration(code, name)
        if at is None:
            return None
        after = at + len(name)
        colon = code.find(":=", after)
        if colon == -1 or _COMMAND_LINE.search(code, at, colon) is not None:
            return None
        if tuple(TOKEN.findall(code, after, colon)) != tokens:
            return None
    return True


def _only_declaration(code: str, name: str) -> int | None:
    """Offset of `name` where it is declared by `theorem`/`lemma`, when that is its only occurrence as a token."""
    found = None
    at = code.find(name)
    while at != -1:
        end = at + len(name)
        before = code[at - 1] if at else " "
        token = _AFTER_NAME.match(code, end) is None and not (_NAME_CHAR.match(before) and not before.isdigit())
        if token:
            if found is not None:
                return None  # named twice (a use, or a second declaration): the lexer path counts them
            found = at
        at = code.find(name, at + 1)
    if found is None or _KEYWORD_BEFORE.search(code, max(0, found - 64), found) is None:
        return None
    return found
