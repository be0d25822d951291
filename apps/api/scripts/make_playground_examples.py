"""Regenerate the playground's miniF2F examples (package data) from the shared miniF2F file.

Usage: python apps/api/scripts/make_playground_examples.py [path/to/minif2f.jsonl]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kimina_format.testing import data_file

# A spread of families and difficulties; each was solved by Kimina-Prover (see data/kimina_completions.jsonl).
NAMES = [
    "mathd_algebra_171",
    "mathd_numbertheory_185",
    "mathd_algebra_24",
    "mathd_algebra_432",
    "mathd_numbertheory_229",
    "mathd_numbertheory_343",
    "mathd_algebra_484",
    "mathd_algebra_113",
    "induction_12dvd4expnp1p20",
    "algebra_sqineq_at2malt1",
    "numbertheory_x5neqy2p4",
    "amc12b_2020_p22",
]
OUT = Path(__file__).resolve().parents[1] / "src" / "kimina_api" / "static" / "examples.json"


def informal(prefix: str) -> str:
    """The problem text inside a `/-- ... -/` doc comment."""
    return prefix.strip().removeprefix("/--").removesuffix("-/").strip()


def main() -> int:
    """Write the examples file; exit 1 with a reason when the source is missing or lacks a name."""
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else data_file("minif2f.jsonl")
    if not source.is_file():
        sys.stderr.write(f"error: {source} not found (pass the path to a miniF2F JSONL file)\n")
        return 1
    rows = {row["name"]: row for row in map(json.loads, source.read_text(encoding="utf-8").splitlines())}
    missing = [name for name in NAMES if name not in rows]
    if missing:
        sys.stderr.write(f"error: {source} lacks {', '.join(missing)}\n")
        return 1
    examples = [
        {
            "name": name,
            "split": rows[name]["split"],
            "informal_problem": informal(rows[name]["informal_prefix"]),
            "formal_statement": rows[name]["formal_statement"],
        }
        for name in NAMES
    ]
    OUT.write_text(json.dumps(examples, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {len(examples)} examples to {OUT}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
