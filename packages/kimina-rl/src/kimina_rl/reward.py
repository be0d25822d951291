"""The Lean reward for verl 0.9.1's reward loop: `reward.custom_reward_function.path=pkg://kimina_rl.reward`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kimina_rl.scoring import RewardProblem, reward_info, sealed_reward, unencodable_attempt
from kimina_rl.service import scorer_for
from kimina_rl.settings import Settings

__all__ = ["compute_score"]

_SETTINGS_KEYS = ("verifier", "scorer", "fix", "format", "history")
# Keyword arguments verl itself may add (reward-model routing); they are not ours to read.
_VERL_KEYS = frozenset({"reward_router_address", "reward_model_tokenizer"})


async def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Score one completion: format score (with the length penalty) times Lean's acceptance.

    verl's `naive` reward manager awaits this once per sample, many samples at a time; the calls of a worker process
    share one verification client and are batched together. A `sorry`, an integrity violation, a Lean error or a
    timeout scores 0; a server that stays unreachable for `kimina_rl.scorer.infra_retry_s` raises instead. A
    response holding text UTF-8 cannot encode (a lone surrogate), or code holding NUL or control characters, scores
    0 with verdict `integrity`, that sample alone.

    Args:
        data_source: The row's `data_source`.
        solution_str: The decoded response (one assistant turn).
        ground_truth: `reward_model.ground_truth` (the statement, used when `extra_info` has none).
        extra_info: The row's `extra_info` (`header`, `formal_statement`, `uid`, `informal_problem`, `split`).
        **kwargs: `reward.custom_reward_function.reward_kwargs`, i.e. the `kimina_rl` config section
            (`verifier`, `fix`, `format`, `history`).

    Returns:
        `kimina_rl.scoring.REWARD_KEYS`: `score` (the reward), `acc` (Lean accepted the proof, for validation),
        `acc_turn_1`/`acc_turn_2`, `fix_turn`, `format_ok`, `format_score`, `length_penalty`, `violations`,
        `verdict`, `check_time_s`, `cache_hit`; the same keys for every sample.

    Raises:
        kimina_verify.VerifierUnavailable: The verification server failed for the whole retry budget.
        ValueError: The row has no formal statement, or the settings have an unknown key.

    Example:
        >>> # await compute_score("numina", completion, stmt, {"formal_statement": stmt}, verifier={"endpoint": {"url": url}})
    """
    ready = sealed_reward(extra_info)
    if ready is not None:  # the kimina_fix agent loop already scored this trajectory (and sealed it)
        return ready
    unknown = set(kwargs) - set(_SETTINGS_KEYS) - _VERL_KEYS
    if unknown:
        raise ValueError(f"unknown reward_kwargs {sorted(unknown)}; expected the kimina_rl section {_SETTINGS_KEYS}")
    settings = Settings.from_mapping({key: kwargs[key] for key in _SETTINGS_KEYS if key in kwargs})
    problem = RewardProblem.from_row(data_source, ground_truth, extra_info)
    scorer = scorer_for(settings)
    attempt = unencodable_attempt(solution_str, settings) or await scorer.attempt(solution_str, problem)
    await scorer.record(problem, attempt.solved)
    return reward_info(attempt)
