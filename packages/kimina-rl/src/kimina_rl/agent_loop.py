"""`kimina_fix`: verl's agent loop for proving with one error-correction turn fed by Lean's feedback.

Generate a proof; check it; if the attempt protocol gives it a fix turn (`kimina_verify.attempts`: the format holds and
Lean refused the proof), show Lean's feedback as a user turn (kept out of the loss) and generate a revision, all within
`max_response_length`. This module keeps only what is token-level: the token budget of the feedback turn, the masks. The trajectory is scored here, so verl skips
its reward loop for it. This module imports verl at the top (it subclasses verl's `AgentLoopBase`): verl's workers
import it through `kimina_rl/config/agent_loops.yaml`; `import kimina_rl` does not.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register  # noqa: TID253
from verl.utils.profiler import simple_timer  # noqa: TID253

from kimina_rl.scoring import REWARD_FIELD, REWARD_SEAL_FIELD, Attempt, RewardProblem, reward_info, seal_reward
from kimina_rl.service import Scorer, scorer_for
from kimina_rl.settings import Settings

__all__ = ["AGENT_NAME", "KiminaFixAgentLoop"]

logger = logging.getLogger(__name__)

AGENT_NAME = "kimina_fix"


@dataclass(frozen=True)
class _Request:
    """Routing of one trajectory's generations: the sticky request id and the vLLM scheduling priority."""

    id: str
    priority: int


@dataclass
class _Tokens:
    """The growing response: runtime ids (prompt + response so far), loss mask and log-probs of the response."""

    ids: list[int]
    mask: list[int]
    logprobs: list[float] | None


@dataclass
class _TurnStats:
    """Per-process running tally of first-try and after-fix accuracy, logged every `every` trajectories."""

    every: int = 256
    trajectories: int = 0
    first_ok: int = 0
    final_ok: int = 0
    fix_turns: int = 0

    def add(self, info: dict[str, Any]) -> None:
        self.trajectories += 1
        self.first_ok += int(info["acc_turn_1"])
        self.final_ok += int(info["acc_turn_2"])
        self.fix_turns += int(info["fix_turn"])
        if self.trajectories >= self.every:
            logger.info(
                "kimina_fix over %d trajectories: acc_turn_1=%.3f acc_turn_2=%.3f fix_turn_rate=%.3f",
                self.trajectories,
                self.first_ok / self.trajectories,
                self.final_ok / self.trajectories,
                self.fix_turns / self.trajectories,
            )
            self.trajectories = self.first_ok = self.final_ok = self.fix_turns = 0


_stats = _TurnStats()


@register(AGENT_NAME)
class KiminaFixAgentLoop(AgentLoopBase):  # type: ignore[misc]  # verl is untyped (mypy skips it)
    """Prove, check with Lean, and on a Lean failure revise once with the feedback in context.

    Settings come from the trainer config's `kimina_rl` section (see `kimina_rl.settings.Settings`); the budget is
    `actor_rollout_ref.rollout.response_length`, shared by the first answer, the feedback turn and the revision.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Build the loop as verl's agent-loop worker does (`hydra.utils.instantiate` with verl's arguments)."""
        super().__init__(*args, **kwargs)
        self.settings = Settings.from_mapping(self.config.get("kimina_rl"))
        self.response_length = int(self.rollout_config.response_length)

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        """Run one trajectory for one dataset row (`kwargs` are the row's fields: `raw_prompt`, `extra_info`, ...)."""
        messages = [dict(message) for message in kwargs["raw_prompt"]]
        reward_model = kwargs.get("reward_model") or {}
        problem = RewardProblem.from_row(
            kwargs.get("data_source", ""), reward_model.get("ground_truth"), kwargs.get("extra_info")
        )
        scorer = scorer_for(self.settings)
        metrics: dict[str, Any] = {}
        # As verl's own loops: a stable id under full determinism; the priority orders requests in vLLM.
        priority = int(kwargs.get("priority", 0))
        request = _Request(
            f"det-{priority}" if self.rollout_config.get("full_determinism", False) else uuid4().hex, priority
        )

        prompt_ids = await self.ct_build_initial_tokens(messages)
        tokens = _Tokens(ids=list(prompt_ids), mask=[], logprobs=None)
        first_output = await self._generate(request, tokens, sampling_params, metrics)
        first = await self._check(scorer, first_output.token_ids, problem, metrics)
        extra_fields = dict(first_output.extra_fields)

        final, revised = first, False
        if first.fixable:
            second_output = await self._fix_turn(request, messages, first, tokens, sampling_params, metrics)
            if second_output is not None:
                final, revised = await self._check(scorer, second_output.token_ids, problem, metrics), True
                if "max_global_steps" in second_output.extra_fields:
                    extra_fields["max_global_steps"] = second_output.extra_fields["max_global_steps"]
                if not self.settings.fix.train_first_turn:
                    first_turn = len(first_output.token_ids)
                    tokens.mask[:first_turn] = [0] * first_turn

        info = reward_info(final, first if revised else None, fix_reward_scale=self.settings.fix.reward_scale)
        await scorer.record(problem, first.solved)
        _stats.add(info)
        extra_fields.update(
            {"turn_scores": [first.score, final.score] if revised else [first.score], "tool_rewards": []}
        )
        extra_fields.update({"reward_extra_info": info, REWARD_FIELD: info, REWARD_SEAL_FIELD: seal_reward(info)})

        response_ids = tokens.ids[len(prompt_ids) :][: self.response_length]
        return AgentLoopOutput(
            prompt_ids=prompt_ids,
            response_ids=response_ids,
            response_mask=tokens.mask[: self.response_length],
            response_logprobs=tokens.logprobs[: self.response_length] if tokens.logprobs else None,
            reward_score=info["score"],
            num_turns=4 if revised else 2,
            metrics=metrics,
            extra_fields=extra_fields,
        )

    async def _generate(
        self, request: _Request, tokens: _Tokens, sampling_params: dict[str, Any], metrics: dict[str, Any]
    ) -> Any:
        """One assistant turn appended to `tokens` (mask 1), as verl's own loops do it."""
        with simple_timer("generate_sequences", metrics):
            output = await self.server_manager.generate(
                request_id=request.id, prompt_ids=tokens.ids, sampling_params=sampling_params, priority=request.priority
            )
        preempted = output.num_preempted if output.num_preempted is not None else 0
        metrics["num_preempted"] = metrics.get("num_preempted", 0) + preempted
        assistant_logprobs = output.log_probs or None
        logprobs = tokens.logprobs
        if assistant_logprobs is not None and logprobs is None:
            logprobs = [0.0] * len(tokens.mask)
        merged, tokens.mask, tokens.logprobs = await self.ct_merge_assistant_token(
            tokens.ids, output.token_ids, tokens.mask, logprobs, assistant_logprobs=assistant_logprobs
        )
        tokens.ids = merged.token_ids
        return output

    async def _check(
        self, scorer: Scorer, token_ids: list[int], problem: RewardProblem, metrics: dict[str, Any]
    ) -> Attempt:
        text = await self.loop.run_in_executor(None, lambda: self.tokenizer.decode(token_ids, skip_special_tokens=True))
        with simple_timer("tool_calls", metrics):
            return await scorer.attempt(text, problem, tokens=len(token_ids))

    async def _fix_turn(
        self,
        request: _Request,
        messages: list[dict[str, Any]],
        attempt: Attempt,
        tokens: _Tokens,
        sampling_params: dict[str, Any],
        metrics: dict[str, Any],
    ) -> Any:
        """Append the feedback turn and generate the revision; None (nothing appended) when the budget is too small."""
        fix = self.settings.fix
        feedback = await self._feedback_tokens(messages, attempt, tokens)
        if feedback is None:
            return None
        remaining = self.response_length - len(feedback.mask)
        if remaining < fix.min_revision_tokens:
            return None
        tokens.ids, tokens.mask, tokens.logprobs = feedback.ids, feedback.mask, feedback.logprobs
        return await self._generate(request, tokens, {**sampling_params, "max_tokens": remaining}, metrics)

    async def _feedback_tokens(
        self, messages: list[dict[str, Any]], attempt: Attempt, tokens: _Tokens
    ) -> _Tokens | None:
        """The response with the feedback turn appended (mask 0), within `fix.max_feedback_tokens`, or None."""
        from kimina_verify.attempts import fix_feedback, fix_messages

        fix = self.settings.fix
        assert attempt.code is not None and attempt.verdict is not None
        chars = fix.max_feedback_chars
        # Only the token budget is this loop's own; the feedback and the fix prompt are the attempt protocol's.
        while chars >= _MIN_FEEDBACK_CHARS:
            feedback = fix_feedback(attempt.code, attempt.verdict, max_errors=fix.max_errors, max_chars=chars)
            conversation = fix_messages(messages, attempt.text, feedback)
            merged, mask, logprobs = await self.ct_merge_context_msg(
                conversation[:-1], conversation, tokens.ids, tokens.mask, tokens.logprobs
            )
            added = len(merged.token_ids) - len(tokens.ids)
            if added <= fix.max_feedback_tokens:
                return _Tokens(merged.token_ids, mask, logprobs)
            # Long Lean messages: shrink the character budget in proportion and try again.
            chars = int(chars * fix.max_feedback_tokens / added * 0.9)
        return None


_MIN_FEEDBACK_CHARS = 200
