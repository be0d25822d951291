"""Prepare a launch: the run folder, missing data and model, and the final verl config with absolute paths."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kimina_train.dataprep import build_missing
from kimina_train.preflight.checklist import CheckResult
from kimina_train.preflight.verifier import effective_url
from kimina_train.recipe import Recipe, with_values
from kimina_train.runfolder import TrainFolder, write_preflight, write_verl_config

__all__ = ["launch_config", "prepare", "ray_env"]

if TYPE_CHECKING:
    from omegaconf import DictConfig

logger = logging.getLogger(__name__)

# Paths verl opens from Ray actors, whose working folder is not ours: made absolute before the config is written.
_PATH_KEYS = (
    "trainer.default_local_dir",
    "trainer.validation_data_dir",
    "trainer.rollout_data_dir",
    "kimina_rl.history.path",
    "actor_rollout_ref.rollout.custom.reference_replay.log",
)


def _absolute(value: Any) -> Any:
    return str(Path(value).absolute()) if isinstance(value, str) and value else value


def launch_config(recipe: Recipe, run: TrainFolder) -> DictConfig:
    """The config verl runs with: the recipe without its `kimina:` section, local paths absolute, the verifier pinned.

    Values are pinned before the config is resolved, so that copies made by interpolation (the reward's kwargs are
    `${kimina_rl}`) carry them too.
    """
    from omegaconf import OmegaConf

    cfg = recipe.config
    # The server the preflight checked: Ray workers on other nodes may not share our environment.
    pinned: dict[str, Any] = {"kimina_rl.verifier.endpoint.url": effective_url(cfg.kimina_rl.verifier.endpoint.url)}
    for key in ("data.train_files", "data.val_files", *_PATH_KEYS):
        value = OmegaConf.select(cfg, key)
        if value is not None:
            pinned[key] = [_absolute(v) for v in value] if OmegaConf.is_list(value) else _absolute(value)
    if Path(str(cfg.actor_rollout_ref.model.path)).exists():
        pinned["actor_rollout_ref.model.path"] = _absolute(cfg.actor_rollout_ref.model.path)
    # verl's loggers read these inside a Ray actor: Ray's runtime env reaches every node.
    pinned["ray_kwargs.ray_init.runtime_env.env_vars"] = ray_env(run, cpu=recipe.cpu)
    return with_values(recipe, pinned).verl_config


def ray_env(run: TrainFolder, *, cpu: bool) -> dict[str, str]:
    """Environment of every Ray process of the run: where verl's loggers write, and the CPU platform if chosen."""
    from kimina_train.verl_cpu import PLATFORM_ENV

    env = {"TENSORBOARD_DIR": str(run.tensorboard.absolute()), "VERL_FILE_LOGGER_PATH": str(run.metrics.absolute())}
    if cpu:
        import psutil

        env[PLATFORM_ENV] = "cpu"  # read by verl's platform manager in each process, where our plugin then loads
        # TransferQueue asks torch for 8 threads per copy and warns on every call when the machine has fewer cores.
        env["TQ_NUM_THREADS"] = str(min(8, psutil.cpu_count(logical=False) or 1))
    return env


def _build_tiny_model_if_missing(path: Path) -> bool:
    """Build kimina-eval's tiny random Qwen3 model at `path` unless a model is there; True if built."""
    if (path / "config.json").is_file():
        return False
    from kimina_eval.tiny_model import build_tiny_model

    logger.info("building a tiny random model at %s (kimina-eval)", path)
    build_tiny_model(path)
    return True


def prepare(recipe: Recipe, results: Sequence[CheckResult]) -> TrainFolder:
    """Create the run folder, build what is missing, and write the launch config and the checklist into it.

    Returns:
        The run folder, holding `verl_config.yaml` and `preflight.json`.
    """
    run = TrainFolder(Path(recipe.settings.run_dir)).create()
    for path in build_missing(recipe):
        logger.info("built %s", path)
    if recipe.settings.build_tiny_model:
        _build_tiny_model_if_missing(Path(str(recipe.config.actor_rollout_ref.model.path)))
    write_verl_config(run, launch_config(recipe, run))
    write_preflight(run, results)
    return run
