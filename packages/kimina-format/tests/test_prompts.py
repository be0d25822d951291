"""The chat prompts: first-turn templates verbatim from upstream, and the error-fix turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from kimina_format import FIX_TEMPLATE, build_fix_messages, build_messages
from kimina_format.testing import SAMPLE_FORMAL_STATEMENT, build_completion

STATEMENT = "theorem t : 1 + 1 = 2 := by"


def test_rl_template_is_the_kimina_prover_rl_training_prompt() -> None:
    messages = build_messages(STATEMENT, "What is 1 + 1?")
    assert messages == [
        {"role": "system", "content": "You are an expert in mathematics and proving theorems in Lean 4."},
        {
            "role": "user",
            "content": "Think about and solve the following problems step by step in Lean 4.\n\n"
            "# Problem:\nWhat is 1 + 1?\n\n# Formal Statement:\n```lean4\ntheorem t : 1 + 1 = 2 := by\n```\n",
        },
    ]


def test_distill_template_is_the_model_card_prompt() -> None:
    messages = build_messages(STATEMENT, "What is 1 + 1?", template="distill")
    assert messages == [
        {"role": "system", "content": "You are an expert in mathematics and Lean 4."},
        {
            "role": "user",
            "content": "Think about and solve the following problem step by step in Lean 4.\n"
            "# Problem:What is 1 + 1?\n# Formal statement:\n```lean4\ntheorem t : 1 + 1 = 2 := by\n```\n",
        },
    ]


@pytest.mark.parametrize("template", ["rl", "distill"])
def test_templates_match_the_sources_document(data_dir: Path, template: str) -> None:
    # SOURCES.md writes each template on one line with "\n" escapes; the rendered prompt must match it.
    sources = (data_dir / "SOURCES.md").read_text(encoding="utf-8")
    system, user = build_messages("{formal_statement}", "{problem}", template=template)  # type: ignore[arg-type]
    user_text = user["content"].replace("\n", "\\n")
    if template == "rl":
        user_text = user_text.replace("{problem}", "{informal_problem}")
    assert f"system `{system['content']}`" in sources
    assert f"user `{user_text}`" in sources


def test_without_an_informal_problem_the_problem_section_is_left_out() -> None:
    for template in ("rl", "distill"):
        content = build_messages(STATEMENT, template=template)[1]["content"]  # type: ignore[arg-type]
        assert "# Problem" not in content
        assert "```lean4\ntheorem t : 1 + 1 = 2 := by\n```" in content


def test_braces_in_the_statement_are_kept() -> None:
    statement = "theorem t (s : Set ℕ) (h : s = {1, 2}) : s.ncard = 2 := by"
    assert statement in build_messages(statement, "{x}")[1]["content"]


def test_unknown_template() -> None:
    with pytest.raises(ValueError, match="unknown prompt template 'sft'"):
        build_messages(STATEMENT, template="sft")  # type: ignore[arg-type]


def test_fix_messages_append_the_attempt_and_the_feedback() -> None:
    prompt = build_messages(SAMPLE_FORMAL_STATEMENT, "Show it.")
    attempt = build_completion()
    feedback = "# Error 1:\nlinarith failed\n"
    messages = build_fix_messages(prompt, attempt, feedback)
    assert messages[:2] == prompt
    assert messages[2] == {"role": "assistant", "content": attempt}
    assert messages[3] == {"role": "user", "content": FIX_TEMPLATE.format(feedback=feedback.strip())}
    assert "linarith failed" in messages[3]["content"] and "```lean4" in messages[3]["content"]
    assert len(prompt) == 2  # the prompt was copied, not extended


def test_fix_messages_can_drop_the_thinking() -> None:
    attempt = build_completion()
    assistant = build_fix_messages(build_messages(STATEMENT), attempt, "error", strip_thinking=True)[2]["content"]
    assert assistant.startswith("```lean4\n") and "<think>" not in assistant


def test_fix_messages_keep_an_attempt_without_thinking_whole() -> None:
    assistant = build_fix_messages(build_messages(STATEMENT), "no tags here", "error", strip_thinking=True)[2]
    assert assistant["content"] == "no tags here"
