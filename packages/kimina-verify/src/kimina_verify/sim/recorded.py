"""Recorded real verdicts (the `recorded_verdicts.jsonl` format) for `lean-repl-sim --verdicts`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kimina_verify.sim.source import declarations, mask, split_imports, without_print_axioms


@dataclass(frozen=True, slots=True)
class RecordedRow:
    """What a real Lean run said about one piece of code."""

    code: str
    verdict: bool
    messages: tuple[dict[str, Any], ...]
    repl_time_s: float | None
    timed_out: bool
    header_lines: int

    @property
    def statement_line(self) -> int:
        """The line of the first declaration in the recorded code (1-based)."""
        decls = declarations(mask(self.code))
        return self.code.count("\n", 0, decls[0].start) + 1 if decls else self.header_lines + 1


def body_key(code: str) -> tuple[str, int]:
    """The code without its leading imports, stripped (the lookup key), and how many lines the imports took."""
    _, body_start = split_imports(code)
    return code[body_start:].strip(), code.count("\n", 0, body_start)


class RecordedVerdicts:
    """Recorded rows keyed by their code without imports, so a header sent apart from its body still matches."""

    def __init__(self, rows: dict[str, RecordedRow]) -> None:
        self._rows = rows

    @classmethod
    def load(cls, path: str | Path) -> RecordedVerdicts:
        """Read a JSONL file with `full_code`, `verdict` and optionally `messages`, `repl_time_s`, `system_error`."""
        rows: dict[str, RecordedRow] = {}
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                    code = data["full_code"]
                    verdict = bool(data["verdict"])
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise ValueError(f"{path}:{number}: not a recorded-verdict row ({exc})") from exc
                key, header_lines = body_key(code)
                rows[key] = RecordedRow(
                    code=code,
                    verdict=verdict,
                    messages=tuple(data.get("messages") or ()),
                    repl_time_s=data.get("repl_time_s"),
                    timed_out="timed out" in (data.get("system_error") or ""),
                    header_lines=header_lines,
                )
        return cls(rows)

    def __len__(self) -> int:
        return len(self._rows)

    def lookup(self, code: str) -> RecordedRow | None:
        """The recorded row whose code (imports and `#print axioms` commands aside) equals `code`, if any."""
        return self._rows.get(body_key(without_print_axioms(code))[0])


def recorded_times(path: str | Path) -> list[float]:
    """Every `repl_time_s` recorded in a JSONL file (rows without one are skipped)."""
    times = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                value = json.loads(line).get("repl_time_s")
                if isinstance(value, int | float):
                    times.append(float(value))
    if not times:
        raise ValueError(f"{path}: no row has a repl_time_s")
    return times
