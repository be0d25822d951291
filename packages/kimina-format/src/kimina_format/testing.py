"""Test helpers for the whole workspace: sample completions, the repository's data folder, the public-surface check.

`build_completion()` returns a small completion that passes every default rule; its keyword arguments change one
part at a time, so a test can break exactly the rule it is about. `data_file()` finds the real data that the
repository carries for its tests and benchmarks (`data/` at its root), the same way from every package.
`prose_lines()` and `insert_after()` make drifts out of real completions. `surface_problems()` is the rule every
package's `test_package.py` holds its modules to.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from kimina_format.check import check_format
from kimina_format.parsing import parse_completion
from kimina_format.repetition import line_keys

__all__ = [
    "SAMPLE_FORMAL_STATEMENT",
    "SAMPLE_HEADER",
    "SAMPLE_PROOF",
    "SAMPLE_STATEMENT",
    "Edit",
    "RedTeamCase",
    "after_every_prose_line",
    "appended_lines",
    "assert_red_team_case",
    "build_completion",
    "change_prose_lines",
    "data_dir",
    "data_file",
    "final_code_of",
    "full_score_split",
    "insert_after",
    "package_modules",
    "prose_completion",
    "prose_lines",
    "red_team_tests",
    "surface_problems",
    "thinking_edit",
    "thinking_of",
    "with_final_code",
    "with_thinking",
    "xfail_params",
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


def prose_lines(completion: str, least: int, most: int | None = None, *, distinct: bool = False) -> list[str]:
    """The prose lines of `completion` (stripped) whose repetition key has `least` to `most` bytes, in order.

    The key is the one the repetition rules compare (`repetition.line_keys`); `distinct` keeps the first line of
    each key only.
    """
    prose = parse_completion(completion).prose
    seen: set[bytes] = set()
    lines = []
    for line, key in zip(prose.split("\n"), line_keys(prose), strict=True):
        if least <= len(key) and (most is None or len(key) < most) and not (distinct and key in seen):
            seen.add(key)
            lines.append(line.strip())
    return lines


def insert_after(text: str, passage: str, where: str = "<think>", *, max_chars: int = 77_000) -> str | None:
    """`text` with `passage` as its own lines right after the first `where`; None when it would pass `max_chars`.

    The default keeps a drift below the length limit (`max_tokens` x `chars_per_token`), so only the rule it is
    about can fire.
    """
    if len(text) + len(passage) > max_chars:
        return None
    at = text.index(where) + len(where)
    return text[:at] + "\n" + passage + "\n" + text[at:]


def change_prose_lines(thinking: str, change: Callable[[str, int], str]) -> str:
    """`thinking` with each non-blank line outside its fences changed by `change(line, index)`.

    A drift of the prose that leaves the tactic blocks as they are.
    """
    out, fenced = [], False
    for i, line in enumerate(thinking.split("\n")):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.strip():
            line = change(line, i)
        out.append(line)
    return "\n".join(out)


def thinking_of(text: str) -> str:
    """The text between `<think>` and `</think>` of a completion that has both."""
    return text[text.index("<think>") + len("<think>") : text.index("</think>")]


def with_thinking(text: str, new: str) -> str:
    """`text` with its thinking replaced by `new` (on lines of its own)."""
    return text[: text.index("<think>") + len("<think>")] + "\n" + new + "\n" + text[text.index("</think>") :]


def final_code_of(text: str) -> str:
    """The final Lean code of a completion that has one (`Completion.code`)."""
    code = parse_completion(text).code
    if code is None:
        raise ValueError("the completion has no closed final Lean block")
    return code


def with_final_code(text: str, new: str) -> str:
    """`text` with its final block's code replaced (only the final block: the tactic blocks may hold the same text)."""
    code = final_code_of(text)
    at = text.rindex(code)
    return text[:at] + new + text[at + len(code) :]


Edit = Callable[[dict[str, Any]], "dict[str, Any] | None"]
"""An edit of a data row (`completion`, `formal_statement`, `name`): the edited row, or None where it does not apply."""


def thinking_edit(change: Callable[[str], str | None]) -> Edit:
    """The edit that replaces a row's thinking by `change` of it; it does not apply where `change` gives None."""

    def edit(row: dict[str, Any]) -> dict[str, Any] | None:
        new = change(thinking_of(row["completion"]))
        return None if new is None else {**row, "completion": with_thinking(row["completion"], new)}

    return edit


def after_every_prose_line(pad: str) -> Edit:
    """The edit that writes `pad` at the end of each prose line of a row's thinking (`change_prose_lines`)."""
    return thinking_edit(lambda thinking: change_prose_lines(thinking, lambda line, i: line + pad))


def appended_lines(line: Callable[[int], str], count: int) -> Edit:
    """The edit that appends `line(0)` to `line(count - 1)`, one a line, to a row's thinking after a blank line."""
    return thinking_edit(lambda thinking: thinking + "\n\n" + "\n".join(line(k) for k in range(count)))


def full_score_split(rows: Sequence[dict[str, Any]], edit: Edit) -> tuple[int, list[str], list[str]]:
    """Apply `edit` to each row: how many it applies to, and the names of those keeping the full score and not.

    The red-team tests' measure: an attack must leave no row at score 1.0, a look-alike every row.
    """
    kept: list[str] = []
    lost: list[str] = []
    applied = 0
    for row in rows:
        edited = edit(dict(row))
        if edited is None:
            continue
        applied += 1
        verdict = check_format(edited["completion"], formal_statement=edited["formal_statement"])
        (kept if verdict.score == 1.0 else lost).append(row["name"])
    return applied, kept, lost


class RedTeamCase(NamedTuple):
    """One edit of the real completions, the rule it is about, and how many rows may keep (or lose) the full score.

    An attack may leave `most_kept` rows at the full score (the rows its bound leaves by design, said beside it); a
    look-alike may cost `most_lost` rows theirs. `xfail` is the reason a case the rules get wrong stays a strict xfail.
    """

    rule: str
    edit: Edit
    most_kept: int = 0
    most_lost: int = 0
    xfail: str = ""


def assert_red_team_case(rows: Sequence[dict[str, Any]], name: str, case: RedTeamCase, *, attack: bool) -> None:
    """Apply `case` to `rows`, at least 20 of which it must change, and assert its bound.

    An attack keeps the full score on at most `most_kept` of them; a look-alike loses it on at most `most_lost`.
    """
    applied, kept, lost = full_score_split(rows, case.edit)
    assert applied >= 20, f"{name} applied to only {applied} rows"
    if attack:
        assert len(kept) <= case.most_kept, f"{name} kept the full score on {len(kept)}/{applied}, e.g. {kept[:3]}"
    else:
        assert len(lost) <= case.most_lost, f"{name} lost the full score on {len(lost)}/{applied}, e.g. {lost[:3]}"


def xfail_params(cases: dict[str, Any]) -> list[Any]:
    """`pytest.param`s of the names of `cases`, each marked a strict xfail with its `xfail` reason when it has one.

    A red-team case (attack or look-alike) that the rules get wrong stays in the suite, and turns into a failing
    XPASS once fixed, so its mark is removed with the fix.
    """
    # pytest is a test tool, not a dependency: imported by name, only for the tests that ask for it.
    pytest = importlib.import_module("pytest")

    return [
        pytest.param(
            name,
            marks=[pytest.mark.xfail(strict=True, raises=AssertionError, reason=case.xfail)] if case.xfail else [],
            id=name,
        )
        for name, case in cases.items()
    ]


def red_team_tests(attacks: dict[str, RedTeamCase], look_alikes: dict[str, RedTeamCase]) -> tuple[Any, Any]:
    """The two tests of a red-team file: each attack loses the full score, each look-alike keeps it.

    Assign them to module names that start with `test_` (pytest collects them there). Each takes the
    `full_score_rows` fixture and is parametrised by the cases' names (`xfail_params`).
    """
    parametrize = importlib.import_module("pytest").mark.parametrize

    def test_an_attack_loses_the_full_score(full_score_rows: list[dict[str, Any]], name: str) -> None:
        assert_red_team_case(full_score_rows, name, attacks[name], attack=True)

    def test_a_look_alike_keeps_the_full_score(full_score_rows: list[dict[str, Any]], name: str) -> None:
        assert_red_team_case(full_score_rows, name, look_alikes[name], attack=False)

    return (
        parametrize("name", xfail_params(attacks))(test_an_attack_loses_the_full_score),
        parametrize("name", xfail_params(look_alikes))(test_a_look_alike_keeps_the_full_score),
    )


def prose_completion(prose: str) -> str:
    """The smallest completion whose thinking is `prose` and one tactic block: for tests of the prose measures."""
    return f"<think>\n{prose}\n```tactics\nnorm_num\n```\n</think>\n```lean4\ntheorem t : True := by\n  trivial\n```"


def package_modules(package: ModuleType) -> list[str]:
    """The names of `package` and of every module under it, `__main__` modules aside (they run a CLI when imported)."""
    found = pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
    return [package.__name__, *(m.name for m in found if m.name.rsplit(".", 1)[-1] != "__main__")]


def surface_problems(package: ModuleType) -> list[str]:
    """What breaks, in `package`'s modules, the rule that each names its public surface in `__all__`.

    Each module has an `__all__` that names no name twice, nothing the module lacks and nothing private (but
    `__version__`). Returns one line per problem: an empty list is a package that keeps the rule.
    """
    problems = []
    for name in package_modules(package):
        module = importlib.import_module(name)
        listed = getattr(module, "__all__", None)
        if listed is None:
            problems.append(f"{name} has no __all__")
            continue
        if len(set(listed)) != len(listed):
            problems.append(f"{name}.__all__ names something twice")
        if missing := [n for n in listed if not hasattr(module, n)]:
            problems.append(f"{name}.__all__ names what it lacks: {missing}")
        if private := [n for n in listed if n.startswith("_") and n != "__version__"]:
            problems.append(f"{name}.__all__ names private {private}")
    return problems
