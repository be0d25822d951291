"""A tiny random Qwen3 model with a Qwen-style tokenizer, built locally: the smoke recipe's policy and the tests' model.

Needs the ``transformers`` extra (torch, transformers, tokenizers); nothing heavy is imported until a model is built.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from kimina_format.extras import missing_extra

__all__ = ["CHAT_TEMPLATE", "build_tiny_model"]

# Bump when the recipe below changes, so cached copies built by an older recipe are rebuilt.
_RECIPE = "kimina-tiny-qwen3 v1"
_MARKER = ".kimina-tiny-model"

# Qwen's ChatML layout, as in the Qwen3 / Kimina-Prover-Distill templates, minus tool calls.
CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

# A little Lean and prompt text so the BPE merges look like the real domain; any byte still encodes.
_CORPUS = [
    "You are an expert in mathematics and proving theorems in Lean 4.",
    "Think about and solve the following problems step by step in Lean 4.\n\n# Problem:\n# Formal Statement:\n",
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n",
    "theorem mathd_algebra_10 (x : ℝ) (h₀ : x ≠ 0) : x * x⁻¹ = 1 := by\n  field_simp\n",
    "theorem amc12a_2019_p21 : ∀ n : ℕ, n + 0 = n := by\n  intro n\n  simp\n",
    "```tactics\n  nlinarith [sq_nonneg (x - y), sq_nonneg (x + y)]\n```\n",
    "```lean4\n  norm_num [Nat.factorial]\n  omega\n  linarith\n  ring_nf\n  decide\n```\n",
    "We need to show that the sum is 36. First, compute z ^ 2 = i, so the powers cycle with period 8.",
]


def build_tiny_model(path: str | os.PathLike[str]) -> Path:
    """Build a tiny random Qwen3 causal LM with a Qwen-style tokenizer at ``path``, once.

    The model has 2 layers and hidden size 64 (about 0.5 MB); the tokenizer is byte-level BPE with the ChatML
    markers (``<|im_start|>``, ``<|im_end|>``, ``<|endoftext|>``) as special tokens, ``<think>`` and ``</think>`` as
    single added tokens that decoding keeps (as in Qwen3), and a ChatML chat template. Everything is saved with
    ``save_pretrained``, so ``AutoModelForCausalLM``/``AutoTokenizer`` load it offline (``HF_HUB_OFFLINE=1``).
    Its weights are random and seeded: it writes garbage, deterministically, which is what plumbing tests need.

    Args:
        path: Directory to build into. If it already holds a model built by this function, nothing is rebuilt.

    Returns:
        ``path``, as a `Path`.

    Raises:
        FileExistsError: If ``path`` is a non-empty directory that this function did not build.
    """
    target = Path(path)
    marker = target / _MARKER
    if marker.is_file() and marker.read_text() == _RECIPE:
        return target
    if target.exists() and any(target.iterdir()) and not marker.is_file():
        raise FileExistsError(f"{target} is not empty and holds no tiny model; pick an empty or new directory")
    # Build beside the target and rename, so a crash or a concurrent builder never leaves a half-written model.
    staging = target.with_name(f"{target.name}.building-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    _write_tiny_model(staging)
    (staging / _MARKER).write_text(_RECIPE)
    shutil.rmtree(target, ignore_errors=True)
    try:
        staging.rename(target)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not (marker.is_file() and marker.read_text() == _RECIPE):  # nobody else finished it either
            raise
    return target


def _write_tiny_model(directory: Path) -> None:
    try:
        import torch
        from tokenizers import (  # type: ignore[import-untyped]  # ships no type information
            AddedToken,
            Tokenizer,
            decoders,
            models,
            pre_tokenizers,
            trainers,
        )
        from transformers import GenerationConfig, PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM
    except ImportError as missing:
        raise missing_extra("kimina-eval", "transformers", "building the tiny model", missing) from missing

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=512,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(_CORPUS, trainer)
    bpe.add_tokens([AddedToken("<think>", special=False), AddedToken("</think>", special=False)])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        padding_side="left",
        chat_template=CHAT_TEMPLATE,
    )
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=32768,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    # Seed without disturbing the caller's global random state.
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = Qwen3ForCausalLM(config)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, do_sample=True, top_p=0.95
    )
    directory.mkdir(parents=True)
    tokenizer.save_pretrained(directory)
    model.save_pretrained(directory)
