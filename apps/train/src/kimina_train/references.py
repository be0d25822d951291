"""The real Kimina-Prover completions kimina-train ships, and the smoke's train rows: problems that have one.

The smoke recipe's model is random, so no answer of its own passes the format check, reaches Lean or gets a fix
turn. Its CPU rollout replays these completions instead (see `verl_cpu.replay`); the train rows are chosen so that
every prompt has one.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "INJECTED_ERROR",
    "REFERENCE_FILE",
    "ReferenceDataError",
    "ReferenceRow",
    "inject_lean_error",
    "load_references",
    "rows_with_references",
    "write_reference_rows",
]

logger = logging.getLogger(__name__)

REFERENCE_FILE = Path(__file__).parent / "resources" / "kimina_completions.jsonl"
"""Real Kimina-Prover completions of miniF2F-test problems (every one a proof Lean accepted), shipped here."""

INJECTED_ERROR = "kimina smoke: injected error"
"""The message of the error `inject_lean_error` plants, as Lean reports it (and `lean-repl-sim` is told to)."""

_PROOF_START = re.compile(r":=\s*by[ \t]*\n")
_LEAN_BLOCK = "```lean4"


class ReferenceDataError(ValueError):
    """The completions file is unreadable; the message names the file and line."""


def load_references(path: Path = REFERENCE_FILE) -> dict[str, str]:
    """Completions by problem name (the shortest one when a problem has several).

    Raises:
        ReferenceDataError: A line is not JSON.
    """
    found: dict[str, str] = {}
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ReferenceDataError(f"{path}:{number}: invalid JSON ({exc.msg})") from None
            name, text = str(row.get("name", "")), str(row.get("completion", ""))
            if name and text and (name not in found or len(text) < len(found[name])):
                found[name] = text
    return found


def inject_lean_error(completion: str) -> str | None:
    """The completion with a failing first tactic in its final Lean block, or None if it has no `:= by` proof.

    The tactic is `fail "kimina smoke: injected error"`, which real Lean rejects with that message; its
    `-- sim: error` comment makes `lean-repl-sim` (which runs no Lean) report the same. The reasoning, the statement
    and the rest of the proof are unchanged, so the format check still passes and the fix turn runs.
    """
    start = completion.rfind(_LEAN_BLOCK)
    if start < 0:
        return None
    match = _PROOF_START.search(completion, start)
    if match is None:
        return None
    rest = completion[match.end() :]
    indent = re.match(r"[ \t]*", rest)
    pad = (indent.group(0) if indent else "") or "  "
    line = f'{pad}fail "{INJECTED_ERROR}" -- sim: error {INJECTED_ERROR}\n'
    return completion[: match.end()] + line + rest


@dataclass(frozen=True)
class ReferenceRow:
    """A train row with its reference completion.

    Attributes:
        row: The verl row as kimina-data wrote it.
        completion: The real completion of its problem.
    """

    row: dict[str, Any]
    completion: str


def rows_with_references(rows: list[dict[str, Any]], references: dict[str, str], count: int) -> list[ReferenceRow]:
    """The `count` rows whose problem has the shortest reference that passes the format check, shortest first.

    A reference fails the check when the row's statement differs from the one it proves (kimina-data may have
    rectified it), or when it breaks a format rule; neither would reach Lean. Both it and its injected-error
    variant must pass, since the replay answers with either.
    """
    from kimina_format import check_format

    ranked = sorted(
        (ReferenceRow(row, references[uid]) for row in rows if (uid := str(row["extra_info"]["uid"])) in references),
        key=lambda pair: len(pair.completion),
    )
    chosen = []
    for pair in ranked:
        info = pair.row["extra_info"]
        statement = str(info.get("header") or "") + str(info["formal_statement"])
        injected = inject_lean_error(pair.completion)
        if injected is None:
            continue
        if all(check_format(text, formal_statement=statement).ok for text in (pair.completion, injected)):
            chosen.append(pair)
        if len(chosen) == count:
            break
    return chosen


def write_reference_rows(source: Path, out: Path, count: int, references_file: Path = REFERENCE_FILE) -> Path:
    """Write the `count` rows of `source` (verl parquet) that have a usable reference completion to `out`.

    Raises:
        ReferenceDataError: Fewer than `count` rows of `source` have one.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(source)
    chosen = rows_with_references(table.to_pylist(), load_references(references_file), count)
    if len(chosen) < count:
        raise ReferenceDataError(
            f"only {len(chosen)} rows of {source} have a usable reference completion in {references_file}; "
            f"the recipe asks for {count}"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([pair.row for pair in chosen], schema=table.schema), out)
    logger.info("wrote %d rows with reference completions to %s", count, out)
    return out
