"""Compose verl's trainer config from the kimina Dr.GRPO base (and recipes that extend it) with Hydra."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

__all__ = [
    "BASE_CONFIG_NAME",
    "agent_loop_config_path",
    "compose_config",
    "config_dir",
    "launch_overrides",
    "search_path",
]

if TYPE_CHECKING:
    from omegaconf import DictConfig

BASE_CONFIG_NAME = "kimina_drgrpo"
"""Name of the base config that recipes list in their `defaults`."""

_VERL_CONFIG_SEARCH_PATH = "pkg://verl.trainer.config"
_KIMINA_CONFIG_SEARCH_PATH = "pkg://kimina_rl.config"
_AGENT_LOOP_PATH_KEY = "actor_rollout_ref.rollout.agent.agent_loop_config_path"


def config_dir() -> Path:
    """The folder holding `kimina_drgrpo.yaml`, for `main_ppo --config-dir` or a recipe's search path."""
    return Path(str(files("kimina_rl.config")))


def agent_loop_config_path() -> Path:
    """The YAML list that registers the `kimina_fix` agent loop with verl (`agent.agent_loop_config_path`)."""
    return config_dir() / "agent_loops.yaml"


def search_path() -> list[str]:
    """Hydra search path entries a recipe needs: this package's configs, then verl's own config tree."""
    return [_KIMINA_CONFIG_SEARCH_PATH, _VERL_CONFIG_SEARCH_PATH]


def compose_config(
    overrides: Sequence[str] = (),
    *,
    config_name: str = BASE_CONFIG_NAME,
    config_dir_path: str | Path | None = None,
) -> DictConfig:
    """Compose a full verl `ppo_trainer` config from the kimina base or a recipe that extends it.

    The result is what `python -m verl.trainer.main_ppo` would build, ready for `verl.trainer.main_ppo.run_ppo`.
    The agent loop list is filled in when the config leaves it null, since its path depends on the install.

    Args:
        overrides: Hydra overrides, e.g. `["data.train_batch_size=8", "+trainer.foo=1"]`.
        config_name: The primary config: the base (`kimina_drgrpo`) or a recipe whose `defaults` list it.
        config_dir_path: Folder holding `config_name` (e.g. `apps/train/recipes`); the base folder when None.

    Returns:
        The composed, unresolved config (interpolations such as `loss_scale_factor` stay live).

    Raises:
        hydra.errors.HydraException: An unknown key, a missing config or a malformed override; the message names it.

    Example:
        >>> cfg = compose_config(["data.max_response_length=4096"])
        >>> cfg.actor_rollout_ref.actor.loss_scale_factor
        4096
    """
    from hydra import compose, initialize_config_dir
    from omegaconf import open_dict

    primary = Path(config_dir_path) if config_dir_path is not None else config_dir()
    if not primary.is_dir():
        raise FileNotFoundError(f"config folder not found: {primary}")
    entries = ",".join(search_path())
    with initialize_config_dir(config_dir=str(primary.resolve()), version_base=None):
        cfg = compose(config_name=config_name, overrides=[*overrides, f"hydra.searchpath=[{entries}]"])
    agent = cfg.actor_rollout_ref.rollout.agent
    if agent.agent_loop_config_path is None:
        with open_dict(agent):
            agent.agent_loop_config_path = str(agent_loop_config_path())
    return cfg


def launch_overrides() -> list[str]:
    """Overrides a `python -m verl.trainer.main_ppo --config-dir ...` launch needs besides the recipe's own."""
    return [f"{_AGENT_LOOP_PATH_KEY}={agent_loop_config_path()}"]
