"""miniF2F evaluation: engines, pass@k with intervals, error-fix turn, reports."""

from importlib.metadata import version as _version

__version__ = _version("kimina-eval")

__all__ = ["__version__"]
