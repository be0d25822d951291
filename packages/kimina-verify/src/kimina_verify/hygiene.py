"""Text that cannot go to Lean as is: lone surrogates (not encodable as UTF-8), NUL and other control characters.

Each one gives that one sample a verdict (`text_encoding`), so a bad character never raises for a whole batch.
"""

from __future__ import annotations

import re

from kimina_verify.policy import IntegrityViolation

__all__ = ["safe_text", "text_violation"]

# Lone surrogates (a Python str may hold them; UTF-8 cannot), NUL and the C0 controls other than tab, LF and CR.
_BAD = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def text_violation(text: str, what: str = "the code") -> IntegrityViolation | None:
    r"""A `text_encoding` violation for the first character of `text` Lean cannot be sent, or None.

    Example:
        >>> text_violation("theorem t : True := trivial") is None
        True
        >>> text_violation("x\ud800").code
        'text_encoding'
    """
    m = _BAD.search(text)
    if m is None:
        return None
    char = m.group()
    kind = "a lone surrogate" if "\ud800" <= char <= "\udfff" else "a control character"
    line = text.count("\n", 0, m.start()) + 1
    return IntegrityViolation(
        "text_encoding", f"{what} holds {kind} (U+{ord(char):04X}) that cannot be sent to Lean", line
    )


def safe_text(text: str) -> str:
    """`text` with what UTF-8 cannot encode replaced, for logs, hashes and JSON."""
    return text.encode("utf-8", errors="replace").decode("utf-8")
