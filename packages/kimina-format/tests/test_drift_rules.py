"""The rules against RL drift (loops, code for reasoning, padding, broken structure, comment dumps), each on both sides
of its threshold, on small synthetic completions; the same attacks on real completions are in test_drift_mutations.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.padding import longest_run, over_limit_run
from kimina_format.testing import SAMPLE_FORMAL_STATEMENT
from kimina_format.testing import SAMPLE_HEADER as HEADER
from kimina_format.testing import SAMPLE_PROOF as PROOF
from kimina_format.testing import SAMPLE_STATEMENT as STATEMENT

Builder = Callable[..., str]
Code = ViolationCode
CODE = HEADER + STATEMENT + "\n" + PROOF


def codes(text: str, **kwargs: object) -> set[ViolationCode]:
    return set(check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT, **kwargs).codes)  # type: ignore[arg-type]


WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def distinct_lines(count: int, start: int = 0) -> list[str]:
    """Long prose lines that share no near-duplicate key, opening or ending (words, not numbers, tell them apart)."""
    words = WORDS
    return [
        f"{words[i % 16]} {words[i // 16 % 16]} observation: the bound for {words[(i * 7) % 16]} holds, as shown,"
        f" then {words[(i * 3) % 16]} {words[(i * 5 + 1) % 16]} {words[i // 16 % 16]} follows from it"
        for i in range(start, start + count)
    ]


PARAGRAPH = [
    "First we bound the square from below using the fact that squares of reals are non-negative.",
    "Then we add one to both sides, which turns the bound into the inequality we need to show.",
    "Finally nlinarith combines the two facts with the hypothesis that x is non-negative.",
]


# Rule 3: loops, judged apart from the dispersed count.


@pytest.mark.parametrize(("copies", "broken"), [(4, False), (5, True), (15, True)])
def test_a_paragraph_looping(build: Builder, copies: int, broken: bool) -> None:
    verdict = check_format(build(reasoning="\n\n".join(["\n".join(PARAGRAPH)] * copies)))
    assert (Code.CONSECUTIVE_REPEATS in verdict.codes) is broken
    assert verdict.metrics.max_line_repeats == copies  # each line occurs at most 15 times: the dispersed limit is 20
    # ... but 15 copies of three lines are 45 occurrences of lines written five times or more (limit 30)
    assert (Code.REPEATED_LINES in verdict.codes) is (3 * copies > 30)
    assert verdict.metrics.consecutive_repeats == copies
    assert verdict.metrics.loop_lines == 3


def test_a_long_line_repeated_twelve_times_in_a_row(build: Builder) -> None:
    line = " ".join(distinct_lines(3))  # one line of about 300 characters
    verdict = check_format(build(reasoning="\n".join([line] * 12)))
    # A loop, a line of 80 key bytes or more written more than 8 times wherever its copies are, and so a stretch of
    # the prose written more than 8 times (`max_clause_repeats`).
    assert set(verdict.codes) == {Code.CONSECUTIVE_REPEATS, Code.REPEATED_LINES, Code.PARAGRAPH_REPEATS}
    assert "a line is written 12 times in a row (limit 4)" in verdict.violations[0].message


def test_an_enumeration_is_not_a_loop(build: Builder) -> None:
    # Equal once digits are folded (so counted by the dispersed rule), but every line says something new.
    cases = [
        f"- $y \\equiv {i} \\pmod{{13}}$: ${i * i} + 4 \\equiv {(i * i + 4) % 13} \\pmod{{13}}$, which is not a fifth power"
        for i in range(13)
    ]
    verdict = check_format(build(reasoning="\n".join(cases)))
    assert verdict.ok, verdict.violations
    assert verdict.metrics.consecutive_repeats == 1
    assert verdict.metrics.max_line_repeats == 13


def test_a_loop_with_other_text_between_copies_is_still_a_loop(build: Builder) -> None:
    # Short lines ("Wait.") between the copies do not break the loop: only long lines are compared.
    reasoning = "\n".join(line for _ in range(6) for line in (*PARAGRAPH[:2], "Wait.", ""))
    # The paragraph written 6 times is also over the passage bound (4), wherever its copies are.
    assert codes(build(reasoning=reasoning)) == {Code.CONSECUTIVE_REPEATS, Code.PARAGRAPH_REPEATS}


def test_the_loop_limit_is_configurable(build: Builder) -> None:
    text = build(reasoning="\n".join(PARAGRAPH * 6))
    # Six copies of a passage are also over `max_passage_repeats` (4), wherever the copies are.
    assert codes(text) == {Code.CONSECUTIVE_REPEATS, Code.PARAGRAPH_REPEATS}
    assert codes(text, config=FormatConfig(max_passage_repeats=6)) == {Code.CONSECUTIVE_REPEATS}
    assert codes(text, config=FormatConfig(max_consecutive_repeats=6, max_passage_repeats=6)) == set()
    assert codes(text, config=FormatConfig(max_consecutive_repeats=None, max_passage_repeats=None)) == set()


# Rule 3: loops whose copies differ in a word (a spelled-out counter, a name): no two lines are equal.

NUMBER_WORDS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen".split()
SENTENCE = "let me try the substitution again and simplify both sides of the equation carefully."


@pytest.mark.parametrize(
    "template",
    [
        "Attempt {}: " + SENTENCE,  # the word opens the line
        SENTENCE.capitalize() + " (attempt {})",  # the word ends it
        "Let me try the {} substitution again and simplify both sides of the equation carefully.",  # in the middle
    ],
)
@pytest.mark.parametrize(("copies", "broken"), [(10, False), (11, True), (15, True)])
def test_a_loop_told_apart_by_one_word(build: Builder, template: str, copies: int, broken: bool) -> None:
    verdict = check_format(build(reasoning="\n\n".join(template.format(w) for w in NUMBER_WORDS[:copies])))
    assert (Code.CONSECUTIVE_REPEATS in verdict.codes) is broken, verdict.violations
    assert verdict.metrics.template_repeats == (copies if broken else 0)
    assert verdict.metrics.max_line_repeats == 1  # no two lines are equal: the other loop rules see nothing


def test_a_two_line_passage_told_apart_by_a_counter(build: Builder) -> None:
    passage = "Round {}: we substitute x = y + 1 into the equation and expand the square on the left.\n" + PARAGRAPH[1]
    verdict = check_format(build(reasoning="\n".join(passage.format(w) for w in NUMBER_WORDS[:12])))
    assert Code.CONSECUTIVE_REPEATS in verdict.codes
    assert verdict.metrics.template_repeats == 12


def test_an_enumeration_with_one_ending_is_not_a_template_loop(build: Builder) -> None:
    # Twenty cases that end alike ("..., which is not a solution") but compute something new each time.
    cases = [
        f"For n = {i}: n^2 + 3n = {i * i + 3 * i}, and {i * i + 3 * i} mod 7 = {(i * i + 3 * i) % 7}, which is not a solution."
        for i in range(20)
    ]
    verdict = check_format(build(reasoning="\n".join(cases)))
    assert verdict.ok, verdict.violations
    assert verdict.metrics.template_repeats == 0


def test_distinct_lines_with_one_opening_are_not_a_template_loop(build: Builder) -> None:
    # Twenty steps that open alike ("Now we use the fact that") and say different things after it.
    steps = [f"Now we use the fact that {line}" for line in distinct_lines(20)]
    assert check_format(build(reasoning="\n".join(steps))).ok


def test_the_template_loop_limit_is_configurable(build: Builder) -> None:
    text = build(reasoning="\n".join(f"Attempt {w}: " + SENTENCE for w in NUMBER_WORDS))
    assert codes(text) == {Code.CONSECUTIVE_REPEATS}
    assert codes(text, config=FormatConfig(max_template_repeats=15)) == set()
    assert codes(text, config=FormatConfig(max_template_repeats=None)) == set()
    with pytest.raises(ValueError, match="template_band_chars"):
        FormatConfig(template_band_chars=0)


NAMES = (
    "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Uma Victor"
    " Walter Xena Yusuf Zoe Amir Bea Cyril Dana".split()
)


def spread(copies: list[str]) -> str:
    """`copies`, each followed by a line of its own, so no two copies are in a row."""
    return "\n".join(f"{copy}\n{other}" for copy, other in zip(copies, distinct_lines(len(copies)), strict=True))


@pytest.mark.parametrize(("copies", "broken"), [(24, False), (25, True)])
def test_alike_lines_spread_out_are_counted(build: Builder, copies: int, broken: bool) -> None:
    # One sentence said by a different person each time, with a line of its own between copies: no loop in a row.
    text = build(reasoning=spread([f"{name} says: {SENTENCE}" for name in NAMES[:copies]]))
    verdict = check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert (Code.NEAR_DUPLICATES in verdict.codes) is broken, verdict.violations
    assert verdict.metrics.alike_lines == (copies if broken else 0)
    assert verdict.metrics.template_repeats == 0


def test_an_enumeration_spread_out_is_not_alike_lines(build: Builder) -> None:
    # Twenty cases of one sentence, each with its own numbers: the numbers change, not the words (and twenty equal
    # keys are what max_line_repeats allows).
    cases = [f"For n = {i}: {SENTENCE} gives {i * i}" for i in range(20)]
    verdict = check_format(build(reasoning=spread(cases)), config=FormatConfig(max_alike_lines=5))
    assert verdict.ok, verdict.violations


def test_the_alike_lines_limit_is_configurable(build: Builder) -> None:
    text = build(reasoning=spread([f"{name} says: {SENTENCE}" for name in NAMES]))
    assert codes(text) == {Code.NEAR_DUPLICATES}
    assert codes(text, config=FormatConfig(max_alike_lines=30)) == set()
    assert codes(text, config=FormatConfig(max_alike_lines=None)) == set()


@pytest.mark.parametrize(("copies", "broken"), [(45, False), (46, True)])
def test_a_medium_line_repeated(build: Builder, copies: int, broken: bool) -> None:
    # A line under 40 key bytes (so not one of max_line_repeats' long lines), its number changed each time.
    text = build(reasoning=spread([f"So x = {i} fails, try the next one." for i in range(copies)]))
    verdict = check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert (Code.SHORT_LINE_REPEATS in verdict.codes) is broken, verdict.violations
    assert verdict.metrics.medium_line_repeats in ({copies} if broken else {0, copies})  # 0: it could not break


def test_the_medium_line_limit_is_configurable(build: Builder) -> None:
    text = build(reasoning=spread([f"So x = {i} fails, try the next one." for i in range(60)]))
    assert codes(text) == {Code.SHORT_LINE_REPEATS}
    assert codes(text, config=FormatConfig(max_medium_line_repeats=60)) == set()
    assert codes(text, config=FormatConfig(max_medium_line_repeats=None)) == set()


SHORT_PASSAGE = ["Let me check.", "Hmm, not quite.", "Try again."]


@pytest.mark.parametrize(("copies", "broken"), [(6, False), (7, True)])
def test_a_passage_of_short_lines_looped(build: Builder, copies: int, broken: bool) -> None:
    # Three short lines, written again and again in a row (blank lines between copies do not break the loop).
    text = build(reasoning="\n\n".join(["\n".join(SHORT_PASSAGE)] * copies))
    verdict = check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert (Code.CONSECUTIVE_REPEATS in verdict.codes) is broken, verdict.violations
    assert verdict.metrics.short_consecutive_repeats == (copies if broken else 0)


def test_a_matrix_with_equal_rows_is_no_loop(build: Builder) -> None:
    # Rows of numbers alone, written again and again (an all-ones matrix): a line without a letter loops no passage.
    rows = "\n".join(["[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"] * 10)
    text = build(reasoning=f"The matrix J with every entry equal to 1 is:\n{rows}\nIts rank is 1.")
    assert check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT).metrics.short_consecutive_repeats == 0


def test_short_lines_that_count_are_not_a_loop(build: Builder) -> None:
    # Thirty values checked in a row, one short line each: the keys are equal, the lines are not.
    assert codes(build(reasoning="\n".join(f"n = {i}: no." for i in range(30)))) == set()


def test_the_short_loop_limit_is_configurable(build: Builder) -> None:
    text = build(reasoning="\n".join(SHORT_PASSAGE * 20))
    assert codes(text) == {Code.CONSECUTIVE_REPEATS}
    assert codes(text, config=FormatConfig(max_short_consecutive_repeats=20)) == set()
    assert codes(text, config=FormatConfig(max_short_consecutive_repeats=None)) == set()


# Rule 3: near-duplicates.


LONG_LINE = (
    "Since both sides are positive we may square them, and after expanding the left side we obtain a quadratic "
    "inequality in x whose discriminant is negative, so it holds for every real x."
)


def reworded(i: int) -> str:
    """`LONG_LINE` with one local change, a different one for each `i`: a word swapped near the start or the end."""
    words = LONG_LINE.split()
    at = 2 + i % 6 if i % 2 else len(words) - 3 - i % 6
    words[at] = ["plainly", "clearly", "surely", "indeed", "then", "thus", "hence", "so"][i % 8]
    return " ".join(words)


@pytest.mark.parametrize(("copies", "broken"), [(13, False), (14, True)])
def test_reworded_near_copies_of_a_line(build: Builder, copies: int, broken: bool) -> None:
    # The line and its reworded copies, spread out: each copy differs from the line by one word near a different end.
    # The bound of `max_near_duplicates` alone: `max_reworded_lines` takes both (more than 8 copies changed at places
    # that vary), see test_reworded_passages.py.
    filler = distinct_lines(copies + 1)
    lines = [LONG_LINE, *map(reworded, range(copies))]
    verdict = check_format(
        build(reasoning="\n\n".join(f"{line}\n{other}" for line, other in zip(lines, filler, strict=True))),
        config=FormatConfig(max_reworded_lines=None),
    )
    assert len(set(lines)) == copies + 1  # no two are equal
    assert verdict.metrics.max_line_repeats <= 2
    assert verdict.metrics.near_duplicates == copies + 1
    assert set(verdict.codes) == ({Code.NEAR_DUPLICATES} if broken else set())


def test_copies_reworded_at_both_ends_are_not_counted_together(build: Builder) -> None:
    # The limit of two bands: copies that differ from each other at both ends, with no common original among them,
    # share nothing the bands see. A loop's copies share most of their text with the line they repeat.
    verdict = check_format(build(reasoning="\n\n".join(map(reworded, range(16)))))
    assert verdict.metrics.near_duplicates == 8


def test_near_duplicates_need_a_shared_opening_or_ending(build: Builder) -> None:
    # Lines that share only their middle are different lines.
    lines = [f"{word} {LONG_LINE} {word}" for word in distinct_lines(20)]
    assert check_format(build(reasoning="\n\n".join(lines))).metrics.near_duplicates == 1


def test_short_lines_are_not_near_duplicates(build: Builder) -> None:
    line = "So the square of x minus one is non-negative here."  # shorter than near_duplicate_min_chars
    verdict = check_format(build(reasoning="\n\n".join(f"{line} ({i})" for i in range(18))))
    assert verdict.metrics.near_duplicates == 0


# Rule 3: repetition anywhere in the completion, the summary after the thinking included.


def test_repetition_between_the_thinking_and_the_code(build: Builder) -> None:
    line = "This proof works because the square of x minus one is non-negative."
    others = [f"{a} and {b} were checked again, and nothing changes" for a in WORDS[:5] for b in WORDS[5:10]]
    thinking = "\n".join(f"{line}\n{other}" for other in others[:12])
    summary = "\n".join(f"{line}\n{other}" for other in others[12:24])
    text = build(reasoning=thinking).replace("</think>\n", f"</think>\n{summary}\n\n")
    verdict = check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT)
    # 12 copies in each: 24 in all, more than 20; and 12 copies of one line in the summary are summary spam
    assert set(verdict.codes) == {Code.REPEATED_LINES, Code.SUMMARY_REPEATS}
    assert verdict.metrics.max_line_repeats == 24
    assert check_format(build(reasoning=thinking)).ok
    looping = build().replace("</think>\n", "</think>\n" + f"{line}\n" * 40 + "\n")
    assert {Code.REPEATED_LINES, Code.CONSECUTIVE_REPEATS} <= codes(looping)


# Rule 4: the thinking is reasoning, not the final code pasted.


def test_thinking_replaced_by_the_final_code(build: Builder) -> None:
    verdict = check_format(
        build(reasoning="Here it is.", blocks=(CODE, CODE)), formal_statement=SAMPLE_FORMAL_STATEMENT
    )
    # The two blocks are one draft written twice (since 0.10.0, `min_tactic_blocks` counts different ones).
    assert set(verdict.codes) == {Code.COPIED_CODE, Code.REASONING_TOO_SHORT, Code.TOO_FEW_TACTIC_BLOCKS}
    assert verdict.metrics.copied_code_share > 0.5


def test_code_pasted_into_the_prose_counts_as_copied(build: Builder) -> None:
    long_proof = "\n".join(
        f"  have h{i} : (x - {i}) ^ 2 ≥ 0 := by nlinarith [sq_nonneg (x - {i}), sq_nonneg (x + {i}), h]"
        for i in range(8)
    )
    text = build(reasoning=f"{long_proof}\n\n{long_proof}", proof=long_proof + "\n" + PROOF)
    verdict = check_format(text)
    assert Code.COPIED_CODE in verdict.codes
    assert verdict.metrics.copied_code_share > 0.5


def test_developing_the_proof_in_blocks_is_not_copying(build: Builder) -> None:
    # The usual pattern: the last block is the final proof, with reasoning around it.
    reasoning = " ".join(distinct_lines(4))
    verdict = check_format(build(reasoning=reasoning, blocks=(PROOF, CODE)), formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert verdict.ok, verdict.violations
    assert 0.2 < verdict.metrics.copied_code_share < 0.5


# Rule 4: broken structure.


def test_an_unclosed_tactic_fence_in_the_thinking(build: Builder) -> None:
    text = build().replace("That closes the goal.", "```tactics\n  nlinarith [h]\n\nThat closes the goal.")
    verdict = check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert set(verdict.codes) == {Code.FENCE_UNCLOSED}
    assert verdict.metrics.unclosed_fences == 1


ENGLISH = [
    "  Then we use the bound on x to finish the proof.",
    "  It is enough to show that the square is non-negative.",
    "  Now the goal follows since we have the hypothesis.",
]


@pytest.mark.parametrize(("sentences", "broken"), [(1, False), (2, True)])
def test_english_sentences_in_a_tactic_block(build: Builder, sentences: int, broken: bool) -> None:
    block = PROOF + "\n" + "\n".join(ENGLISH[:sentences])
    verdict = check_format(build(blocks=(PROOF, block)))
    assert verdict.metrics.tactic_prose_lines == sentences
    assert (Code.TACTIC_BLOCK_PROSE in verdict.codes) is broken


def test_lean_that_reads_like_english_is_code(build: Builder) -> None:
    lean = [
        "  have h2 : x ^ 2 ≥ 0 := by positivity",
        "  cases' le_or_lt x 1 with hx hx <;> simp only [is_lub, lt_of_le_of_lt] at h ⊢",
        "  exact fun y hy => by simpa using this.of_le hy",
        "  · show x = 1; exact (if h then by norm_num else by linarith)",
        "  -- we use the fact that the square is non-negative, as the comment says",
    ]
    verdict = check_format(build(blocks=(PROOF, "\n".join([*lean, PROOF]))))
    assert verdict.metrics.tactic_prose_lines == 0


# Rule 5: comments anywhere in the final code.


def test_the_reasoning_as_a_comment_above_the_theorem(build: Builder) -> None:
    dump = "/-\n" + "\n".join(distinct_lines(12)) + "\n-/\n"
    verdict = check_format(build(statement=dump + STATEMENT), formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert set(verdict.codes) == {Code.CODE_TOO_MANY_COMMENTS}
    assert verdict.metrics.proof_comment_density == 0.0  # what the proof-body rule saw
    assert verdict.metrics.code_comment_density > 0.8


def test_a_doc_comment_stating_the_problem_is_fine(build: Builder) -> None:
    # The longest informal statement of miniF2F is 625 non-space characters; 900 here, on a one-line proof.
    words = " ".join(distinct_lines(14)).split()
    doc = "/-- " + " ".join(words[: next(i for i in range(len(words)) if len("".join(words[:i])) > 940)]) + " -/\n"
    verdict = check_format(build(statement=doc + STATEMENT), formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert verdict.ok, verdict.violations
    assert 900 <= verdict.metrics.code_comment_chars <= 1000
    assert verdict.metrics.code_comment_density > 0.5


# Rule 8: padding.


@pytest.mark.parametrize(
    ("padding", "broken"),
    [
        (" " * 100, False),
        (" " * 101, True),
        ("\t" * 101, True),
        ("\n" * 21, False),  # 20 blank lines
        ("\n" * 22, True),
        (" \n" * 22, True),  # blank lines holding a space
        ("\n" + "\u00a0" * 50 + "\n", False),  # not ASCII whitespace: counted by the length rule only
    ],
)
def test_whitespace_runs_in_the_thinking(build: Builder, padding: str, broken: bool) -> None:
    text = build(reasoning=f"We expand the square.{padding}That is the inequality.")
    assert (Code.WHITESPACE_PADDING in codes(text)) is broken


def test_forty_thousand_spaces_in_the_thinking(build: Builder) -> None:
    text = build(reasoning="We expand the square, then bound each term." + " " * 40_000 + "Done: the sum is at most 4.")
    verdict = check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert set(verdict.codes) == {Code.WHITESPACE_PADDING}
    assert verdict.metrics.space_run == 40_000
    assert verdict.metrics.tokens == -(-len(text) // 3.2)  # the whitespace counts towards the length estimate too


def test_whitespace_after_the_final_block(build: Builder) -> None:
    assert codes(build(after="\n" * 3 + "  ")) == set()
    assert codes(build(after=" " * 32)) == set()
    verdict = check_format(build(after=" \n" * 17), formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert set(verdict.codes) == {Code.WHITESPACE_PADDING}
    assert verdict.metrics.after_code_chars == 33  # the closing fence line keeps its first space
    assert Code.WHITESPACE_PADDING in codes(build(after="\n" * 50_000))


def test_runs_are_reported_only_above_their_limit(build: Builder) -> None:
    # Measuring a run exactly costs a dozen scans of the text, so only the runs that break the rule are measured.
    verdict = check_format(build(reasoning="We expand." + " " * 60 + "Done."))
    assert verdict.metrics.space_run == 0
    assert check_format(build(reasoning="We expand." + " " * 160 + "Done.")).metrics.space_run == 160


# Rule 2: the summary after the thinking.


@pytest.mark.parametrize(("chars", "broken"), [(2_000, False), (2_001, True)])
def test_summary_length(build: Builder, chars: int, broken: bool) -> None:
    summary = " ".join(distinct_lines(20))[:chars]
    text = build().replace("</think>\n", f"</think>\n{summary}\n")
    verdict = check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert verdict.metrics.summary_chars == chars
    assert set(verdict.codes) == ({Code.SUMMARY_TOO_LONG} if broken else set())


def test_a_short_summary_is_fine(build: Builder) -> None:
    text = build().replace("</think>\n", "</think>\nThe square of x - 1 is non-negative, so nlinarith closes it.\n\n")
    assert codes(text) == set()


# The run helpers.


@pytest.mark.parametrize("text", ["", "a", "ab  c   d", "    ", "x" + " " * 1000 + "y" + " " * 999])
def test_longest_run(text: str) -> None:
    expected = max(map(len, re.findall(" +", text)), default=0)
    assert longest_run(text, " ") == expected
    assert longest_run(text.encode(), b" ") == expected


def test_over_limit_run() -> None:
    assert over_limit_run("a" + " " * 10 + "b", " ", 10) == 0
    assert over_limit_run("a" + " " * 11 + "b", " ", 10) == 11
    assert over_limit_run("\n" * 12, "\n", 10, offset=1) == 11
    assert over_limit_run("\n" * 11, "\n", 10, offset=1) == 0
    assert over_limit_run(" " * 1000, " ", None) == 0


@pytest.mark.parametrize("where", ["before-think", "summary", "tactic-block", "final-code", "after-code"])
def test_blank_lines_are_found_everywhere(build: Builder, where: str) -> None:
    blank = "\n" * 40
    text = {
        "before-think": lambda: blank + build(),
        "summary": lambda: build().replace("</think>\n", "</think>\n" + blank),
        "tactic-block": lambda: build(blocks=(PROOF + blank + PROOF, PROOF)),
        "final-code": lambda: build(proof=blank + PROOF),
        "after-code": lambda: build(after=blank),
    }[where]()
    verdict = check_format(text)
    assert Code.WHITESPACE_PADDING in verdict.codes
    assert verdict.metrics.blank_line_run >= 21 or verdict.metrics.after_code_chars > 32


def test_a_truncated_thinking_reports_no_unclosed_fence(build: Builder) -> None:
    # Generations cut at the length limit often stop inside a tactic block: that is `think_unclosed`, not two faults.
    text = build().split("That closes the goal.")[0] + "```tactics\n  nlinarith [h"
    assert codes(text) == {Code.THINK_UNCLOSED}


def test_a_fence_with_a_language_inside_an_open_block_means_it_was_never_closed(build: Builder) -> None:
    # CommonMark reads the inner fence as text, so the block runs on to the next bare fence and prose and code change
    # places: the block before it was never closed.
    block = PROOF + "\n```lean4\n" + PROOF
    verdict = check_format(build(blocks=(block, PROOF)))
    assert verdict.metrics.unclosed_fences == 1
    assert Code.FENCE_UNCLOSED in verdict.codes


def test_near_duplicate_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="near_duplicate_min_chars"):
        FormatConfig(near_duplicate_min_chars=1)
