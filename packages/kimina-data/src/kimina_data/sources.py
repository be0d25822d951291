"""Load NuminaMath-LEAN, Kimina-Prover-Promptset and miniF2F from the hub or local files into the canonical table.

Every row is checked on the way in; a row that fails becomes a `Rejection` with a stable reason and the raw row, so
a report can say exactly what was turned away and nothing is silently dropped.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kimina_data.schema import Rejection, canonical_table
from kimina_data.statement import StatementError, clean_text, parse_statement

__all__ = [
    "LoadedSource",
    "SourceError",
    "SourceKind",
    "SourceSpec",
    "load_source",
    "minif2f_fields",
]

if TYPE_CHECKING:
    import datasets

log = logging.getLogger(__name__)

_HUB_ID = re.compile(r"[\w.-]+/[\w.-]+")
_WIN_RATE_TOLERANCE = 0.01


class SourceError(Exception):
    """A source that cannot be read at all (missing file, unknown layout, hub unreachable); the message says which."""


class SourceKind(StrEnum):
    """The dataset layouts this package reads; the value is the default `data_source` label."""

    NUMINA_LEAN = "numina-lean"
    PROMPTSET = "kimina-promptset"
    MINIF2F = "minif2f"


# Columns that identify each layout; the first match wins, so the most specific layout comes first.
_SIGNATURES: dict[SourceKind, frozenset[str]] = {
    SourceKind.MINIF2F: frozenset({"name", "informal_prefix", "formal_statement"}),
    SourceKind.PROMPTSET: frozenset({"natural_language", "formal_statement"}),
    SourceKind.NUMINA_LEAN: frozenset({"uuid", "problem", "formal_statement"}),
}


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """Where to read a source and how to label it.

    Attributes:
        location: A local `.jsonl` / `.json` / `.parquet` file or folder of them, or a Hugging Face hub id.
        kind: The layout; detected from the columns when None.
        name: The `data_source` label of its rows; defaults to the kind's value (miniF2F adds `-valid` / `-test`).
        split: The split to read from the hub.
    """

    location: str
    kind: SourceKind | None = None
    name: str | None = None
    split: str = "train"

    @classmethod
    def parse(cls, value: str | Mapping[str, Any]) -> SourceSpec:
        """Build a spec from a path or hub id, or from a mapping with `path` and optional `kind`, `name`, `split`."""
        if isinstance(value, str):
            return cls(value)
        unknown = set(value) - {"path", "kind", "name", "split"}
        if unknown or "path" not in value:
            raise ValueError(f"a source needs `path` and may have `kind`, `name`, `split`; got {sorted(value)}")
        kind = value.get("kind")
        try:
            return cls(
                str(value["path"]),
                kind=SourceKind(kind) if kind else None,
                name=value.get("name"),
                split=str(value.get("split", "train")),
            )
        except ValueError:
            raise ValueError(f"unknown source kind {kind!r}; use one of {[k.value for k in SourceKind]}") from None


@dataclass(slots=True)
class LoadedSource:
    """A source read into the canonical table, with what was turned away."""

    spec: SourceSpec
    kind: SourceKind
    table: datasets.Dataset
    rows_read: int
    rejections: list[Rejection] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Raw:
    """Raw rows from any reader: (row number, row) pairs plus the lines that are not JSON objects."""

    rows: list[tuple[int, dict[str, Any]]]
    columns: frozenset[str]
    bad_lines: list[tuple[int, str, str]]


def load_source(spec: SourceSpec, *, cache_dir: str | None = None, rectified: bool = True) -> LoadedSource:
    """Read one source, check every row and map it to the canonical columns.

    Args:
        spec: What to read.
        cache_dir: The `datasets` cache folder for parquet files and hub downloads (None: the library default).
        rectified: For miniF2F, use `formal_statement_rectified` where a row has one.

    Raises:
        SourceError: The source is missing, unreadable, empty, or in no known layout.
    """
    raw = _read(spec, cache_dir)
    kind = spec.kind or _detect(raw.columns, spec.location)
    missing = _SIGNATURES[kind] - raw.columns
    if missing and raw.rows:
        raise SourceError(f"{spec.location}: a {kind.value} source needs columns {sorted(missing)}")
    label = spec.name or kind.value
    rejections = [Rejection("load", label, line, "", "bad_json", detail, text) for line, text, detail in raw.bad_lines]
    rows: list[dict[str, Any]] = []
    for index, record in raw.rows:
        try:
            rows.append(_canonical(kind, label, index, record, rectified=rectified))
        except _RowError as e:
            uid = str(record.get("uuid") or record.get("statement_id") or record.get("name") or "")
            rejections.append(
                Rejection("load", _data_source(kind, label, record), index, uid, e.reason, str(e), record)
            )
    table = canonical_table(rows)
    if rejections:
        log.warning("%s: rejected %d of %d rows", spec.location, len(rejections), len(raw.rows) + len(raw.bad_lines))
    return LoadedSource(spec, kind, table, len(raw.rows) + len(raw.bad_lines), rejections)


def _read(spec: SourceSpec, cache_dir: str | None) -> _Raw:
    path = Path(spec.location).expanduser()
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in {".jsonl", ".json", ".parquet"})
        if not files:
            raise SourceError(f"{path}: folder holds no .jsonl, .json or .parquet file")
    elif path.is_file():
        files = [path]
    elif _HUB_ID.fullmatch(spec.location) and not spec.location.startswith("."):
        return _read_hub(spec, cache_dir)
    else:
        raise SourceError(f"{spec.location}: no such file, and not a Hugging Face hub id")
    parquet = [p for p in files if p.suffix == ".parquet"]
    if parquet and len(parquet) != len(files):
        raise SourceError(f"{path}: mixes parquet and JSON files; point at one kind")
    raw = _read_parquet(parquet, cache_dir) if parquet else _read_json_lines(files)
    if not raw.rows and not raw.bad_lines:
        raise SourceError(f"{spec.location}: no rows")
    return raw


def _read_json_lines(files: list[Path]) -> _Raw:
    rows: list[tuple[int, dict[str, Any]]] = []
    bad: list[tuple[int, str, str]] = []
    columns: set[str] = set()
    offset = 0  # rows are numbered by line, continuing from one file to the next
    for file in files:
        with file.open(encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                bad.append((offset + number, line, f"{file.name} line {number}: bad JSON ({e.msg})"))
                continue
            if not isinstance(record, dict):
                bad.append((offset + number, line, f"{file.name} line {number}: not a JSON object"))
                continue
            rows.append((offset + number, record))
            columns.update(record)
        offset += len(lines)
    return _Raw(rows, frozenset(columns), bad)


def _read_parquet(files: list[Path], cache_dir: str | None) -> _Raw:
    import datasets

    table = datasets.load_dataset(
        "parquet", data_files=[str(p) for p in files], split="train", cache_dir=cache_dir, keep_in_memory=True
    )
    return _Raw(list(enumerate(_iter_rows(table))), frozenset(table.column_names), [])


def _read_hub(spec: SourceSpec, cache_dir: str | None) -> _Raw:
    import datasets

    try:
        table = datasets.load_dataset(spec.location, split=spec.split, cache_dir=cache_dir)
    except Exception as e:  # the hub raises many types (offline, not found, gated); all mean "cannot read it"
        raise SourceError(
            f"{spec.location}: could not load it from the Hugging Face hub ({type(e).__name__}: {e}); "
            "download it elsewhere and pass the local file"
        ) from e
    if not isinstance(table, datasets.Dataset):
        raise SourceError(f"{spec.location}: split {spec.split!r} is not a single table")
    return _Raw(list(enumerate(_iter_rows(table))), frozenset(table.column_names), [])


def _iter_rows(table: datasets.Dataset) -> Iterator[dict[str, Any]]:
    for batch in table.iter(batch_size=4096):
        names = list(batch)
        for values in zip(*(batch[name] for name in names), strict=True):
            yield dict(zip(names, values, strict=True))


def _detect(columns: frozenset[str], location: str) -> SourceKind:
    for kind, needed in _SIGNATURES.items():
        if needed <= columns:
            return kind
    wanted = "; ".join(f"{k.value}: {sorted(c)}" for k, c in _SIGNATURES.items())
    raise SourceError(f"{location}: unknown layout (columns {sorted(columns)}); expected one of {wanted}")


class _RowError(ValueError):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _canonical(kind: SourceKind, label: str, index: int, r: dict[str, Any], *, rectified: bool) -> dict[str, Any]:
    """Map one raw row to canonical columns, raising `_RowError` for anything unusable."""
    rl: Mapping[str, Any] | None = None
    author, source = "", ""
    if kind is SourceKind.NUMINA_LEAN:
        uid, informal, statement = r.get("uuid"), r.get("problem"), r.get("formal_statement")
        rl, author, source = r.get("rl_data"), r.get("author") or "", r.get("source") or ""
    elif kind is SourceKind.PROMPTSET:
        uid, informal, statement = r.get("statement_id"), r.get("natural_language"), r.get("formal_statement")
        source = r.get("source") or ""
    else:
        uid, informal, statement = minif2f_fields(r, rectified=rectified)
        source = "minif2f"
    if not isinstance(statement, str):
        raise _RowError("missing_statement", "no formal statement")
    try:
        parse_statement(statement)
    except StatementError as e:
        raise _RowError(e.reason, str(e)) from None
    if not isinstance(informal, str) or not clean_text(informal):
        raise _RowError("empty_informal", "the informal problem is empty")
    win_rate, n_proofs, n_correct = _rl_fields(rl)
    return {
        "uid": str(uid) if uid not in (None, "") else f"{label}:{index}",
        "data_source": _data_source(kind, label, r),
        "source": str(source),
        "header": "",
        "formal_statement": statement,
        "informal_problem": informal,
        "win_rate": win_rate,
        "n_proofs": n_proofs,
        "n_correct_proofs": n_correct,
        "author": str(author),
        "variant_of": None,
    }


def minif2f_fields(record: Mapping[str, Any], *, rectified: bool) -> tuple[Any, Any, Any]:
    """`(name, informal problem, statement)` of a raw miniF2F row, as every miniF2F reader here takes them.

    The informal problem loses the `/-- ... -/` doc comment around it (the prompt shows plain text, as for the training
    rows' `natural_language`); the statement is the corrected one when `rectified` and the row has one, with the
    row's `header` in front. Values are returned unchecked (the caller rejects missing ones).
    """
    statement = (rectified and record.get("formal_statement_rectified")) or record.get("formal_statement")
    if isinstance(statement, str) and isinstance(record.get("header"), str):
        statement = record["header"] + statement
    return record.get("name"), _strip_doc_comment(record.get("informal_prefix")), statement


def _data_source(kind: SourceKind, label: str, record: dict[str, Any]) -> str:
    """The row's `data_source`: the source's label, with the split appended for miniF2F (`minif2f-test`)."""
    split = record.get("split") if kind is SourceKind.MINIF2F else None
    return f"{label}-{split}" if isinstance(split, str) and split else label


def _strip_doc_comment(text: Any) -> Any:
    """`/-- text -/` to `text`; anything else unchanged."""
    if isinstance(text, str):
        stripped = text.strip()
        if stripped.startswith("/--") and stripped.endswith("-/"):
            return stripped[3:-2].strip()
    return text


def _count(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _RowError("bad_win_rate", f"rl_data.{name} is {value!r}, not a count")
    return value


def _rl_fields(rl: Any) -> tuple[float | None, int | None, int | None]:
    """(win_rate, n_proofs, n_correct_proofs) from NuminaMath-LEAN's `rl_data`, checked for consistency."""
    if rl is None:
        return None, None, None
    if not isinstance(rl, Mapping):
        raise _RowError("bad_win_rate", f"rl_data is {type(rl).__name__}, not a record")
    n_proofs, n_correct = _count(rl.get("n_proofs"), "n_proofs"), _count(rl.get("n_correct_proofs"), "n_correct_proofs")
    win_rate = rl.get("win_rate")
    if win_rate is not None:
        if isinstance(win_rate, bool) or not isinstance(win_rate, int | float) or not 0.0 <= win_rate <= 1.0:
            raise _RowError("bad_win_rate", f"win_rate is {win_rate!r}, not a number in [0, 1]")
        win_rate = float(win_rate)
    if n_proofs is not None and n_correct is not None:
        if n_correct > n_proofs:
            raise _RowError("bad_win_rate", f"{n_correct} correct proofs out of {n_proofs}")
        if n_proofs == 0:
            # No attempts: a recorded win rate of 0 means "unknown" here, not "never solved".
            return None, 0, 0
        observed = n_correct / n_proofs
        if win_rate is None:
            win_rate = observed
        elif abs(win_rate - observed) > _WIN_RATE_TOLERANCE:
            raise _RowError("bad_win_rate", f"win_rate {win_rate} disagrees with {n_correct}/{n_proofs} correct")
    return win_rate, n_proofs, n_correct
