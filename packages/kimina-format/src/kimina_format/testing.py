"""Test helpers for the whole workspace: well-formed sample completions, and the repository's data folder.

`build_completion()` returns a small completion that passes every default rule; its keyword arguments change one
part at a time, so a test can break exactly the rule it is about. `data_file()` finds the real data that the
repository carries for its tests and benchmarks (`data/` at its root), the same way from every package.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "SAMPLE_FORMAL_STATEMENT",
    "SAMPLE_HEADER",
    "SAMPLE_PROOF",
    "SAMPLE_STATEMENT",
    "build_completion",
    "data_dir",
    "data_file",
]

DATA_DIR_ENV = "KIMINA_DATA_DIR"
"""Environment variable naming the data folder, for a checkout whose `data/` lives elsewhere."""

SAMPLE_HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)
SAMPLE_STATEMENT = "theorem sq_example (x : ℝ) (h : 0 ≤ x) : x ^ 2 + 1 ≥ 2 * x := by"
SAMPLE_PROOF = "  nlinarith [sq_nonneg (x - 1), sq_nonneg (x + 1), h]"
SAMPLE_FORMAL_STATEMENT = SAMPLE_HEADER + SAMPLE_STATEMENT + "\n  sorry"
"""The statement `build_completion()` proves, as a dataset would give it (header, statement, `sorry`)."""


def build_completion(
    *,
    blocks: Sequence[str] = ("  nlinarith [sq_nonneg (x - 1), h]", SAMPLE_PROOF),
    proof: str = SAMPLE_PROOF,
    statement: str = SAMPLE_STATEMENT,
    header: str = SAMPLE_HEADER,
    reasoning: str = "We expand the square: (x - 1)^2 is non-negative, which rearranges to the inequality we want.",
    before: str = "",
    after: str = "",
    code_fence: str = "lean4",
) -> str:
    """A small completion in the Kimina format that passes every default rule (with `SAMPLE_FORMAL_STATEMENT`).

    Args:
        blocks: The ```` ```tactics ```` blocks of the thinking, in order.
        proof: The proof body of the final code (indented tactic lines).
        statement: The theorem statement of the final code.
        header: The final code's header (imports, options, opens).
        reasoning: Natural-language reasoning at the start of the thinking.
        before: Text before `<think>`.
        after: Text after the final block's closing fence.
        code_fence: The final block's fence language.

    Returns:
        The completion text; its final code is the header, the statement, a newline and the proof.
    """
    parts = [before, "<think>\n", reasoning, "\n\n"]
    for i, block in enumerate(blocks, 1):
        parts.append(f"Step {i} of the plan, in Lean:\n\n```tactics\n{block}\n```\n\n")
    parts.append("That closes the goal.\n</think>\n")
    parts.append(f"```{code_fence}\n{header}{statement}\n{proof}\n```{after}")
    return "".join(parts)


def data_dir() -> Path:
    """The repository's data folder: `$KIMINA_DATA_DIR`, else the `data/` that holds `SOURCES.md` above here.

    The search goes up from the working folder, then from this module (an editable install lives in the checkout),
    so tests and benchmarks find it wherever they are started from inside the repository.

    Raises:
        FileNotFoundError: Neither exists; the message says how to point at it.
    """
    if env := os.environ.get(DATA_DIR_ENV):
        folder = Path(env)
        if not (folder / "SOURCES.md").is_file():
            raise FileNotFoundError(f"{DATA_DIR_ENV}={env} holds no SOURCES.md: point it at the repository's data/")
        return folder
    for start in (Path.cwd().resolve(), Path(__file__).resolve().parent):
        for folder in (start, *start.parents):
            if (folder / "data" / "SOURCES.md").is_file():
                return folder / "data"
    raise FileNotFoundError(
        f"the repository's data/ folder was not found above {Path.cwd()}: run from the kimina checkout "
        f"or set {DATA_DIR_ENV}"
    )


def data_file(name: str) -> Path:
    """A file of the repository's data folder (for example `minif2f.jsonl`), see `data_dir`.

    Raises:
        FileNotFoundError: The folder or the file is missing.
    """
    path = data_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist; data/SOURCES.md lists what the folder holds")
    return path
