"""Data check: the train and validation parquet files exist, or a kimina-data build in the recipe can write them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kimina_train.dataprep import data_files, reference_source_build
from kimina_train.preflight.checklist import CheckResult, Status
from kimina_train.recipe import Recipe
from kimina_train.settings import DataSpec, MiniF2FSpec

__all__ = ["check_data"]


def _rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return int(pq.read_metadata(path).num_rows)


def _missing_local(location: str) -> bool:
    """The source names a local file (rather than a hub id) that does not exist."""
    looks_local = location.startswith((".", "/", "~")) or location.endswith((".jsonl", ".json", ".parquet"))
    return looks_local and not Path(location).expanduser().exists()


def _minif2f_problem(spec: MiniF2FSpec) -> str | None:
    from kimina_data.minif2f import default_minif2f_source
    from kimina_data.sources import SourceError

    if spec.source is not None:
        return f"miniF2F source {spec.source} does not exist" if _missing_local(spec.source) else None
    try:
        default_minif2f_source()
    except SourceError as exc:
        return str(exc)
    return None


def _promptset_problem(fields: dict[str, Any]) -> str | None:
    from kimina_data.config import BuildConfig, ConfigError

    try:
        config = BuildConfig.from_mapping(fields)
    except ConfigError as exc:
        return f"kimina.data.promptset: {exc}"
    missing = [s.location for s in config.sources if _missing_local(s.location)]
    return f"promptset source {missing[0]} does not exist" if missing else None


def _build_problem(spec: DataSpec, build: str) -> str | None:
    """Why the build named `build` cannot run, or None if its sources look readable (hub ids are tried at build)."""
    if build == "minif2f" and spec.minif2f is not None:
        return _minif2f_problem(spec.minif2f)
    if build == "promptset" and spec.promptset is not None:
        return _promptset_problem(spec.promptset)
    if build == "reference_rows" and spec.reference_rows is not None:
        if Path(spec.reference_rows.source).is_file():
            return None
        source = reference_source_build(spec)
        if source is None or source == "reference_rows":
            return f"its source {spec.reference_rows.source} does not exist and no kimina.data build writes it"
        return _build_problem(spec, source)
    return f"no kimina.data.{build} section"


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
        elif problem := _build_problem(recipe.settings.data, f.build):
            results.append(CheckResult(name, Status.FAIL, f"{f.path} is missing and cannot be built: {problem}"))
        else:
            results.append(
                CheckResult(name, Status.WARN, f"{f.path} is missing", f"prepare builds it (kimina.data.{f.build})")
            )
    return results
