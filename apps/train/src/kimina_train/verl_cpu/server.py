"""The `hf` rollout server: a Ray actor that generates with transformers, token in, token out, with log-probs.

It answers the calls verl's agent loop and trainer make on a vLLM server (`generate`, `sleep`, `wake_up`,
`clear_kv_cache`, ...), and loads the actor's weights after every step (`load_weights`, from `HFServerAdapter`).
One request runs at a time: on a CPU, concurrent generations would only share the same cores.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kimina_train.verl_cpu.replay import (
    ASSISTANT_TURN,
    SAMPLED,
    Answer,
    AnswerLog,
    ReferenceReplay,
    ReplaySettings,
)

__all__ = ["Generation", "HFRolloutServer"]

if TYPE_CHECKING:
    import torch

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Generation:
    """One answer: its tokens, their log-probs under the current weights, and what produced them."""

    token_ids: list[int]
    log_probs: list[float]
    kind: str
    problem: str | None
    turn: int


class HFRolloutServer:
    """Serves one replica's generations from a transformers copy of the policy.

    Args:
        config: verl's `RolloutConfig` (lengths, sampling defaults, `custom.reference_replay`).
        model_path: Local folder of the starting weights (and tokenizer).
        tokenizer_path: Tokenizer folder, if not the model's.
        attn_implementation: transformers' attention (`sdpa` on CPU).
        replica_rank: This replica's rank (seeds its sampler).
    """

    def __init__(
        self,
        config: Any,
        model_path: str,
        tokenizer_path: str | None = None,
        attn_implementation: str = "sdpa",
        replica_rank: int = 0,
    ) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig

        self.config = config
        self.tokenizer = AutoTokenizer.from_pretrained(tokenizer_path or model_path)
        self.model = AutoModelForCausalLM.from_pretrained(
            model_path, dtype=torch.float32, attn_implementation=attn_implementation
        ).eval()
        generation = GenerationConfig.from_model_config(self.model.config)
        eos = generation.eos_token_id if generation.eos_token_id is not None else self.tokenizer.eos_token_id
        self.eos_ids = [int(e) for e in (eos if isinstance(eos, list) else [eos]) if e is not None]
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.eos_ids[0]
        torch.manual_seed(int(getattr(config, "seed", 0)) + replica_rank)
        settings = ReplaySettings.from_custom(getattr(config, "custom", None))
        self.replay = ReferenceReplay.from_settings(settings) if settings is not None and settings.share > 0 else None
        self.log = AnswerLog(settings.log if settings is not None else None)
        self.global_steps: int | None = None
        self._lock = asyncio.Lock()
        if self.replay is not None:
            logger.warning(
                "REFERENCE REPLAY is on: %.0f%% of first-turn answers are real Kimina-Prover completions "
                "(%.0f%% of those with an injected Lean error), not the model's",
                100 * self.replay.settings.share,
                100 * self.replay.settings.injected_error_share,
            )

    async def generate(
        self,
        prompt_ids: list[int],
        sampling_params: dict[str, Any],
        request_id: str,
        image_data: Any = None,
        video_data: Any = None,
        **_: Any,
    ) -> Any:
        """Answer one request (`TokenOutput`, as verl's vLLM server does); `max_tokens` caps the answer."""
        from verl.workers.rollout.replica import TokenOutput

        if image_data is not None or video_data is not None:
            raise ValueError("the hf rollout serves text only")
        params = dict(sampling_params)
        max_tokens = params.pop("max_tokens", params.pop("max_new_tokens", None))
        if max_tokens is None:  # as verl's vLLM server: the response budget, within the whole context
            config = self.config
            max_tokens = min(config.response_length, config.prompt_length + config.response_length - len(prompt_ids))
        max_tokens = max(1, int(max_tokens))
        async with self._lock:
            result = await asyncio.to_thread(self._generate, list(prompt_ids), params, max_tokens)
        self.log.write(
            request_id=request_id,
            weights_version=self.global_steps,
            problem=result.problem,
            turn=result.turn,
            answer=result.kind,
            prompt_tokens=len(prompt_ids),
            response_tokens=len(result.token_ids),
        )
        return TokenOutput(
            token_ids=result.token_ids,
            log_probs=result.log_probs if params.get("logprobs") else None,
            stop_reason="completed",
            num_preempted=0,
            extra_fields={"global_steps": self.global_steps, "kimina_replay": result.kind},
        )

    def _generate(self, prompt_ids: list[int], params: dict[str, Any], max_tokens: int) -> Generation:
        import torch

        prompt = self.tokenizer.decode(prompt_ids, skip_special_tokens=False)
        answer = self.replay.choose(prompt) if self.replay is not None else Answer(SAMPLED, None)
        temperature = float(params.get("temperature", self.config.temperature))
        with torch.no_grad():
            if answer.text is not None:
                ids = self.tokenizer(answer.text, add_special_tokens=False)["input_ids"] + self.eos_ids[:1]
                if len(ids) > max_tokens:
                    logger.warning(
                        "%s answer for %s cut at %d of %d tokens", answer.kind, answer.problem, max_tokens, len(ids)
                    )
                response = ids[:max_tokens]
            else:
                response = self._sample(prompt_ids, params, temperature, max_tokens)
            log_probs = self._log_probs(prompt_ids, response, temperature)
        return Generation(response, log_probs, answer.kind, answer.problem, turn=max(1, prompt.count(ASSISTANT_TURN)))

    def _sample(self, prompt_ids: list[int], params: dict[str, Any], temperature: float, max_tokens: int) -> list[int]:
        import torch

        top_k = int(params.get("top_k", self.config.top_k))
        options: dict[str, Any] = {"do_sample": temperature > 0}
        if temperature > 0:
            options.update(temperature=temperature, top_p=float(params.get("top_p", self.config.top_p)))
            options["top_k"] = top_k if top_k > 0 else 0  # verl's -1 ("no cut-off") is transformers' 0
        out = self.model.generate(
            torch.tensor([prompt_ids]),
            attention_mask=torch.ones(1, len(prompt_ids), dtype=torch.long),
            max_new_tokens=max_tokens,
            eos_token_id=self.eos_ids,
            pad_token_id=self.pad_id,
            repetition_penalty=float(params.get("repetition_penalty", 1.0)),
            **options,
        )
        response: list[int] = out[0, len(prompt_ids) :].tolist()
        for i, token in enumerate(response):
            if token in self.eos_ids:  # keep the end-of-turn token, drop the padding after it
                return response[: i + 1]
        return response

    def _log_probs(self, prompt_ids: list[int], response: list[int], temperature: float) -> list[float]:
        """Per-token log-probs of `response` after `prompt_ids`, computed as verl's actor does (logits / T)."""
        import torch

        logits: torch.Tensor = self.model(input_ids=torch.tensor([prompt_ids + response])).logits[0]
        scores = logits[len(prompt_ids) - 1 : -1].float() / (temperature if temperature > 0 else 1.0)
        chosen = torch.log_softmax(scores, dim=-1).gather(-1, torch.tensor(response)[:, None]).squeeze(-1)
        return [float(x) for x in chosen]

    def load_weights(self, state: dict[str, torch.Tensor], global_steps: int | None = None) -> None:
        """Take the actor's weights (full tensors by Hugging Face name) and the step they come from.

        Raises:
            ValueError: A name the model does not have, or a parameter left without a value.
        """
        result = self.model.load_state_dict(state, strict=False)
        tied = {name for name in result.missing_keys if name.endswith("lm_head.weight")}
        tied = tied if getattr(self.model.config, "tie_word_embeddings", False) else set()
        if result.unexpected_keys or set(result.missing_keys) - tied:
            raise ValueError(
                f"weights do not match the rollout model: unexpected {result.unexpected_keys[:5]}, "
                f"missing {sorted(set(result.missing_keys) - tied)[:5]}"
            )
        if tied:
            self.model.tie_weights()
        self.global_steps = global_steps

    def ready(self) -> bool:
        """The server is up (the replica waits for this)."""
        return True

    # What verl calls on any rollout server between phases. Weights and caches of a CPU model stay in memory,
    # so there is nothing to release, restore or reset.
    async def sleep(self) -> None:
        """Nothing to release."""

    async def wake_up(self, tags: list[str] | None = None) -> None:
        """Nothing to restore."""

    async def clear_kv_cache(self) -> None:
        """No cache is kept between requests."""

    async def release_kv_cache(self) -> None:
        """No cache to release."""

    async def resume_kv_cache(self) -> None:
        """No cache to restore."""

    async def set_global_steps(self, global_steps: int) -> None:
        """Record the step the weights come from."""
        self.global_steps = global_steps

    async def abort_all_requests(self, reset_prefix_cache: bool = True, reject_request: bool = False) -> dict[str, Any]:
        """Requests run to their end (synchronous training never aborts)."""
        return {"aborted_count": 0, "request_ids": []}

    async def resume_generation(self) -> None:
        """Nothing was paused."""

    async def start_profile(self, **kwargs: Any) -> None:
        """No profiler."""

    async def stop_profile(self) -> None:
        """No profiler."""
