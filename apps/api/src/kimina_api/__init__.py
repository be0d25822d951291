"""HTTP inference API that proves Lean 4 theorems: generate, verify, fix, with a playground page."""

from importlib.metadata import version as _version

__version__ = _version("kimina-api")

__all__ = ["__version__"]
