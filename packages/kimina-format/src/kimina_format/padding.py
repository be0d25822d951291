"""Whitespace padding: the longest run of one character, found with a few substring searches (no per-character loop)."""

from __future__ import annotations

from typing import AnyStr


def longest_run(text: AnyStr, unit: AnyStr) -> int:
    """Length of the longest run of `unit` (one character or byte) in `text`.

    Doubling then bisecting the length of a needle of `unit`s: about 2 log2(n) substring searches, each a C scan
    that skips ahead by the needle's length, so even a megabyte costs little.
    """
    if unit not in text:
        return 0
    found = 1  # a run this long exists
    while unit * (2 * found) in text:
        found *= 2
    missing = 2 * found  # no run this long exists
    while missing - found > 1:
        middle = (found + missing) // 2
        if unit * middle in text:
            found = middle
        else:
            missing = middle
    return found


def over_limit_run(text: AnyStr, unit: AnyStr, limit: int | None, *, offset: int = 0) -> int:
    """`longest_run(text, unit) - offset` when that exceeds `limit`, else 0 (and 0 when there is no limit).

    One substring search answers whether the limit is exceeded; the exact length is only worked out when it is,
    since that is the case a message reports.
    """
    if limit is None or unit * (limit + offset + 1) not in text:
        return 0
    return longest_run(text, unit) - offset
