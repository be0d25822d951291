"""Upstream's format check (kimina-prover-rl, `FormatReward()` with its defaults), re-implemented as a speed peer.

Upstream's repository cannot be installed here (it is on no package registry), so `bench_check.py` times this
re-implementation unless it is given a checkout (`--upstream PATH`, which runs upstream's own file as shipped). It was
written from upstream's `reward/format_reward.py`, `proof_utils.py` and `definitions.py` and checked against them
step by step: the same regexes, called the way upstream calls them (module-level `re` functions, whose pattern cache
lookup is part of the cost), the same passes over the text, including the work whose result upstream discards (the
comment counts of the proof, the trailing-comment removal, the blank-line filter it overwrites). It returns the name
of the first error upstream's `check_format_error(text, formal_statement)` returns, or "NONE".
"""

from __future__ import annotations

import re
from collections import Counter

# Upstream's COMMON_STOPWORDS, the entries that can equal a `\b\w+\b` token (its multi-word and symbol entries,
# "we have", "⇒", "\\forall", ..., never can, so they change nothing).
_STOPWORDS = frozenset(
    """
    a an the and or of to in on for with by from as at is are was were be been it its this that these those we you
    they he she i there their your his her not no yes but if only than then so let assume suppose consider take fix
    define set choose given each every all any either otherwise exists exist such wlog have obtain get see conclude
    note notice observe clearly obviously evidently hence thus therefore implies imply iff since because theorem
    lemma corollary proposition claim definition remark example proof qed now next finally lastly again furthermore
    moreover first second third one two three
    """.split()
)
_LEAN4_BLOCK = r"```lean4\n(.*?)\n```"
_MAX_TACTIC_LINES_SHARE = 0.95  # total_tactic_blocks_lines_threshold
_MATCH_THRESHOLD = 0.7  # tactics_lean4_match_threshold
_REPEATS = 6  # repeated_lines_threshold


def upstream_check(text: str, formal_statement: str) -> str:
    """The first format error upstream's `check_format_error(text, formal_statement)` finds in `text`, or "NONE"."""
    error = _check_thinking_block(text)
    if error != "NONE":
        return error
    codes = re.findall(_LEAN4_BLOCK, text, re.DOTALL)
    assert len(codes) == 1
    code = codes[-1].strip()
    error, kept = _check_lean4_code(code, formal_statement)
    if error != "NONE":
        return error
    assert code in text
    text.replace(code, kept)  # upstream rewrites the message with the trailing comments removed
    return "NONE"


def _check_thinking_block(text: str) -> str:
    first = re.search(r"```lean4\s*([\s\S]+?)\s*```", text)
    if not first or text[first.end() :].strip():
        return "NO_VALID_LEAN4_CODE_BLOCK"
    if "<think>" not in text:
        return "NO_VALID_THINK_BLOCK"
    after = text[text.index("<think>") :]
    thinks = re.findall(r"<think>(.*?)</think>", after, re.DOTALL)
    if len(thinks) != 1 or after.count("<think>") != 1 or after.count("</think>") != 1:
        return "INVALID_THINK_BLOCK_COUNT"
    lean4_blocks = re.findall(_LEAN4_BLOCK, after, re.DOTALL)
    if len(lean4_blocks) != 1:
        return "INVALID_LEAN4_CODE_BLOCK_COUNT"

    counts = Counter(_significant_lines(thinks[0]))
    if [line for line, n in counts.items() if n >= _REPEATS]:
        return "GENERATION_REPEATS"

    tactic_blocks = re.findall(r"```tactics\n(.*?)\n```", after, re.DOTALL)
    if len(tactic_blocks) < 2:
        return "INSUFFICIENT_TACTICS_BLOCKS"
    for block in tactic_blocks:
        code_lines, comment_lines, _, _ = _code_and_comment_length(block)
        final_lines = len(lean4_blocks[0].strip().split("\n"))  # recomputed per block, as upstream does
        if comment_lines + code_lines > max(5, int(final_lines * _MAX_TACTIC_LINES_SHARE)):
            return "TACTIC_CODE_TOO_MANY_LINES"

    blocks = _parse_tactics_code_blocks(text)
    if blocks is None:
        return "TACTIC_BLOCK_FORMATTING_ERROR"
    finals = re.findall(_LEAN4_BLOCK, text, re.DOTALL)  # upstream's extract_lean4_block reads the whole text again
    assert len(finals) == 1
    return "TACTICS_LEAN4_NOT_MATCH" if _share_of_final_lines(blocks, finals[0].strip()) < _MATCH_THRESHOLD else "NONE"


def _significant_lines(think: str) -> list[str]:
    """The lower-cased lines outside tactic blocks with at least 10 tokens that are not stop words."""
    outside = re.sub(r"```tactics\n.*?\n```", "", think, flags=re.DOTALL)
    lines = []
    for raw in outside.splitlines():
        line = raw.strip()
        if not line or not re.search(r"\w", line):
            continue
        tokens = re.findall(r"\b\w+\b", line.lower())
        if len([t for t in tokens if t not in _STOPWORDS]) >= 10:
            lines.append(line.lower())
    return lines


def _remove_comments(code: str, remove_empty_lines: bool = False) -> str:
    code = re.sub(r"/-.*?(--/|-/)", "", code, flags=re.DOTALL)
    code = re.sub(r"--.*", "", code)
    if remove_empty_lines:
        lines = code.split("\n")
        "\n".join(line for line in lines if line.strip())  # computed and then overwritten by upstream
        kept, empty = [], 0
        for line in lines:  # runs of blank lines shrink to one
            if not line.strip():
                empty += 1
                if empty < 2:
                    kept.append(line)
            else:
                empty = 0
                kept.append(line)
        code = "\n".join(kept)
    return code


def _code_and_comment_length(code: str) -> tuple[int, int, int, int]:
    remaining = _remove_comments(code, remove_empty_lines=True)
    code_lines = len(remaining.split("\n"))
    comment_lines = len(code.split("\n")) - code_lines
    return code_lines, comment_lines, len(remaining), len(code) - len(remaining)


def _parse_tactics_code_blocks(text: str) -> list[str] | None:
    """Every ```tactics block found line by line; None for an unterminated block or one holding a fence."""
    blocks: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```tactics":
            for j in range(i + 1, len(lines)):
                if lines[j].strip() == "```":
                    blocks.append("\n".join(lines[i + 1 : j]))
                    i = j
                    break
            else:
                return None
        i += 1
    return None if any("```" in block for block in blocks) else blocks


def _stripped_code_lines(code: str) -> list[str]:
    return [line.strip() for line in _remove_comments(code, remove_empty_lines=True).split("\n") if line.strip()]


def _share_of_final_lines(blocks: list[str], final: str) -> float:
    """Upstream's "iof": the share of the final code's distinct lines that some tactic block also has."""
    tactic_lines = set()
    for block in blocks:
        tactic_lines.update(_stripped_code_lines(block))
    final_lines = set(_stripped_code_lines(final))
    if not final_lines:
        return 0.0
    shared = tactic_lines & final_lines
    tactic_lines | final_lines  # upstream computes the union whichever score it returns
    return len(shared) / len(final_lines)


def _normalise(text: str) -> str:
    text = _remove_comments(text).replace("sorry", "")
    return re.sub(r"\s+", " ", text).strip()


def _check_lean4_code(code: str, formal_statement: str) -> tuple[str, str]:
    formal_statement.split("\n\n")  # split once before the comments are removed, and not used
    statement = _remove_comments(formal_statement)
    parts = [
        _normalise(part)  # normalised twice, as upstream does
        for part in statement.split("\n\n")
        if (normalised := _normalise(part)) and not normalised.startswith(("import", "set_option", "open"))
    ]
    normalised_code = _normalise(code)
    if "axiom" in normalised_code or "local_instance" in normalised_code:
        return "LEAN4_CODE_NOT_START_WITH_STATEMENT", code
    if not all(part in normalised_code for part in parts):
        return "LEAN4_CODE_NOT_START_WITH_STATEMENT", code
    _code_and_comment_length(code[len(formal_statement) :])  # for its comment checks, which default to off
    return "NONE", _without_trailing_comments(code).strip()


def _without_trailing_comments(code: str) -> str:
    lines = code.splitlines()
    while lines and lines[-1].strip() == "":
        lines.pop()
    while lines and lines[-1].lstrip().startswith("--"):
        lines.pop()
    return "\n".join(lines)
