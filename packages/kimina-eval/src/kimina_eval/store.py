"""The run's record: one JSON line per graded attempt in ``samples.jsonl``, appended as each completes.

Reading is forgiving: a corrupt line (a run killed mid-write, a hand edit) is skipped with a warning and counted, and
when an attempt appears twice (an infra failure graded again on resume) the last line wins.

Turn numbers follow the attempt protocol (`kimina_verify.attempts`): `FIRST_TURN` (1) and `FIX_TURN` (2). Files
written before kimina-eval 0.6 numbered them 0 and 1 (`LEGACY_FIRST_TURN`). A file's numbering is named by its first
turn: the run folder's ``run.json`` says it (`kimina_eval.config.load_first_turn`), else the rows do
(`guess_first_turn`). In memory a `SampleRecord` always has the protocol's numbers; `protocol_turn` and its inverse
convert, on read and on write, so that a resumed old run keeps writing 0 and 1 and its file holds one numbering.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self, TextIO

from kimina_verify.attempts import FIRST_TURN, FIX_TURN

__all__ = [
    "JsonlRows",
    "JsonlWriter",
    "LEGACY_FIRST_TURN",
    "NO_PROOF",
    "SampleRecord",
    "SampleWriter",
    "guess_first_turn",
    "iter_jsonl",
    "latest",
    "load_records",
    "protocol_turn",
    "read_jsonl",
]

logger = logging.getLogger(__name__)

NO_PROOF = "no_proof"
"""Verdict of a completion without a final ``lean4`` block: nothing to verify, counted as wrong."""

LEGACY_FIRST_TURN = 0
"""The first turn's number in files written before kimina-eval 0.6 (their fix turn was 1)."""


def protocol_turn(stored: Any, *, first_turn: int = FIRST_TURN) -> int:
    """A stored ``turn`` in the protocol's numbering: `FIRST_TURN` for a first attempt, `FIX_TURN` for its fix.

    Args:
        stored: The row's ``turn`` (None or absent: a first attempt).
        first_turn: The file's numbering: `FIRST_TURN`, or `LEGACY_FIRST_TURN` for a pre-0.6 file.

    Raises:
        ValueError: If `stored` is not a turn of that numbering.

    Example:
        >>> protocol_turn(0, first_turn=LEGACY_FIRST_TURN), protocol_turn(2)
        (1, 2)
    """
    if stored is None:
        return FIRST_TURN
    if isinstance(stored, bool) or not isinstance(stored, int) or stored not in (first_turn, first_turn + 1):
        raise ValueError(f"turn must be {first_turn} or {first_turn + 1}, got {stored!r}")
    return stored - first_turn + FIRST_TURN


def _stored_turn(turn: int, *, first_turn: int = FIRST_TURN) -> int:
    """The inverse of `protocol_turn`: a protocol turn as a file of that numbering stores it."""
    return turn - FIRST_TURN + first_turn


def guess_first_turn(rows: Iterable[Mapping[str, Any]]) -> int:
    """The numbering of rows that no ``run.json`` names: `LEGACY_FIRST_TURN` when some row has ``turn`` 0.

    Exact for files kimina-eval wrote: a fix row follows its first attempt's row, so an old file with any row has a 0.
    """
    return LEGACY_FIRST_TURN if any(row.get("turn") == LEGACY_FIRST_TURN for row in rows) else FIRST_TURN


@dataclass(frozen=True)
class SampleRecord:
    """One graded attempt.

    Attributes:
        problem: Problem name.
        sample: Index of the sample among the problem's n (a fix turn shares its first attempt's index).
        turn: `FIRST_TURN` (1) for a first attempt, `FIX_TURN` (2) for its error-fix turn (the file may store the
            pre-0.6 numbers 0 and 1: see the module).
        correct: Whether Lean accepted the proof; None when infrastructure failed and the attempt is ungraded.
        verdict: A kimina-verify verdict kind (valid, sorry, lean_error, integrity, timeout, infra) or ``no_proof``.
        completion: The model's text, thinking included.
        code: The final ``lean4`` block that was verified, or None.
        format_ok: Whether kimina-format found no violation (recorded, not required for ``correct``); None when the
            format was not checked (e.g. rows imported from elsewhere).
        format_violations: Codes of the format violations.
        feedback: Lean's feedback on this attempt as a fix turn shows it (failed attempts with code only); the fix
            turn of sample i answers the feedback of its first attempt.
        detail: The verifier's short explanation (first error, integrity rule, infra cause), if any.
        generate_s: Generation time, the batch's wall time shared evenly among its completions.
        verify_s: Lean time as the verifier reported it.
        verify_attempts: Verification attempts, retries after infrastructure failures included.
        cached: Whether the verdict came from the verifier's cache.
        lean_env: The verification server's Lean environment as its ``/health`` named it (``lean-repl-sim/...``
            for the stand-in, ``<toolchain> mathlib@<rev>`` for a Lean workspace); None when it named none or the
            record predates kimina-eval 0.5.
    """

    problem: str
    sample: int
    turn: int
    correct: bool | None
    verdict: str
    completion: str
    code: str | None = None
    format_ok: bool | None = None
    format_violations: tuple[str, ...] = ()
    feedback: str | None = None
    detail: str | None = None
    generate_s: float = 0.0
    verify_s: float = 0.0
    verify_attempts: int = 1
    cached: bool = False
    lean_env: str | None = None

    def __post_init__(self) -> None:
        # Loud, not a file that a later read would skip line by line: code written for 0.5 builds records with 0/1.
        if self.turn not in (FIRST_TURN, FIX_TURN) or isinstance(self.turn, bool):
            raise ValueError(f"turn must be FIRST_TURN ({FIRST_TURN}) or FIX_TURN ({FIX_TURN}), got {self.turn!r}")

    @property
    def key(self) -> tuple[str, int, int]:
        """``(problem, sample, turn)``: what identifies an attempt across resumes."""
        return (self.problem, self.sample, self.turn)

    def to_json(self, *, first_turn: int = FIRST_TURN) -> str:
        """Serialise as one JSON line (without the newline), the turn in the numbering `first_turn` names."""
        row = dataclasses.asdict(self)
        row["turn"] = _stored_turn(self.turn, first_turn=first_turn)
        return json.dumps(row, ensure_ascii=False)

    @classmethod
    def from_dict(cls, row: dict[str, Any], *, first_turn: int = FIRST_TURN) -> SampleRecord:
        """Build a record from a parsed line; unknown keys are ignored so newer files still load.

        Args:
            row: The line.
            first_turn: The file's numbering (`LEGACY_FIRST_TURN` for a pre-0.6 file); the record gets the protocol's.

        Raises:
            ValueError: If a required field is missing or has the wrong type.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        fields = {k: v for k, v in row.items() if k in names}
        if "turn" in fields:
            fields["turn"] = protocol_turn(fields["turn"], first_turn=first_turn)
        try:
            record = cls(**fields)
        except TypeError as error:
            raise ValueError(str(error)) from None
        if (
            not isinstance(record.problem, str)
            or not isinstance(record.sample, int)
            or record.turn not in (FIRST_TURN, FIX_TURN)
        ):
            raise ValueError("problem, sample or turn has the wrong type")
        if record.correct not in (True, False, None) or record.format_ok not in (True, False, None):
            raise ValueError("correct and format_ok must be true, false or null")
        if record.lean_env is not None and not isinstance(record.lean_env, str):
            raise ValueError("lean_env must be a string or null")
        return dataclasses.replace(record, format_violations=tuple(record.format_violations))


@dataclass
class JsonlRows:
    """Rows read from a JSON Lines file, with the lines that could not be read.

    Attributes:
        rows: Parsed JSON objects, in file order.
        line_numbers: The 1-based line number of each row.
        skipped: 1-based numbers of the lines that were skipped (not JSON, or not an object).
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    line_numbers: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)


def iter_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Yield ``(line number, object)`` for each non-blank line of a JSON Lines file, streaming.

    A line that is not a JSON object is logged as skipped and yields None in place of the object.

    Raises:
        FileNotFoundError: If the file does not exist.
    """
    with Path(path).open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                row, reason = None, f"not JSON ({error.msg})"
            else:
                reason = "not a JSON object"
            if isinstance(row, dict):
                yield number, row
            else:
                logger.warning("%s:%d: skipped, %s", path, number, reason)
                yield number, None


def read_jsonl(path: str | os.PathLike[str]) -> JsonlRows:
    """Read a JSON Lines file, skipping (with a warning) the lines that are not JSON objects.

    Raises:
        FileNotFoundError: If the file does not exist.
    """
    out = JsonlRows()
    for number, row in iter_jsonl(path):
        if row is None:
            out.skipped.append(number)
        else:
            out.rows.append(row)
            out.line_numbers.append(number)
    return out


def latest(records: Iterable[SampleRecord]) -> dict[tuple[str, int, int], SampleRecord]:
    """Keep the last record of each attempt, keyed by `SampleRecord.key`, in order of first appearance."""
    out: dict[tuple[str, int, int], SampleRecord] = {}
    for record in records:
        out[record.key] = record
    return out


def load_records(
    path: str | os.PathLike[str], *, first_turn: int | None = None
) -> tuple[list[SampleRecord], list[int]]:
    """Load the records of ``samples.jsonl``; a missing file is an empty run.

    Args:
        path: The file.
        first_turn: The file's numbering as its ``run.json`` names it; None: `guess_first_turn` from its rows.
            The records get the protocol's numbering either way.

    Returns:
        The records in file order, and the numbers of the lines skipped as corrupt.
    """
    if not Path(path).exists():
        return [], []
    read = read_jsonl(path)
    first = guess_first_turn(read.rows) if first_turn is None else first_turn
    records: list[SampleRecord] = []
    skipped = list(read.skipped)
    for number, row in zip(read.line_numbers, read.rows, strict=True):
        try:
            records.append(SampleRecord.from_dict(row, first_turn=first))
        except ValueError as error:
            logger.warning("%s:%d: skipped, not a sample record (%s)", path, number, error)
            skipped.append(number)
    return records, sorted(skipped)


class JsonlWriter:
    """Appends JSON objects to a JSON Lines file, flushed line by line so a killed run loses at most the line in flight."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # A run killed mid-line leaves a fragment: start on a fresh line so it stays one corrupt line, not two.
        needs_newline = self.path.exists() and self.path.stat().st_size > 0 and not _ends_with_newline(self.path)
        self._file: TextIO = self.path.open("a", encoding="utf-8")
        if needs_newline:
            self._file.write("\n")

    def write_json(self, rows: Iterable[dict[str, Any]]) -> None:
        """Append JSON objects, one a line, and flush them to the operating system."""
        self._write_lines(json.dumps(row, ensure_ascii=False) for row in rows)

    def _write_lines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self._file.write(line + "\n")
        self._file.flush()

    def close(self) -> None:
        """Flush to disk and close the file."""
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SampleWriter(JsonlWriter):
    """Appends records to ``samples.jsonl`` (see `JsonlWriter`).

    Args:
        path: The file.
        lean_env: The verifier's Lean environment, stamped on every record written without one, so that a report
            can say which Lean (or the stand-in) graded each attempt.
        first_turn: The file's numbering: `FIRST_TURN`, or `LEGACY_FIRST_TURN` when resuming a pre-0.6 run (its
            file keeps one numbering).
    """

    def __init__(
        self, path: str | os.PathLike[str], *, lean_env: str | None = None, first_turn: int = FIRST_TURN
    ) -> None:
        super().__init__(path)
        self.lean_env = lean_env
        self.first_turn = first_turn

    def write(self, records: Iterable[SampleRecord]) -> None:
        """Append records and flush them to the operating system."""
        stamp = self.lean_env
        self._write_lines(
            (dataclasses.replace(r, lean_env=stamp) if stamp and r.lean_env is None else r).to_json(
                first_turn=self.first_turn
            )
            for r in records
        )


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
