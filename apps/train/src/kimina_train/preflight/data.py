"""Data check: the train and validation parquet files exist, or a kimina-data build in the recipe can write them."""

from __future__ import annotations

from pathlib import Path

from kimina_train.dataprep import data_files
from kimina_train.preflight.checklist import CheckResult, Status
from kimina_train.recipe import Recipe
from kimina_train.settings import DataSpec


def _rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return int(pq.read_metadata(path).num_rows)


def _source_problem(spec: DataSpec, build: str) -> str | None:
    """Why the sources of `build` cannot be read, or None if they look readable (hub ids are checked at build)."""
    from kimina_data.minif2f import default_minif2f_source
    from kimina_data.sources import SourceError

    if build == "minif2f":
        assert spec.minif2f is not None
        source = spec.minif2f.source
        if source is None:
            try:
                default_minif2f_source()
            except SourceError as exc:
                return str(exc)
            return None
        looks_local = source.startswith((".", "/", "~")) or source.endswith((".jsonl", ".json", ".parquet"))
        return f"miniF2F source {source} does not exist" if looks_local and not Path(source).exists() else None
    assert spec.promptset is not None
    from kimina_data.config import BuildConfig, ConfigError

    try:
        config = BuildConfig.from_mapping(spec.promptset)
    except ConfigError as exc:
        return f"kimina.data.promptset: {exc}"
    for spec_ in config.sources:
        location = spec_.location
        looks_local = location.startswith((".", "/", "~")) or location.endswith((".jsonl", ".json", ".parquet"))
        if looks_local and not Path(location).expanduser().exists():
            return f"promptset source {location} does not exist"
    return None


def check_data(recipe: Recipe) -> list[CheckResult]:
    """One checklist line per data file: present (with its row count), buildable, or missing for good."""
    files = data_files(recipe)
    if not any(f.role == "train" for f in files):
        return [CheckResult("train data", Status.FAIL, "the recipe sets no data.train_files", "set data.train_files")]
    results = []
    for f in files:
        name = f"{f.role} data"
        if f.path.is_file():
            try:
                results.append(CheckResult(name, Status.OK, f"{f.path} ({_rows(f.path):,} rows)"))
            except Exception as exc:  # pyarrow raises several types for a file that is not parquet
                results.append(
                    CheckResult(name, Status.FAIL, f"{f.path} is not a readable parquet file ({exc})", "delete it")
                )
        elif f.build is None:
            results.append(
                CheckResult(
                    name,
                    Status.FAIL,
                    f"{f.path} does not exist and the recipe's kimina.data builds nothing there",
                    "build it with kimina-data, or point data.train_files / data.val_files at existing verl parquet",
                )
            )
        elif problem := _source_problem(recipe.settings.data, f.build):
            results.append(CheckResult(name, Status.FAIL, f"{f.path} is missing and cannot be built: {problem}"))
        else:
            results.append(
                CheckResult(name, Status.WARN, f"{f.path} is missing", f"prepare builds it (kimina.data.{f.build})")
            )
    return results
