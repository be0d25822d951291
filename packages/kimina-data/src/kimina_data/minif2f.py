"""The miniF2F evaluation sets (valid and test) as verl parquet, from the miniF2F file shipped here or the hub."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kimina_data.schema import Rejection, write_rejections
from kimina_data.sources import SourceError, SourceKind, SourceSpec, load_source
from kimina_data.steps import Split, normalise, to_verl, write_parquet

__all__ = [
    "PACKAGED_MINIF2F",
    "MiniF2FResult",
    "build_minif2f",
    "default_minif2f_source",
]

PACKAGED_MINIF2F = Path(__file__).parent / "resources" / "minif2f.jsonl"
"""miniF2F (valid and test, with the corrected statements) as shipped in this package; see resources/README.md."""


@dataclass(slots=True)
class MiniF2FResult:
    """Files written (by `data_source`, e.g. `minif2f-test`), their row counts, and rows turned away."""

    files: dict[str, Path] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    rejections: list[Rejection] = field(default_factory=list)


def default_minif2f_source() -> Path:
    """The miniF2F file shipped with kimina-data (`PACKAGED_MINIF2F`): the default source of every miniF2F build.

    Raises:
        SourceError: The file is missing from the installation.
    """
    if not PACKAGED_MINIF2F.is_file():
        raise SourceError(f"the miniF2F file shipped with kimina-data is missing ({PACKAGED_MINIF2F}): reinstall it")
    return PACKAGED_MINIF2F


def build_minif2f(source: str | Path, out: Path, *, rectified: bool = True) -> MiniF2FResult:
    """Write one parquet per miniF2F split found in `source` (`minif2f_valid.parquet`, `minif2f_test.parquet`).

    Statements are normalised like the training set's and rows keep their order; nothing is filtered, de-duplicated
    or weighted. Every row is marked held out (`extra_info.split`: `valid` for the valid split, else `test`, as for
    a source without a split column such as `AI-MO/minif2f_test`). Rows that fail the checks go to `rejected.jsonl`
    in `out`.

    Args:
        source: A local miniF2F file (JSON Lines, such as `PACKAGED_MINIF2F`) or hub id (`AI-MO/minif2f_test`).
        out: Output folder.
        rectified: Use `formal_statement_rectified` where a row has one.
    """
    loaded = load_source(SourceSpec(str(source), kind=SourceKind.MINIF2F), rectified=rectified)
    if not len(loaded.table):
        raise SourceError(f"{source}: every row was rejected ({len(loaded.rejections)})")
    table = normalise(loaded.table)
    result = MiniF2FResult(rejections=loaded.rejections)
    out.mkdir(parents=True, exist_ok=True)
    labels = table.unique("data_source")
    for label in sorted(labels):
        part = table.filter(lambda ds, label=label: ds == label, input_columns="data_source", keep_in_memory=True)
        path = out / f"{label.replace('-', '_')}.parquet"
        split: Split = "valid" if label.endswith("-valid") else "test"
        result.files[label] = write_parquet(to_verl(part, split=split), path)
        result.rows[label] = len(part)
    if loaded.rejections:
        write_rejections(loaded.rejections, out / "rejected.jsonl")
    return result
