"""The CPU rehearsal of one RL step: the real pipeline pieces on a tiny model, so the whole loop runs anywhere.

Prompts from the recipe's train parquet (built by kimina-data), rollouts from a local model (transformers), rewards
from kimina-rl's `compute_score` against the run's verification server, advantages and the Dr.GRPO loss from verl's
`core_algos`, one AdamW step, a checkpoint, metrics and a plot. It is a rehearsal, not a trainer: no Ray, no vLLM,
no batching beyond one step.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from kimina_train.recipe import Recipe
from kimina_train.rehearsal.prompts import Prompt, load_prompts, load_references, shared_reference_file
from kimina_train.rehearsal.report import plot_step, save_checkpoint, step_metrics, write_samples
from kimina_train.rehearsal.rollout import Sample, SamplingConfig, sample_groups
from kimina_train.rehearsal.update import update_once
from kimina_train.runfolder import RunFolder
from kimina_train.verifier_service import SIMULATED_MARKER

__all__ = ["rehearse_one_step"]


async def _score(samples: list[Sample], reward_kwargs: dict[str, Any]) -> list[dict[str, Any]]:
    """Reward every sample as verl's reward loop does: one awaited `compute_score` call per sample, all at once."""
    from kimina_rl.reward import compute_score

    def call(s: Sample) -> Any:
        p = s.prompt
        return compute_score(p.data_source, s.text, p.ground_truth, p.extra_info, **reward_kwargs)

    return list(await asyncio.gather(*(call(s) for s in samples)))


def _prompts(recipe: Recipe) -> list[Prompt]:
    spec = recipe.settings.rehearsal
    assert spec is not None
    train_files = recipe.config.data.train_files
    train_file = Path(train_files if isinstance(train_files, str) else train_files[0])
    reference_file = shared_reference_file() if spec.reference_completions else None
    references = load_references(reference_file) if reference_file is not None else None
    return load_prompts(train_file, spec.problems, references)


def _summary(samples: list[Sample], rewards: list[dict[str, Any]], advantages: list[float]) -> Table:
    table = Table(title="One RL step", show_lines=False)
    for column in ("group", "problem", "sample", "tokens", "verdict", "reward", "advantage"):
        table.add_column(column, justify="right" if column in ("tokens", "reward", "advantage") else "left")
    for s, r, a in zip(samples, rewards, advantages, strict=True):
        kind = "[green]reference[/]" if s.reference else "sampled"
        table.add_row(
            str(s.group),
            s.prompt.uid,
            kind,
            str(len(s.response_ids)),
            str(r["verdict"]),
            f"{r['score']:.3f}",
            f"{a:+.3f}",
        )
    return table


def rehearse_one_step(recipe: Recipe, run: RunFolder, console: Console) -> bool:
    """Run one RL step on CPU and write `metrics.json`, `samples.jsonl`, `metrics.png` and a checkpoint to `run`.

    Returns:
        True when the step completed with a finite loss.
    """
    import math

    import torch
    from omegaconf import OmegaConf
    from transformers import AutoModelForCausalLM, AutoTokenizer

    spec = recipe.settings.rehearsal
    assert spec is not None
    cfg = recipe.config
    rollout = cfg.actor_rollout_ref.rollout
    seconds: dict[str, float] = {}
    started = time.perf_counter()

    prompts = _prompts(recipe)
    model_path = str(cfg.actor_rollout_ref.model.path)
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    model = AutoModelForCausalLM.from_pretrained(model_path, dtype=torch.float32)
    seconds["load"] = time.perf_counter() - started

    t = time.perf_counter()
    sampling = SamplingConfig(
        n=int(rollout.n),
        max_new_tokens=spec.max_new_tokens,
        temperature=float(rollout.temperature),
        top_p=float(rollout.top_p),
        top_k=int(rollout.top_k),
        seed=spec.seed,
    )
    samples = sample_groups(model, tokenizer, prompts, sampling)
    seconds["rollout"] = time.perf_counter() - t
    console.print(
        f"rollout: {len(samples)} trajectories in {len(prompts)} groups of {sampling.n} ({seconds['rollout']:.1f} s)"
    )

    t = time.perf_counter()
    reward_kwargs: dict[str, Any] = OmegaConf.to_container(cfg.kimina_rl, resolve=True)
    rewards = asyncio.run(_score(samples, reward_kwargs))
    seconds["reward"] = time.perf_counter() - t
    console.print(f"reward: kimina-rl compute_score against {cfg.kimina_rl.verifier.url} ({seconds['reward']:.1f} s)")

    t = time.perf_counter()
    update, optimizer = update_once(model, samples, [float(r["score"]) for r in rewards], cfg)
    seconds["update"] = time.perf_counter() - t
    console.print(_summary(samples, rewards, update.advantages))

    checkpoint = save_checkpoint(run.checkpoints, model, tokenizer, optimizer)
    metrics = step_metrics(samples, rewards, update, seconds)
    metrics["simulated_verifier"] = (run.path / SIMULATED_MARKER).is_file()
    (run.path / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    write_samples(run.path / "samples.jsonl", samples, rewards, update)
    plot = plot_step(run.path / "metrics.png", samples, rewards, update)
    console.print(
        f"update: pg_loss {update.pg_loss_before:.4g} -> {update.pg_loss_after:.4g} after one AdamW step "
        f"(grad norm {update.grad_norm:.3g}, ppo_kl {update.ppo_kl_after:.3g})"
    )
    console.print(f"wrote {checkpoint}, {run.path / 'metrics.json'}, {run.path / 'samples.jsonl'}, {plot}")
    return math.isfinite(update.pg_loss_before) and math.isfinite(update.pg_loss_after)
