"""Render JSON exactly as the Lean REPL prints it: Lean's `Json.pretty` at width 80.

The REPL prints each reply with Lean's own pretty-printer (`Std.Format`), which breaks lines and indents in a
particular way and orders object keys in reverse. This module re-implements that layout algorithm for the JSON
subset the REPL emits, so that `lean-repl-sim` writes byte for byte what the real REPL writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Doc", "LINE", "WIDTH", "pretty"]

WIDTH = 80


class _Line:
    """A break: a newline plus indentation, or one space when its group is flattened."""

    __slots__ = ()


LINE = _Line()


@dataclass(frozen=True, slots=True)
class _Nest:
    indent: int
    doc: Doc


@dataclass(frozen=True, slots=True)
class _Group:
    doc: Doc


# A document is text, a break, an indented or grouped document, or a sequence of documents.
type Doc = str | _Line | _Nest | _Group | tuple[Doc, ...]


def _bracket(left: str, inner: Doc, right: str) -> Doc:
    return _Group(_Nest(len(left), (left, inner, right)))


def _join(docs: Sequence[Doc]) -> Doc:
    parts: list[Doc] = []
    for i, doc in enumerate(docs):
        if i:
            parts.extend((",", LINE))
        parts.append(doc)
    return tuple(parts)


def _escape_string(text: str) -> str:
    """Quote a string the way Lean's `Json.renderString` does (non-ASCII stays as is, control bytes escaped)."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _to_doc(value: Any) -> Doc:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _escape_string(value)
    if isinstance(value, list | tuple):
        return _bracket("[", _join([_to_doc(v) for v in value]), "]")
    if isinstance(value, dict):
        # Lean keeps object fields in a map sorted by key and renders them by folding into a list: reverse order.
        fields = [_Group((_escape_string(k), ":", LINE, _to_doc(value[k]))) for k in sorted(value, reverse=True)]
        return _bracket("{", _join(fields), "}")
    raise TypeError(f"cannot render {type(value).__name__} as Lean JSON")


def _space(doc: Doc, flatten: bool, budget: int) -> tuple[bool, int]:
    """Width of `doc` up to its first real line break, stopping early once it exceeds `budget`."""
    if isinstance(doc, str):
        return False, len(doc)
    if isinstance(doc, _Line):
        return (False, 1) if flatten else (True, 0)
    if isinstance(doc, _Nest):
        return _space(doc.doc, flatten, budget)
    if isinstance(doc, _Group):
        return _space(doc.doc, True, budget)
    found, used = False, 0
    for part in doc:
        if found or used > budget:
            break
        found, more = _space(part, flatten, max(budget - used, 0))
        used += more
    return found, used


def pretty(value: Any, width: int = WIDTH) -> str:
    """Lay out `value` as Lean's `Json.pretty` would: groups stay on one line when they and what follows fit."""
    out: list[str] = []
    column = 0
    # A stack of groups, each with its flatten decision and a stack of (document, indent) items still to print.
    groups: list[tuple[bool, list[tuple[Doc, int]]]] = [(False, [(_to_doc(value), 0)])]
    while groups:
        flatten, items = groups[-1]
        if not items:
            groups.pop()
            continue
        doc, indent = items.pop()
        if isinstance(doc, str):
            out.append(doc)
            column += len(doc)
        elif isinstance(doc, _Line):
            if flatten:
                out.append(" ")
                column += 1
            else:
                out.append("\n" + " " * indent)
                column = indent
        elif isinstance(doc, _Nest):
            items.append((doc.doc, indent + doc.indent))
        elif isinstance(doc, _Group):
            if flatten:
                items.append((doc.doc, indent))
            else:
                groups.append((_fits(doc.doc, groups, max(width - column, 0)), [(doc.doc, indent)]))
        else:
            items.extend((part, indent) for part in reversed(doc))
    return "".join(out)


def _fits(doc: Doc, rest: list[tuple[bool, list[tuple[Doc, int]]]], budget: int) -> bool:
    """Whether `doc` flattened, plus everything after it up to the next line break, fits in `budget` columns."""
    found, used = _space(doc, True, budget)
    if found or used > budget:
        return used <= budget
    for flatten, items in reversed(rest):
        for item, _ in reversed(items):
            found, more = _space(item, flatten, max(budget - used, 0))
            used += more
            if found or used > budget:
                return used <= budget
    return used <= budget
