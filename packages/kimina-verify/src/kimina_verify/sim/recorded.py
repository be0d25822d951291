"""Recorded real verdicts (the `recorded_verdicts.jsonl` format) for `lean-repl-sim --verdicts`.

Rows are matched on a normalised form of their code (`replay_key`), so the code kimina's own client sends (header
rebuilt from the dataset statement, imports merged, `#print axioms` appended, blank lines moved) finds the row it
was assembled from, as raw `/api/check` calls with the recorded text do.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kimina_verify.sim.source import declarations, mask, split_imports, without_print_axioms

__all__ = ["RecordedRow", "RecordedVerdicts", "UNRECORDED_ERROR", "Unrecorded", "recorded_times", "replay_key"]

Unrecorded = Literal["rules", "error"]
"""What code that matches no recorded row gets: the stand-in's own rules, or an error."""

UNRECORDED_ERROR = "lean-repl-sim: no recorded verdict for this code (--unrecorded error)"
_SORRY = re.compile(r"(?<![\w.'])sorry(?![\w'])")

# A header line: `import`, `open` or `set_option` (but `set_option ... in` belongs to the declaration after it).
_HEADER_COMMAND = re.compile(r"(?:import|open|set_option)\s")
_TRAILING_IN = re.compile(r"\sin$")


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
        return _first_declaration_line(self.code) or self.header_lines + 1


def _first_declaration_line(code: str) -> int | None:
    """The 1-based line of the first declaration in `code`, or None when it declares nothing."""
    decls = declarations(mask(code))
    return code.count("\n", 0, decls[0].start) + 1 if decls else None


def replay_key(code: str) -> str:
    """The lookup key of a piece of code: what stays the same however a client assembles it.

    Dropped: the header (leading `import`, `open` and `set_option` lines, with the comments and blank lines among
    them), `#print axioms` commands, blank lines and trailing spaces. The declarations are kept as written, so two
    proofs that differ in anything Lean reads never share a key.
    """
    code = without_print_axioms(code.replace("\r\n", "\n"))
    lines = code.split("\n")
    start = 0
    for number, line in enumerate(mask(code).split("\n")):
        stripped = line.strip()
        if not stripped:  # blank, or only a comment
            continue
        if not _HEADER_COMMAND.match(stripped + " ") or _TRAILING_IN.search(stripped):
            break
        start = number + 1
    return "\n".join(line.rstrip() for line in lines[start:] if line.strip())


def _import_lines(code: str) -> int:
    """How many lines the leading imports of `code` take (what a server sends apart as the header)."""
    return code.count("\n", 0, split_imports(code)[1])


class RecordedVerdicts:
    """Recorded rows keyed by `replay_key`, so a header sent apart from its body, or rebuilt, still matches.

    Args:
        rows: Rows by key.
        unrecorded: `rules` (code matching no row is judged by the stand-in's rules, which accept any code without
            `sorry`) or `error` (a command that declares something, holds no `sorry` and matches no row fails with
            `UNRECORDED_ERROR`, so a replay cannot pass what was never recorded; code with `sorry`, such as the
            dataset statement the server elaborates for its checks in Lean, still follows the rules, which never
            accept it as a proof).
    """

    def __init__(self, rows: dict[str, RecordedRow], *, unrecorded: Unrecorded = "rules") -> None:
        self._rows = rows
        self.unrecorded: Unrecorded = unrecorded

    @classmethod
    def load(cls, path: str | Path, *, unrecorded: Unrecorded = "rules") -> RecordedVerdicts:
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
                rows[replay_key(code)] = RecordedRow(
                    code=code,
                    verdict=verdict,
                    messages=tuple(data.get("messages") or ()),
                    repl_time_s=data.get("repl_time_s"),
                    timed_out="timed out" in (data.get("system_error") or ""),
                    header_lines=_import_lines(code),
                )
        return cls(rows, unrecorded=unrecorded)

    def __len__(self) -> int:
        return len(self._rows)

    def lookup(self, code: str) -> RecordedRow | None:
        """The recorded row of `code` (see `replay_key`), lined up with `code`'s own lines; None when there is none.

        The row comes back with `header_lines` set so that shifting its recorded positions by `code`'s import lines
        minus `header_lines` moves them onto `code`: its first declaration lands on `code`'s first declaration, however
        many header lines the client put before it. Under `unrecorded="error"`, code that declares something and
        matches no row gets a failed row whose one error sits on its first declaration.
        """
        imports_end = _import_lines(code)
        declared = _first_declaration_line(code)
        row = self._rows.get(replay_key(code))
        if row is None:
            if self.unrecorded != "error" or declared is None or _SORRY.search(code):
                return None
            where = {"line": declared, "column": 0}
            error = {"severity": "error", "pos": where, "endPos": where, "data": UNRECORDED_ERROR}
            return RecordedRow(code, False, (error,), None, timed_out=False, header_lines=imports_end)
        shift = (declared or imports_end + 1) - row.statement_line
        return dataclasses.replace(row, header_lines=imports_end - shift)


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
