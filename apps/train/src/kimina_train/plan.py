"""The plan `--dry-run` prints: what a launch of this recipe would check, prepare and start, and its key numbers."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kimina_rl.scoring import REWARD_KEY_ENV
from rich.console import Console
from rich.table import Table

from kimina_train.launch import verl_command
from kimina_train.recipe import Recipe
from kimina_train.runfolder import TrainFolder

__all__ = ["Plan", "make_plan", "render_plan"]


@dataclass(frozen=True)
class Plan:
    """What a launch would do.

    Attributes:
        mode: `verl` (verl's `main_ppo` on Ray, on GPUs) or `verl-cpu` (the same on CPU, kimina-train's plugin).
        summary: (topic, value) pairs describing the run.
        steps: The launch's steps in order, one sentence each.
    """

    mode: str
    summary: list[tuple[str, str]]
    steps: list[str]


def _verifier(cfg: Any, recipe: Recipe) -> str:
    if recipe.settings.verifier.start:
        return "a kimina-verify serve started for the run ($KIMINA_LEAN_WORKSPACE, else lean-repl-sim: no real proofs)"
    return str(
        cfg.kimina_rl.verifier.endpoint.url or "kimina-verify's default URL ($LEAN_SERVER_API_URL, then localhost:8000)"
    )


def _summary(recipe: Recipe, *, ray_address: str | None) -> list[tuple[str, str]]:
    cfg = recipe.config
    actor, rollout, data, trainer = cfg.actor_rollout_ref.actor, cfg.actor_rollout_ref.rollout, cfg.data, cfg.trainer
    run = TrainFolder(Path(recipe.settings.run_dir))
    n = int(rollout.n)
    mini_steps = int(data.train_batch_size) // int(actor.ppo_mini_batch_size)
    where = f"Ray cluster at {ray_address}" if ray_address else "a local Ray cluster"
    schedule = (
        f"{trainer.total_training_steps} steps"
        if trainer.total_training_steps is not None
        else f"{trainer.total_epochs} epochs"
    )
    return [
        ("recipe", f"{recipe.name}: {recipe.settings.description}"),
        (
            "mode",
            f"verl main_ppo on {where}, on CPU (no GPU found): {trainer.n_gpus_per_node} trainer process(es), "
            "kimina-train's verl plugin (VERL_PLATFORM=cpu)"
            if recipe.cpu
            else f"verl main_ppo on {where}, {trainer.nnodes} node(s) x {trainer.n_gpus_per_node} GPUs",
        ),
        ("model", str(cfg.actor_rollout_ref.model.path)),
        (
            "algorithm",
            f"{cfg.algorithm.adv_estimator}, norm_adv_by_std_in_grpo={cfg.algorithm.norm_adv_by_std_in_grpo}, "
            f"loss_agg_mode={actor.loss_agg_mode} / loss_scale_factor={actor.loss_scale_factor}, "
            f"use_kl_loss={actor.use_kl_loss}, clip {actor.clip_ratio_low}/{actor.clip_ratio_high}",
        ),
        (
            "batch",
            f"{data.train_batch_size} prompts x {n} rollouts = {int(data.train_batch_size) * n} trajectories per step, "
            f"{mini_steps} optimizer step(s) of {actor.ppo_mini_batch_size} prompts, lr {actor.optim.lr}",
        ),
        ("lengths", f"prompt <= {data.max_prompt_length} tokens, response <= {data.max_response_length} (all turns)"),
        ("rollout", _rollout(rollout)),
        ("reward", f"kimina_rl compute_score ({cfg.reward.num_workers} workers) against {_verifier(cfg, recipe)}"),
        ("train data", str(data.train_files)),
        (
            "validation",
            f"{data.val_files}: n={rollout.val_kwargs.n}, temperature={rollout.val_kwargs.temperature}, "
            f"top_p={rollout.val_kwargs.top_p}, every {trainer.test_freq} steps, before training: "
            f"{trainer.val_before_train}",
        ),
        (
            "schedule",
            f"{schedule}; checkpoint every {trainer.save_freq} steps to {trainer.default_local_dir} "
            f"(keep {trainer.max_actor_ckpt_to_keep or 'all'}), resume_mode={trainer.resume_mode}",
        ),
        ("logging", f"{', '.join(trainer.logger)}; run folder {run.path}"),
    ]


def _rollout(rollout: Any) -> str:
    if rollout.name != "hf":
        return (
            f"{rollout.name}, TP={rollout.tensor_model_parallel_size}, gpu_memory_utilization="
            f"{rollout.gpu_memory_utilization}, agent loop {rollout.agent.default_agent_loop}"
        )
    text = f"hf (transformers on CPU), agent loop {rollout.agent.default_agent_loop}"
    replay = (rollout.get("custom") or {}).get("reference_replay") or {}
    if float(replay.get("share") or 0):
        text += (
            f"; REFERENCE REPLAY: {float(replay['share']):.0%} of first answers are real Kimina-Prover proofs "
            f"({float(replay.get('injected_error_share') or 0):.0%} of them with an injected Lean error)"
        )
    return text


def _data_builds(recipe: Recipe) -> str:
    data = recipe.settings.data
    builds = []
    if data.promptset is not None:
        builds.append(f"promptset from {', '.join(map(str, data.promptset.get('sources') or []))}")
    if data.minif2f is not None:
        builds.append(f"miniF2F from {data.minif2f.source or 'the minif2f.jsonl kimina-data ships'}")
    if data.reference_rows is not None:
        builds.append(f"{data.reference_rows.rows} train rows with a shipped Kimina-Prover proof")
    return f" ({'; '.join(builds)})" if builds else ""


def _steps(recipe: Recipe) -> list[str]:
    s = recipe.settings
    run = TrainFolder(Path(s.run_dir))
    steps = []
    if s.verifier.start:
        steps.append("start kimina-verify serve for the run (real Lean if $KIMINA_LEAN_WORKSPACE is set)")
    canary = " + canary (one true, one false theorem)" if s.verifier.canary else ""
    steps.append(
        f"preflight: verl config (value types, validate_config), GPUs, verifier /health{canary}, data, model, "
        f"disk (>= {s.hardware.min_free_disk_gib:g} GiB), verl/vLLM versions, logger credentials"
    )
    steps.append(
        f"prepare: build missing data with kimina-data{_data_builds(recipe)}"
        + (", build the tiny model" if s.build_tiny_model else "")
        + f"; write {run.verl_config}, {run.preflight}, {run.launches}"
    )
    key = "yours" if os.environ.get(REWARD_KEY_ENV) else "a random one for this launch"
    steps.append(
        "launch: "
        + ("VERL_PLATFORM=cpu " if recipe.cpu else "")
        + " ".join(verl_command(run))
        + f" (${REWARD_KEY_ENV}: {key}, shared by every Ray process)"
    )
    if "file" in recipe.config.trainer.logger:
        steps.append(f"report: per-step summary from {run.metrics}, {run.summary}, {run.plot}")
    return steps


def make_plan(recipe: Recipe, *, ray_address: str | None = None) -> Plan:
    """Describe what launching `recipe` would do, without checking or starting anything."""
    return Plan(
        mode="verl-cpu" if recipe.cpu else "verl",
        summary=_summary(recipe, ray_address=ray_address),
        steps=_steps(recipe),
    )


def render_plan(plan: Plan, console: Console) -> None:
    """Print the plan: a two-column summary, then the numbered steps."""
    table = Table(title="Plan", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for topic, value in plan.summary:
        table.add_row(topic, value)
    console.print(table)
    for i, step in enumerate(plan.steps, start=1):
        console.print(f"  {i}. {step}")
