"""Upstream's format check (kimina-prover-rl @ e16b605e, default thresholds), re-implemented as a speed peer.

Written from the description in `shared/docs/reference/upstream-kimina-prover-rl.md` section 2.1, in the order that
section gives: the same regexes and the same work, so that `bench_check.py` can time both on the same data in one
run and report a ratio (this machine's speed varies too much from minute to minute for figures from separate runs
to compare). It returns the name of the first error, or "NONE". It is a benchmark peer, not a reference verdict:
the English stop-word list is not the recipe's own, which changes which lines count as significant but not the work.
"""

from __future__ import annotations

import re
from collections import Counter

_STOPWORDS = frozenset(
    "a an and are as at be but by for from has have if in into is it its of on or so such that the their then there "
    "these this to was we were which will with".split()
)
_LEAN4_FIRST = re.compile(r"```lean4\s*([\s\S]+?)\s*```")
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_LEAN4 = re.compile(r"```lean4\n(.*?)\n```", re.DOTALL)
_TACTICS = re.compile(r"```tactics\n(.*?)\n```", re.DOTALL)
_WORD = re.compile(r"\w")
_TOKEN = re.compile(r"\b\w+\b")
_BLOCK_COMMENT = re.compile(r"/-.*?(--/|-/)", re.DOTALL)
_LINE_COMMENT = re.compile(r"--.*")
_SPACES = re.compile(r"\s+")


def upstream_check(text: str, formal_statement: str) -> str:
    """The first format error upstream's `check_one_turn_format_error` finds in `text`, or "NONE"."""
    error = _check_thinking_block(text)
    if error != "NONE":
        return error
    return _check_lean4_code(_LEAN4.findall(text)[0], formal_statement)


def _check_thinking_block(text: str) -> str:
    first = _LEAN4_FIRST.search(text)
    if first is None or text[first.end() :].strip():
        return "NO_VALID_LEAN4_CODE_BLOCK"
    if "<think>" not in text:
        return "NO_VALID_THINK_BLOCK"
    after = text[text.index("<think>") :]
    thinks = _THINK.findall(after)
    if len(thinks) != 1 or after.count("<think>") != 1 or after.count("</think>") != 1:
        return "INVALID_THINK_BLOCK_COUNT"
    lean4_blocks = _LEAN4.findall(after)
    if len(lean4_blocks) != 1:
        return "INVALID_LEAN4_CODE_BLOCK_COUNT"

    outside = _TACTICS.sub("", thinks[0])
    lines = [line.strip() for line in outside.split("\n")]
    significant = [line.lower() for line in lines if line and _WORD.search(line) and _is_significant(line)]
    if any(n >= 6 for n in Counter(significant).values()):
        return "GENERATION_REPEATS"

    tactic_blocks = _TACTICS.findall(after)
    if len(tactic_blocks) < 2:
        return "INSUFFICIENT_TACTICS_BLOCKS"
    final_lines = len(lean4_blocks[0].strip().split("\n"))
    for block in tactic_blocks:
        code_lines, comment_lines = _code_and_comment_lines(block)
        if comment_lines + code_lines > max(5, int(final_lines * 0.95)):
            return "TACTIC_CODE_TOO_MANY_LINES"

    blocks = _parse_tactics_code_blocks(text)
    if blocks is None:
        return "TACTIC_BLOCK_FORMATTING_ERROR"
    tactic_lines = {line for block in blocks for line in _code_lines(block)}
    final = set(_code_lines(lean4_blocks[0]))
    score = len(tactic_lines & final) / len(final) if final else 0.0
    return "TACTICS_LEAN4_NOT_MATCH" if score < 0.7 else "NONE"


def _is_significant(line: str) -> bool:
    return sum(token not in _STOPWORDS for token in _TOKEN.findall(line.lower())) >= 10


def _without_comments(code: str) -> str:
    return _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", code))


def _remove_comments(code: str) -> str:
    return "\n".join(line for line in _without_comments(code).split("\n") if line.strip())


def _code_and_comment_lines(code: str) -> tuple[int, int]:
    remaining = _remove_comments(code)
    code_lines = len(remaining.split("\n")) if remaining else 0
    return code_lines, len(code.split("\n")) - code_lines


def _code_lines(code: str) -> list[str]:
    return [line.strip() for line in _remove_comments(code).split("\n") if line.strip()]


def _parse_tactics_code_blocks(text: str) -> list[str] | None:
    """Every ```tactics block found line by line; None for an unterminated block or one holding a fence."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        if current is None:
            if stripped == "```tactics":
                current = []
        elif stripped == "```":
            blocks.append("\n".join(current))
            current = None
        elif "```" in stripped:
            return None
        else:
            current.append(line)
    return None if current is not None else blocks


def _normalise(text: str) -> str:
    text = _without_comments(text).replace("sorry", "")
    return _SPACES.sub(" ", text).strip()


def _check_lean4_code(code: str, formal_statement: str) -> str:
    normalised = _normalise(code)
    statement = _without_comments(formal_statement)
    for part in statement.split("\n\n"):
        part = _normalise(part)
        if part and not part.startswith(("import", "set_option", "open")) and part not in normalised:
            return "LEAN4_CODE_NOT_START_WITH_STATEMENT"
    no_comments = _without_comments(code)
    if "axiom" in no_comments or "local_instance" in no_comments:
        return "LEAN4_CODE_NOT_START_WITH_STATEMENT"
    return "NONE"
