"""The bounds added for the second red team's drifts (junk lines, paragraph repeats, summary spam, a comment dump in
the final code), each on both sides of its threshold on small synthetic completions; the same drifts on real
completions are in test_redteam2.py.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import SAMPLE_FORMAL_STATEMENT

Builder = Callable[..., str]
Code = ViolationCode
LIMITS = FormatConfig()


def verdict_codes(text: str) -> set[ViolationCode]:
    return set(check_format(text, formal_statement=SAMPLE_FORMAL_STATEMENT).codes)


def with_summary(build: Builder, summary: str) -> str:
    return build().replace("</think>", "</think>\n" + summary + "\n", 1)


@pytest.mark.parametrize(
    "line",
    [
        "QmFzZTY0IGxvb2tzIGxpa2UgdGhpcyBhbmQgaXMgbm90IHJlYXNvbmluZw==",  # base64
        "/\\|_-+*/\\|_-+*/\\|_-+*/\\|_-+*/\\|_-+*/\\|_-+*",  # ASCII art
        "alpha beta gamma delta epsilon zeta eta theta alpha",  # word salad
    ],
)
def test_junk_lines_on_both_sides_of_the_bound(build: Builder, line: str) -> None:
    most = LIMITS.max_junk_lines
    assert most is not None
    # Each line differs (a letter appended), so only the junk-line bound can judge them.
    lines = [line + "x" * (i % 3) + "y" * (i // 3) for i in range(most + 1)]
    assert Code.JUNK_LINES not in verdict_codes(build(reasoning="Intro.\n" + "\n".join(lines[:most])))
    assert Code.JUNK_LINES in verdict_codes(build(reasoning="Intro.\n" + "\n".join(lines)))


def test_non_ascii_and_punctuated_lines_are_not_junk(build: Builder) -> None:
    lines = ["我们先化简方程然后代入已知条件得到结论这一步很关键需要仔细检查每一项的符号" * 2] * 3
    lines += ["so the answer is correct and we are done with this part, finally."] * 3
    lines += ["∀ε>0,∃δ>0,|x-a|<δ→|f(x)-f(a)|<ε,whichiswhatwewant"]
    verdict = check_format(build(reasoning="Intro.\n" + "\n".join(lines)), formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert verdict.metrics.junk_lines == 0


def test_a_paragraph_of_short_lines_repeated(build: Builder) -> None:
    most = LIMITS.max_paragraph_repeats
    assert most is not None
    paragraph = "Wait.\nLet me redo it.\nSo x = 1 here.\nThen y = 2 there.\nAnd z = 3 too."

    def text(copies: int) -> str:
        # Another paragraph between the copies: not a loop in a row, and no line is long.
        return build(reasoning="\n\n".join([paragraph, "Hmm, once more."] * copies))

    # The paragraph bound alone: `max_clause_repeats` (8) counts the copies' stretches, whatever their lines, sooner.
    alone = FormatConfig(max_clause_repeats=None)

    def codes(copies: int) -> set[ViolationCode]:
        return set(check_format(text(copies), formal_statement=SAMPLE_FORMAL_STATEMENT, config=alone).codes)

    assert Code.PARAGRAPH_REPEATS not in codes(most)
    assert Code.PARAGRAPH_REPEATS in codes(most + 1)
    assert check_format(text(most), formal_statement=SAMPLE_FORMAL_STATEMENT).metrics.clause_repeats > 8


def test_a_fenced_block_repeated(build: Builder) -> None:
    most = LIMITS.max_paragraph_repeats
    assert most is not None
    block = "  nlinarith [sq_nonneg (x - 1), h]"
    assert Code.PARAGRAPH_REPEATS not in verdict_codes(build(blocks=[block] * most))
    assert Code.PARAGRAPH_REPEATS in verdict_codes(build(blocks=[block] * (most + 1)))
    # A short block (`norm_num`) may be tried again and again.
    assert Code.PARAGRAPH_REPEATS not in verdict_codes(build(blocks=["  norm_num"] * (most + 1) + [block]))


def test_summary_line_repeats_and_boxed_answers(build: Builder) -> None:
    most = LIMITS.max_summary_line_repeats
    boxed = LIMITS.max_summary_boxed
    assert most is not None and boxed is not None
    assert Code.SUMMARY_REPEATS not in verdict_codes(with_summary(build, "The proof is complete.\n" * most))
    assert Code.SUMMARY_REPEATS in verdict_codes(with_summary(build, "The proof is complete.\n" * (most + 1)))
    assert Code.SUMMARY_REPEATS not in verdict_codes(with_summary(build, "\\boxed{12} " * boxed))
    assert Code.SUMMARY_REPEATS in verdict_codes(with_summary(build, "\\boxed{12} " * (boxed + 1)))


def test_comment_characters_of_the_final_code(build: Builder) -> None:
    most = LIMITS.max_code_comment_chars
    assert most is not None
    # A long proof keeps the density low: only the absolute bound sees the dump.
    proof = "\n".join(["  nlinarith [sq_nonneg (x - 1), h]"] * 1) + "\n" + "  -- step\n" * 0

    def text(chars: int) -> str:
        return build(proof=proof, header="import Mathlib\n\n/-- " + "reasoning " * (chars // 9) + "-/\n")

    assert Code.CODE_TOO_MANY_COMMENTS in verdict_codes(text(most + 200))
    verdict = check_format(text(500), formal_statement=SAMPLE_FORMAL_STATEMENT)
    assert Code.CODE_TOO_MANY_COMMENTS not in verdict.codes
