"""The training app: preflight, data and the verl launch from a recipe."""

from importlib.metadata import version as _version

__version__ = _version("kimina-train")

__all__ = ["__version__"]
