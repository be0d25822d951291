"""An offline vLLM engine: the fast path on a GPU, installed by the ``vllm`` extra."""

from __future__ import annotations

from typing import Any

from kimina_format.extras import missing_extra

from kimina_eval.engines.base import Messages, SamplingParams

__all__ = ["VLLMEngine"]


class VLLMEngine:
    """Samples with `vllm.LLM.chat`, which batches every conversation and shares each prompt's prefix across n.

    Args:
        model: A model directory or hub name.
        **llm_options: Passed to `vllm.LLM` (``tensor_parallel_size``, ``gpu_memory_utilization``,
            ``max_model_len``, ``dtype``...).
    """

    def __init__(self, model: str, **llm_options: Any) -> None:
        try:
            from vllm import LLM
        except ImportError as missing:  # GPU hosts only
            raise missing_extra("kimina-eval", "vllm", "the vllm engine", missing) from missing
        self.llm: Any = LLM(model=model, **llm_options)

    def generate(self, prompts: list[Messages], n: int, sampling: SamplingParams) -> list[list[str]]:
        """Sample ``n`` completions per conversation (see `Engine.generate`)."""
        from vllm import SamplingParams as VLLMSamplingParams

        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        params = VLLMSamplingParams(
            n=n,
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            max_tokens=sampling.max_tokens,
            seed=sampling.seed,
        )
        outputs = self.llm.chat(prompts, sampling_params=params, use_tqdm=False)
        return [[choice.text for choice in sorted(output.outputs, key=lambda c: c.index)] for output in outputs]

    def close(self) -> None:
        """Stop vLLM's engine and let go of the model, so that the GPU can be used for something else.

        Recent vLLM has `LLM.shutdown`; before it, the V1 engine core (its own process) is shut down directly.
        """
        shutdown = getattr(self.llm, "shutdown", None)
        if shutdown is None:
            shutdown = getattr(getattr(getattr(self.llm, "llm_engine", None), "engine_core", None), "shutdown", None)
        if callable(shutdown):
            shutdown()
        self.llm = None
