"""The rehearsal's prompts: rows of the recipe's train parquet, each with a real Kimina completion when one exists."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

REFERENCE_FILE = Path(__file__).parents[1] / "resources" / "kimina_completions.jsonl"
"""Real Kimina-Prover completions of miniF2F-test problems (every one a proof Lean accepted), shipped here."""


@dataclass(frozen=True)
class Prompt:
    """One training row, as verl's reward loop sees it.

    Attributes:
        uid: The problem's id (`extra_info.uid`).
        data_source: The row's `data_source`.
        messages: The chat prompt.
        ground_truth: `reward_model.ground_truth`.
        extra_info: The row's `extra_info`.
        reference: A real completion for this problem, or None.
    """

    uid: str
    data_source: str
    messages: list[dict[str, str]]
    ground_truth: str
    extra_info: dict[str, Any]
    reference: str | None = None


def shared_reference_file() -> Path | None:
    """The packaged `kimina_completions.jsonl`, or None when the installation lacks it."""
    return REFERENCE_FILE if REFERENCE_FILE.is_file() else None


def load_references(path: Path) -> dict[str, str]:
    """Completions by problem name; the shortest one when a problem has several."""
    found: dict[str, str] = {}
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: invalid JSON ({exc.msg})") from None
            name, text = str(row.get("name", "")), str(row.get("completion", ""))
            if name and text and (name not in found or len(text) < len(found[name])):
                found[name] = text
    return found


def _usable(reference: str, row: dict[str, Any]) -> bool:
    """The reference passes kimina-format's rules for this row's statement (so the verifier sees it)."""
    from kimina_format import check_format

    info = row["extra_info"]
    return bool(check_format(reference, formal_statement=info["header"] + info["formal_statement"]).ok)


def load_prompts(train_file: Path, count: int, references: dict[str, str] | None = None) -> list[Prompt]:
    """Pick `count` rows of `train_file`.

    With `references`, the rows whose problem has the shortest usable reference come first, so each group can hold
    one real proof; otherwise the file's first rows.

    Raises:
        ValueError: The file has fewer than `count` rows.
    """
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = pq.read_table(train_file).to_pylist()
    if len(rows) < count:
        raise ValueError(f"{train_file} has {len(rows)} rows; the rehearsal needs {count}")
    chosen: list[tuple[dict[str, Any], str | None]] = []
    if references:
        ranked = sorted(
            ((row, references[row["extra_info"]["uid"]]) for row in rows if row["extra_info"]["uid"] in references),
            key=lambda pair: len(pair[1]),
        )
        chosen.extend([(row, ref) for row, ref in ranked if _usable(ref, row)][:count])
        if len(chosen) < count:
            logger.warning("only %d of %d prompts have a usable reference completion", len(chosen), count)
    taken = {id(row) for row, _ in chosen}
    chosen += [(row, None) for row in rows if id(row) not in taken][: count - len(chosen)]
    return [
        Prompt(
            uid=str(row["extra_info"]["uid"]),
            data_source=str(row["data_source"]),
            messages=[dict(m) for m in row["prompt"]],
            ground_truth=str(row["reward_model"]["ground_truth"]),
            extra_info=dict(row["extra_info"]),
            reference=reference,
        )
        for row, reference in chosen
    ]
