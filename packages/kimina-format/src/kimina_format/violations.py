"""Stable codes for every way a completion can break the format, with a human-readable message."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["Violation", "ViolationCode"]


class ViolationCode(str, Enum):
    """A stable, machine-readable name for one broken rule (safe to log, count and compare across versions).

    The value of each member is its lower-case name, so `ViolationCode("think_missing")` round-trips through JSON.
    """

    # Rule 1: exactly one think block, opened and closed, before the code.
    THINK_MISSING = "think_missing"
    THINK_UNCLOSED = "think_unclosed"
    THINK_MALFORMED = "think_malformed"
    TEXT_BEFORE_THINK = "text_before_think"
    # Rule 2: exactly one final Lean block after the thinking, nothing but whitespace after it.
    CODE_MISSING = "code_missing"
    CODE_UNCLOSED = "code_unclosed"
    CODE_MULTIPLE = "code_multiple"
    TEXT_AFTER_CODE = "text_after_code"
    SUMMARY_TOO_LONG = "summary_too_long"
    SUMMARY_REPEATS = "summary_repeats"
    # Rule 3: no degenerate repetition in the prose (the reasoning and the summary), nor loops of proof lines.
    REPEATED_LINES = "repeated_lines"
    CONSECUTIVE_REPEATS = "consecutive_repeats"
    NEAR_DUPLICATES = "near_duplicates"
    SHORT_LINE_REPEATS = "short_line_repeats"
    PARAGRAPH_REPEATS = "paragraph_repeats"
    LINE_TOO_LONG = "line_too_long"
    CODE_REPEATS = "code_repeats"
    # Rule 4: enough tactic blocks in the thinking, closed, none empty, none longer than the proof warrants, all of
    # them code; and the thinking is reasoning, not the final code copied.
    TOO_FEW_TACTIC_BLOCKS = "too_few_tactic_blocks"
    TACTIC_BLOCK_TOO_SHORT = "tactic_block_too_short"
    TACTIC_BLOCK_TOO_LONG = "tactic_block_too_long"
    FENCE_UNCLOSED = "fence_unclosed"
    TACTIC_BLOCK_PROSE = "tactic_block_prose"
    COPIED_CODE = "copied_code"
    REASONING_TOO_SHORT = "reasoning_too_short"
    # Rule 5: comment density of the final proof body, of the whole final code and of the tactic blocks.
    PROOF_TOO_MANY_COMMENTS = "proof_too_many_comments"
    CODE_TOO_MANY_COMMENTS = "code_too_many_comments"
    TACTICS_TOO_MANY_COMMENTS = "tactics_too_many_comments"
    BOILERPLATE_COMMENTS = "boilerplate_comments"
    # Rule 6: the tactics described in the thinking are the tactics used in the proof.
    MISALIGNED_TACTICS = "misaligned_tactics"
    # Rule 7: the final code proves the given statement, unchanged.
    STATEMENT_MISMATCH = "statement_mismatch"
    # Rule 8: the response is longer than the configured maximum, or padded with whitespace.
    TOO_LONG = "too_long"
    WHITESPACE_PADDING = "whitespace_padding"
    JUNK_CHARACTERS = "junk_characters"
    JUNK_LINES = "junk_lines"
    # Rule 9: the final code is the proof, not padding (helper spam, long literals).
    CODE_PADDING = "code_padding"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Violation:
    """One broken rule: a stable `code` for machines and a `message` that tells a person what is wrong."""

    code: ViolationCode
    message: str

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"
