"""The search's prompts: lemma proposal from failed attempts, and the main statement with proved lemmas before it.

Proving a lemma, a negation or the main theorem uses the model's own prompt template (`kimina_format.prompts`),
so the prover sees the kind of prompt it was trained on; only the proposal turn has its own instructions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kimina_format import parse_completion
from kimina_format.prompts import PROMPT_TEMPLATES

from kimina_eval.engines.base import Messages
from kimina_eval.search.lemmas import split_statement

__all__ = ["FailedAttempt", "proposal_messages", "statement_with_lemmas"]

_PROPOSAL_TASK = """\
# Your task
These attempts did not prove the theorem. Break the proof into intermediate lemmas: propose at most {limit} new \
lemmas that are true, easier than the theorem, and useful to prove it. Each lemma must stand alone: declare every \
variable and hypothesis it needs as a binder. Think step by step, then state the lemmas as Lean 4 `lemma` \
declarations with `sorry` as their proof, all in one final ```lean4 block, for example:

```lean4
lemma step_1 (x : ℝ) (h₀ : 0 < x) : 0 < x ^ 2 := by sorry
```
"""
"""The proposal turn's instructions; ``{limit}`` is the most lemmas wanted."""

_CONTEXT_COMMENT = "-- Proved lemmas: you may use them in the proof of the theorem below."


@dataclass(frozen=True)
class FailedAttempt:
    """What a failed attempt on the main theorem shows the proposal turn.

    Attributes:
        completion: The model's text (its thinking is quoted, shortened).
        code: The Lean code that was verified, or None when the attempt had no final ``lean4`` block.
        feedback: Lean's feedback on it, or None.
    """

    completion: str
    code: str | None
    feedback: str | None


def _tail(text: str, limit: int) -> str:
    """The last ``limit`` characters of ``text``, marked as cut when they are not all of it."""
    text = text.strip()
    return text if len(text) <= limit else "[...]\n" + text[-limit:].lstrip()


def _head(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, marked as cut when they are not all of it."""
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + "\n[...]"


def proposal_messages(
    formal_statement: str,
    informal: str | None,
    failed: Sequence[FailedAttempt],
    proved: Sequence[str],
    *,
    template: str = "rl",
    limit: int = 6,
    max_thinking_chars: int = 1500,
    max_code_chars: int = 3000,
    max_feedback_chars: int = 2000,
) -> Messages:
    """The chat messages asking for intermediate lemmas.

    Args:
        formal_statement: The theorem (with its header).
        informal: The problem in words, or None.
        failed: Failed attempts to learn from: their thinking (its end), code and Lean feedback are shown.
        proved: Lemmas already proved (their code), shown so the model proposes new ones.
        template: The prompt template whose system message is used.
        limit: The most lemmas asked for.
        max_thinking_chars: Characters of each attempt's thinking shown (its end, where the plan usually is).
        max_code_chars: Characters of each attempt's code shown.
        max_feedback_chars: Characters of each attempt's feedback shown.

    Returns:
        System and user messages.
    """
    parts = ["Think about the following problem step by step and find the intermediate steps of its proof in Lean 4."]
    if informal:
        parts.append(f"# Problem:\n{informal.strip()}")
    parts.append(f"# Formal Statement:\n```lean4\n{formal_statement.strip()}\n```")
    for number, attempt in enumerate(failed, 1):
        section = [f"# Failed attempt {number}"]
        thinking = parse_completion(attempt.completion).thinking
        if thinking and thinking.strip():
            section.append(f"Reasoning (end):\n{_tail(thinking, max_thinking_chars)}")
        if attempt.code is None:
            section.append("It wrote no final ```lean4 block.")
        else:
            section.append(f"Lean code:\n```lean4\n{_head(attempt.code, max_code_chars)}\n```")
        if attempt.feedback:
            section.append(f"Lean feedback:\n{_head(attempt.feedback, max_feedback_chars)}")
        parts.append("\n".join(section))
    if proved:
        blocks = "\n\n".join(block.strip() for block in proved)
        parts.append(f"# Lemmas already proved (do not propose them again)\n```lean4\n{blocks}\n```")
    parts.append(_PROPOSAL_TASK.format(limit=limit))
    system = PROMPT_TEMPLATES[template].system
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def statement_with_lemmas(formal_statement: str, proved: Sequence[str]) -> str:
    """The main statement with proved lemmas (their code) between its header and its theorem.

    This is the formal statement a search attempt is prompted with; without lemmas it is ``formal_statement``.
    """
    if not proved:
        return formal_statement
    header, theorem = split_statement(formal_statement)
    blocks = "\n\n".join(block.strip() for block in proved)
    return f"{header}{_CONTEXT_COMMENT}\n\n{blocks}\n\n{theorem}"
