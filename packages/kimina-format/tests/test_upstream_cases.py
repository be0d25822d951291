"""The genuine cases of upstream's format-reward tests (kimina-prover-rl, `reward/tests/test_format_reward.py`),
restated for our checker; the README lists the cases left out and why.

Upstream ran most of its statement cases on a bare code string with no fence, so its checker stopped at "no Lean
block" and the statement logic was never reached; here each case is a whole completion, so the rule it is about runs.
"""

from __future__ import annotations

import pytest
from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import build_completion

Code = ViolationCode


def completion_with_code(code: str) -> str:
    """A well-formed completion whose final block is `code` (its tactic blocks develop `trivial`)."""
    return (
        "<think>\nThe goal is true by definition.\n\n```tactics\ntrivial\n```\n\nAgain, to be sure:\n\n"
        f"```tactics\n  trivial\n```\n</think>\n```lean4\n{code}\n```"
    )


def statement_codes(code: str, statement: str) -> set[ViolationCode]:
    return set(check_format(completion_with_code(code), formal_statement=statement).codes)


# The statement is matched up to comments, spacing and the `by sorry` tail.


@pytest.mark.parametrize(
    ("statement", "code"),
    [
        # upstream test_sorry_dropped: `by sorry` on one line, the proof on the next
        ("theorem T : True := by sorry", "theorem T : True := by\n  trivial"),
        # test_import_and_open_ignored: the header of the statement is not part of the match
        (
            "import Mathlib\n\nopen Real\n\ntheorem T : True := by sorry",
            "import Mathlib\n\nopen Real\n\ntheorem T : True := by\n  trivial",
        ),
        # test_comment_block_removed: a comment in the given statement
        ("/- comment -/\n\ntheorem T : True := by sorry", "theorem T : True := by\n  trivial"),
        # test_multi_line_formatting: the statement wrapped over two lines
        ("theorem T :\n  True := by sorry", "theorem T :\n  True := by\n  trivial"),
        # test_multiple_statements_all_matched: two declarations, both kept
        (
            "import Mathlib\n\nopen Real\n\ntheorem T1 : True := by sorry\n\ntheorem T2 : True := by sorry",
            "import Mathlib\n\nopen Real\n\ntheorem T1 : True := by\n  sorry\n\ntheorem T2 : True := by\n  trivial",
        ),
        # test_theorem_preceded_by_lemma: helper lemmas before the theorem
        (
            "theorem number_theory_25102 : True := by sorry",
            "import Mathlib\n\nopen Finset\n\n"
            "lemma lemma_1 (n : ℤ) (a b c : ℤ) (h₀ : n = a^3 + b^3 + c^3) : True := by\n  trivial\n\n"
            "lemma lemma_2 (x y : ℤ) (h : x ^ 3 = y) : True := by\n  trivial\n\n"
            "theorem number_theory_25102 : True := by\n  trivial",
        ),
    ],
)
def test_statement_kept(statement: str, code: str) -> None:
    assert Code.STATEMENT_MISMATCH not in statement_codes(code, statement)


def test_an_axiom_instead_of_the_theorem() -> None:
    # upstream test_axiom_not_allowed: the code declares the goal as an axiom. The statement rule rejects it, since
    # the theorem is missing; an axiom added next to the theorem is kimina-verify's integrity rule, not a format one.
    assert Code.STATEMENT_MISMATCH in statement_codes("axiom foo : True", "theorem T : True := by")


def test_a_definition_instead_of_the_theorem() -> None:
    # upstream test_missing_theorem, with the fence it lacked: a `def` where the theorem should be.
    assert Code.STATEMENT_MISMATCH in statement_codes("def foo := 42", "theorem T : True := by")


def test_a_type_ascription_changes_the_statement() -> None:
    # upstream test_type_annotation expected `(4/3 : ℝ)` to match `(4/3)`: rejected here, see the README. Whether the
    # two elaborate to the same type is for Lean (kimina-verify compares elaborated types); as text they differ.
    statement = "theorem T : IsGreatest (image g (Icc 0 (4/3))) (Real.sqrt 3 / 2) := by sorry"
    code = "theorem T : IsGreatest (image g (Icc 0 (4/3 : ℝ))) (Real.sqrt 3 / 2) := by\n  trivial"
    assert Code.STATEMENT_MISMATCH in statement_codes(code, statement)


# The structure of a completion.


def test_thinking_without_a_lean_block() -> None:
    # upstream test_thinking_block_without_lean4_returns_error
    text = "\n<think>\nSome internal reasoning that never culminates in code.\n```tactics\nsimp\n```\n</think>\n"
    assert Code.CODE_MISSING in check_format(text).codes


def test_a_lean_block_never_closed() -> None:
    # upstream test_thinking_block_unterminated_lean4_returns_error: upstream says "no block"; we say which.
    text = "\n<think>\nThoughts...\n</think>\n```lean4\n#check Nat\n"
    verdict = check_format(text)
    assert Code.CODE_UNCLOSED in verdict.codes
    assert verdict.completion.code is None


def test_the_minimal_completion() -> None:
    # upstream test_valid_minimal_thinking_block_passes, whose fixture asked for one tactic block (its own default,
    # and ours, is two). Rejected as a default: "Planning the proof…" is no reasoning (min_reasoning_chars, 60 bytes;
    # the shortest real reasoning has 802), and a thinking of one word and the code is what a collapsed policy writes.
    text = (
        "<think>\nPlanning the proof…\n\n```tactics\ntrivial\n```\n</think>\n"
        "```lean4\ntheorem T : True := by\n  trivial\n```\n"
    )
    # The one block is the proof's line, 7 bytes against 17 of reasoning: more copied code than reasoning too.
    assert set(check_format(text).codes) == {Code.TOO_FEW_TACTIC_BLOCKS, Code.REASONING_TOO_SHORT, Code.COPIED_CODE}
    config = FormatConfig(min_tactic_blocks=1, min_reasoning_chars=None, max_copied_to_reasoning=None)
    assert check_format(text, config=config).ok


# Repetition.

REPEATED = (
    "The goal is `0 = 0`, which is clearly true by definition. I will try `trivial` to let Lean solve it automatically."
)


@pytest.mark.parametrize(("copies", "broken"), [(4, False), (6, True)])
def test_repeated_line_thresholds(copies: int, broken: bool) -> None:
    # upstream test_repeated_line_thresholds: the line written 4 times passes, 6 times fails. Upstream's reason is a
    # limit of 6 on any line, which 13 of the 197 real (Lean-accepted) completions break; ours is that the copies
    # come in a row: a loop. The same 6 copies spread through the reasoning are fine (see test_mutations.py).
    reasoning = "\n".join([REPEATED] * copies) + "\n" + "\n".join(f"aux {i}" for i in range(10)) + "\n" * 10
    verdict = check_format(build_completion(reasoning=reasoning))
    assert (Code.CONSECUTIVE_REPEATS in verdict.codes) is broken
    assert Code.REPEATED_LINES not in verdict.codes
    assert verdict.ok is not broken
