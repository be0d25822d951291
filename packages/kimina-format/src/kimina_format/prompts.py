"""Chat prompts for Kimina provers: the first-turn templates, and the error-fix turn that shows the model Lean's feedback.

The first-turn texts are the upstream ones, verbatim: "rl" is the Kimina-Prover-RL training prompt
(kimina-prover-rl `prepare_data.py`), "distill" the quick-start prompt of the Kimina-Prover-Distill model cards.
Upstream has no instruction text for the error-fix turn (it sends the bare error report), so `FIX_TEMPLATE` is ours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from kimina_format.parsing import parse_completion

__all__ = ["FIX_TEMPLATE", "PROMPT_TEMPLATES", "PromptTemplate", "TemplateName", "build_fix_messages", "build_messages"]

TemplateName = Literal["rl", "distill"]


@dataclass(frozen=True)
class PromptTemplate:
    """A system message and a user message with `{informal_problem}` and `{formal_statement}` fields.

    Attributes:
        system: The system message.
        user: The user message, with both fields.
        user_without_problem: The user message when no informal problem is given (only `{formal_statement}`).
    """

    system: str
    user: str
    user_without_problem: str


PROMPT_TEMPLATES: Mapping[str, PromptTemplate] = {
    "rl": PromptTemplate(
        system="You are an expert in mathematics and proving theorems in Lean 4.",
        user=(
            "Think about and solve the following problems step by step in Lean 4.\n\n"
            "# Problem:\n{informal_problem}\n\n"
            "# Formal Statement:\n```lean4\n{formal_statement}\n```\n"
        ),
        user_without_problem=(
            "Think about and solve the following problems step by step in Lean 4.\n\n"
            "# Formal Statement:\n```lean4\n{formal_statement}\n```\n"
        ),
    ),
    "distill": PromptTemplate(
        system="You are an expert in mathematics and Lean 4.",
        user=(
            "Think about and solve the following problem step by step in Lean 4.\n"
            "# Problem:{informal_problem}\n"
            "# Formal statement:\n```lean4\n{formal_statement}\n```\n"
        ),
        user_without_problem=(
            "Think about and solve the following problem step by step in Lean 4.\n"
            "# Formal statement:\n```lean4\n{formal_statement}\n```\n"
        ),
    ),
}

FIX_TEMPLATE = (
    "Lean 4 rejected the proof above. Here is its feedback:\n\n"
    "{feedback}\n\n"
    "Think about what went wrong step by step, then write the complete corrected proof, including the unchanged "
    "theorem statement, in a single ```lean4 block."
)
"""The user message of the error-fix turn; `{feedback}` is the rendered Lean feedback (errors with code excerpts)."""


def build_messages(
    formal_statement: str,
    informal_problem: str | None = None,
    *,
    template: TemplateName = "rl",
) -> list[dict[str, str]]:
    """The first-turn chat messages (system, then user) asking a Kimina prover to prove `formal_statement`.

    Args:
        formal_statement: The Lean statement, usually with its header (`import Mathlib ...`) and ending in `:= by`;
            inserted as given.
        informal_problem: The problem in natural language. When None, the `# Problem:` section is left out.
        template: "rl" (Kimina-Prover-RL training prompt) or "distill" (Kimina-Prover-Distill model-card prompt).

    Returns:
        `[{"role": "system", ...}, {"role": "user", ...}]`, ready for a tokenizer's chat template.

    Example:
        >>> build_messages("theorem t : 1 + 1 = 2 := by", "Show 1 + 1 = 2.")[1]["content"].splitlines()[:4]
        ['Think about and solve the following problems step by step in Lean 4.', '', '# Problem:', 'Show 1 + 1 = 2.']
    """
    try:
        chosen = PROMPT_TEMPLATES[template]
    except KeyError:
        raise ValueError(f"unknown prompt template {template!r}; choose one of {sorted(PROMPT_TEMPLATES)}") from None
    if informal_problem is None:
        user = chosen.user_without_problem.format(formal_statement=formal_statement)
    else:
        user = chosen.user.format(formal_statement=formal_statement, informal_problem=informal_problem)
    return [{"role": "system", "content": chosen.system}, {"role": "user", "content": user}]


def build_fix_messages(
    messages: Sequence[Mapping[str, str]],
    attempt: str,
    feedback: str,
    *,
    strip_thinking: bool = False,
) -> list[dict[str, str]]:
    """The error-fix turn: the conversation so far, the failed attempt as an assistant turn, then Lean's feedback.

    Args:
        messages: The prompt the attempt answered (e.g. from `build_messages`); it is copied, not modified.
        attempt: The model's failed completion.
        feedback: What Lean said, rendered for the model (e.g. `kimina_verify.render_feedback(...)`).
        strip_thinking: Keep only what follows `</think>` in the assistant turn, to save prompt tokens (many chat
            templates drop earlier turns' thinking anyway).

    Returns:
        A new message list: `messages`, `{"role": "assistant", "content": attempt}`, and a user turn made from
        `FIX_TEMPLATE`.
    """
    if strip_thinking:
        completion = parse_completion(attempt)
        if completion.think is not None and completion.think_closed:
            attempt = completion.text[completion.think.end :].lstrip("\n")
    conversation = [{"role": str(m["role"]), "content": str(m["content"])} for m in messages]
    conversation.append({"role": "assistant", "content": attempt})
    conversation.append({"role": "user", "content": FIX_TEMPLATE.format(feedback=feedback.strip())})
    return conversation
