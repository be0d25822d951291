"""Split a snippet into its import header and body, and map REPL positions back onto the snippet's own lines.

REPLs are pooled by header: the header runs once per process and every body runs in that environment. Like the
upstream server, all `import Mathlib.*` lines fold into one `import Mathlib`, so more snippets share a REPL.
Positions in replies are shifted back so that they refer to the snippet as sent (as upstream does since PR #56).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kimina_format.lean_decls import COMMAND_WORDS
from kimina_format.lean_lexer import Lexed, lex

__all__ = ["SplitSnippet", "shift_positions", "split_snippet"]


@dataclass(frozen=True, slots=True)
class SplitSnippet:
    """A snippet's normalised import header, its body, and how many lines the header region took."""

    header: str
    body: str
    header_lines: int


def split_snippet(code: str) -> SplitSnippet:
    r"""Split off the leading imports, read as Lean reads them (comments and `\r` are whitespace between tokens).

    Comments before or between the imports are dropped, and so is the rest of the last import's line when it holds
    only a comment; the body starts on the line of the first thing after the imports, whatever came before it on
    that line blanked so that columns stay right. The header is rebuilt from the module names alone, so nothing but
    `import` lines ever reaches a REPL as its header.

    Examples:
        >>> split_snippet("import Mathlib.Tactic\nimport Aesop\n\ntheorem t : True := trivial")
        SplitSnippet(header='import Mathlib\nimport Aesop', body='theorem t : True := trivial', header_lines=3)
        >>> split_snippet("import Mathlib /- c -/\rtheorem t : True := trivial").body
        '                       theorem t : True := trivial'
    """
    lexed = lex(code)
    tokens = lexed.tokens
    imports: list[str] = []
    i, header_end = 0, 0
    while i < len(tokens) and tokens[i].is_keyword("import"):
        # One module per `import` in Lean; like upstream, several on one line are read as several imports.
        line_end = _line_end(code, tokens[i].end)
        modules = []
        for tok in tokens[i + 1 :]:
            if tok.start >= line_end or tok.kind != "ident" or "\r" in code[tokens[i].end : tok.start]:
                break
            if not tok.escaped and tok.text in COMMAND_WORDS:
                break
            modules.append(tok)
        if not modules:
            break
        imports.extend(f"import {t.text}" for t in modules)
        header_end = modules[-1].end
        i += 1 + len(modules)
    body_start = _body_start(code, lexed, tokens[i].start if i < len(tokens) else len(code), header_end)
    line_start = code.rfind("\n", 0, body_start) + 1
    body = " " * (body_start - line_start) + code[body_start:] if header_end else code[line_start:]
    header_lines = code.count("\n", 0, line_start)
    has_mathlib = any(i == "import Mathlib" or i.startswith("import Mathlib.") for i in imports)
    others = dict.fromkeys(i for i in imports if not (i == "import Mathlib" or i.startswith("import Mathlib.")))
    header = "\n".join((["import Mathlib"] if has_mathlib else []) + list(others))
    return SplitSnippet(header=header, body=body, header_lines=header_lines)


def _line_end(code: str, offset: int) -> int:
    end = code.find("\n", offset)
    return len(code) if end < 0 else end


def _body_start(code: str, lexed: Lexed, first_token: int, header_end: int) -> int:
    """Where the body starts: its first token, or a comment after the imports that starts on a later line."""
    if not header_end:
        # No imports: the body is the code itself, from its first non-blank line.
        blank = len(code) - len(code.lstrip(" \t\r\n"))
        return min(first_token, blank) if blank < len(code) else len(code)
    last_line_end = _line_end(code, header_end)
    for comment in lexed.comments:
        if comment.start >= first_token:
            break
        if comment.start > header_end and comment.start > last_line_end:
            return comment.start
    return first_token


def shift_positions(reply: dict[str, Any], lines: int) -> dict[str, Any]:
    """A copy of a REPL reply with message and sorry positions moved down by `lines` (the header region)."""
    if not lines:
        return reply
    shifted = dict(reply)
    for key in ("messages", "sorries"):
        items = reply.get(key)
        if isinstance(items, list):
            shifted[key] = [_shift_item(item, lines) for item in items]
    return shifted


def _shift_item(item: Any, lines: int) -> Any:
    if not isinstance(item, dict):
        return item
    moved = dict(item)
    for key in ("pos", "endPos"):
        pos = item.get(key)
        if isinstance(pos, dict) and isinstance(pos.get("line"), int) and pos["line"] > 0:
            moved[key] = {**pos, "line": pos["line"] + lines}
    return moved
