"""Build the code sent to Lean from a model's final `lean4` block, keeping its helper lemmas.

Upstream re-assembled `formal_statement + tail after ':= by'`, discarding everything the model wrote before the main
theorem. Here the whole block body is kept; the header comes from the dataset statement (so the statement is
elaborated in the context it was written for), extended by the model's own extra `open`/`set_option` lines. The
target is checked in Lean by separate commands (`lean_checks`, with a server that runs them); otherwise, as a
fallback, a `#print axioms` command is appended for each theorem whose axioms must be checked.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kimina_verify.axioms import print_axioms_command
from kimina_verify.code import THEOREM_KEYWORDS, LeanCode, normalize_imports
from kimina_verify.lean_checks import ChecksRequest

__all__ = ["CheckCode", "build_check_code"]


@dataclass(frozen=True)
class CheckCode:
    """Code ready to send to a Lean server, with what is needed to read the answer back in the model's terms.

    Attributes:
        source: The code as the model wrote it.
        text: The code to send.
        line_map: For each line of `text` (index 0 is line 1), the 1-based line of `source` it comes from, or None
            for lines we added (the dataset header, `#print axioms`).
        axioms_checks: (line in `text`, theorem name) for each appended `#print axioms` command.
        server_header_lines: Leading blank/`import` lines of `text`, which a kimina-lean-server strips off before
            running the body (some server versions report positions relative to the body).
        checks: The checks to run in Lean after `text` (then nothing is appended to it), or None.
    """

    source: str
    text: str
    line_map: tuple[int | None, ...]
    axioms_checks: tuple[tuple[int, str], ...]
    server_header_lines: int
    checks: ChecksRequest | None = None

    def source_line(self, line: int) -> int | None:
        """Map a 1-based line of `text` to the model's own line, or None when it is not the model's."""
        if 1 <= line <= len(self.line_map):
            return self.line_map[line - 1]
        return None


def build_check_code(
    code: str | LeanCode,
    formal_statement: str | None = None,
    *,
    theorem: str | None = None,
    print_axioms: bool = True,
    lean_checks: bool = False,
) -> CheckCode:
    """Assemble the code to verify from a model's code block and, optionally, the dataset's formal statement.

    Args:
        code: The model's final `lean4` block (header optional; helper lemmas are kept).
        formal_statement: The dataset statement, usually with its header (`import Mathlib`, `open ...`). Its header
            replaces the model's; the model's extra `open`/`set_option` lines are kept after it.
        theorem: Name of the theorem whose axioms to check; default: the formal statement's theorem, else every
            top-level `theorem`/`lemma` of the code.
        print_axioms: Check axioms: append `#print axioms` commands, or with `lean_checks` ask for the checks in Lean.
        lean_checks: Ask the server to check the target in Lean after the code (its kind, its type against the
            formal statement's, its axioms) instead of appending anything.

    Returns:
        The code to send and the line map back to the model's code.
    """
    model = code if isinstance(code, LeanCode) else LeanCode(code)
    dataset = LeanCode.shared(formal_statement) if formal_statement is not None else None
    lines: list[str] = []
    line_map: list[int | None] = []

    def emit(text: str, source_line: int | None) -> None:
        lines.append(text)
        line_map.append(source_line)

    own_header = _header_sources(model)
    base = dataset if dataset is not None and dataset.imports else model
    for module in _merged_imports(base, model):
        emit(f"import {module}", own_header.get(f"import {module}") if base is model else None)
    seen: set[str] = set()
    if base is not model:
        for line in base.options_and_opens:
            emit(line, None)
            seen.add(line)
    for line in model.options_and_opens:
        if line not in seen:
            emit(line, own_header.get(line))
            seen.add(line)
    if lines:
        emit("", None)
    for offset, line in enumerate(model.lines[model.header_line_count :]):
        emit(line, model.body_start_line + offset)

    checks: list[tuple[int, str]] = []
    request = _checks_request(model, dataset, theorem) if print_axioms and lean_checks else None
    if print_axioms and request is None:
        while lines and not lines[-1].strip():
            lines.pop()
            line_map.pop()
        emit("", None)
        for name in _axiom_targets(model, dataset, theorem):
            emit(print_axioms_command(name), None)
            checks.append((len(lines), name))
    text = "\n".join(lines)
    header_lines = LeanCode(text).server_header_line_count
    return CheckCode(model.text, text, tuple(line_map), tuple(checks), header_lines, request)


def _checks_request(model: LeanCode, dataset: LeanCode | None, theorem: str | None) -> ChecksRequest | None:
    """What to check in Lean: the target by full name, and the statement it must have (imports off, `sorry` proof)."""
    if dataset is None:
        target = model.target(theorem)
        return ChecksRequest(target.name) if target is not None and target.name is not None else None
    return _statement_request(dataset.text, theorem)


@functools.lru_cache(maxsize=4096)
def _statement_request(text: str, theorem: str | None) -> ChecksRequest | None:
    """The checks of a dataset statement's theorem (cached: a statement repeats across its samples)."""
    from kimina_verify.server.snippet import split_snippet

    expected = LeanCode.shared(text).target(theorem)
    if expected is None or expected.name is None:
        return None
    statement = text[: expected.proof_start] if expected.proof_start is not None else text + " :="
    return ChecksRequest(expected.name, split_snippet(statement + " by\n  sorry\n").body)


def _header_sources(model: LeanCode) -> dict[str, int]:
    """Header line (as `LeanCode.header_lines` spells it) -> its 1-based line in the model's code (imports normalised)."""
    found: dict[str, int] = {}
    for line, number in model.header_line_numbers.items():
        key = line
        if line.startswith("import ") and (line == "import Mathlib" or line.startswith("import Mathlib.")):
            key = "import Mathlib"
        found.setdefault(key, number)
    return found


def _merged_imports(base: LeanCode, model: LeanCode) -> tuple[str, ...]:
    return normalize_imports(base.imports + model.imports)


def _axiom_targets(model: LeanCode, dataset: LeanCode | None, theorem: str | None) -> list[str]:
    if theorem is not None:
        return [theorem]
    if dataset is not None:
        target = dataset.target()
        if target is not None and target.name is not None:
            return [target.name]
    return list(dict.fromkeys(d.name for d in model.declarations if d.keyword in THEOREM_KEYWORDS and d.name))
