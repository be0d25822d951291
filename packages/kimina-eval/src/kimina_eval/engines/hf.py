"""A Hugging Face transformers engine: plain `model.generate` on CPU or GPU, the default for tests and small runs."""

from __future__ import annotations

import logging
from typing import Any

from kimina_format.extras import missing_extra

from kimina_eval.engines.base import Messages, SamplingParams

__all__ = ["TransformersEngine"]

logger = logging.getLogger(__name__)


class TransformersEngine:
    """Samples with a local transformers causal LM and its tokenizer's chat template.

    Slow next to vLLM, but it runs anywhere torch does, which makes it the engine for CPU machines and tests.

    Args:
        model: A model directory (or hub name, when the hub is reachable) holding a causal LM and its tokenizer.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; ``"auto"`` picks CUDA when available.
        dtype: Weight dtype name (``"bfloat16"``, ``"float32"``...) or ``"auto"`` (the checkpoint's own).
        batch_size: Most sequences generated in one forward pass; prompts x n is split into batches of this size.
    """

    def __init__(self, model: str, *, device: str = "auto", dtype: str = "auto", batch_size: int = 32) -> None:
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as missing:
            raise missing_extra("kimina-eval", "transformers", "the transformers engine", missing) from missing

        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.batch_size = batch_size
        self.tokenizer: Any = AutoTokenizer.from_pretrained(model)
        # Decoder-only models continue from the last token, so padding must sit on the left.
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        torch_dtype = dtype if dtype == "auto" else getattr(torch, dtype)
        self.model: Any = AutoModelForCausalLM.from_pretrained(model, dtype=torch_dtype).to(device).eval()
        logger.info("loaded %s on %s", model, device)

    def generate(self, prompts: list[Messages], n: int, sampling: SamplingParams) -> list[list[str]]:
        """Sample ``n`` completions per conversation (see `Engine.generate`)."""
        import torch

        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        texts = [self.tokenizer.apply_chat_template(p, add_generation_prompt=True, tokenize=False) for p in prompts]
        # One row per requested completion: batches then never exceed batch_size sequences, whatever n is.
        rows = [text for text in texts for _ in range(n)]
        if sampling.seed is not None:
            torch.manual_seed(sampling.seed)
        outputs: list[str] = []
        for start in range(0, len(rows), self.batch_size):
            outputs.extend(self._generate_batch(rows[start : start + self.batch_size], sampling))
        return [outputs[i * n : (i + 1) * n] for i in range(len(prompts))]

    def _generate_batch(self, texts: list[str], sampling: SamplingParams) -> list[str]:
        import torch

        # The chat template already wrote every special token the model expects.
        encoded = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        options: dict[str, Any] = {"max_new_tokens": sampling.max_tokens, "pad_token_id": self.tokenizer.pad_token_id}
        if sampling.temperature > 0:
            options.update(do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p, top_k=0)
        else:
            options.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        with torch.inference_mode():
            generated = self.model.generate(**encoded, **options)
        new_tokens = generated[:, encoded["input_ids"].shape[1] :]
        # `<think>` is an ordinary added token in Qwen3 tokenizers, so skipping special tokens keeps it.
        decoded: list[str] = self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
        return decoded
