"""Flattened, resolved copies of every recipe under `recipes/_generated/`, so a config change shows in review."""

from __future__ import annotations

from pathlib import Path

from kimina_train.recipe import RECIPES_DIR, Recipe, list_recipes, load_recipe

GENERATED_DIR = RECIPES_DIR / "_generated"
REGENERATE = "uv run apps/train --write-generated"

_HEADER = """\
# GENERATED from apps/train/recipes/{name}.yaml by `{command}`: do not edit.
# The recipe fully resolved (kimina-rl's Dr.GRPO base and verl's ppo_trainer defaults included), so that a change
# anywhere in that chain shows up here in review. A test fails while this file is stale.
"""

_AGENT_LOOPS_PLACEHOLDER = "<kimina_rl.config_dir()>"


def render(recipe: Recipe) -> str:
    """The flattened YAML of `recipe`, with install-specific paths replaced by a placeholder."""
    from kimina_rl.trainer_config import config_dir
    from omegaconf import OmegaConf

    body = str(OmegaConf.to_yaml(recipe.config, resolve=True))
    # compose_config points verl at kimina-rl's agent-loop list by absolute path, which differs per install.
    body = body.replace(str(config_dir()), _AGENT_LOOPS_PLACEHOLDER)
    return _HEADER.format(name=recipe.name, command=REGENERATE) + body


def generated_path(name: str, directory: Path = GENERATED_DIR) -> Path:
    """Where the flattened copy of recipe `name` lives."""
    return directory / f"{name}.yaml"


def write_generated(directory: Path = GENERATED_DIR) -> list[Path]:
    """Rewrite the flattened copy of every recipe; return the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in list_recipes():
        path = generated_path(name, directory)
        path.write_text(render(load_recipe(name)))
        written.append(path)
    return written


def stale_generated(directory: Path = GENERATED_DIR) -> list[str]:
    """Names of the recipes whose flattened copy is missing or differs from what the recipe composes to now."""
    stale = []
    for name in list_recipes():
        path = generated_path(name, directory)
        if not path.is_file() or path.read_text() != render(load_recipe(name)):
            stale.append(name)
    return stale
