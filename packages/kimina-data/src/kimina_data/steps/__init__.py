"""Pipeline steps: small functions from a canonical `datasets.Dataset` to another, composable in any order that makes sense."""

from kimina_data.steps.decontaminate import decontaminate
from kimina_data.steps.dedup import deduplicate
from kimina_data.steps.export import Split, to_verl, write_parquet
from kimina_data.steps.filtering import filter_win_rate
from kimina_data.steps.normalise import normalise
from kimina_data.steps.splitting import split_by_problem
from kimina_data.steps.weighting import Weighting, weight

__all__ = [
    "Split",
    "Weighting",
    "decontaminate",
    "deduplicate",
    "filter_win_rate",
    "normalise",
    "split_by_problem",
    "to_verl",
    "weight",
    "write_parquet",
]
