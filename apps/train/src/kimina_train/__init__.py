"""The training app: preflight, data and the verl launch from a recipe.

`load_recipe` composes a recipe into a `Recipe` (or raises `RecipeError`),
`list_recipes` names the shipped ones and `run_preflight` checks a machine against one.
"""

from __future__ import annotations

from importlib.metadata import version as _version
from typing import TYPE_CHECKING

from kimina_format.lazy import lazy_exports

if TYPE_CHECKING:
    from kimina_train.preflight import run_preflight
    from kimina_train.recipe import Recipe, RecipeError, list_recipes, load_recipe

__version__ = _version("kimina-train")

# Loaded on first use, so `import kimina_train` (and `--version`) stays fast.
_LAZY = {
    "Recipe": "kimina_train.recipe",
    "RecipeError": "kimina_train.recipe",
    "list_recipes": "kimina_train.recipe",
    "load_recipe": "kimina_train.recipe",
    "run_preflight": "kimina_train.preflight",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = ["Recipe", "RecipeError", "__version__", "list_recipes", "load_recipe", "run_preflight"]
