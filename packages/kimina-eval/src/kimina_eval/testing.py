"""Test helpers shared across the workspace: an engine that replays scripted text instead of sampling a model."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kimina_eval.engines.base import Messages, SamplingParams

__all__ = ["Reply", "ScriptedEngine", "reply_by_pattern"]

Reply = Callable[[Messages, int], str]
"""How a `ScriptedEngine` answers: ``reply(messages, sample_index) -> completion``."""


class ScriptedEngine:
    """An `Engine` that answers from a function instead of a model, and records every call.

    Useful to drive the runner with real completions (say, from ``kimina_completions.jsonl``) and reach the
    verified and error-fix paths that a tiny random model never reaches.

    Args:
        reply: Called as ``reply(messages, sample_index)`` for each of the ``n`` completions a conversation gets.
    """

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.calls: list[tuple[list[Messages], int, SamplingParams]] = []

    def generate(self, prompts: list[Messages], n: int, sampling: SamplingParams) -> list[list[str]]:
        """Return ``reply(prompt, i)`` for ``i`` in ``range(n)``, for each prompt (see `Engine.generate`)."""
        self.calls.append((prompts, n, sampling))
        return [[self.reply(prompt, i) for i in range(n)] for prompt in prompts]


def reply_by_pattern(rules: Sequence[tuple[str, str | Reply]], default: str | Reply = "") -> Reply:
    """A `ScriptedEngine` reply that answers by prompt pattern.

    The first rule whose regular expression is found in the conversation's last message gives the completion: a
    string as is, or a reply function called with the messages and the sample index.

    Example:
        >>> reply = reply_by_pattern([(r"theorem foo", "<think>easy</think>")], default="no idea")
        >>> ScriptedEngine(reply).generate([[{"role": "user", "content": "theorem bar"}]], 1, SamplingParams())
        [['no idea']]
    """
    compiled = [(re.compile(pattern), answer) for pattern, answer in rules]

    def reply(messages: Messages, index: int) -> str:
        text = messages[-1]["content"]
        answer = next((a for pattern, a in compiled if pattern.search(text)), default)
        return answer if isinstance(answer, str) else answer(messages, index)

    return reply
