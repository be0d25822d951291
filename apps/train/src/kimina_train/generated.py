"""Flattened, resolved copies of every recipe under `recipes/_generated/`, so a config change shows in review."""

from __future__ import annotations

from pathlib import Path

from kimina_train.recipe import RECIPES_DIR, Recipe, list_recipes, load_recipe

__all__ = ["CPU_SUFFIX", "GENERATED_DIR", "REGENERATE", "render", "stale_generated", "write_generated"]

GENERATED_DIR = RECIPES_DIR / "_generated"
REGENERATE = "uv run apps/train --write-generated"
CPU_SUFFIX = ".cpu"
"""`NAME.cpu.yaml` holds a recipe composed for a machine without GPU (its `kimina.cpu.overrides` applied)."""

_HEADER = """\
# GENERATED from apps/train/recipes/{name}.yaml by `{command}`: do not edit.
# The recipe fully resolved{variant} (kimina-rl's Dr.GRPO base and verl's ppo_trainer defaults included), so that a
# change anywhere in that chain shows up here in review. A test fails while this file is stale.
# A record, not a launch file: every value derived from another is written out, so a run started from this file
# (main_ppo --config-path ...) ignores an override of the key it came from: data.max_response_length=N would leave
# actor_rollout_ref.rollout.response_length and actor.loss_scale_factor as they are here, and kimina_rl.verifier.endpoint.url
# would not reach reward.custom_reward_function.reward_kwargs. Launch with `uv run apps/train --recipe {name}
# [overrides]`, which resolves overrides before writing the run folder's verl_config.yaml.
"""

_AGENT_LOOPS_PLACEHOLDER = "<kimina_rl.config_dir()>"


def render(recipe: Recipe) -> str:
    """The flattened YAML of `recipe`, with install-specific paths replaced by a placeholder."""
    from kimina_rl.trainer_config import config_dir
    from omegaconf import OmegaConf

    body = str(OmegaConf.to_yaml(recipe.config, resolve=True))
    # compose_config points verl at kimina-rl's agent-loop list by absolute path, which differs per install.
    body = body.replace(str(config_dir()), _AGENT_LOOPS_PLACEHOLDER)
    variant = " for a machine without GPU (its kimina.cpu.overrides applied)" if recipe.cpu else ""
    return _HEADER.format(name=recipe.name, command=REGENERATE, variant=variant) + body


def _generated_path(name: str, directory: Path = GENERATED_DIR) -> Path:
    """Where the flattened copy of recipe `name` (or `name.cpu`) lives."""
    return directory / f"{name}.yaml"


def _variants() -> dict[str, Recipe]:
    """Every flattened copy by name: each recipe, and its CPU composition when it has one."""
    variants = {}
    for name in list_recipes():
        recipe = load_recipe(name)
        variants[name] = recipe
        if recipe.settings.cpu is not None:
            variants[name + CPU_SUFFIX] = load_recipe(name, cpu=True)
    return variants


def write_generated(directory: Path = GENERATED_DIR) -> list[Path]:
    """Rewrite the flattened copy of every recipe (and CPU composition); return the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, recipe in _variants().items():
        path = _generated_path(name, directory)
        path.write_text(render(recipe))
        written.append(path)
    return written


def stale_generated(directory: Path = GENERATED_DIR) -> list[str]:
    """Names of the flattened copies that are missing or differ from what the recipes compose to now."""
    return [
        name
        for name, recipe in _variants().items()
        if not _generated_path(name, directory).is_file()
        or _generated_path(name, directory).read_text() != render(recipe)
    ]
