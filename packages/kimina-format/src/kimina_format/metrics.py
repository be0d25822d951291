"""Measure a parsed completion: lengths, repetition, tactic blocks, comment density, alignment, statement match.

Measuring is kept apart from judging (`kimina_format.rules`): metrics are reported whether or not a rule fails,
so a dashboard can plot how close completions come to each threshold.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from kimina_format.config import DEFAULT_CONFIG, FormatConfig
from kimina_format.lean_source import Comment, non_space_length, plain_tactic_lines, split_lean
from kimina_format.parsing import Block, Completion
from kimina_format.statement import statement_matches
from kimina_format.tactics import iou, tactics_used

# Near-duplicate key of a reasoning line: ASCII case folded, spaces and digits deleted. Working on bytes keeps it to
# one C-level pass over the text, whatever its size.
_KEY_TABLE = bytes.maketrans(string.ascii_uppercase.encode(), string.ascii_lowercase.encode())
_KEY_DELETE = b" \t0123456789"
_PUNCTUATION = re.compile(r"[^\w\s]+")
_ALNUM = re.compile(r"[^\W_]")
_DIGITS = re.compile(r"\d+")
# Comments that carry no information, after lower-casing and removing punctuation and numbers ("-- Step 2:").
PLACEHOLDER_COMMENTS = frozenset(
    {
        "", "proof", "the proof", "proof here", "your proof here", "proof goes here", "add proof here", "todo",
        "fixme", "done", "qed", "end", "step", "sorry", "placeholder", "fill in", "tactic", "tactics", "lean",
        "lean4", "lean code", "code", "complete the proof", "finish the proof", "continue", "etc", "here",
    }
)  # fmt: skip
_LONGEST_PLACEHOLDER = 40  # a comment longer than this (markers and spaces included) is never a placeholder


@dataclass(frozen=True)
class FormatMetrics:
    """Everything measured on one completion (JSON-friendly: numbers, booleans and tuples of numbers).

    Attributes:
        chars: Characters in the completion.
        tokens: Tokens in the completion (from the tokenizer callback, else estimated from `chars`).
        thinking_chars: Characters inside the think element.
        code_chars: Characters in the final Lean block.
        code_lines: Non-comment, non-blank lines of the final Lean block.
        reasoning_lines: Lines of reasoning (the thinking outside its tactic blocks), blank ones included.
        max_line_repeats: Occurrences of the most repeated long reasoning line (near-duplicates merged).
        duplicate_line_ratio: Share of long reasoning lines that repeat an earlier one.
        tactic_blocks: Number of ```` ```tactics ```` blocks in the thinking.
        tactic_block_lines: Non-comment, non-blank lines of each tactic block.
        tactic_block_proof_lines: Proof lines (header and statement lines excluded) of each tactic block.
        proof_lines: Non-comment, non-blank lines of the final proof body (header and statement excluded).
        proof_comment_chars: Non-whitespace characters of the comments in the final proof body.
        proof_comment_density: Share of the final proof body's non-whitespace characters that are comments.
        tactics_comment_chars: Non-whitespace characters of the comments in the tactic blocks.
        tactics_comment_density: Share of the tactic blocks' non-whitespace characters that are comments.
        boilerplate_comments: Comments with no letter or digit, placeholders (`-- TODO`), or repeats of an earlier
            comment of the same block, in the final proof and the tactic blocks.
        tactic_name_iou: IoU of the tactic names in the tactic blocks and in the final proof body.
        tactic_line_iou: IoU of the normalised proof lines in the tactic blocks and in the final proof body.
        tactic_name_coverage: Share of the final proof's tactic names that the tactic blocks also use.
        statement_match: Whether the final code holds the given statement (None when none was given or no code).
    """

    chars: int = 0
    tokens: int = 0
    thinking_chars: int = 0
    code_chars: int = 0
    code_lines: int = 0
    reasoning_lines: int = 0
    max_line_repeats: int = 0
    duplicate_line_ratio: float = 0.0
    tactic_blocks: int = 0
    tactic_block_lines: tuple[int, ...] = field(default=())
    tactic_block_proof_lines: tuple[int, ...] = field(default=())
    proof_lines: int = 0
    proof_comment_chars: int = 0
    proof_comment_density: float = 0.0
    tactics_comment_chars: int = 0
    tactics_comment_density: float = 0.0
    boilerplate_comments: int = 0
    tactic_name_iou: float = 0.0
    tactic_line_iou: float = 0.0
    tactic_name_coverage: float = 0.0
    statement_match: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """The metrics as a plain dict (tuples become lists), ready for `json.dumps`."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def measure(
    completion: Completion,
    *,
    formal_statement: str | None = None,
    config: FormatConfig = DEFAULT_CONFIG,
    count_tokens: Callable[[str], int] | None = None,
) -> FormatMetrics:
    """Measure every quantity the rules judge.

    Args:
        completion: The parsed completion.
        formal_statement: The statement the model was asked to prove (header included or not), if known.
        config: Thresholds; only `repetition_min_chars` and `chars_per_token` affect measuring.
        count_tokens: Exact token counter (e.g. `lambda s: len(tok.encode(s))`); else tokens are estimated.

    Returns:
        The metrics.
    """
    text = completion.text
    tokens = count_tokens(text) if count_tokens is not None else math.ceil(len(text) / config.chars_per_token)
    repetition = line_repetition(completion.reasoning, config.repetition_min_chars)
    blocks = tactic_block_lines(completion.tactic_blocks)
    code = completion.code
    final = split_lean(code) if code is not None else None

    commented = blocks.comments
    tactics_comment_chars = non_space_length("".join(c.text for comments in commented for c in comments))
    metrics: dict[str, Any] = {
        "chars": len(text),
        "tokens": tokens,
        "thinking_chars": completion.thinking_span.size if completion.thinking_span is not None else 0,
        "code_chars": len(code) if code is not None else 0,
        "reasoning_lines": repetition.lines,
        "max_line_repeats": repetition.max_repeats,
        "duplicate_line_ratio": repetition.duplicate_ratio,
        "tactic_blocks": len(blocks.code_lines),
        "tactic_block_lines": blocks.code_lines,
        "tactic_block_proof_lines": blocks.proof_lines,
        "tactics_comment_chars": tactics_comment_chars,
        # The code of a block is its text with the comments blanked: it lacks exactly their non-whitespace characters.
        "tactics_comment_density": _density(tactics_comment_chars, blocks.chars - tactics_comment_chars),
    }
    if final is None:
        return FormatMetrics(**metrics)

    body_comments = final.body_comments
    proof_comment_chars = non_space_length("".join(c.text for c in body_comments))
    think_names, think_invocations = tactics_used(blocks.body)
    final_names, final_invocations = tactics_used(final.body)
    metrics.update(
        code_lines=final.code_lines,
        proof_lines=len(final.body),
        proof_comment_chars=proof_comment_chars,
        proof_comment_density=_density(proof_comment_chars, non_space_length("".join(final.body))),
        boilerplate_comments=sum(map(_boilerplate_count, commented), _boilerplate_count(body_comments)),
        tactic_name_iou=iou(think_names, final_names),
        tactic_line_iou=iou(think_invocations, final_invocations),
        tactic_name_coverage=len(think_names & final_names) / len(final_names) if final_names else 1.0,
        statement_match=None if formal_statement is None else statement_matches(final, formal_statement),
    )
    return FormatMetrics(**metrics)


class TacticBlockLines(NamedTuple):
    """The lines of a completion's tactic blocks (see `tactic_block_lines`)."""

    code_lines: tuple[int, ...]
    proof_lines: tuple[int, ...]
    body: list[str]
    comments: list[tuple[Comment, ...]]
    chars: int


def tactic_block_lines(blocks: Iterable[Block]) -> TacticBlockLines:
    """Take the tactic blocks apart: each one's code and proof lines, all their proof lines, the comments of each.

    `chars` counts the non-whitespace characters of the blocks, comments included. A block of plain tactics (most
    are) needs only its lines stripped; the others go through `split_lean`.
    """
    code_lines: list[int] = []
    proof_lines: list[int] = []
    body: list[str] = []
    comments: list[tuple[Comment, ...]] = []
    texts = [block.text for block in blocks]
    for text in texts:
        lines = plain_tactic_lines(text)
        if lines is None:
            parts = split_lean(text)
            lines = parts.body
            code_lines.append(parts.code_lines)
            if parts.comments:
                comments.append(parts.comments)
        else:
            code_lines.append(len(lines))
        proof_lines.append(len(lines))
        body += lines
    return TacticBlockLines(tuple(code_lines), tuple(proof_lines), body, comments, non_space_length("".join(texts)))


class Repetition(NamedTuple):
    """How repetitive the reasoning is (see `line_repetition`)."""

    max_repeats: int
    duplicate_ratio: float
    lines: int


def line_repetition(reasoning: str, min_chars: int) -> Repetition:
    """Count near-duplicate long lines: the most repeated one's count, the share of long lines that repeat, all lines.

    Two lines are near-duplicates when they are equal after ASCII case folding and deleting spaces and digits, so
    `Case n = 3: 9 > 8` and `case n=4: 16 > 15` match. Lines shorter than `min_chars` after that are ignored.
    """
    keys = reasoning.encode().translate(_KEY_TABLE, _KEY_DELETE)
    # Only the long lines are counted: a regex finds them without making an object of every short line. It matches
    # from the newline before a line, so the first line is looked at apart (rather than copying the keys after "\n").
    long_lines = _long_lines(min_chars).findall(keys)
    first_end = keys.find(b"\n")
    first = keys if first_end == -1 else keys[:first_end]
    if len(first) >= min_chars:
        long_lines.append(first)
    long_counts = Counter(long_lines).values()
    lines = keys.count(b"\n") + 1
    if not long_counts:
        return Repetition(0, 0.0, lines)
    return Repetition(max(long_counts), 1.0 - len(long_counts) / sum(long_counts), lines)


@lru_cache
def _long_lines(min_chars: int) -> re.Pattern[bytes]:
    """Matches each line of at least `min_chars` bytes, from the newline before it."""
    return re.compile(rb"\n([^\n]{%d,})" % max(min_chars, 0))


def line_keys(text: str) -> list[bytes]:
    """Near-duplicate keys of each line of `text` (see `line_repetition`), in order."""
    return text.encode().translate(_KEY_TABLE, _KEY_DELETE).split(b"\n")


def _density(comment_chars: int, code_chars: int) -> float:
    total = comment_chars + code_chars
    return comment_chars / total if total else 0.0


def _boilerplate_count(comments: Iterable[Comment]) -> int:
    """Comments that say nothing: no letter or digit, a placeholder phrase, or a repeat of an earlier comment."""
    seen: set[str] = set()
    count = 0
    for comment in comments:
        key = " ".join(comment.text.lower().split())
        if key in seen or _ALNUM.search(key) is None or (len(key) <= _LONGEST_PLACEHOLDER and _is_placeholder(key)):
            count += 1
        seen.add(key)
    return count


def _is_placeholder(comment: str) -> bool:
    words = " ".join(_DIGITS.sub("", _PUNCTUATION.sub(" ", comment)).split())
    return words in PLACEHOLDER_COMMENTS
