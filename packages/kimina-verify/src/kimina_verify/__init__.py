"""Lean 4 verification: integrity rules, verdicts, feedback, client and server."""

from importlib.metadata import version as _version

__version__ = _version("kimina-verify")

__all__ = ["__version__"]
