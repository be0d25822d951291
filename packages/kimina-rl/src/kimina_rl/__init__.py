"""verl 0.9.1 glue: reward, error-correction agent loop, Dr.GRPO config, win-rate history."""

from importlib.metadata import version as _version

__version__ = _version("kimina-rl")

__all__ = ["__version__"]
