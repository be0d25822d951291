"""The recipe's train and validation parquet files: which kimina-data build writes each, and building them."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kimina_train.recipe import Recipe
from kimina_train.settings import DataSpec

__all__ = ["DataBuildError", "DataFile", "build_missing", "data_files", "reference_source_build"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DataFile:
    """One parquet file verl reads.

    Attributes:
        role: `train` or `val`.
        path: The file (`data.train_files` or `data.val_files`).
        build: The `kimina.data` build that writes it (`promptset`, `minif2f` or `reference_rows`), or None.
    """

    role: str
    path: Path
    build: str | None


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _builder(spec: DataSpec, path: Path) -> str | None:
    """The declared build that writes `path`, if any."""
    where = path.absolute()
    if spec.reference_rows is not None and where == Path(spec.reference_rows.out).absolute():
        return "reference_rows"
    if spec.promptset is not None and spec.promptset.get("out"):
        out = Path(str(spec.promptset["out"])).absolute()
        if where in (out / "train.parquet", out / "val.parquet"):
            return "promptset"
    # build_minif2f writes one file per split it finds: minif2f_valid.parquet, minif2f_test.parquet, or (for a
    # source without a split column, such as AI-MO/minif2f_test) minif2f.parquet.
    if spec.minif2f is not None and where.parent == Path(spec.minif2f.out).absolute():
        if where.name.startswith("minif2f") and where.suffix == ".parquet":
            return "minif2f"
    return None


def data_files(recipe: Recipe) -> list[DataFile]:
    """The train and validation files of `recipe`, each with the build that writes it."""
    spec = recipe.settings.data
    return [
        DataFile(role, Path(name), _builder(spec, Path(name)))
        for role, key in (("train", "train_files"), ("val", "val_files"))
        for name in _as_list(recipe.config.data.get(key))
    ]


class DataBuildError(RuntimeError):
    """A kimina-data build failed or did not write what the recipe reads; the message says which and why."""


def build_missing(recipe: Recipe) -> list[Path]:
    """Run the kimina-data builds that write a missing data file; return the files written.

    Raises:
        DataBuildError: A source cannot be read, a build fails, or a file the recipe reads was not written.
    """
    from kimina_data import BuildError, ConfigError, SourceError

    from kimina_train.references import ReferenceDataError

    try:
        written = _build(recipe)
    except (SourceError, BuildError, ConfigError, OSError) as exc:
        raise DataBuildError(f"kimina-data could not build the data: {exc}") from exc
    except ReferenceDataError as exc:
        raise DataBuildError(f"no train rows with reference completions: {exc}") from exc
    still_missing = [str(f.path) for f in data_files(recipe) if not f.path.is_file()]
    if still_missing:
        raise DataBuildError(f"kimina-data ran but did not write {', '.join(still_missing)}")
    return written


def reference_source_build(spec: DataSpec) -> str | None:
    """The build that writes the `reference_rows` source, if another build does (`minif2f`, usually)."""
    if spec.reference_rows is None:
        return None
    return _builder(spec, Path(spec.reference_rows.source))


def _build(recipe: Recipe) -> list[Path]:
    missing = {f.build for f in data_files(recipe) if f.build is not None and not f.path.is_file()}
    spec = recipe.settings.data
    if "reference_rows" in missing and spec.reference_rows is not None:
        source_build = reference_source_build(spec)
        if not Path(spec.reference_rows.source).is_file() and source_build is not None:
            missing.add(source_build)
    written: list[Path] = []
    if "promptset" in missing:
        from kimina_data.config import BuildConfig
        from kimina_data.pipeline import build_promptset

        assert spec.promptset is not None
        config = BuildConfig.from_mapping(spec.promptset)
        logger.info("building the promptset into %s (kimina-data)", config.out)
        build_promptset(config)
        written += [p for p in (config.out / "train.parquet", config.out / "val.parquet") if p.is_file()]
    if "minif2f" in missing:
        from kimina_data.minif2f import build_minif2f, default_minif2f_source

        assert spec.minif2f is not None
        source = spec.minif2f.source or default_minif2f_source()
        logger.info("building miniF2F from %s into %s (kimina-data)", source, spec.minif2f.out)
        result = build_minif2f(source, Path(spec.minif2f.out), rectified=spec.minif2f.rectified)
        written += list(result.files.values())
    if "reference_rows" in missing:
        from kimina_train.references import write_reference_rows

        rows = spec.reference_rows
        assert rows is not None
        logger.info("picking %d rows with reference completions from %s", rows.rows, rows.source)
        written.append(write_reference_rows(Path(rows.source), Path(rows.out), rows.rows))
    return written
