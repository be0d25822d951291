"""Statement preservation on the shared normaliser (`kimina_format.lean_statement`), as the format rule sees it too.

kimina-verify's statement check (`check_integrity`'s `statement_*` violations) and the format rule
(`kimina_format.statement.final_statement_matches`) must give one verdict: both read the statement with the same
normaliser, and the format rule's plain-code shortcut only ever answers where `match_statement` agrees.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from kimina_format import parse_completion
from kimina_format.lean_source import split_lean
from kimina_format.lean_statement import statement_preserved
from kimina_format.statement import final_statement_matches
from kimina_verify.integrity import check_integrity

HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)
TWO = (
    HEADER
    + "theorem two_a (x : ℕ) : x + 0 = x := by sorry\n\ntheorem two_b (x : ℕ) (h : 0 < x) : 0 + x = x := by sorry"
)
DEF = HEADER + "def double (n : ℕ) : ℕ := 2 * n\n\ntheorem double_eq (n : ℕ) : double n = n + n := by sorry"
SQ = HEADER + "theorem sq (x : ℝ) (h : 0 ≤ x) : x ^ 2 + 1 ≥ 2 * x := by sorry"


def statement_codes(code: str, statement: str) -> list[str]:
    return [v.code for v in check_integrity(code, statement) if v.code.startswith("statement_")]


def verdicts(code: str, statement: str) -> tuple[bool, bool]:
    """(kimina-verify's verdict, the format rule's verdict) on whether `code` keeps `statement`."""
    return not statement_codes(code, statement), final_statement_matches(split_lean(code), statement)


@pytest.mark.parametrize(
    ("statement", "code"),
    [
        pytest.param(
            TWO,
            HEADER + "theorem two_a (x : ℕ) : x + 0 = x := by simp\n\n"
            "theorem two_b (x : ℕ) (h : 0 < x) : 0 + x = x := by simp",
            id="multi-declaration",
        ),
        pytest.param(
            DEF,
            HEADER + "def double (n : ℕ) : ℕ := 2 * n\n\nlemma double_helper (n : ℕ) : 2 * n = n + n := by ring\n\n"
            "theorem double_eq (n : ℕ) : double n = n + n := by\n  unfold double\n  exact double_helper n",
            id="def-helper-lemma-theorem",
        ),
        pytest.param(
            SQ,
            HEADER + "theorem sq (x:ℝ) (h:0≤x) :\n    x^2+1 ≥ 2*x := by\n  nlinarith [sq_nonneg (x - 1)]",
            id="re-spaced",
        ),
    ],
)
def test_preserved_statement_passes_both(statement: str, code: str) -> None:
    assert verdicts(code, statement) == (True, True)
    assert statement_preserved(code, statement) is True


@pytest.mark.parametrize(
    ("statement", "code", "expected"),
    [
        pytest.param(
            TWO,
            HEADER + "theorem two_a (x : ℕ) : x + 0 = x := by simp\n\ntheorem two_b (x : ℕ) : 0 + x = x := by simp",
            "statement_mismatch",
            id="second-declaration-changed",
        ),
        pytest.param(
            DEF,
            HEADER + "def double (n : ℕ) : ℕ := n + n\n\ntheorem double_eq (n : ℕ) : double n = n + n := by rfl",
            "statement_mismatch",
            id="definition-changed",
        ),
        pytest.param(
            SQ,
            HEADER + "theorem sq (x : ℝ) (h : 0 ≤ x) (hx : x = 1) : x ^ 2 + 1 ≥ 2 * x := by nlinarith",
            "statement_mismatch",
            id="hypothesis-added",
        ),
        pytest.param(
            SQ,
            HEADER + "theorem sq' (x : ℝ) (h : 0 ≤ x) : x ^ 2 + 1 ≥ 2 * x := by nlinarith",
            "statement_missing",
            id="renamed",
        ),
    ],
)
def test_changed_statement_is_refused_by_both(statement: str, code: str, expected: str) -> None:
    assert expected in statement_codes(code, statement)
    assert verdicts(code, statement) == (False, False)


def test_verdicts_agree_on_the_real_completions(completions: list[dict[str, Any]]) -> None:
    for row in completions:
        code = parse_completion(row["completion"]).code
        assert code is not None
        verify, rule = verdicts(code, row["formal_statement"])
        assert verify == rule, row["name"]


def own_statement(code: str, name: str) -> str:
    """The statement a proof states (Lean Workbook rows come without their dataset statement): up to `:=`, `sorry`."""
    found = re.search(rf"^(?:theorem|lemma) {re.escape(name)}\b", code, re.M) or re.search(r"^theorem ", code, re.M)
    assert found is not None, name
    return code[: code.index(":=", found.start())] + ":= by sorry"


def test_verdicts_agree_on_the_recorded_proofs(
    recorded_rows: list[dict[str, Any]], minif2f_rows: list[dict[str, Any]]
) -> None:
    statements = {(r["split"], r["name"]): r["header"] + r["formal_statement"] for r in minif2f_rows}
    compared = kept = 0
    for row in recorded_rows:
        statement = statements.get((row["split"], row["name"])) or own_statement(row["full_code"], row["name"])
        verify, rule = verdicts(row["full_code"], statement)
        assert verify == rule, (row["name"], row["model"])
        compared += 1
        kept += verify
    assert compared == len(recorded_rows)
    assert 0 < kept < compared  # both sides of the verdict occur
