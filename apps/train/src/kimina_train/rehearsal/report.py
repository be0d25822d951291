"""What the rehearsal leaves in the run folder: metrics, every sample with its reward, a plot and a checkpoint."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kimina_train.rehearsal.rollout import Sample
from kimina_train.rehearsal.update import UpdateResult

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


def step_metrics(
    samples: list[Sample], rewards: list[dict[str, Any]], update: UpdateResult, seconds: dict[str, float]
) -> dict[str, Any]:
    """One step's metrics, named like verl's where verl has the same quantity."""
    scores = [float(r["score"]) for r in rewards]
    sampled = [i for i, s in enumerate(samples) if not s.reference]
    return {
        "step": 1,
        "critic/score/mean": statistics.fmean(scores),
        "critic/score/max": max(scores),
        "critic/score/min": min(scores),
        "critic/score/sampled_mean": statistics.fmean(scores[i] for i in sampled) if sampled else None,
        "reward/acc": statistics.fmean(float(r["acc"]) for r in rewards),
        "reward/format_ok": statistics.fmean(float(r["format_ok"]) for r in rewards),
        "critic/advantages/mean": statistics.fmean(update.advantages),
        "critic/advantages/max": max(update.advantages),
        "critic/advantages/min": min(update.advantages),
        "response_length/mean": statistics.fmean(len(s.response_ids) for s in samples),
        "actor/pg_loss": update.pg_loss_before,
        "actor/pg_loss_after_step": update.pg_loss_after,
        "actor/ppo_kl_after_step": update.ppo_kl_after,
        "actor/grad_norm": update.grad_norm,
        "samples": len(samples),
        "groups": len({s.group for s in samples}),
        "reference_samples": len(samples) - len(sampled),
        **{f"timing_s/{name}": round(value, 3) for name, value in seconds.items()},
    }


def write_samples(path: Path, samples: list[Sample], rewards: list[dict[str, Any]], update: UpdateResult) -> None:
    """One JSON line per trajectory: its problem, text, reward dict, advantage and log-prob change."""
    with path.open("w", encoding="utf-8") as f:
        for i, (s, reward) in enumerate(zip(samples, rewards, strict=True)):
            row = {
                "group": s.group,
                "problem": s.prompt.uid,
                "reference": s.reference,
                "response_tokens": len(s.response_ids),
                "text": s.text,
                "reward": reward,
                "advantage": update.advantages[i],
                "logprob_delta": update.logprob_delta[i],
            }
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def plot_step(path: Path, samples: list[Sample], rewards: list[dict[str, Any]], update: UpdateResult) -> Path:
    """Three panels over the batch's trajectories: reward, Dr.GRPO advantage, and the step's log-prob change."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = list(range(len(samples)))
    colors = ["tab:green" if s.reference else f"C{s.group % 10}" for s in samples]
    labels = [f"{s.prompt.uid[:18]}\n{'reference' if s.reference else 'sampled'}" for s in samples]
    fig, axes = plt.subplots(3, 1, figsize=(max(8, len(samples) * 0.9), 9), sharex=True)
    panels = [
        ([float(r["score"]) for r in rewards], "reward (kimina-rl)"),
        (update.advantages, "advantage (score - group mean)"),
        (update.logprob_delta, "mean token log-prob change"),
    ]
    for ax, (values, title) in zip(axes, panels, strict=True):
        ax.bar(x, values, color=colors)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_ylabel(title, fontsize=8)
    axes[-1].set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    fig.suptitle(
        f"One Dr.GRPO step: pg_loss {update.pg_loss_before:.3g} -> {update.pg_loss_after:.3g}, "
        f"grad norm {update.grad_norm:.3g}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def save_checkpoint(
    directory: Path, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, optimizer: torch.optim.Optimizer
) -> Path:
    """Save the updated model, its tokenizer and the optimizer state in verl's layout (`global_step_1/`)."""
    import torch

    step_dir = directory / "global_step_1"
    model.save_pretrained(step_dir / "huggingface")
    tokenizer.save_pretrained(step_dir / "huggingface")
    torch.save(optimizer.state_dict(), step_dir / "optimizer.pt")
    (directory / "latest_checkpointed_iteration.txt").write_text("1")
    return step_dir
