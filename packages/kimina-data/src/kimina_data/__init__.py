"""Build the RL promptset and evaluation sets as verl parquet."""

from importlib.metadata import version as _version

__version__ = _version("kimina-data")

__all__ = ["__version__"]
