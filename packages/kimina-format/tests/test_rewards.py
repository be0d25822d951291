"""The batch reward contract and the verdict's JSON form."""

from __future__ import annotations

import json

import pytest
from kimina_format import FormatConfig, check_format, format_rewards
from kimina_format.testing import SAMPLE_FORMAL_STATEMENT, build_completion


def test_one_reward_per_completion_in_order() -> None:
    good, bad = build_completion(), "no format at all"
    assert format_rewards([good, bad, good]) == [1.0, 0.0, 1.0]


def test_chat_message_completions_use_the_last_content() -> None:
    assert format_rewards([[{"role": "assistant", "content": build_completion()}], []]) == [1.0, 0.0]


def test_formal_statements_enable_the_statement_rule() -> None:
    changed = build_completion(statement="theorem sq_example (x : ℝ) : x ^ 2 + 1 ≥ 2 * x := by")
    assert format_rewards([changed]) == [1.0]
    assert format_rewards([changed], [SAMPLE_FORMAL_STATEMENT]) == [0.0]
    assert format_rewards([changed], [None]) == [1.0]


def test_trl_style_keyword_columns_are_accepted() -> None:
    changed = build_completion(statement="theorem sq_example (x : ℝ) : x ^ 2 + 1 ≥ 2 * x := by")
    rewards = format_rewards(completions=[changed], prompts=["p"], formal_statement=[SAMPLE_FORMAL_STATEMENT])
    assert rewards == [0.0]


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(ValueError, match="2 completions but 1 formal statements"):
        format_rewards(["a", "b"], ["s"])


def test_rewards_include_the_length_penalty() -> None:
    config = FormatConfig(soft_max_tokens=10, max_tokens=1000)
    (reward,) = format_rewards([build_completion()], config=config, count_tokens=lambda s: 505)
    assert reward == pytest.approx(0.5)


def test_verdict_to_dict_is_json() -> None:
    verdict = check_format("<think>\n</think>\n```lean4\ntheorem t : True := trivial\n```\nbye")
    data = json.loads(json.dumps(verdict.to_dict()))
    assert data["ok"] is False and data["score"] == 0.0
    assert [v["code"] for v in data["violations"]] == [
        "text_after_code",
        "too_few_tactic_blocks",
        "reasoning_too_short",
        "misaligned_tactics",
    ]
    assert data["code"] == "theorem t : True := trivial"
    assert data["metrics"]["tactic_block_lines"] == []
