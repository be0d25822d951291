"""Each rule on both sides of its threshold, on small synthetic completions (real-data mutations are elsewhere)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import SAMPLE_HEADER as HEADER
from kimina_format.testing import SAMPLE_PROOF as PROOF
from kimina_format.testing import SAMPLE_STATEMENT as STATEMENT

Builder = Callable[..., str]

Code = ViolationCode


def codes(text: str, **kwargs: object) -> set[ViolationCode]:
    return set(check_format(text, **kwargs).codes)  # type: ignore[arg-type]


def test_the_synthetic_completion_passes(build: Builder) -> None:
    verdict = check_format(build(), formal_statement=HEADER + STATEMENT + "\n  sorry")
    assert verdict.ok, verdict.violations
    assert verdict.score == 1.0
    assert verdict.metrics.statement_match is True
    assert verdict.metrics.code_lines == 6  # 4 header lines, the statement, the proof
    assert verdict.metrics.proof_lines == 1
    assert verdict.metrics.tactic_block_lines == (1, 1)


# Rule 1: one think block, opened and closed, first.


def test_missing_think_block(build: Builder) -> None:
    text = build().replace("<think>", "").replace("</think>", "")
    assert Code.THINK_MISSING in codes(text)


def test_unclosed_think_block_is_a_truncation_not_a_missing_code(build: Builder) -> None:
    text = build().split("</think>")[0]
    assert codes(text) == {Code.THINK_UNCLOSED}


def test_two_think_blocks(build: Builder) -> None:
    assert codes("<think>\nfirst\n</think>\n" + build()) == {Code.THINK_MALFORMED}


def test_close_before_open(build: Builder) -> None:
    text = "</think>" + build().replace("</think>", "")
    assert Code.THINK_MALFORMED in codes(text)


def test_text_before_think(build: Builder) -> None:
    assert codes(build(before="Sure! Here is my answer.\n")) == {Code.TEXT_BEFORE_THINK}
    assert codes(build(before="\n  \n")) == set()


def test_prefilled_think_opening_is_accepted_only_when_configured(build: Builder) -> None:
    text = build().replace("<think>", "", 1)
    assert codes(text) == {Code.THINK_MISSING}
    assert codes(text, config=FormatConfig(think_open_optional=True)) == set()


# Rule 2: exactly one final Lean block, nothing after it.


def test_missing_code_block(build: Builder) -> None:
    text = build().split("```lean4")[0]
    assert codes(text) == {Code.CODE_MISSING}


def test_unclosed_code_block(build: Builder) -> None:
    text = build().removesuffix("```")
    verdict = check_format(text)
    assert set(verdict.codes) == {Code.CODE_UNCLOSED}
    assert verdict.completion.code is None


def test_two_code_blocks(build: Builder) -> None:
    text = build() + f"\n\n```lean4\n{STATEMENT}\n{PROOF}\n```"
    assert Code.CODE_MULTIPLE in codes(text)


def test_lean_block_inside_the_thinking(build: Builder) -> None:
    text = build(blocks=("  nlinarith [h]", PROOF)).replace("```tactics\n  nlinarith [h]", "```lean4\n  nlinarith [h]")
    assert Code.CODE_MULTIPLE in codes(text)


def test_text_after_code(build: Builder) -> None:
    assert codes(build(after="\n\nThis proof works because...")) == {Code.TEXT_AFTER_CODE}
    assert codes(build(after="\n\n  \n")) == set()


def test_lean_fence_accepted_unless_configured_out(build: Builder) -> None:
    text = build(code_fence="lean")
    assert codes(text) == set()
    assert codes(text, config=FormatConfig(code_languages=("lean4",))) == {Code.CODE_MISSING}


# Rule 3: degenerate repetition.


LONG_LINE = "Now we substitute the value of x into the second equation and simplify both sides."


@pytest.mark.parametrize(("repeats", "broken"), [(20, False), (21, True)])
def test_repeated_long_line(build: Builder, repeats: int, broken: bool) -> None:
    text = build(reasoning="\n".join([LONG_LINE] * repeats))
    assert (Code.REPEATED_LINES in codes(text)) is broken


def test_near_duplicates_count_as_repeats(build: Builder) -> None:
    variants = [
        f"Case {i}:  we substitute x = {i} into the SECOND equation and simplify both sides." for i in range(25)
    ]
    verdict = check_format(build(reasoning="\n".join(variants)))
    assert Code.REPEATED_LINES in verdict.codes
    assert verdict.metrics.max_line_repeats == 25


def test_short_lines_may_repeat(build: Builder) -> None:
    # Spread out, a line under `template_min_chars` (16 key bytes) may occur 200 times; one of 16 to 39 is bounded by
    # `max_medium_line_repeats` (45); 200 copies in a row are a loop (`max_short_consecutive_repeats`). A remark (words
    # alone, no value) is bounded with the other remarks by `max_repeated_remarks` (60), since 0.10.0.
    def spread(line: str) -> str:
        return "\n".join(f"{line}\nStep {i}." for i in range(200))

    assert codes(build(reasoning=spread("So x = 1, see."))) == set()
    assert codes(build(reasoning=spread("So x = 1, we check it again."))) == {Code.SHORT_LINE_REPEATS}
    assert codes(build(reasoning="\n".join(["So x = 1, see."] * 200))) == {Code.CONSECUTIVE_REPEATS}
    assert codes(build(reasoning=spread("Wait, let me see."))) == {Code.SHORT_LINE_REPEATS}


def test_repeats_inside_tactic_blocks_do_not_count(build: Builder) -> None:
    block = "\n".join(["  nlinarith [sq_nonneg (x - 1), sq_nonneg (x + 1), h, mul_pos]"] * 30)
    verdict = check_format(build(blocks=(PROOF, block), proof=PROOF))
    assert Code.REPEATED_LINES not in verdict.codes


# Rule 4: tactic blocks.


def test_too_few_tactic_blocks(build: Builder) -> None:
    assert codes(build(blocks=(PROOF,))) == {Code.TOO_FEW_TACTIC_BLOCKS}
    assert codes(build(blocks=(PROOF,)), config=FormatConfig(min_tactic_blocks=1)) == set()


def test_comment_only_tactic_block_is_too_short(build: Builder) -> None:
    verdict = check_format(build(blocks=("  -- now we use nlinarith", PROOF, PROOF)))
    assert set(verdict.codes) == {Code.TACTIC_BLOCK_TOO_SHORT}
    assert "tactic block 1 " in verdict.violations[0].message


# Blocks made of copies of the final proof line are mostly copied code; with this much reasoning around them, the
# thinking is still reasoning (see test_drift_rules.py for the copied-code rule).
REASONING = " ".join(
    f"Step {word}: the square of x minus {word} is non-negative, which gives a bound we add to the hypothesis."
    for word in "one two three four five six seven eight nine ten eleven twelve".split()
)


def proof_lines(count: int) -> str:
    """`count` different proof lines (the same line written again and again would be a loop)."""
    return "\n".join(PROOF.replace("h]", f"h, sq_nonneg (x - {i})]") for i in range(count))


def test_tactic_block_longer_than_the_proof_warrants(build: Builder) -> None:
    eleven = proof_lines(11)
    assert codes(build(reasoning=REASONING, blocks=(PROOF, eleven))) == {Code.TACTIC_BLOCK_TOO_LONG}  # floor is 10
    assert codes(build(reasoning=REASONING, blocks=(PROOF, proof_lines(10)))) == set()


def test_tactic_block_limit_grows_with_the_proof(build: Builder) -> None:
    proof = proof_lines(10)
    blocks = (PROOF, proof_lines(15))
    assert codes(build(reasoning=REASONING, blocks=blocks, proof=proof)) == set()  # 1.5 x 10
    blocks = (PROOF, proof_lines(16))
    assert codes(build(reasoning=REASONING, blocks=blocks, proof=proof)) == {Code.TACTIC_BLOCK_TOO_LONG}


def test_header_and_statement_lines_in_a_tactic_block_are_not_proof_lines(build: Builder) -> None:
    block = HEADER + STATEMENT + "\n" + PROOF
    verdict = check_format(build(reasoning=REASONING, blocks=(block, PROOF)))
    assert verdict.ok
    assert verdict.metrics.tactic_block_proof_lines == (1, 1)


# Rule 5: comments.


def test_comment_heavy_proof(build: Builder) -> None:
    remark = "  -- The square of x - 1 is non-negative, so expanding it gives exactly the inequality we need here."
    assert codes(build(proof=PROOF + "\n" + remark)) == set()  # one remark on a short proof is fine
    essay = "\n".join(f"  -- Remark {word}: the square of x - 1 is non-negative and expands." for word in "abcdefgh")
    assert codes(build(proof=PROOF + "\n" + essay)) == {Code.PROOF_TOO_MANY_COMMENTS}


def test_statement_docstring_is_not_a_proof_comment(build: Builder) -> None:
    doc = "/-- " + "Show that for a non-negative real x, x squared plus one is at least twice x. " * 5 + "-/\n"
    verdict = check_format(build(statement=doc + STATEMENT))
    assert verdict.ok
    assert verdict.metrics.proof_comment_density == 0.0


def test_comment_heavy_tactic_blocks(build: Builder) -> None:
    essay = "\n".join(f"  -- Idea {word}: bound the square from below, then add one to both sides." for word in "abcd")
    assert codes(build(blocks=(essay + "\n  nlinarith [sq_nonneg (x - 1), h]", PROOF))) == {
        Code.TACTICS_TOO_MANY_COMMENTS
    }


def test_boilerplate_comments(build: Builder) -> None:
    todo = "\n".join(["  -- TODO", "  -- Step 1", "  --", "  -- proof", "  -- ...", "  -- done"])
    verdict = check_format(build(proof=todo + "\n" + PROOF))
    assert set(verdict.codes) == {Code.BOILERPLATE_COMMENTS}
    assert verdict.metrics.boilerplate_comments == 6
    informative = "\n".join(f"  -- case {i}: x = {i}" for i in range(6))
    assert codes(build(proof=informative + "\n" + PROOF)) == set()


# Rule 6: alignment.


def test_tactic_blocks_unrelated_to_the_proof(build: Builder) -> None:
    verdict = check_format(build(blocks=("  norm_num", "  simp\n  ring_nf")))
    assert set(verdict.codes) == {Code.MISALIGNED_TACTICS}
    assert verdict.metrics.tactic_name_iou == 0.0


def test_exploring_other_tactics_is_fine_when_the_proof_was_developed(build: Builder) -> None:
    blocks = ("  norm_num", "  simp", "  positivity", PROOF)
    verdict = check_format(build(blocks=blocks))
    assert verdict.ok
    assert verdict.metrics.tactic_name_iou == 0.25
    assert verdict.metrics.tactic_name_coverage == 1.0


def test_proof_mostly_absent_from_the_thinking(build: Builder) -> None:
    proof = "  have h1 : 0 ≤ (x - 1) ^ 2 := by positivity\n  ring_nf\n  field_simp\n  nlinarith [h1]"
    verdict = check_format(build(blocks=("  nlinarith [h]", "  nlinarith [h, sq_nonneg x]"), proof=proof))
    assert set(verdict.codes) == {Code.MISALIGNED_TACTICS}
    assert verdict.metrics.tactic_name_coverage == 0.2


def test_header_and_statement_do_not_count_against_alignment(build: Builder) -> None:
    # Upstream scored a perfectly aligned proof 2/7 because imports and the statement were part of the comparison.
    verdict = check_format(build(blocks=("  subst h", "  norm_num"), proof="  subst h\n  norm_num"))
    assert verdict.metrics.tactic_name_iou == 1.0
    assert verdict.metrics.tactic_line_iou == 1.0


# Rule 7: the statement.


def test_statement_changed(build: Builder) -> None:
    given = HEADER + STATEMENT + " sorry"
    changed = STATEMENT.replace("2 * x", "3 * x")
    assert codes(build(statement=changed), formal_statement=given) == {Code.STATEMENT_MISMATCH}


@pytest.mark.parametrize(
    "written",
    [
        STATEMENT.replace("(h : 0 ≤ x) :", "(h : 0 ≤ x) :\n    "),  # re-wrapped
        STATEMENT.replace("x ^ 2", "x^2"),  # spacing around symbols
        STATEMENT.replace("theorem", "lemma"),
        STATEMENT.replace("(x : ℝ)", "(x : ℝ) -- the variable\n   "),  # a comment inside
        "lemma helper (y : ℝ) : 0 ≤ y ^ 2 := by positivity\n\n" + STATEMENT,  # a helper lemma first
    ],
)
def test_statement_kept_up_to_spacing_comments_and_helpers(build: Builder, written: str) -> None:
    assert codes(build(statement=written), formal_statement=HEADER + STATEMENT + "\n  sorry") == set()


@pytest.mark.parametrize(
    "written",
    [
        STATEMENT.replace("(x : ℝ)", "(x : ℝ) (hx : x = 1)"),  # an extra hypothesis
        STATEMENT.replace("sq_example", "sq_example'"),  # another name
        STATEMENT.replace("theorem sq_example", "theorem my_sq_example"),
        "theorem sq_example_aux (x : ℝ) (h : 0 ≤ x) : x ^ 2 + 1 ≥ 2 * x ∧ True := by",  # weakened goal
    ],
)
def test_statement_changes_are_caught(build: Builder, written: str) -> None:
    assert Code.STATEMENT_MISMATCH in codes(build(statement=written), formal_statement=HEADER + STATEMENT)


def test_no_statement_given_means_no_statement_check(build: Builder) -> None:
    verdict = check_format(build(statement=STATEMENT.replace("2 * x", "3 * x")))
    assert verdict.ok
    assert verdict.metrics.statement_match is None


# Rule 8: length.


def test_length_penalty_and_limit(build: Builder) -> None:
    config = FormatConfig(soft_max_tokens=1000, max_tokens=2000)
    assert check_format(build(), config=config, count_tokens=lambda s: 1000).length_penalty == 0.0
    half = check_format(build(), config=config, count_tokens=lambda s: 1500)
    assert half.ok and half.length_penalty == 0.5 and half.score == 0.5
    full = check_format(build(), config=config, count_tokens=lambda s: 2000)
    assert full.ok and full.length_penalty == 1.0 and full.score == 0.0
    over = check_format(build(), config=config, count_tokens=lambda s: 2001)
    assert set(over.codes) == {Code.TOO_LONG}


def test_tokens_are_estimated_from_characters_without_a_tokenizer(build: Builder) -> None:
    text = build()
    verdict = check_format(text, config=FormatConfig(chars_per_token=2.0))
    assert verdict.metrics.tokens == (len(text) + 1) // 2


def test_invalid_configs_are_rejected() -> None:
    with pytest.raises(ValueError, match="soft_max_tokens"):
        FormatConfig(soft_max_tokens=10, max_tokens=5)
    with pytest.raises(ValueError, match="chars_per_token"):
        FormatConfig(chars_per_token=0)


def test_all_violations_are_reported_not_just_the_first(build: Builder) -> None:
    text = "Hello\n" + build(blocks=(PROOF,), after="\nbye")
    assert codes(text) == {Code.TEXT_BEFORE_THINK, Code.TOO_FEW_TACTIC_BLOCKS, Code.TEXT_AFTER_CODE}
