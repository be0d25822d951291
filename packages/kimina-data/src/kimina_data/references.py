"""Decontamination references: the evaluation statements a training promptset must not contain, keyed for lookup.

A reference is any source `load_source` reads (miniF2F, a NuminaMath-LEAN or promptset file, a hub id); `minif2f`
names the miniF2F file shipped with kimina-data, which `kimina-data minif2f` reads by default.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kimina_data.minif2f import default_minif2f_source
from kimina_data.schema import column, count_reasons, problem_label
from kimina_data.sources import SourceError, SourceKind, SourceSpec, load_source
from kimina_data.statement import parse_statement, statement_key

__all__ = ["MINIF2F", "Reference", "load_reference", "resolve_location"]

log = logging.getLogger(__name__)

MINIF2F = "minif2f"
"""The reference name that stands for the miniF2F file shipped with kimina-data (both splits)."""

_FILE_SUFFIXES = {".jsonl", ".json", ".parquet"}


@dataclass(frozen=True, slots=True)
class Reference:
    """Evaluation statements by normalised key (`statement_key`), each with the problems that state it.

    Attributes:
        keys: Statement key to the labels (`data_source:uid`, e.g. `minif2f-test:mathd_algebra_10`) of every
            reference problem with that statement.
        files: Statements read per reference location, in the order given.
    """

    keys: Mapping[str, tuple[str, ...]]
    files: dict[str, int] = field(default_factory=dict)

    @property
    def labels(self) -> frozenset[str]:
        """Every reference problem's label."""
        return frozenset(label for labels in self.keys.values() for label in labels)


def resolve_location(location: str) -> str:
    """The file behind a reference location: `minif2f` becomes the packaged miniF2F file, anything else is kept.

    Raises:
        SourceError: `minif2f` and the packaged file is missing, or a path to a `.jsonl` / `.json` / `.parquet` file
            that does not exist (caught here, so that it is not mistaken for a hub id).
    """
    if location == MINIF2F:
        return str(default_minif2f_source())
    path = Path(location).expanduser()
    if path.suffix in _FILE_SUFFIXES and not path.exists():
        raise SourceError(f"{location}: no such decontamination reference file")
    return str(path) if path.exists() else location


def load_reference(locations: Iterable[str], *, cache_dir: str | None = None) -> Reference:
    """Read every reference location and key its statements the way de-duplication does.

    For miniF2F both the original and the rectified statement of a problem are keys, so a training row is caught
    whichever of the two it copies.

    Args:
        locations: Paths, hub ids, or `minif2f` (see `resolve_location`).
        cache_dir: The `datasets` cache folder for parquet files and hub downloads.

    Raises:
        SourceError: A location is missing or cannot be read.
    """
    keys: dict[str, tuple[str, ...]] = {}
    files: dict[str, int] = {}
    for location in locations:
        resolved = resolve_location(location)
        loaded = load_source(SourceSpec(resolved), cache_dir=cache_dir)
        tables = [loaded.table]
        if loaded.kind is SourceKind.MINIF2F:
            tables.append(load_source(SourceSpec(resolved), cache_dir=cache_dir, rectified=False).table)
        if loaded.rejections:
            reasons = ", ".join(f"{k} {v}" for k, v in count_reasons(loaded.rejections).items())
            log.warning("reference %s: %d rows unreadable (%s)", resolved, len(loaded.rejections), reasons)
        for table in tables:
            rows = zip(
                column(table, "data_source"),
                column(table, "uid"),
                column(table, "formal_statement"),
                strict=True,
            )
            for data_source, uid, statement in rows:
                key = statement_key(parse_statement(statement).body)
                label = problem_label(data_source, uid)
                if label not in keys.get(key, ()):
                    keys[key] = (*keys.get(key, ()), label)
        files[resolved] = files.get(resolved, 0) + len(loaded.table)
    return Reference(keys, files)
