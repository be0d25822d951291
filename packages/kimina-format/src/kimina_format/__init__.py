"""Format reward for Kimina-style Lean 4 completions (no dependencies)."""

from importlib.metadata import version as _version

__version__ = _version("kimina-format")

__all__ = ["__version__"]
