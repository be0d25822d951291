"""verl's own advantage and loss code, driven by the composed base config, behaves as Dr.GRPO (length-unbiased)."""

from typing import Any

import numpy as np
import pytest
import torch
from omegaconf import DictConfig


def _batch(scores: list[float], lengths: list[int], width: int, groups: list[str]) -> Any:
    """A DataProto as the V1 trainer holds it: outcome reward on the last response token of each trajectory."""
    from verl import DataProto

    mask = torch.zeros(len(scores), width)
    rm_scores = torch.zeros(len(scores), width)
    for row, (score, length) in enumerate(zip(scores, lengths, strict=True)):
        mask[row, :length] = 1
        rm_scores[row, length - 1] = score
    data = DataProto.from_dict(
        tensors={"response_mask": mask, "token_level_scores": rm_scores, "token_level_rewards": rm_scores},
        non_tensors={"uid": np.array(groups, dtype=object)},
    )
    return data


def _advantages(cfg: DictConfig, data: Any, groups: list[str]) -> torch.Tensor:
    """Advantages exactly as verl 0.9.1's V1 trainer computes them (`_compute_advantage`)."""
    from verl.trainer.ppo.v1.utils import compute_advantage_for_multi_trajectories

    keys = [f"{uid}_{session}_0" for session, uid in enumerate(groups)]
    out = compute_advantage_for_multi_trajectories(
        data,
        batch_keys=keys,
        adv_estimator=cfg.algorithm.adv_estimator,
        gamma=cfg.algorithm.gamma,
        lam=cfg.algorithm.lam,
        num_repeat=cfg.actor_rollout_ref.rollout.n,
        norm_adv_by_std_in_grpo=cfg.algorithm.norm_adv_by_std_in_grpo,
        config=cfg.algorithm,
    )
    advantages: torch.Tensor = out.batch["advantages"]
    return advantages


def test_group_mean_advantage_without_std_scaling(base_config: DictConfig) -> None:
    groups = ["a"] * 4 + ["b"] * 4 + ["c"] * 4
    scores = [1.0, 0.0, 0.0, 0.0] + [1.0, 1.0, 0.5, 0.0] + [1.0] * 4
    lengths = [5, 12, 3, 8] * 3
    data = _batch(scores, lengths, width=16, groups=groups)
    adv = _advantages(base_config, data, groups)
    expected = [0.75, -0.25, -0.25, -0.25] + [0.375, 0.375, -0.125, -0.625] + [0.0] * 4
    mask = data.batch["response_mask"]
    for row, (value, length) in enumerate(zip(expected, lengths, strict=True)):
        # The same advantage on every trained token of the trajectory, nothing on padding.
        assert torch.allclose(adv[row, :length], torch.full((length,), value))
        assert torch.all(adv[row, length:] == 0)
    # Std scaling (plain GRPO) would have given group a: (1 - 0.25) / std = 1.5, not 0.75.
    assert torch.equal(adv, adv * mask)


def test_feedback_tokens_get_no_advantage(base_config: DictConfig) -> None:
    # A two-turn trajectory: turn 1 (4 tokens), feedback (3 tokens, mask 0), turn 2 (5 tokens).
    data = _batch([1.0, 0.0], [12, 12], width=12, groups=["g", "g"])
    data.batch["response_mask"][0, 4:7] = 0
    adv = _advantages(base_config, data, ["g", "g"])
    assert torch.all(adv[0, 4:7] == 0)
    assert torch.allclose(adv[0, :4], torch.full((4,), 0.5))
    assert torch.allclose(adv[0, 7:], torch.full((5,), 0.5))


def _policy_loss(
    cfg: DictConfig, advantages: torch.Tensor, mask: torch.Tensor, *, mode: str | None = None, total: int | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """verl's vanilla PPO policy loss with the actor config built from `cfg`; returns (loss, d loss / d log_prob)."""
    from verl.trainer.ppo.core_algos import get_policy_loss_fn
    from verl.utils.config import omega_conf_to_dataclass

    actor = omega_conf_to_dataclass(cfg.actor_rollout_ref.actor)
    agg_mode = mode or actor.loss_agg_mode
    # What verl.workers.utils.losses.ppo_loss injects before calling the policy loss.
    actor.global_batch_info.update(
        dp_size=1,
        batch_num_tokens=int(mask.sum()),
        global_batch_size=total if total is not None else mask.shape[0],
        loss_scale_factor=actor.loss_scale_factor,
    )
    log_prob = torch.full(mask.shape, -1.0, requires_grad=True)
    loss_fn = get_policy_loss_fn(actor.policy_loss.get("loss_mode", "vanilla"))
    loss, _ = loss_fn(
        old_log_prob=log_prob.detach(),
        log_prob=log_prob,
        advantages=advantages,
        response_mask=mask.bool(),
        loss_agg_mode=agg_mode,
        config=actor,
    )
    (grad,) = torch.autograd.grad(loss, log_prob)
    return loss.detach(), grad


def test_long_and_short_responses_weigh_the_same_per_token(base_config: DictConfig) -> None:
    lengths = [3, 30, 30, 3]
    mask = torch.zeros(4, 32)
    for row, length in enumerate(lengths):
        mask[row, :length] = 1
    advantages = torch.tensor([[1.0], [1.0], [-1.0], [-1.0]]) * mask
    _, grad = _policy_loss(base_config, advantages, mask)
    constant = base_config.actor_rollout_ref.actor.loss_scale_factor * len(lengths)
    # Every trained token of a positive-advantage response gets gradient -1/(B*C), whatever the response length.
    assert torch.allclose(grad[0, :3], torch.full((3,), -1.0 / constant))
    assert torch.allclose(grad[1, :30], torch.full((30,), -1.0 / constant))
    assert torch.allclose(grad[2, :30], torch.full((30,), 1.0 / constant))
    assert torch.all(grad * (1 - mask) == 0)
    # So a response's total weight is its length / (B*C): no 1/|o| factor favouring short answers.
    assert grad[1].sum() / grad[0].sum() == pytest.approx(10.0)
    # Plain GRPO's per-sequence token mean is what Dr.GRPO removes: there a short token weighs 10x a long one.
    _, grpo_grad = _policy_loss(base_config, advantages, mask, mode="seq-mean-token-mean")
    assert grpo_grad[0, 0] / grpo_grad[1, 0] == pytest.approx(10.0)


def test_loss_ignores_padding_width_and_micro_batching(base_config: DictConfig) -> None:
    lengths = [7, 2, 19, 11]
    advantages_per_seq = torch.tensor([[0.5], [-0.25], [0.75], [-1.0]])

    def masks(width: int) -> torch.Tensor:
        mask = torch.zeros(4, width)
        for row, length in enumerate(lengths):
            mask[row, :length] = 1
        return mask

    narrow, wide = masks(20), masks(64)
    loss_narrow, _ = _policy_loss(base_config, advantages_per_seq * narrow, narrow)
    loss_wide, _ = _policy_loss(base_config, advantages_per_seq * wide, wide)
    # The divisor is the configured constant, not the padded width of the micro-batch.
    assert loss_narrow == pytest.approx(loss_wide)
    # Token-packed micro-batches (use_dynamic_bsz) add up to the full-batch loss.
    parts = [
        _policy_loss(base_config, advantages_per_seq[idx] * narrow[idx], narrow[idx], total=4)[0]
        for idx in ([0, 2], [1], [3])
    ]
    assert sum(parts) == pytest.approx(loss_narrow)
