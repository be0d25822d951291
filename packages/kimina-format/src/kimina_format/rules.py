"""The format rules: judge a parsed completion and its metrics against a `FormatConfig`, one function per rule."""

from __future__ import annotations

import math
from collections.abc import Callable

from kimina_format.config import FormatConfig
from kimina_format.metrics import FormatMetrics
from kimina_format.parsing import THINK_CLOSE, THINK_OPEN, Completion
from kimina_format.repetition import looped_passage, most_repeated_line, near_duplicate_line
from kimina_format.violations import Violation
from kimina_format.violations import ViolationCode as Code

__all__ = ["judge", "max_tactic_block_lines"]

Rule = Callable[[Completion, FormatMetrics, FormatConfig], list[Violation]]


def think_block(c: Completion, m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 1: exactly one think element, opened and closed, before anything else."""
    opens, closes = c.think_open_tags, c.think_close_tags
    if opens > 1 or closes > 1:
        return [
            Violation(
                Code.THINK_MALFORMED,
                f"expected one {THINK_OPEN}...{THINK_CLOSE}, found {opens} {THINK_OPEN} and {closes} {THINK_CLOSE} tags",
            )
        ]
    if closes == 0:
        if opens == 0 and not config.think_open_optional:
            return [Violation(Code.THINK_MISSING, f"no {THINK_OPEN}...{THINK_CLOSE} block")]
        return [
            Violation(Code.THINK_UNCLOSED, f"{THINK_OPEN} is never closed by {THINK_CLOSE} (truncated generation?)")
        ]
    if opens == 0:
        if config.think_open_optional:
            return []
        return [Violation(Code.THINK_MISSING, f"{THINK_CLOSE} without an opening {THINK_OPEN}")]
    if not c.think_closed:
        return [Violation(Code.THINK_MALFORMED, f"{THINK_CLOSE} comes before {THINK_OPEN}")]
    if c.before_think.strip():
        return [Violation(Code.TEXT_BEFORE_THINK, f"{len(c.before_think.strip())} characters before {THINK_OPEN}")]
    return []


def final_code_block(c: Completion, m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 2: exactly one Lean block after the thinking, closed, in an accepted language, with nothing after it."""
    if c.think is not None and not c.think_closed:
        return []  # the thinking never ended: rule 1 already says so, and there is no code to look for
    block = c.final_block
    if block is None:
        return [Violation(Code.CODE_MISSING, "no ```lean4 block after the thinking")]
    violations = []
    if block.language not in config.code_languages:
        accepted = ", ".join(config.code_languages)
        violations.append(
            Violation(Code.CODE_MISSING, f"final block is fenced `{block.language}`, expected: {accepted}")
        )
    if not block.closed:
        violations.append(Violation(Code.CODE_UNCLOSED, "the final Lean block is never closed (truncated generation?)"))
    in_thinking = len(c.lean_blocks_in_thinking)
    if len(c.code_blocks) > 1 or in_thinking:
        found = f"{len(c.code_blocks)} after the thinking" + (f" and {in_thinking} inside it" if in_thinking else "")
        violations.append(
            Violation(Code.CODE_MULTIPLE, f"expected one Lean block, found {found} (use ```tactics in the thinking)")
        )
    after = c.after_code.strip()
    if after:
        violations.append(
            Violation(Code.TEXT_AFTER_CODE, f"{len(after)} characters after the final Lean block: {_quote(after)}")
        )
    most = config.max_summary_chars
    if most is not None and m.summary_chars > most:
        violations.append(
            Violation(
                Code.SUMMARY_TOO_LONG,
                f"{m.summary_chars} characters between {THINK_CLOSE} and the final Lean block (limit {most})",
            )
        )
    most = config.max_summary_blocks
    if most is not None and m.summary_blocks > most:
        violations.append(
            Violation(
                Code.CODE_MULTIPLE,
                f"{m.summary_blocks} fenced blocks between {THINK_CLOSE} and the final Lean block (limit {most}):"
                " the final block is the only code after the thinking",
            )
        )
    most = config.max_summary_line_repeats
    if most is not None and m.summary_line_repeats > most:
        violations.append(
            Violation(Code.SUMMARY_REPEATS, f"a summary line occurs {m.summary_line_repeats} times (limit {most})")
        )
    most = config.max_summary_sentence_repeats
    if most is not None and m.summary_sentence_repeats > most:
        violations.append(
            Violation(
                Code.SUMMARY_REPEATS, f"a summary sentence occurs {m.summary_sentence_repeats} times (limit {most})"
            )
        )
    most = config.max_summary_code_lines
    if most is not None and m.summary_code_lines > most:
        violations.append(
            Violation(
                Code.SUMMARY_REPEATS,
                f"the summary copies {m.summary_code_lines} lines of the final code (limit {most})",
            )
        )
    most = config.max_summary_thinking_lines
    if most is not None and m.summary_thinking_lines > most:
        violations.append(
            Violation(
                Code.SUMMARY_REPEATS,
                f"{m.summary_thinking_lines} summary lines copy prose lines of the thinking (limit {most})",
            )
        )
    most = config.max_summary_boxed
    if most is not None and m.summary_boxed > most:
        violations.append(
            Violation(Code.SUMMARY_REPEATS, f"{m.summary_boxed} \\boxed answers in the summary (limit {most})")
        )
    return violations


def _remarks(m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 3's bounds on a verbal tic: remarks said again and again, and one opener or closer line after line."""
    violations = []
    limit = config.max_mid_line_remarks
    if limit is not None and m.mid_line_remarks > limit:
        violations.append(
            Violation(
                Code.SHORT_LINE_REPEATS,
                f"short sentences said again in the middle of lines, each twice or more, occur {m.mid_line_remarks}"
                f" times in all (limit {limit})",
            )
        )
    limit = config.max_repeated_remarks
    if limit is not None and m.repeated_remarks > limit:
        violations.append(
            Violation(
                Code.SHORT_LINE_REPEATS,
                f"short remarks of words alone, each written three times or more, occur {m.repeated_remarks} times in"
                f" all (limit {limit})",
            )
        )
    share = config.max_opener_share
    if share is not None and m.opener_share > share:
        violations.append(
            Violation(
                Code.SHORT_LINE_REPEATS,
                f"{m.opener_share:.0%} of the prose lines open or close alike: one word before a comma, a dash or an"
                f" ellipsis, two words, or a question (`Wait, ...`, `Okay so ...`, `..., right?`; limit {share:.0%})",
            )
        )
    share = config.max_sentence_opener_share
    if share is not None and m.sentence_opener_share > share:
        violations.append(
            Violation(
                Code.SHORT_LINE_REPEATS,
                f"{m.sentence_opener_share:.0%} of the sentences inside the prose's lines open with one tic (a word"
                f" or two before a comma, a dash or an ellipsis: `Wait, `; limit {share:.0%})",
            )
        )
    share = config.max_sentence_closer_share
    if share is not None and m.sentence_closer_share > share:
        violations.append(
            Violation(
                Code.SHORT_LINE_REPEATS,
                f"{m.sentence_closer_share:.0%} of the prose's sentences close with one tic (up to three words after"
                f" a comma, a dash or an ellipsis: `, I think.`; limit {share:.0%})",
            )
        )
    return violations


def _short_loops(m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Part of rule 3: loops of short lines, or of copies told apart by a counter or made of bare lines."""
    violations = []
    limit = config.max_short_consecutive_repeats
    if limit is not None and m.short_consecutive_repeats > limit:
        violations.append(
            Violation(
                Code.CONSECUTIVE_REPEATS,
                f"a passage is written {m.short_consecutive_repeats} times in a row (limit {limit}; copies told apart"
                f" by a counter, and bare lines, {config.max_template_repeats})",
            )
        )
    limit = config.max_counted_lines
    if limit is not None and m.counted_lines > limit:
        violations.append(
            Violation(
                Code.CONSECUTIVE_REPEATS,
                f"{m.counted_lines} prose lines are sentences written again and again in a row with a counter"
                f" (limit {limit})",
            )
        )
    return violations


def repetition(c: Completion, m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 3: no long prose line repeated too often, no passage looping, no line with too many near-duplicates."""
    violations = []
    limit = config.max_line_repeats
    if limit is not None and m.max_line_repeats > limit:
        line = most_repeated_line(c.prose, config.repetition_min_chars)
        violations.append(
            Violation(
                Code.REPEATED_LINES,
                f"a prose line occurs {m.max_line_repeats} times (limit {limit}): {_quote(line)}",
            )
        )
    limit = config.max_consecutive_repeats
    if limit is not None and m.consecutive_repeats > limit:
        passage = "a line" if m.loop_lines == 1 else f"a passage of {m.loop_lines} lines"
        line = looped_passage(c.prose, config.repetition_min_chars)
        violations.append(
            Violation(
                Code.CONSECUTIVE_REPEATS,
                f"{passage} is written {m.consecutive_repeats} times in a row (limit {limit}): {_quote(line)}",
            )
        )
    limit = config.max_code_loop_repeats
    if limit is not None and m.code_loop_repeats > limit:
        violations.append(
            Violation(
                Code.CODE_REPEATS,
                f"a passage of proof lines is written {m.code_loop_repeats} times in a row in a tactic block or the"
                f" final proof (limit {limit})",
            )
        )
    limit = config.max_template_repeats
    if limit is not None and m.template_repeats > limit:
        violations.append(
            Violation(
                Code.CONSECUTIVE_REPEATS,
                f"{m.template_repeats} copies in a row of a passage that differ only in a word or two (limit {limit})",
            )
        )
    violations += _short_loops(m, config)
    limit = config.max_alike_lines
    if limit is not None and m.alike_lines > limit:
        violations.append(
            Violation(
                Code.NEAR_DUPLICATES,
                f"{m.alike_lines} prose lines are one line with a word or two changed (limit {limit})",
            )
        )
    limit = config.max_reworded_lines
    if limit is not None and m.reworded_lines > limit:
        violations.append(
            Violation(
                Code.NEAR_DUPLICATES,
                f"{m.reworded_lines} prose lines are one line reworded in a word or two, at places that vary"
                f" (limit {limit})",
            )
        )
    limit = config.max_shuffled_copies
    if limit is not None and m.shuffled_copies > limit:
        violations.append(
            Violation(
                Code.NEAR_DUPLICATES,
                f"{m.shuffled_copies} prose lines hold a sentence of one paragraph written again and again in other"
                f" orders, reworded a little or not (limit {limit})",
            )
        )
    limit = config.max_medium_line_repeats
    if limit is not None and m.medium_line_repeats > limit:
        violations.append(
            Violation(
                Code.SHORT_LINE_REPEATS,
                f"a prose line under {config.repetition_min_chars} bytes occurs {m.medium_line_repeats} times"
                f" (limit {limit})",
            )
        )
    limit = config.max_near_duplicates
    if limit is not None and m.near_duplicates > limit:
        line = near_duplicate_line(c.prose, config.near_duplicate_min_chars)
        violations.append(
            Violation(
                Code.NEAR_DUPLICATES,
                f"{m.near_duplicates} prose lines are near-copies of one (limit {limit}): {_quote(line)}",
            )
        )
    limit = config.max_paraphrased_copies
    if limit is not None and m.paraphrased_copies > limit:
        violations.append(
            Violation(
                Code.NEAR_DUPLICATES,
                f"{m.paraphrased_copies} prose lines share one passage, reworded around it (limit {limit})",
            )
        )
    limit = config.max_short_line_repeats
    if limit is not None and m.short_line_repeats > limit:
        violations.append(
            Violation(
                Code.SHORT_LINE_REPEATS,
                f"a short prose line occurs {m.short_line_repeats} times (limit {limit})",
            )
        )
    violations += _remarks(m, config)
    limit = config.max_paragraph_repeats
    if limit is not None and m.paragraph_repeats > limit:
        violations.append(
            Violation(
                Code.PARAGRAPH_REPEATS,
                f"a paragraph of the thinking occurs {m.paragraph_repeats} times (limit {limit})",
            )
        )
    violations += _spread_repetition(m, config)
    limit = config.max_line_chars
    if limit is not None and m.longest_line_chars > limit:
        violations.append(
            Violation(
                Code.LINE_TOO_LONG,
                f"a prose line has {m.longest_line_chars} bytes without spaces and digits (limit {limit})",
            )
        )
    return violations


def _spread_repetition(m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 3, the loops that no single line and no passage in a row show.

    A long line or a passage written again and again, its copies apart; lines each written often, whatever their
    order; sentences echoed at once (`X. X. Y. Y.`); a phrase written again within one line; a loop of blocks with the
    prose before each; the thinking written again, each line reworded a little.
    """
    violations = []
    share = config.max_reworded_line_share
    if share is not None and m.reworded_line_share > share:
        violations.append(
            Violation(
                Code.NEAR_DUPLICATES,
                f"{m.reworded_line_share:.0%} of the distinct long prose lines have a copy, word for word or changed"
                f" at one place (limit {share:.0%})",
            )
        )
    limit = config.max_long_line_repeats
    if limit is not None and m.long_line_repeats > limit:
        violations.append(
            Violation(
                Code.REPEATED_LINES,
                f"a prose line of 80 key bytes or more occurs {m.long_line_repeats} times (limit {limit})",
            )
        )
    limit = config.max_passage_repeats
    if limit is not None and m.passage_repeats > limit:
        violations.append(
            Violation(
                Code.PARAGRAPH_REPEATS,
                f"a passage of two lines or more occurs {m.passage_repeats} times in the thinking (limit {limit})",
            )
        )
    limit = config.max_clause_repeats
    if limit is not None and m.clause_repeats > limit:
        violations.append(
            Violation(
                Code.PARAGRAPH_REPEATS,
                f"a stretch of the prose occurs {m.clause_repeats} times, whatever its line breaks (limit {limit})",
            )
        )
    limit = config.max_often_repeated_lines
    if limit is not None and m.often_repeated_lines > limit:
        violations.append(
            Violation(
                Code.REPEATED_LINES,
                f"long prose lines that each occur five times or more occur {m.often_repeated_lines} times in all"
                f" (limit {limit})",
            )
        )
    share = config.max_duplicate_line_share
    if share is not None and m.duplicate_line_share > share:
        violations.append(
            Violation(
                Code.REPEATED_LINES,
                f"{m.duplicate_line_share:.0%} of the distinct long prose lines occur more than once (limit"
                f" {share:.0%})",
            )
        )
    rate = config.max_echo_rate
    if rate is not None and m.echo_rate > rate:
        violations.append(
            Violation(
                Code.CONSECUTIVE_REPEATS,
                f"{m.echo_rate:.0%} of the long prose lines say a sentence or clause again at once, or a phrase twice"
                f" (limit {rate:.0%})",
            )
        )
    limit = config.max_inline_repeats
    if limit is not None and m.inline_repeats > limit:
        violations.append(
            Violation(
                Code.CONSECUTIVE_REPEATS,
                f"one line of the prose or the summary writes a phrase {m.inline_repeats} times (limit {limit})",
            )
        )
    limit = config.max_block_loop_repeats
    if limit is not None and m.block_loop_repeats > limit:
        violations.append(
            Violation(
                Code.CONSECUTIVE_REPEATS,
                f"a passage of blocks, each with the prose before it, is written {m.block_loop_repeats} times in a"
                f" row in the thinking (limit {limit})",
            )
        )
    return violations


def tactic_blocks(c: Completion, m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 4: enough tactic blocks, each with enough code lines and no more proof lines than the proof warrants."""
    if not c.think_closed:
        return []  # no thinking, or a truncated one: rule 1 says so, and its blocks cannot be judged
    violations = []
    if config.min_tactic_blocks is not None and m.distinct_tactic_blocks < config.min_tactic_blocks:
        copies = f" ({m.tactic_blocks} with copies)" if m.tactic_blocks > m.distinct_tactic_blocks else ""
        violations.append(
            Violation(
                Code.TOO_FEW_TACTIC_BLOCKS,
                f"{m.distinct_tactic_blocks} different ```tactics blocks in the thinking{copies}, need"
                f" {config.min_tactic_blocks}",
            )
        )
    least = config.min_tactic_block_lines
    if least is not None and m.tactic_block_lines and min(m.tactic_block_lines) < least:
        short = [i for i, n in enumerate(m.tactic_block_lines, 1) if n < least]
        lacking = "no line of code" if least == 1 else f"fewer than {least} lines of code"
        verb = "has" if len(short) == 1 else "have"
        violations.append(
            Violation(Code.TACTIC_BLOCK_TOO_SHORT, f"{_blocks(short)} of {m.tactic_blocks} {verb} {lacking}")
        )
    if m.unclosed_fences:
        verb = "is" if m.unclosed_fences == 1 else "are"
        violations.append(
            Violation(
                Code.FENCE_UNCLOSED,
                f"{m.unclosed_fences} fenced blocks in the thinking {verb} never closed (the text after the fence"
                " would be read as code)",
            )
        )
    limit = max_tactic_block_lines(m.proof_lines, config)
    longest = max(m.tactic_block_proof_lines, default=0)
    if limit is not None and longest > limit and c.code is not None:  # without a final proof, nothing to compare to
        long = [i for i, n in enumerate(m.tactic_block_proof_lines, 1) if n > limit]
        violations.append(
            Violation(
                Code.TACTIC_BLOCK_TOO_LONG,
                f"{_blocks(long)} longer than {limit} proof lines (longest {longest}; the final proof has {m.proof_lines})",
            )
        )
    most = config.max_code_line_chars
    if most is not None and m.longest_tactic_line > most:
        violations.append(
            Violation(
                Code.TACTIC_BLOCK_TOO_LONG, f"a tactic-block line has {m.longest_tactic_line} characters (limit {most})"
            )
        )
    most = config.max_padded_tactic_lines
    if most is not None and m.padded_tactic_lines > most:
        violations.append(
            Violation(
                Code.TACTIC_BLOCK_TOO_LONG,
                f"{m.padded_tactic_lines} tactic-block lines are one short unit written again and again (limit {most})",
            )
        )
    most = config.max_tactic_prose_lines
    if most is not None and m.tactic_prose_lines > most:
        violations.append(
            Violation(
                Code.TACTIC_BLOCK_PROSE,
                f"{m.tactic_prose_lines} tactic-block lines are English sentences, not code (limit {most})",
            )
        )
    most = config.max_final_proof_copies
    if most is not None and m.final_proof_copies > most:
        violations.append(
            Violation(
                Code.COPIED_CODE,
                f"the tactic blocks hold the whole final proof {m.final_proof_copies} times (limit {most})",
            )
        )
    most = config.max_short_proof_copies
    if most is not None and m.short_proof_copies > most:
        violations.append(
            Violation(
                Code.COPIED_CODE,
                f"the tactic blocks hold the whole final proof of one or two lines {m.short_proof_copies} times"
                f" (limit {most})",
            )
        )
    share = config.max_copied_code_share
    if share is not None and m.copied_code_share > share:
        violations.append(
            Violation(
                Code.COPIED_CODE,
                f"{m.copied_code_share:.0%} of the thinking is lines copied from the final code (limit {share:.0%})",
            )
        )
    share = config.max_copied_to_reasoning
    if share is not None and m.copied_to_reasoning > share:
        violations.append(
            Violation(
                Code.COPIED_CODE,
                f"the code copied from the final code into the thinking is {m.copied_to_reasoning:.0%} of the"
                f" reasoning's size (limit {share:.0%})",
            )
        )
    share = config.max_prose_code_share
    if share is not None and m.prose_code_share > share:
        violations.append(
            Violation(
                Code.COPIED_CODE,
                f"{m.prose_code_share:.0%} of the prose is lines of the final code (limit {share:.0%})",
            )
        )
    least = config.min_reasoning_chars
    if least is not None and m.reasoning_chars < least and c.think_closed:
        violations.append(
            Violation(
                Code.REASONING_TOO_SHORT,
                f"{m.reasoning_chars} characters of reasoning outside the blocks (least {least})",
            )
        )
    return violations


def max_tactic_block_lines(proof_lines: int, config: FormatConfig) -> int | None:
    """The most proof lines one tactic block may have, for a final proof of `proof_lines` lines (None: no limit)."""
    if config.max_tactic_block_lines_ratio is None:
        return None
    return max(config.max_tactic_block_lines_floor, math.ceil(config.max_tactic_block_lines_ratio * proof_lines))


def comments(c: Completion, m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 5: comment density of the final proof body and of the tactic blocks, and boilerplate comments."""
    violations = []
    free = config.comment_density_free_chars
    limit = config.max_proof_comment_density
    if limit is not None and m.proof_comment_density > limit and m.proof_comment_chars > free:
        violations.append(
            Violation(
                Code.PROOF_TOO_MANY_COMMENTS,
                f"comments are {m.proof_comment_density:.0%} of the final proof (limit {limit:.0%})",
            )
        )
    most = config.max_proof_prose_comment_chars
    if most is not None and m.proof_prose_comment_chars > most:
        violations.append(
            Violation(
                Code.PROOF_TOO_MANY_COMMENTS,
                f"the final code's comments quote {m.proof_prose_comment_chars} key bytes of the reasoning"
                f" (limit {most})",
            )
        )
    most = config.max_code_comment_chars
    if most is not None and m.code_comment_chars > most:
        violations.append(
            Violation(
                Code.CODE_TOO_MANY_COMMENTS,
                f"{m.code_comment_chars} characters of comments in the final code (limit {most})",
            )
        )
    limit = config.max_code_comment_density
    if limit is not None and m.code_comment_density > limit and m.code_comment_chars > config.code_comment_free_chars:
        violations.append(
            Violation(
                Code.CODE_TOO_MANY_COMMENTS,
                f"comments are {m.code_comment_density:.0%} of the final code (limit {limit:.0%})",
            )
        )
    limit = config.max_tactics_comment_density
    if limit is not None and m.tactics_comment_density > limit and m.tactics_comment_chars > free:
        violations.append(
            Violation(
                Code.TACTICS_TOO_MANY_COMMENTS,
                f"comments are {m.tactics_comment_density:.0%} of the tactic blocks (limit {limit:.0%})",
            )
        )
    most = config.max_comment_repeats
    if most is not None and m.comment_repeats > most:
        violations.append(
            Violation(
                Code.BOILERPLATE_COMMENTS,
                f"one comment occurs {m.comment_repeats} times in the final code, numbers aside (limit {most})",
            )
        )
    most = config.max_boilerplate_comments
    if most is not None and m.boilerplate_comments > most:
        violations.append(
            Violation(
                Code.BOILERPLATE_COMMENTS,
                f"{m.boilerplate_comments} empty, placeholder or repeated comments (limit {most})",
            )
        )
    return violations


def alignment(c: Completion, m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 6: the tactic blocks use the final proof's tactics (coverage) and not mostly others (IoU)."""
    if c.code is None:
        return []
    least = config.min_tactic_name_iou
    if least is not None and m.tactic_name_iou < least:
        return [
            Violation(
                Code.MISALIGNED_TACTICS,
                f"the tactic blocks and the final proof use different tactics ({_scores(m)}; need IoU {least:.2f})",
            )
        ]
    least = config.min_tactic_name_coverage
    if least is not None and m.tactic_name_coverage < least:
        return [
            Violation(
                Code.MISALIGNED_TACTICS,
                f"the final proof's tactics are mostly missing from the tactic blocks ({_scores(m)}; need coverage {least:.2f})",
            )
        ]
    return []


def _scores(m: FormatMetrics) -> str:
    return f"name IoU {m.tactic_name_iou:.2f}, name coverage {m.tactic_name_coverage:.2f}, line IoU {m.tactic_line_iou:.2f}"


def statement(c: Completion, m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 7: the final code states the given theorem unchanged (comments and spacing aside)."""
    if m.statement_match is False:
        return [Violation(Code.STATEMENT_MISMATCH, "the final code does not contain the given statement unchanged")]
    return []


def length(c: Completion, m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 8: the response fits in `max_tokens` (the soft penalty below that is `length_penalty`), unpadded."""
    violations = []
    if config.max_tokens is not None and m.tokens > config.max_tokens:
        violations.append(Violation(Code.TOO_LONG, f"{m.tokens} tokens, more than the maximum {config.max_tokens}"))
    most = config.max_space_run
    if most is not None and m.space_run > most:
        violations.append(Violation(Code.WHITESPACE_PADDING, f"{m.space_run} spaces or tabs in a row (limit {most})"))
    most = config.max_blank_lines
    if most is not None and m.blank_line_run > most:
        violations.append(Violation(Code.WHITESPACE_PADDING, f"{m.blank_line_run} blank lines in a row (limit {most})"))
    most = config.max_trailing_whitespace
    if most is not None and m.after_code_chars > most and not c.after_code.strip():
        violations.append(
            Violation(
                Code.WHITESPACE_PADDING,
                f"{m.after_code_chars} whitespace characters after the final Lean block (limit {most})",
            )
        )
    most = config.max_extra_blank_lines
    if most is not None and m.extra_blank_lines > most:
        violations.append(
            Violation(
                Code.WHITESPACE_PADDING,
                f"{m.extra_blank_lines} blank lines follow another blank line (limit {most})",
            )
        )
    most = config.max_trailing_space_lines
    if most is not None and m.trailing_space_lines > most:
        violations.append(
            Violation(
                Code.WHITESPACE_PADDING,
                f"{m.trailing_space_lines} lines end in four spaces or more or a tab, or are one to three spaces (limit {most})",
            )
        )
    violations += _spread_whitespace(m, config)
    limit = config.max_whitespace_share
    if limit is not None and m.whitespace_share > limit:
        violations.append(
            Violation(
                Code.WHITESPACE_PADDING,
                f"{m.whitespace_share:.0%} of the completion is spaces, tabs and newlines (limit {limit:.0%})",
            )
        )
    limit = config.max_code_whitespace_share
    if limit is not None and m.code_whitespace_share > limit:
        violations.append(
            Violation(
                Code.WHITESPACE_PADDING,
                f"{m.code_whitespace_share:.0%} of the final code or of the tactic blocks is spaces, tabs and newlines"
                f" (limit {limit:.0%})",
            )
        )
    most = config.max_tab_chars
    if most is not None and m.tab_chars > most:
        violations.append(Violation(Code.WHITESPACE_PADDING, f"{m.tab_chars} tab characters (limit {most})"))
    most = config.max_blank_markup
    if most is not None and m.blank_markup > most:
        violations.append(
            Violation(
                Code.WHITESPACE_PADDING,
                f"{m.blank_markup} pieces of markup that render as blank space or nothing (HTML, TeX spaces)"
                f" (limit {most})",
            )
        )
    return violations + _junk(m, config)


def _spread_whitespace(m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 8's whitespace spread thin: between words, and in indentation deeper than any nesting needs.

    Two bounds grow with the text past their default: a long completion may hold more tables aligned with spaces (4%
    of its characters), and a long thinking a draft indented as Markdown code (a third of its lines).
    """
    measures = (
        (config.max_deep_indent_chars, 0, m.deep_indent_chars, "spaces of indentation that no nesting needs"),
        (
            config.max_code_indent,
            0,
            m.code_indent,
            "spaces before the least indented of the final code's indented lines",
        ),
        (config.max_spaced_gap_chars, m.chars // 25, m.spaced_gap_chars, "extra spaces between the words of lines"),
        (
            config.max_indented_prose_lines,
            m.reasoning_lines // 3,
            m.indented_prose_lines,
            "lines of the prose indented by five columns or more",
        ),
    )
    return [
        Violation(Code.WHITESPACE_PADDING, f"{value} {what} (limit {max(most, share)})")
        for most, share, value, what in measures
        if most is not None and value > max(most, share)
    ]


def _junk(m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 8's second half: no characters that carry no text or disguise it, and no lines that are not words."""
    violations = []
    most = config.max_invisible_chars
    if most is not None and m.invisible_chars > most:
        violations.append(
            Violation(
                Code.JUNK_CHARACTERS,
                f"{m.invisible_chars} invisible characters (zero-width, control or non-ASCII spaces) (limit {most})",
            )
        )
    most = config.max_symbol_chars
    if most is not None and m.symbol_chars > most:
        violations.append(Violation(Code.JUNK_CHARACTERS, f"{m.symbol_chars} emoji or pictographs (limit {most})"))
    most = config.max_lookalike_chars
    if most is not None and m.lookalike_chars > most:
        violations.append(
            Violation(
                Code.JUNK_CHARACTERS,
                f"{m.lookalike_chars} letters look like Latin ones but are other characters (combining marks,"
                f" full-width, mathematical, Greek or Cyrillic look-alikes; limit {most})",
            )
        )
    most = config.max_punctuation_run_chars
    if most is not None and m.punctuation_run_chars > most:
        violations.append(
            Violation(
                Code.JUNK_CHARACTERS,
                f"{m.punctuation_run_chars} characters of the prose are runs of punctuation marks or symbols (limit {most})",
            )
        )
    most = config.max_junk_lines
    if most is not None and m.junk_lines > most:
        violations.append(
            Violation(
                Code.JUNK_LINES,
                f"{m.junk_lines} prose lines are not words (symbols or letters without spaces, or word salad;"
                f" limit {most})",
            )
        )
    most = config.max_bare_lines
    if most is not None and m.bare_lines:
        violations.append(
            Violation(
                Code.JUNK_LINES,
                f"{m.bare_lines} prose lines are punctuation marks and symbols with one letter or digit at most"
                f" (limit {most}, or a third of the lines)",
            )
        )
    return violations


def code_padding(c: Completion, m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 9: the final code is the theorem and a few helpers, not padding that Lean accepts."""
    if c.code is None:
        return []
    violations = []
    most = config.max_code_declarations
    if most is not None and m.code_declarations > most:
        violations.append(
            Violation(Code.CODE_PADDING, f"{m.code_declarations} declarations in the final code (limit {most})")
        )
    most = config.max_declaration_copies
    if most is not None and m.declaration_copies > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.declaration_copies} declarations of the final code state and prove the same thing (limit {most})",
            )
        )
    most = config.max_filler_tactics
    if most is not None and m.filler_tactics > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.filler_tactics} tactics that do nothing (`skip`, `trace_state`, a `have` of `True`, a `<;>` step"
                f" a seventh time) in the final code and the tactic blocks (limit {most})",
            )
        )
    most = config.max_try_tactics
    if most is not None and m.try_tactics > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.try_tactics} tactics that may do nothing (`try`, `repeat`, `iterate`, `first`) in the final code"
                f" (limit {most})",
            )
        )
    most = config.max_guarded_steps
    if most is not None and m.guarded_steps > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.guarded_steps} steps of the final code that may never run (under `all_goals`, `try`, `first`, or"
                f" after a `<;>` or a `<|>`; limit {most})",
            )
        )
    most = config.max_header_lines
    if most is not None and m.header_lines > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.header_lines} lines of the final code outside its declarations (imports, options; limit {most})",
            )
        )
    most = config.max_header_repeats
    if most is not None and m.header_repeats > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"a line outside the final code's declarations occurs {m.header_repeats} times (limit {most})",
            )
        )
    most = config.max_code_commands
    if most is not None and m.code_commands > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.code_commands} `#` commands (`#check`, `#eval`, ...) in the final code (limit {most})",
            )
        )
    most = config.max_hint_items
    if most is not None and m.hint_items > most:
        violations.append(
            Violation(
                Code.CODE_PADDING, f"{m.hint_items} items in one bracketed list of the final proof (limit {most})"
            )
        )
    most = config.max_duplicate_hints
    if most is not None and m.duplicate_hints > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.duplicate_hints} items of one bracketed list of the final proof repeat an earlier item (limit"
                f" {most})",
            )
        )
    return violations + _code_text(m, config)


def _code_text(m: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Rule 9's second half: no text carried as literals or names, no helpers or code around the theorem to pad it."""
    violations = []
    most = config.max_code_literal_chars
    if most is not None and m.code_literal_chars > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.code_literal_chars} characters of string literals in the final code (limit {most})",
            )
        )
    most = config.max_code_english_words
    if most is not None and m.code_english_words > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.code_english_words} English words (`the`, `we`, `because`, ...) in the names of the final code"
                f" and the tactic blocks (limit {most})",
            )
        )
    most = config.max_helper_chars
    if most is not None and m.helper_chars > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.helper_chars} characters of helper declarations around the theorem (limit {most})",
            )
        )
    most = config.max_trailing_declarations
    if most is not None and m.trailing_declarations > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"{m.trailing_declarations} declarations after the theorem's proof (limit {most})",
            )
        )
    most = config.max_code_line_chars
    if most is not None and m.longest_code_line > most:
        violations.append(
            Violation(
                Code.CODE_PADDING,
                f"a line of the final code has {m.longest_code_line} characters (limit {most})",
            )
        )
    return violations


RULES: tuple[Rule, ...] = (
    think_block,
    final_code_block,
    repetition,
    tactic_blocks,
    comments,
    alignment,
    statement,
    length,
    code_padding,
)


def judge(completion: Completion, metrics: FormatMetrics, config: FormatConfig) -> list[Violation]:
    """Apply every rule, in order, and return all the violations found."""
    return [v for rule in RULES for v in rule(completion, metrics, config)]


def _blocks(indices: list[int]) -> str:
    shown = ", ".join(map(str, indices[:8])) + (", ..." if len(indices) > 8 else "")
    return f"tactic block {shown}" if len(indices) == 1 else f"{len(indices)} tactic blocks ({shown})"


def _quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
