"""The format verdict for one completion (`check_format`) and for a batch, as RL rewards (`format_rewards`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kimina_format.config import DEFAULT_CONFIG, FormatConfig
from kimina_format.length import length_penalty
from kimina_format.metrics import FormatMetrics, measure
from kimina_format.parsing import Completion, frozen_instance, parse_completion
from kimina_format.rules import judge
from kimina_format.violations import Violation, ViolationCode

__all__ = ["FormatVerdict", "TokenCounter", "check_format", "format_rewards"]

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class FormatVerdict:
    """The format checker's answer for one completion.

    Attributes:
        ok: True when no rule is broken.
        violations: Every broken rule, in rule order.
        metrics: What was measured, whether or not a rule failed.
        length_penalty: Soft length penalty in [0, 1] (0 below the soft limit).
        score: What an RL reward should multiply by: 0 when not `ok`, else `1 - length_penalty`.
        completion: The parsed completion (the thinking, the tactic blocks, the final `code`, spans).
    """

    ok: bool
    violations: tuple[Violation, ...]
    metrics: FormatMetrics
    length_penalty: float
    score: float
    completion: Completion

    @property
    def codes(self) -> tuple[ViolationCode, ...]:
        """The codes of the violations, in order."""
        return tuple(v.code for v in self.violations)

    def to_dict(self) -> dict[str, Any]:
        """The verdict as a plain dict for JSON (the completion's text is left out; `code` is kept)."""
        return {
            "ok": self.ok,
            "score": self.score,
            "length_penalty": self.length_penalty,
            "violations": [{"code": v.code.value, "message": v.message} for v in self.violations],
            "metrics": self.metrics.to_dict(),
            "code": self.completion.code,
        }


def check_format(
    text: str,
    *,
    formal_statement: str | None = None,
    config: FormatConfig = DEFAULT_CONFIG,
    count_tokens: TokenCounter | None = None,
) -> FormatVerdict:
    """Check one completion against every format rule.

    Args:
        text: The model's response (assistant message only).
        formal_statement: The statement the model was asked to prove; enables the statement rule.
        config: Thresholds (the defaults accept the real Kimina completions that follow the format).
        count_tokens: Exact token counter for the length rule, e.g. `lambda s: len(tokenizer.encode(s))`;
            without one, tokens are estimated as `len(text) / config.chars_per_token`.

    Returns:
        The verdict: `ok`, `violations`, `metrics`, `length_penalty` and `score`.

    Example:
        >>> verdict = check_format("no thinking here")
        >>> verdict.ok, [v.code.value for v in verdict.violations]
        (False, ['think_missing', 'code_missing'])
    """
    completion = parse_completion(text)
    metrics = measure(completion, formal_statement=formal_statement, config=config, count_tokens=count_tokens)
    violations = tuple(judge(completion, metrics, config))
    penalty = length_penalty(metrics.tokens, config)
    ok = not violations
    # `FormatVerdict(...)` without its frozen `__init__` (six `object.__setattr__` calls): one per completion adds up.
    return frozen_instance(
        FormatVerdict,
        dict(
            ok=ok,
            violations=violations,
            metrics=metrics,
            length_penalty=penalty,
            score=1.0 - penalty if ok else 0.0,
            completion=completion,
        ),
    )


def format_rewards(
    completions: Sequence[str | Sequence[Mapping[str, Any]]],
    formal_statements: Sequence[str | None] | None = None,
    config: FormatConfig | None = None,
    *,
    count_tokens: TokenCounter | None = None,
    **kwargs: Any,
) -> list[float]:
    """Format reward for a batch, one float per completion: the contract of TRL-style reward functions.

    Each reward is `check_format(...).score`: 0.0 when a rule is broken, else 1 minus the length penalty.
    Completions may be strings or chat messages (the last message's `content` is checked). Other keyword
    arguments, such as the `prompts` and dataset columns TRL passes, are accepted and ignored, except that a
    `formal_statement` column is used when `formal_statements` is not given.

    Args:
        completions: The model responses.
        formal_statements: The statement for each completion (or None entries) to enable the statement rule.
        config: Thresholds; the defaults when None.
        count_tokens: Exact token counter for the length rule (see `check_format`).
        **kwargs: Ignored, apart from `formal_statement` (see above).

    Returns:
        One reward in [0, 1] per completion, in order.

    Example:
        >>> format_rewards(["no thinking", [{"role": "assistant", "content": "nor here"}]])
        [0.0, 0.0]
    """
    if formal_statements is None:
        formal_statements = kwargs.get("formal_statement")
    if formal_statements is not None and len(formal_statements) != len(completions):
        raise ValueError(f"got {len(completions)} completions but {len(formal_statements)} formal statements")
    config = config if config is not None else FormatConfig()
    rewards = []
    for i, completion in enumerate(completions):
        text = completion if isinstance(completion, str) else str(completion[-1]["content"]) if completion else ""
        statement = formal_statements[i] if formal_statements is not None else None
        verdict = check_format(text, formal_statement=statement, config=config, count_tokens=count_tokens)
        rewards.append(verdict.score)
    return rewards
