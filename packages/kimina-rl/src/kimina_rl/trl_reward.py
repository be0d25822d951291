"""The full reward (format score x Lean's acceptance) as a TRL reward function, for `trl.GRPOTrainer`.

TRL calls each reward function once per batch, synchronously, with keyword arguments: `prompts`, `completions`
(strings, or lists of chat messages for a conversational dataset), `completion_ids`, `trainer_state`, and one list
per remaining dataset column. It wants one float per completion back, or None for "no reward". This module needs no
TRL: the contract is plain Python.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, Literal

from kimina_verify.errors import VerifierUnavailable

from kimina_rl.scoring import RewardProblem
from kimina_rl.service import Scorer
from kimina_rl.settings import Settings

__all__ = ["LeanReward", "OnInfra"]

OnInfra = Literal["raise", "none"]

# Row fields a flat dataset may carry as their own columns instead of inside `extra_info`.
_FLAT_COLUMNS = ("formal_statement", "header", "uid", "name", "informal_problem", "split")


class LeanReward:
    """Reward = format score (0 on a broken rule, else 1 minus the length penalty) x 1 if Lean accepted the proof.

    The same reward as `kimina_rl.reward.compute_score` (verl), in TRL's contract: `reward(completions, **columns)
    -> list[float | None]`. Each row's statement comes from the kimina-data columns (`extra_info` with `header` +
    `formal_statement`, `reward_model.ground_truth`, `data_source`) or from flat `formal_statement` (and `header`)
    columns; `completion_ids`, when TRL passes them, give the exact token counts for the length penalty. Other
    keyword arguments (`prompts`, `trainer_state`, unknown columns) are ignored.

    Infrastructure failures (server down, HTTP 5xx, REPL crash) are never scored 0. They are retried for
    `settings.scorer.infra_retry_s` seconds (600 by default); then, with `on_infra="raise"` (the default), the call
    raises `kimina_verify.VerifierUnavailable` and training stops, as with verl. With `on_infra="none"` such completions get
    None: TRL turns it into NaN and warns when every reward function returned None for a row, but then adds the
    rewards up with `nansum`, so a row whose only reward is None counts as 0 in its group's advantage, and one with
    other reward functions gets theirs alone. Use it only with that in mind.

    Args:
        settings: The `kimina_rl` settings (`verifier`, `format`, `history`), as `Settings` or a mapping laid out like
            the `kimina_rl` config section; None reads the server from `$LEAN_SERVER_API_URL` (else
            `http://localhost:8000`) and the key from `$LEAN_SERVER_API_KEY`.
        on_infra: `raise` or `none` (see above).
        name: The function's `__name__`, which TRL uses in its logs (`rewards/<name>/mean`).

    Example:
        >>> from trl import GRPOConfig, GRPOTrainer  # doctest: +SKIP
        >>> reward = LeanReward({"verifier": {"endpoint": {"url": "http://lean:8000"}}})  # doctest: +SKIP
        >>> GRPOTrainer(model=model, reward_funcs=[reward], train_dataset=rows, args=GRPOConfig(...))  # doctest: +SKIP
        >>> reward([completion], formal_statement=[statement])  # doctest: +SKIP
        [0.93]
    """

    def __init__(
        self,
        settings: Settings | Mapping[str, Any] | None = None,
        *,
        on_infra: OnInfra = "raise",
        name: str = "kimina_lean_reward",
    ) -> None:
        if on_infra not in ("raise", "none"):
            raise ValueError(f"on_infra must be 'raise' or 'none', got {on_infra!r}")
        self.settings = settings if isinstance(settings, Settings) else Settings.from_mapping(settings)
        self.on_infra: OnInfra = on_infra
        self.__name__ = name

    def __call__(self, completions: Sequence[Any], **columns: Any) -> list[float | None]:
        """Score a batch: one reward per completion, in order (see the class docstring).

        Raises:
            ValueError: A row names no formal statement, or a column's length differs from the batch's.
            kimina_verify.VerifierUnavailable: With `on_infra="raise"`, when the server failed for the
                whole retry budget.
        """
        for key, values in columns.items():
            if key in _ROW_COLUMNS and len(values) != len(completions):
                raise ValueError(f"column {key!r} has {len(values)} values for {len(completions)} completions")
        problems = [_problem(i, columns) for i in range(len(completions))]
        texts = [_text(completion) for completion in completions]
        ids = columns.get("completion_ids")
        tokens = [len(row) for row in ids] if ids is not None and len(ids) == len(completions) else None
        return _run_sync(self._score(texts, problems, tokens))

    async def _score(
        self, texts: list[str], problems: list[RewardProblem], tokens: list[int] | None
    ) -> list[float | None]:
        scorer = Scorer(self.settings)
        try:
            results = await asyncio.gather(
                *(
                    self._one(scorer, text, problem, tokens[i] if tokens is not None else None)
                    for i, (text, problem) in enumerate(zip(texts, problems, strict=True))
                ),
                return_exceptions=True,
            )
        finally:
            await scorer.aclose()
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return [result for result in results if not isinstance(result, BaseException)]

    async def _one(self, scorer: Scorer, text: str, problem: RewardProblem, tokens: int | None) -> float | None:
        try:
            attempt = await scorer.attempt(text, problem, tokens=tokens)
        except VerifierUnavailable:
            if self.on_infra == "raise":
                raise
            return None
        await scorer.record(problem, attempt.solved)
        return attempt.score


_ROW_COLUMNS = frozenset({"extra_info", "reward_model", "data_source", "completion_ids", *_FLAT_COLUMNS})


def _text(completion: Any) -> str:
    """A completion's text: the string, or the last message's `content` of a conversational completion."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], Mapping):
        return str(completion[-1].get("content") or "")
    raise ValueError(f"a completion must be a string or a list of chat messages, got {type(completion).__name__}")


def _problem(i: int, columns: Mapping[str, Any]) -> RewardProblem:
    """Row `i`'s problem, from kimina-data's verl columns or from flat columns."""
    extra = dict(columns["extra_info"][i] or {}) if "extra_info" in columns else {}
    for key in _FLAT_COLUMNS:
        if key in columns and key not in extra:
            extra[key] = columns[key][i]
    reward_model = columns["reward_model"][i] if "reward_model" in columns else None
    truth = reward_model.get("ground_truth") if isinstance(reward_model, Mapping) else None
    source = columns["data_source"][i] if "data_source" in columns else ""
    return RewardProblem.from_row(str(source or ""), truth, extra)


def _run_sync[T](coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code, in a worker thread when this thread already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
