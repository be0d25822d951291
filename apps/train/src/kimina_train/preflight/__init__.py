"""The preflight checklist: everything a launch needs, checked before any GPU time is spent."""

from __future__ import annotations

from pathlib import Path

from kimina_rl.settings import Settings as RLSettings

from kimina_train.preflight.checklist import CheckResult, Status, failed, render
from kimina_train.preflight.config import check_verl_config
from kimina_train.preflight.data import check_data
from kimina_train.preflight.environment import check_disk, check_logging, check_versions
from kimina_train.preflight.gpus import Gpu, check_gpus, cluster_gpu_count, probe_gpus
from kimina_train.preflight.model import check_model
from kimina_train.preflight.verifier import check_verifier
from kimina_train.recipe import Recipe

__all__ = ["CheckResult", "Gpu", "Status", "failed", "probe_gpus", "render", "run_preflight"]


def _gpu_check(recipe: Recipe, gpus: list[Gpu], ray_address: str | None) -> CheckResult:
    trainer = recipe.config.trainer
    nnodes = int(trainer.nnodes)
    cluster = None
    if nnodes > 1 and ray_address:
        try:
            cluster = cluster_gpu_count(ray_address)
        except Exception as exc:  # ray raises ConnectionError, RuntimeError, ... for an unreachable head
            return CheckResult(
                "gpus",
                Status.FAIL,
                f"cannot reach the Ray cluster at {ray_address} ({exc})",
                "start it: ray start --head",
            )
    return check_gpus(
        gpus,
        recipe=recipe.name,
        per_node=int(trainer.n_gpus_per_node),
        nnodes=nnodes,
        hardware=recipe.settings.hardware,
        cluster_gpus=cluster,
    )


def run_preflight(recipe: Recipe, *, gpus: list[Gpu], ray_address: str | None = None) -> list[CheckResult]:
    """Run every check for `recipe`, in the order the checklist shows them.

    Args:
        recipe: The composed recipe (its verifier URL already pointing at a server started for the run, if any);
            one composed for CPU (`recipe.cpu`) needs no GPU.
        gpus: This node's GPUs.
        ray_address: Head of the Ray cluster for multi-node runs.
    """
    cfg = recipe.config
    settings = recipe.settings
    if recipe.cpu:
        gpu = CheckResult(
            "gpus",
            Status.SKIP,
            f"no GPU found: verl trains on CPU ({cfg.trainer.n_gpus_per_node} process(es), kimina-train's verl "
            "plugin, VERL_PLATFORM=cpu)",
        )
    else:
        gpu = _gpu_check(recipe, gpus, ray_address)
    try:
        options = RLSettings.from_mapping(cfg.kimina_rl).verifier
    except ValueError as exc:  # the config check below names the problem too; the canary cannot run without it
        verifier = CheckResult("verifier", Status.FAIL, f"kimina_rl.verifier cannot be read: {exc}")
    else:
        verifier = check_verifier(
            options,
            canary=settings.verifier.canary,
            timeout_s=settings.verifier.timeout_s,
            nnodes=int(cfg.trainer.nnodes),
        )
    return [
        check_verl_config(recipe.verl_config),
        gpu,
        verifier,
        *check_data(recipe),
        check_model(str(cfg.actor_rollout_ref.model.path), buildable=settings.build_tiny_model),
        check_disk(Path(cfg.trainer.default_local_dir), settings.hardware.min_free_disk_gib),
        check_versions(needs_vllm=cfg.actor_rollout_ref.rollout.name == "vllm"),
        check_logging(list(cfg.trainer.logger)),
    ]
