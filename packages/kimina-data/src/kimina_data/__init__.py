"""Build the Kimina-Prover-RL promptset and the miniF2F evaluation sets as verl parquet."""

from importlib.metadata import version as _version

from kimina_data.config import BuildConfig, ConfigError, load_data_section
from kimina_data.minif2f import MiniF2FResult, build_minif2f, default_minif2f_source
from kimina_data.pipeline import BuildError, build_promptset
from kimina_data.report import BuildReport
from kimina_data.schema import Rejection
from kimina_data.sources import SourceError, SourceKind, SourceSpec, load_source

__version__ = _version("kimina-data")

__all__ = [
    "BuildConfig",
    "BuildError",
    "BuildReport",
    "ConfigError",
    "MiniF2FResult",
    "Rejection",
    "SourceError",
    "SourceKind",
    "SourceSpec",
    "__version__",
    "build_minif2f",
    "build_promptset",
    "default_minif2f_source",
    "load_data_section",
    "load_source",
]
