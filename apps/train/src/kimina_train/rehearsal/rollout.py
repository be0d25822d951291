"""Rollouts for the rehearsal: a group of sampled completions per prompt from a local model, with transformers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kimina_train.rehearsal.prompts import Prompt

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


@dataclass(frozen=True)
class Sample:
    """One trajectory of a group.

    Attributes:
        prompt: The prompt it answers.
        group: Index of its group (its prompt) in the batch.
        prompt_ids: Token ids of the templated prompt.
        response_ids: Token ids of the answer, ending with the end-of-turn token when the model wrote one.
        text: The answer as decoded (what the reward function receives).
        reference: True for the real completion added to the group, False for a sampled one.
    """

    prompt: Prompt
    group: int
    prompt_ids: list[int]
    response_ids: list[int]
    text: str
    reference: bool = False


@dataclass(frozen=True)
class SamplingConfig:
    """Sampling settings, from the recipe's `actor_rollout_ref.rollout` and `kimina.rehearsal`.

    Attributes:
        n: Trajectories per group (a reference completion takes one slot).
        max_new_tokens: Token budget of a sampled answer.
        temperature: Softmax temperature.
        top_p: Nucleus mass.
        top_k: Top-k cut-off, or -1 for none.
        seed: Seed of the sampler.
    """

    n: int
    max_new_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    seed: int = 0


def _cut_at_eos(ids: list[int], eos: int | None, pad: int | None) -> list[int]:
    """The answer up to and including its end-of-turn token; never empty, since the loss needs one token."""
    if eos is not None and eos in ids:
        return ids[: ids.index(eos) + 1]
    return [t for t in ids if t != pad] or ids[:1]


def sample_groups(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    prompts: list[Prompt],
    sampling: SamplingConfig,
) -> list[Sample]:
    """Sample `n` answers per prompt, the last replaced by the prompt's reference completion when it has one."""
    import torch

    torch.manual_seed(sampling.seed)
    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id
    samples: list[Sample] = []
    for group, prompt in enumerate(prompts):
        text = tokenizer.apply_chat_template(prompt.messages, add_generation_prompt=True, tokenize=False)
        prompt_ids: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
        sampled = sampling.n - (1 if prompt.reference is not None else 0)
        options: dict[str, Any] = {"top_k": sampling.top_k} if sampling.top_k > 0 else {"top_k": None}
        with torch.no_grad():
            out = model.generate(
                torch.tensor([prompt_ids] * sampled),
                attention_mask=torch.ones(sampled, len(prompt_ids), dtype=torch.long),
                do_sample=True,
                temperature=sampling.temperature,
                top_p=sampling.top_p,
                max_new_tokens=sampling.max_new_tokens,
                pad_token_id=pad,
                eos_token_id=eos,
                **options,
            )
        for row in out[:, len(prompt_ids) :].tolist():
            response = _cut_at_eos(row, eos, pad)
            decoded = tokenizer.decode(response, skip_special_tokens=True)
            samples.append(Sample(prompt, group, prompt_ids, response, decoded))
        if prompt.reference is not None:
            ref_ids = tokenizer(prompt.reference, add_special_tokens=False)["input_ids"] + (
                [eos] if eos is not None else []
            )
            samples.append(Sample(prompt, group, prompt_ids, ref_ids, prompt.reference, reference=True))
    return samples
