"""The one table layout every source is mapped to, and the record of a row that was turned away."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

__all__ = [
    "COLUMNS",
    "Rejection",
    "canonical_features",
    "canonical_table",
    "column",
    "count_reasons",
    "problem_label",
    "write_rejections",
]

if TYPE_CHECKING:
    import datasets

COLUMNS: tuple[str, ...] = (
    "uid",
    "data_source",
    "source",
    "header",
    "formal_statement",
    "informal_problem",
    "win_rate",
    "n_proofs",
    "n_correct_proofs",
    "author",
    "variant_of",
)
"""Canonical columns, in order. `win_rate`, `n_proofs`, `n_correct_proofs` and `variant_of` may be null."""


def canonical_features() -> datasets.Features:
    """The `datasets.Features` of the canonical table, so that empty and all-null columns keep their types."""
    import datasets

    string, int64 = datasets.Value("string"), datasets.Value("int64")
    return datasets.Features(
        {
            "uid": string,
            "data_source": string,
            "source": string,
            "header": string,
            "formal_statement": string,
            "informal_problem": string,
            "win_rate": datasets.Value("float64"),
            "n_proofs": int64,
            "n_correct_proofs": int64,
            "author": string,
            "variant_of": string,
        }
    )


def canonical_table(rows: list[dict[str, Any]]) -> datasets.Dataset:
    """A canonical table (in memory) from rows holding every column of `COLUMNS`; no rows gives an empty table."""
    import datasets

    if not rows:
        return datasets.Dataset.from_dict({name: [] for name in COLUMNS}, features=canonical_features())
    return datasets.Dataset.from_list(rows, features=canonical_features())


def problem_label(data_source: str, uid: str) -> str:
    """How a problem is named in reports and matched across tables: `data_source:uid`."""
    return f"{data_source}:{uid}"


def column(table: datasets.Dataset, name: str) -> list[Any]:
    """One column as a Python list, read through Arrow in one go (iterating `table[name]` reads row by row)."""
    values: list[Any] = table.select_columns([name]).with_format("arrow")[name].to_pylist()
    return values


@dataclass(frozen=True, slots=True)
class Rejection:
    """A row that a step turned away: where it came from, a stable `reason` code, and the row itself, so nothing is lost.

    Attributes:
        step: The step that rejected it (`load`, `variants`, `statement_check`).
        data_source: The source it came from.
        row: Its position in that source (line number for JSON Lines, counted from 1; row index otherwise), or -1.
        uid: Its identifier where one could be read, else "".
        reason: A stable code such as `no_by`, `bad_win_rate`, `bad_json`.
        detail: The reason in words.
        record: The raw row (or the raw line for unreadable JSON).
    """

    step: str
    data_source: str
    row: int
    uid: str
    reason: str
    detail: str
    record: Any = None

    def to_json(self) -> str:
        """One JSON line; values JSON cannot hold are written as strings."""
        return json.dumps(asdict(self), ensure_ascii=False, default=str)


def count_reasons(rejections: Iterable[Rejection]) -> dict[str, int]:
    """Rejections per `step:reason`, most frequent first."""
    return dict(Counter(f"{r.step}:{r.reason}" for r in rejections).most_common())


def write_rejections(rejections: Iterable[Rejection], path: Path) -> int:
    """Write rejections as JSON Lines to `path`; returns how many were written."""
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for rejection in rejections:
            f.write(rejection.to_json() + "\n")
            n += 1
    return n
