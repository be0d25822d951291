r"""Strict JSON for request bodies: what `json.loads` lets through and a server must not, refused with one line.

Refused: `NaN` and `Infinity` (not JSON), a `\u` escape that is a lone surrogate (not text: it cannot be encoded
back out, so it would fail the whole response), bytes that are not UTF-8, nesting deeper than `MAX_DEPTH`, and
integers too long to read. A number too large for a float (`1e400`) parses as infinity; the request models refuse it
as not finite.
"""

from __future__ import annotations

import re
from typing import Any

import pydantic_core

__all__ = ["JSONRejected", "MAX_DEPTH", "parse_json"]

# The JSON parser's own recursion limit; the request schemas need four levels.
MAX_DEPTH = 200

_WHERE = re.compile(r"^(?P<what>.*) at line (?P<line>\d+) column (?P<column>\d+)$")
_NON_FINITE = re.compile(rb"-?(?:NaN|Infinity)")


class JSONRejected(ValueError):
    """The body is not strict JSON; the message is the one-line reason."""


def parse_json(raw: bytes) -> Any:
    """Parse a request body strictly.

    Raises:
        JSONRejected: With a one-line reason and where it was found.

    Examples:
        >>> parse_json(b'{"timeout": 5}')
        {'timeout': 5}
        >>> parse_json(b'{"timeout": NaN}')
        Traceback (most recent call last):
        ...
        kimina_verify.server.strict_json.JSONRejected: NaN and Infinity are not JSON numbers (line 1, column 13)
    """
    try:
        return pydantic_core.from_json(raw, allow_inf_nan=False)
    except ValueError as exc:
        raise JSONRejected(_reason(raw, str(exc))) from None


def _reason(raw: bytes, message: str) -> str:
    """A reason people can act on, from the parser's message (`... at line L column C`, columns in bytes)."""
    match = _WHERE.match(message)
    if match is None:
        return message
    what, line, column = match["what"], int(match["line"]), int(match["column"])
    where = f"line {line}, column {column}"
    if "surrogate" in what or "hex escape" in what:
        what = "a \\u escape that is a lone surrogate (\\ud800 to \\udfff) is not text"
    elif "recursion limit" in what:
        what = f"nested deeper than {MAX_DEPTH} levels"
    elif "number out of range" in what:
        what = "a number too long to read"
    elif "unicode code point" in what:
        what = "the body is not valid UTF-8"
    elif what in ("expected value", "invalid number") and _NON_FINITE.match(_at(raw, line, column - 1)):
        what = "NaN and Infinity are not JSON numbers"
    return f"{what} ({where})"


def _at(raw: bytes, line: int, offset: int) -> bytes:
    """A few bytes of `raw` from 0-based `offset` in 1-based `line` (where a parse error points)."""
    start = 0
    for _ in range(line - 1):
        start = raw.find(b"\n", start) + 1
        if start == 0:
            return b""
    start += max(offset, 0)
    return raw[start : start + 12]
