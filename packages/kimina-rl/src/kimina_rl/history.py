"""Per-problem attempts and successes of training rollouts, kept durably in SQLite for the next promptset build."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["Outcome", "WinRate", "WinRateHistory", "merge_win_rates", "write_win_rates"]

_SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS problems (
    problem_id TEXT PRIMARY KEY,
    data_source TEXT NOT NULL DEFAULT '',
    formal_statement TEXT,
    informal_problem TEXT,
    n_proofs INTEGER NOT NULL DEFAULT 0,
    n_correct_proofs INTEGER NOT NULL DEFAULT 0,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_UPSERT = """
INSERT INTO problems
    (problem_id, data_source, formal_statement, informal_problem, n_proofs, n_correct_proofs, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (problem_id) DO UPDATE SET
    n_proofs = n_proofs + excluded.n_proofs,
    n_correct_proofs = n_correct_proofs + excluded.n_correct_proofs,
    data_source = CASE WHEN excluded.data_source != '' THEN excluded.data_source ELSE data_source END,
    formal_statement = coalesce(excluded.formal_statement, formal_statement),
    informal_problem = coalesce(excluded.informal_problem, informal_problem),
    updated_at = excluded.updated_at
"""
_COLUMNS = "problem_id, data_source, formal_statement, informal_problem, n_proofs, n_correct_proofs"


@dataclass(frozen=True)
class Outcome:
    """One scored training rollout of one problem.

    Attributes:
        problem_id: Stable id of the problem (the dataset's `uuid`, else its statement id or index).
        solved: Whether Lean accepted the rollout's proof.
        formal_statement: The full statement (header included), kept so the export can be joined on it; None
            leaves the stored one.
        data_source: The row's `data_source`; empty leaves the stored one.
        informal_problem: The problem in words, so the export is a complete NuminaMath-LEAN-style row; None leaves
            the stored one.
    """

    problem_id: str
    solved: bool
    formal_statement: str | None = None
    data_source: str = ""
    informal_problem: str | None = None


@dataclass(frozen=True)
class WinRate:
    """Accumulated outcomes of one problem."""

    problem_id: str
    data_source: str
    formal_statement: str | None
    informal_problem: str | None
    n_proofs: int
    n_correct_proofs: int

    @property
    def win_rate(self) -> float:
        """Share of attempts Lean accepted (0.0 before any attempt)."""
        return self.n_correct_proofs / self.n_proofs if self.n_proofs else 0.0

    def as_row(self) -> dict[str, Any]:
        """The export row, laid out like NuminaMath-LEAN: `uuid`, `problem`, `formal_statement`, `rl_data`."""
        return {
            "uuid": self.problem_id,
            "problem": self.informal_problem,
            "formal_statement": self.formal_statement,
            "data_source": self.data_source,
            "rl_data": {
                "n_correct_proofs": self.n_correct_proofs,
                "n_proofs": self.n_proofs,
                "win_rate": self.win_rate,
            },
        }


class WinRateHistory:
    """A SQLite (WAL) file of per-problem attempt and success counts, safe for several writer processes.

    Each `record` call is one transaction: once it returns, its outcomes survive a crash of the writer, so a crash
    loses at most the batch that was in flight. Readers never block writers.

    Example:
        >>> with WinRateHistory("history.sqlite") as history:
        ...     history.record([Outcome("p1", solved=True), Outcome("p1", solved=False)])
        ...     history.get("p1").win_rate
        0.5
    """

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 60.0) -> None:
        """Open (creating if needed) the history file at `path`.

        Args:
            path: SQLite file; its folder must exist. Use a local disk: SQLite locking is unreliable on NFS.
            busy_timeout_s: How long a write waits for another process's transaction before failing.

        Raises:
            FileNotFoundError: The folder of `path` does not exist.
            ValueError: The file exists but is not a history of a version this code reads.
        """
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise FileNotFoundError(f"folder for the win-rate history does not exist: {self.path.parent}")
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a committed transaction survives a process crash; only a power loss can undo the last
            # few commits, and never corrupts the file.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self._check_version()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise ValueError(f"{self.path} is not a win-rate history: {exc}") from exc

    def _check_version(self) -> None:
        self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (_SCHEMA_VERSION,))
        (version,) = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if version != _SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"schema version {version}, expected {_SCHEMA_VERSION}")

    def record(self, outcomes: Iterable[Outcome]) -> int:
        """Add a batch of outcomes in one durable transaction.

        Returns:
            The number of outcomes recorded.
        """
        totals: dict[str, _Totals] = {}
        count = 0
        for outcome in outcomes:
            totals.setdefault(outcome.problem_id, _Totals()).add(outcome)
            count += 1
        if not totals:
            return 0
        now = time.time()
        rows = [(pid, *entry.row(), now) for pid, entry in totals.items()]
        with self._lock:
            # IMMEDIATE takes the write lock at once, so concurrent writers queue instead of deadlocking.
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(_UPSERT, rows)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return count

    def get(self, problem_id: str) -> WinRate | None:
        """The accumulated outcomes of one problem, or None if it was never recorded."""
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM problems WHERE problem_id = ?", (problem_id,)).fetchone()
        return WinRate(*row) if row else None

    def win_rates(self) -> Iterator[WinRate]:
        """Every recorded problem, ordered by id."""
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM problems ORDER BY problem_id").fetchall()
        return (WinRate(*row) for row in rows)

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT count(*) FROM problems").fetchone()
        return int(count)

    def export(self, path: str | Path, *, min_attempts: int = 1) -> int:
        """Write each problem with at least `min_attempts` attempts as one row (see `write_win_rates`)."""
        return write_win_rates(self.win_rates(), path, min_attempts=min_attempts)

    def close(self) -> None:
        """Close the file; every recorded batch is already durable."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> WinRateHistory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def merge_win_rates(*groups: Iterable[WinRate]) -> list[WinRate]:
    """Add up the counts of several histories (e.g. one file per node of a multi-node run), ordered by problem id."""
    merged: dict[str, WinRate] = {}
    for group in groups:
        for rate in group:
            seen = merged.get(rate.problem_id)
            if seen is not None:
                rate = WinRate(
                    rate.problem_id,
                    rate.data_source or seen.data_source,
                    rate.formal_statement or seen.formal_statement,
                    rate.informal_problem or seen.informal_problem,
                    seen.n_proofs + rate.n_proofs,
                    seen.n_correct_proofs + rate.n_correct_proofs,
                )
            merged[rate.problem_id] = rate
    return [merged[key] for key in sorted(merged)]


def write_win_rates(rates: Iterable[WinRate], path: str | Path, *, min_attempts: int = 1) -> int:
    """Write one row per problem (`WinRate.as_row`: NuminaMath-LEAN layout with `rl_data`), atomically.

    Args:
        rates: The problems to write.
        path: `.jsonl` or `.parquet` file (replaced if it exists; a crash leaves the old file, never half a file).
        min_attempts: Problems with fewer recorded attempts are left out (their win rate says little).

    Returns:
        The number of rows written.

    Raises:
        ValueError: The suffix is neither `.jsonl` nor `.parquet`.
    """
    out = Path(path)
    if out.suffix not in (".jsonl", ".parquet"):
        raise ValueError(f"export to .jsonl or .parquet, not {out.suffix or 'a file without suffix'}: {out}")
    rows = [rate.as_row() for rate in rates if rate.n_proofs >= min_attempts]
    partial = out.with_name(out.name + ".partial")
    if out.suffix == ".jsonl":
        with partial.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows, schema=_parquet_schema(pa)), partial)
    partial.replace(out)
    return len(rows)


@dataclass
class _Totals:
    """One problem's share of a batch: counts plus the latest non-empty texts."""

    data_source: str = ""
    formal_statement: str | None = None
    informal_problem: str | None = None
    n_proofs: int = 0
    n_correct_proofs: int = 0

    def add(self, outcome: Outcome) -> None:
        self.data_source = outcome.data_source or self.data_source
        self.formal_statement = outcome.formal_statement or self.formal_statement
        self.informal_problem = outcome.informal_problem or self.informal_problem
        self.n_proofs += 1
        self.n_correct_proofs += int(outcome.solved)

    def row(self) -> tuple[str, str | None, str | None, int, int]:
        return self.data_source, self.formal_statement, self.informal_problem, self.n_proofs, self.n_correct_proofs


def _parquet_schema(pa: Any) -> Any:
    rl_data = pa.struct(
        [("n_correct_proofs", pa.int64()), ("n_proofs", pa.int64()), ("win_rate", pa.float64())],
    )
    text = pa.string()
    return pa.schema(
        [("uuid", text), ("problem", text), ("formal_statement", text), ("data_source", text), ("rl_data", rl_data)]
    )
