"""Recipes: YAML files under `apps/train/recipes/` that extend kimina-rl's Dr.GRPO config, composed with Hydra."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kimina_verify.config import closest

from kimina_train.settings import SettingsError, TrainSettings, parse_settings

__all__ = [
    "RECIPES_DIR",
    "Recipe",
    "RecipeError",
    "list_recipes",
    "load_recipe",
    "on_cpu",
    "with_values",
]

if TYPE_CHECKING:
    from omegaconf import DictConfig

RECIPES_DIR = Path(__file__).resolve().parents[2] / "recipes"
"""The recipes of a source checkout (`apps/train/recipes/`)."""

_APP_KEY = "kimina"
"""The recipe section read by this app and removed before verl sees the config."""


class RecipeError(ValueError):
    """A recipe cannot be found or composed; the message says which and why."""


@dataclass(frozen=True)
class Recipe:
    """A composed recipe.

    Attributes:
        name: The recipe's name (its file name without `.yaml`).
        path: The recipe file.
        overrides: The command-line overrides applied on top of it.
        config: The full composed config: verl's keys plus the `kimina:` section.
        settings: The parsed `kimina:` section.
        cpu: Composed for a machine without GPU: the recipe's `kimina.cpu.overrides` come before `overrides`.
    """

    name: str
    path: Path
    overrides: tuple[str, ...]
    config: DictConfig
    settings: TrainSettings
    cpu: bool = False

    @property
    def verl_config(self) -> DictConfig:
        """The config verl's `main_ppo` receives: everything but the `kimina:` section, interpolations resolved."""
        from omegaconf import OmegaConf

        # Resolved first: the recipe's verl keys may point into the `kimina:` section (`${kimina.run_dir}`).
        plain = OmegaConf.to_container(self.config, resolve=True)
        assert isinstance(plain, dict)
        plain.pop(_APP_KEY, None)
        return OmegaConf.create(plain)


def list_recipes(directory: Path = RECIPES_DIR) -> list[str]:
    """Names of the recipes in `directory`, sorted."""
    return sorted(p.stem for p in directory.glob("*.yaml"))


def _find_recipe(name_or_path: str, directory: Path = RECIPES_DIR) -> Path:
    """The recipe file for a name in `directory` or a path to a YAML file.

    Raises:
        RecipeError: If there is no such recipe; the message lists the known ones.
    """
    as_path = Path(name_or_path)
    if as_path.suffix in (".yaml", ".yml"):
        if not as_path.is_file():
            raise RecipeError(f"recipe file not found: {as_path}")
        return as_path.resolve()
    candidate = directory / f"{name_or_path}.yaml"
    if not candidate.is_file():
        known = ", ".join(list_recipes(directory)) or f"none in {directory}"
        raise RecipeError(f"unknown recipe {name_or_path!r} (known: {known})")
    return candidate


def _compose(path: Path, overrides: Sequence[str] = ()) -> DictConfig:
    """Compose a recipe file with kimina-rl's `compose_config` (Hydra, against kimina-rl's and verl's configs).

    Raises:
        RecipeError: If Hydra rejects the recipe or an override; the message is Hydra's, on one line.
    """
    from hydra.errors import HydraException
    from kimina_rl.trainer_config import compose_config
    from omegaconf.errors import OmegaConfBaseException

    try:
        return compose_config(overrides, config_name=path.stem, config_dir_path=path.parent)
    except (HydraException, OmegaConfBaseException) as exc:
        text = str(exc).strip()
        line = (text.splitlines()[0] if text else type(exc).__name__).rstrip(".")
        if line.startswith(("Could not override", "Could not delete")):
            match = _closest_key(path, line)
            if match:
                line += f"; did you mean {match}?"
            elif line.startswith("Could not override"):
                line += " (a new key needs +KEY=VALUE)"
        raise RecipeError(f"recipe {path.stem}: {line}") from exc


def _closest_key(path: Path, message: str) -> str | None:
    """The recipe's key closest to the one Hydra's message quotes, part by part, or None if none is close."""
    from kimina_rl.trainer_config import compose_config
    from omegaconf import DictConfig

    quoted = re.search(r"'([A-Za-z_][\w.]*)'", message)
    if quoted is None:
        return None
    node: object = compose_config(config_name=path.stem, config_dir_path=path.parent)
    fixed = []
    for part in quoted.group(1).split("."):
        if not isinstance(node, DictConfig):
            return None
        match = part if part in node else closest(part, node.keys())
        if match is None:
            return None
        fixed.append(match)
        node = node[match]
    return ".".join(fixed) if fixed != quoted.group(1).split(".") else None


def _settings(name: str, config: DictConfig) -> TrainSettings:
    from omegaconf import OmegaConf

    raw: Any = OmegaConf.to_container(config.get(_APP_KEY) or OmegaConf.create({}), resolve=True)
    try:
        return parse_settings(raw)
    except SettingsError as exc:
        raise RecipeError(f"recipe {name}: {exc}") from exc


def load_recipe(
    name_or_path: str, overrides: Sequence[str] = (), *, nnodes: int | None = None, cpu: bool = False
) -> Recipe:
    """Find, compose and check a recipe.

    Args:
        name_or_path: A recipe name or a path to a recipe file.
        overrides: Hydra-style overrides (`key=value`, `+key=value`, `~key`).
        nnodes: Nodes to train on; overrides `trainer.nnodes` when given.
        cpu: Compose it for a machine without GPU (see `on_cpu`).

    Raises:
        RecipeError: If the recipe is missing, does not compose, or its `kimina:` section is malformed; with `cpu`,
            if it has no `kimina.cpu` section.
    """
    path = _find_recipe(name_or_path)
    all_overrides = tuple(overrides) + ((f"trainer.nnodes={nnodes}",) if nnodes is not None else ())
    config = _compose(path, all_overrides)
    recipe = Recipe(path.stem, path, all_overrides, config, _settings(path.stem, config))
    return on_cpu(recipe) if cpu else recipe


def on_cpu(recipe: Recipe) -> Recipe:
    """The recipe composed again for a machine without GPU: its `kimina.cpu.overrides` first, then its overrides.

    Raises:
        RecipeError: The recipe has no `kimina.cpu` section, or the result does not compose.
    """
    import dataclasses

    if recipe.cpu:
        return recipe
    if recipe.settings.cpu is None:
        raise RecipeError(f"recipe {recipe.name} has no kimina.cpu section: it runs on GPUs only")
    config = _compose(recipe.path, (*recipe.settings.cpu.overrides, *recipe.overrides))
    return dataclasses.replace(recipe, config=config, settings=_settings(recipe.name, config), cpu=True)


def with_values(recipe: Recipe, values: dict[str, Any]) -> Recipe:
    """A copy of `recipe` with dotted config keys set (e.g. the URL of a verifier started for the run)."""
    import dataclasses

    from omegaconf import OmegaConf, open_dict

    config = copy.deepcopy(recipe.config)
    with open_dict(config):
        for key, value in values.items():
            OmegaConf.update(config, key, value, force_add=True)
    return dataclasses.replace(recipe, config=config, settings=_settings(recipe.name, config))
