"""The final proof pasted twice is one draft (kimina-format 0.10.0): `min_tactic_blocks` counts different blocks.

The thinking cut to its first paragraphs and the final proof pasted twice as its two tactic blocks met the two blocks
the rule asks for: behind five paragraphs it kept the full score on 80 of 188 rows, behind eight on 117. Every real
completion has at least two different blocks; copies (73 rows write a block again) count once, by their code, so a
comment added to the copy or its indentation changed does not make it another draft.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import (
    Edit,
    assert_red_team_case,
    final_code_of,
    thinking_of,
    with_thinking,
    xfail_params,
)
from kimina_format.testing import (
    RedTeamCase as Case,
)

Row = dict[str, Any]


def _opening_and_the_proof_twice(paragraphs: int, copy: Callable[[str], str]) -> Edit:
    """The thinking cut to its first `paragraphs` prose paragraphs, then the final proof and `copy(proof)` as blocks."""

    def edit(row: Row) -> Row:
        text = row["completion"]
        code = final_code_of(text)
        prose = [p for p in thinking_of(text).split("\n\n") if p.strip() and "```" not in p]
        blocks = f"Here is the proof:\n```tactics\n{code}\n```\n\nOnce more:\n```tactics\n{copy(code)}\n```"
        return {**row, "completion": with_thinking(text, "\n\n".join([*prose[:paragraphs], blocks]))}

    return edit


ATTACKS: dict[str, Case] = {
    "the_proof_twice_behind_five_paragraphs": Case(
        "min_tactic_blocks", _opening_and_the_proof_twice(5, lambda code: code)
    ),
    "the_proof_twice_behind_eight_paragraphs": Case(
        "min_tactic_blocks", _opening_and_the_proof_twice(8, lambda code: code)
    ),
    "the_copy_with_a_comment_added": Case(
        "min_tactic_blocks", _opening_and_the_proof_twice(8, lambda code: code + "\n  -- the same proof again")
    ),
    "the_copy_indented_and_spaced_otherwise": Case(
        "min_tactic_blocks",
        _opening_and_the_proof_twice(8, lambda code: code.replace("\n  ", "\n    ").replace(" := ", "  :=  ")),
    ),
}


@pytest.mark.parametrize("name", xfail_params(ATTACKS))
def test_an_attack_loses_the_full_score(full_score_rows: list[Row], name: str) -> None:
    assert_red_team_case(full_score_rows, name, ATTACKS[name], attack=True)


def _with_blocks(*blocks: str) -> str:
    fenced = "\n".join(f"Step {k}, in Lean:\n```tactics\n{block}\n```" for k, block in enumerate(blocks))
    return (
        f"<think>\nWe show that x is true by cases.\n{fenced}\n</think>\n"
        "```lean4\ntheorem t (x : Prop) (h : x) : x := by\n  exact h\n```"
    )


def test_copies_of_a_block_count_once() -> None:
    twice = check_format(_with_blocks("exact h", "exact h  -- again")).metrics
    assert (twice.tactic_blocks, twice.distinct_tactic_blocks) == (2, 1)
    drafts = check_format(_with_blocks("exact h", "exact h", "simpa using h")).metrics
    assert (drafts.tactic_blocks, drafts.distinct_tactic_blocks) == (3, 2)


def test_the_message_says_how_many_were_copies() -> None:
    verdict = check_format(_with_blocks("exact h", "exact h"))
    messages = [v.message for v in verdict.violations if v.code == ViolationCode.TOO_FEW_TACTIC_BLOCKS]
    assert messages == ["1 different ```tactics blocks in the thinking (2 with copies), need 2"]
    assert ViolationCode.TOO_FEW_TACTIC_BLOCKS not in check_format(_with_blocks("exact h", "simpa using h")).codes
    one = FormatConfig(min_tactic_blocks=1)
    assert ViolationCode.TOO_FEW_TACTIC_BLOCKS not in check_format(_with_blocks("exact h", "exact h"), config=one).codes
