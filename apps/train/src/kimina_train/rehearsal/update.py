"""One Dr.GRPO update with verl's own `core_algos`: group advantages, the clipped policy loss, one optimizer step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kimina_train.rehearsal.rollout import Sample

if TYPE_CHECKING:
    import torch
    from omegaconf import DictConfig
    from transformers import PreTrainedModel


@dataclass(frozen=True)
class UpdateResult:
    """What the step did.

    Attributes:
        advantages: One advantage per sample (the same for all its tokens).
        pg_loss_before: The policy loss at the rollout policy (ratio 1).
        pg_loss_after: The same loss, same batch, after the step.
        ppo_kl_after: Mean (old - new) log-prob over response tokens after the step.
        grad_norm: Gradient norm before clipping.
        logprob_delta: Per sample, the change of its mean token log-prob caused by the step.
        metrics: verl's policy-loss metrics (`actor/pg_clipfrac`, ...) after the step.
    """

    advantages: list[float]
    pg_loss_before: float
    pg_loss_after: float
    ppo_kl_after: float
    grad_norm: float
    logprob_delta: list[float]
    metrics: dict[str, float]


def _padded(rows: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    import torch

    width = max(len(r) for r in rows)
    values = torch.zeros(len(rows), width)
    mask = torch.zeros(len(rows), width)
    for i, r in enumerate(rows):
        values[i, : len(r)] = r
        mask[i, : len(r)] = 1.0
    return values, mask


def response_log_probs(model: PreTrainedModel, samples: list[Sample], temperature: float) -> torch.Tensor:
    """Log-probabilities of each sample's response tokens, `[batch, longest response]`, zero-padded.

    One forward per sample: no padding inside a sequence, so nothing depends on how a batch was padded.
    """
    import torch

    rows = []
    for s in samples:
        ids = torch.tensor([s.prompt_ids + s.response_ids])
        logits = model(input_ids=ids).logits[0, len(s.prompt_ids) - 1 : -1].float() / temperature
        targets = torch.tensor(s.response_ids)
        rows.append(torch.log_softmax(logits, dim=-1).gather(-1, targets[:, None]).squeeze(-1))
    width = max(len(r) for r in rows)
    return torch.stack([torch.nn.functional.pad(r, (0, width - len(r))) for r in rows])


def group_advantages(samples: list[Sample], scores: list[float], algorithm: DictConfig) -> tuple[Any, Any]:
    """Outcome advantages with verl's estimator named by `algorithm.adv_estimator` (Dr.GRPO: no std scaling).

    Returns:
        `(advantages, response_mask)`, both `[batch, longest response]`.
    """
    import numpy as np
    import torch
    from verl.trainer.ppo.core_algos import get_adv_estimator_fn

    _, mask = _padded([torch.ones(len(s.response_ids)) for s in samples])
    rewards = torch.zeros_like(mask)
    for i, s in enumerate(samples):
        rewards[i, len(s.response_ids) - 1] = scores[i]  # verl puts the outcome on the last response token
    estimator = get_adv_estimator_fn(algorithm.adv_estimator)
    advantages, _ = estimator(
        token_level_rewards=rewards,
        response_mask=mask,
        index=np.array([s.prompt.uid for s in samples], dtype=object),
        norm_adv_by_std_in_grpo=bool(algorithm.norm_adv_by_std_in_grpo),
    )
    return advantages, mask


def _policy_loss(
    actor: Any, old: torch.Tensor, new: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor
) -> tuple[torch.Tensor, dict[str, Any]]:
    from verl.trainer.ppo.core_algos import get_policy_loss_fn

    # What verl's ppo_loss fills in before calling the policy loss: the batch is the whole (global) batch here.
    actor.global_batch_info.update(
        dp_size=1,
        batch_num_tokens=int(mask.sum()),
        global_batch_size=len(mask),
        loss_scale_factor=actor.loss_scale_factor,
    )
    loss_fn = get_policy_loss_fn(actor.policy_loss.loss_mode)
    loss, metrics = loss_fn(
        old_log_prob=old,
        log_prob=new,
        advantages=advantages,
        response_mask=mask.bool(),
        loss_agg_mode=actor.loss_agg_mode,
        config=actor,
    )
    return loss, dict(metrics)


def update_once(
    model: PreTrainedModel, samples: list[Sample], scores: list[float], config: DictConfig
) -> tuple[UpdateResult, Any]:
    """Compute advantages and the Dr.GRPO loss with verl's `core_algos`, take one AdamW step, measure the effect.

    Args:
        model: The policy, trained in place.
        samples: The batch's trajectories.
        scores: One reward per sample.
        config: The verl config (`algorithm`, `actor_rollout_ref.actor`, `actor_rollout_ref.rollout`).

    Returns:
        The result and the optimizer (for the checkpoint).
    """
    import torch
    from verl.utils.config import omega_conf_to_dataclass

    actor = omega_conf_to_dataclass(config.actor_rollout_ref.actor)
    temperature = float(config.actor_rollout_ref.rollout.temperature)
    advantages, mask = group_advantages(samples, scores, config.algorithm)

    model.train()
    with torch.no_grad():
        old = response_log_probs(model, samples, temperature)
    new = response_log_probs(model, samples, temperature)
    loss, _ = _policy_loss(actor, old, new, advantages, mask)
    optimizer = torch.optim.AdamW(
        model.parameters(),
        lr=float(actor.optim.lr),
        betas=tuple(actor.optim.betas),
        weight_decay=float(actor.optim.weight_decay),
    )
    optimizer.zero_grad()
    torch.autograd.backward(loss)
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=float(actor.grad_clip))
    optimizer.step()

    with torch.no_grad():
        after = response_log_probs(model, samples, temperature)
        loss_after, metrics = _policy_loss(actor, old, after, advantages, mask)
    lengths = mask.sum(-1)
    delta = ((after - old) * mask).sum(-1) / lengths
    result = UpdateResult(
        advantages=[float(a) for a in advantages[:, 0]],
        pg_loss_before=float(loss.detach()),
        pg_loss_after=float(loss_after),
        ppo_kl_after=float(metrics.get("actor/ppo_kl", 0.0)),
        grad_norm=float(grad_norm),
        logprob_delta=[float(d) for d in delta],
        metrics={k: float(v) for k, v in metrics.items()},
    )
    return result, optimizer
