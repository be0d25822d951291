"""The statement rule on the shared normaliser (`lean_statement`): several declarations, definitions, re-spacing.

The plain-code shortcut (`lean_statement_fast`) must never say "matched" where `match_statement` finds a problem;
it is checked against the lexer path on the real data and on each case here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kimina_format import ViolationCode, check_format, parse_completion
from kimina_format.lean_lexer import lex
from kimina_format.lean_source import split_lean, strip_comments
from kimina_format.lean_statement import LeanText, match_statement, statement_fingerprint, statement_preserved
from kimina_format.lean_statement_fast import is_plain, plain_match, plain_statement, plain_tokens

HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)
TWO = HEADER + (
    "theorem two_a (x : ℕ) : x + 0 = x := by sorry\n\ntheorem two_b (x : ℕ) (h : 0 < x) : 0 + x = x := by sorry"
)
DEF = HEADER + ("def double (n : ℕ) : ℕ := 2 * n\n\ntheorem double_eq (n : ℕ) : double n = n + n := by sorry")


def completion_with_code(code: str) -> str:
    """A well-formed completion whose final block is `code` (its tactic blocks develop `trivial`)."""
    return (
        "<think>\nThe goal is true by definition.\n\n```tactics\ntrivial\n```\n\nAgain, to be sure:\n\n"
        f"```tactics\n  trivial\n```\n</think>\n```lean4\n{code}\n```"
    )


def statement_ok(code: str, statement: str) -> bool:
    verdict = check_format(completion_with_code(code), formal_statement=statement)
    assert (ViolationCode.STATEMENT_MISMATCH in verdict.codes) is (verdict.metrics.statement_match is False)
    lexer = not match_statement(LeanText.of(code), LeanText.of(statement)).problems
    assert verdict.metrics.statement_match is lexer, "the rule and match_statement disagree"
    return lexer


KEPT = [
    pytest.param(
        TWO,
        HEADER
        + "theorem two_a (x : ℕ) : x + 0 = x := by\n  simp\n\ntheorem two_b (x : ℕ) (h : 0 < x) : 0 + x = x := by\n"
        "  simp",
        id="two-theorems-each-ending-in-sorry",
    ),
    pytest.param(
        TWO,
        HEADER + "lemma helper : True := trivial\n\ntheorem two_a (x : ℕ) : x + 0 = x := by simp\n\n"
        "theorem two_b (x : ℕ) (h : 0 < x) :\n    0 + x = x := by simp",
        id="two-theorems-helper-and-rewrapped",
    ),
    pytest.param(
        DEF,
        HEADER + "def double (n : ℕ) : ℕ := 2 * n\n\nlemma double_helper (n : ℕ) : 2 * n = n + n := by ring\n\n"
        "theorem double_eq (n : ℕ) : double n = n + n := by\n  unfold double\n  exact double_helper n",
        id="def-helper-lemma-theorem",
    ),
    pytest.param(
        HEADER + "theorem sq (x : ℝ) (h : 0 ≤ x) : x ^ 2 + 1 ≥ 2 * x := by sorry",
        HEADER + "theorem sq (x:ℝ) (h:0≤x) :\n    x^2+1 ≥ 2*x := by\n  nlinarith [sq_nonneg (x - 1)]",
        id="re-spaced",
    ),
    pytest.param(
        HEADER + "/-- The problem. -/\ntheorem sq (x : ℝ) : x ^ 2 ≥ 0 := by sorry",
        HEADER + "theorem sq (x : ℝ) -- the variable\n    : x ^ 2 ≥ 0 := by positivity",
        id="comments",
    ),
]


@pytest.mark.parametrize(("statement", "code"), KEPT)
def test_preserved_statements_pass(statement: str, code: str) -> None:
    assert statement_ok(code, statement)
    assert statement_preserved(code, statement) is True


CHANGED = [
    pytest.param(
        TWO,
        HEADER + "theorem two_a (x : ℕ) : x + 0 = x := by simp\n\ntheorem two_b (x : ℕ) : 0 + x = x := by simp",
        id="second-theorem-loses-a-hypothesis",
    ),
    pytest.param(TWO, HEADER + "theorem two_b (x : ℕ) (h : 0 < x) : 0 + x = x := by simp", id="first-theorem-dropped"),
    pytest.param(
        DEF,
        HEADER + "def double (n : ℕ) : ℕ := n + n\n\ntheorem double_eq (n : ℕ) : double n = n + n := by rfl",
        id="definition-changed",
    ),
    pytest.param(
        DEF, HEADER + "theorem double_eq (n : ℕ) : 2 * n = n + n := by ring", id="definition-inlined-and-dropped"
    ),
    pytest.param(
        HEADER + "theorem sq (x : ℝ) (h : 0 ≤ x) : x ^ 2 + 1 ≥ 2 * x := by sorry",
        HEADER + "theorem sq (x : ℝ) (h : 0 ≤ x) : x ^ 2 + 1 ≥ x := by nlinarith",
        id="weakened-goal",
    ),
    pytest.param(
        HEADER + "theorem sq (x : ℝ) : x ^ 2 ≥ 0 := by sorry",
        HEADER + "theorem sq (x : ℝ) : x ^ 2 ≥ 0 := by positivity\n\ntheorem sq (x : ℝ) : True := trivial",
        id="declared-twice",
    ),
    pytest.param(
        HEADER + "theorem sq (x : ℝ) : x ^ 2 ≥ 0 := by sorry",
        HEADER + "namespace Hack\ntheorem sq (x : ℝ) : x ^ 2 ≥ 0 := by positivity\nend Hack",
        id="moved-into-a-namespace",
    ),
    pytest.param(
        HEADER + "theorem sq (x : ℝ) : x ^ 2 ≥ 0 := by sorry",
        HEADER + "theorem sq (x : ℝ) : x ^ 2 ≥ 0 ∨ True := by simp",
        id="goal-extended",
    ),
    pytest.param(
        HEADER + "theorem sq (x : ℝ) : x ^ 2 ≥ 0 := by sorry",
        HEADER + '/-- "-/ theorem sq (x : ℝ) : x ^ 2 ≥ 0 := by positivity -/\ntheorem sq (x : ℝ) : True := trivial',
        id="statement-inside-a-doc-comment",
    ),
]


@pytest.mark.parametrize(("statement", "code"), CHANGED)
def test_changed_statements_are_rejected(statement: str, code: str) -> None:
    assert not statement_ok(code, statement)
    assert statement_preserved(code, statement) is False


@pytest.fixture(scope="module")
def rows(data_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (data_dir / "kimina_completions.jsonl").read_text().splitlines() if line]


def test_the_shortcut_agrees_with_the_lexer_on_the_real_data(rows: list[dict[str, Any]]) -> None:
    answered = 0
    for row in rows:
        code = parse_completion(row["completion"]).code
        assert code is not None
        plain = plain_statement(row["formal_statement"])
        quick = plain_match(code, strip_comments(code)[0], plain) if plain is not None else None
        full = not match_statement(LeanText.of(code), LeanText.of(row["formal_statement"])).problems
        assert quick is None or quick == full, row["name"]
        answered += quick is not None
    assert answered >= 190  # the shortcut is what keeps the rule cheap


def test_plain_tokens_are_the_lexer_tokens(rows: list[dict[str, Any]]) -> None:
    checked = 0
    for row in rows:
        for text in (row["formal_statement"], parse_completion(row["completion"]).code or ""):
            if is_plain(text):
                assert plain_tokens(text) == [t.text for t in lex(text).tokens], row["name"]
                checked += 1
    assert checked >= 380


@pytest.mark.parametrize(
    "text",
    [
        "theorem t : 'a' = 'a' := rfl",  # a character literal
        'theorem t : "--" = "--" := rfl',  # a string holding a comment opener
        "theorem «t» : True := trivial",  # an escaped name
        "/-/ theorem t : True := trivial -/",  # Lean skips the comment's third character
        "theorem t (x : ℕ) :\u00a0x = x := rfl",  # a no-break space is a symbol to Lean
        "namespace N theorem t : True := trivial end N",
        "theorem t : (f ⁻¹'' s) = s := rfl",  # Mathlib's two-quote token, which `TOKEN` would split
        "theorem t : (f ⁻¹'-- s\n) = s := rfl",  # Lean reads on inside the comment without Mathlib
        "theorem t : (∑'/- x -/ n, f n) = 0 := rfl",
        "theorem t : (f ⁻¹'r#x) = s := rfl",
        "theorem t : (2 : ℕ) = 2 := by exact ('⁻¹' s)",  # a quote that opens a character literal
    ],
)
def test_text_only_the_lexer_reads_right_is_not_plain(text: str) -> None:
    assert not is_plain(text)


@pytest.mark.parametrize(
    "text",
    [
        "theorem t (f : ℝ → ℝ) : (f ⁻¹' {0}).Finite := by",  # Mathlib's preimage token (aime_1983_p3)
        "theorem t : (∑' n : ℕ, (1 : ℝ) / 2 ^ n) = 2 := by",
        "theorem t : ∏' n : ℕ, f n = 1 := by",
    ],
)
def test_quote_tokens_are_plain_with_the_lexer_tokens(text: str) -> None:
    assert is_plain(text)
    assert plain_tokens(text) == [t.text for t in lex(text).tokens]
    assert not lex(text).problems


def test_fingerprint_ignores_names_comments_layout_but_not_mathematics() -> None:
    a = statement_fingerprint("theorem a (x : ℝ) (h : 2 * x = 4) : x = 2 := by")
    assert a == statement_fingerprint("/-- doc -/\nlemma b (x:ℝ)  (h : 2*x = 4) :\n  x = 2 := by -- note")
    assert a != statement_fingerprint("theorem a (x : ℝ) (h : 2 * x = 6) : x = 3 := by")
    assert statement_fingerprint('theorem a : "x" = "x" := by') != statement_fingerprint('theorem a : "y" = "y" := by')
    assert statement_fingerprint("theorem a : x y = 1 := by") != statement_fingerprint("theorem a : xy = 1 := by")


def test_the_rule_counts_only_final_code(rows: list[dict[str, Any]]) -> None:
    # Re-spacing a real final statement sends it through the lexer path, which keeps it.
    row = rows[0]
    code = parse_completion(row["completion"]).code
    assert code is not None
    parts = split_lean(code)
    respaced = code.replace(parts.statements[0].split(":=")[0], parts.statements[0].split(":=")[0].replace(" : ", ":"))
    assert statement_preserved(respaced, row["formal_statement"]) is True


# --- where a statement ends: the declaration's own `:=` (harden, redteam2's let/have truncation) -----------------

_H = "import Mathlib\n\n"


@pytest.mark.parametrize(
    ("statement", "code"),
    [
        ("theorem t : let y := 2; y + y = 4", "theorem t : let y := 2; True := trivial"),
        ("theorem t : have y := 2; y + y = 4", "theorem t : have y := 2; True := trivial"),
        (
            "theorem t :\n    let f := fun (n : ℕ) => n + 1\n    f 1 = 3",
            "theorem t :\n    let f := fun (n : ℕ) => n + 1\n    True := trivial",
        ),
        ("theorem t : letI := 1; (2 : ℕ) = 3", "theorem t : letI := 1; True := trivial"),
        ("theorem t (n : ℕ := 1) : n = 2", "theorem t (n : ℕ := 1) : True := trivial"),
        ("theorem t : ({ x := 1 } : Foo).x = 2", "theorem t : ({ x := 1 } : Foo).x = 2 ∨ True := Or.inr trivial"),
        ("theorem t : (fun x => let y := x; y) 1 = 2", "theorem t : (fun x => let y := x; y) 1 = 2 ∨ True := by simp"),
    ],
)
def test_a_type_holding_a_let_or_an_assignment_is_compared_whole(statement: str, code: str) -> None:
    full = _H + statement + " := by\n  sorry\n"
    assert statement_preserved(_H + code + "\n", full) is False
    assert statement_preserved(_H + statement + " := by\n  norm_num\n", full) is True


@pytest.mark.parametrize("type_", ["Id.run do let mut x := 0; x := 1; pure x", "by exact True"])
def test_a_type_whose_end_needs_leans_parser_fails_closed(type_: str) -> None:
    statement = _H + f"theorem t : {type_} := by\n  sorry\n"
    assert statement_preserved(_H + f"theorem t : {type_} := by\n  trivial\n", statement) is False


_SPELLED = "theorem t (x y : ℕ) (h : x ≤ y) : ∀ z : ℝ, z ≥ 0 → (∃ w, w = z) ∧ (x < y ∨ x = y) ↔ True := by"


@pytest.mark.parametrize(
    "written",
    [
        "theorem t (x y : ℕ) (h : x <= y) : forall z : ℝ, z >= 0 -> (exists w, w = z) /\\ (x < y \\/ x = y) <-> True",
        "theorem t (x y : ℕ) (h : x ≤ y) : ∀ z : ℝ, z ≥ 0 → (∃ w, w = z) ∧ (x < y ∨ x = y) ↔ True",
    ],
)
def test_ascii_spellings_lean_reads_alike_are_the_same_statement(written: str) -> None:
    assert statement_preserved(HEADER + written + " := by\n  simp", HEADER + _SPELLED + " sorry")


@pytest.mark.parametrize(
    "written",
    [
        "theorem t (x y : ℕ) (h : x ≤ y) : ∀ z : ℝ, z ≥ 0 - > (∃ w, w = z) ∧ (x < y ∨ x = y) ↔ True",  # `-` then `>`
        "theorem t (x y : ℕ) (h : x ≤ y) : ∀ z : ℝ, z ≥ 0 → (∃ w, w = z) ∧ (x < y ∨ x = y) = True",
        "theorem t (x y : ℕ) (h : x < y) : ∀ z : ℝ, z ≥ 0 → (∃ w, w = z) ∧ (x < y ∨ x = y) ↔ True",
    ],
)
def test_other_spellings_stay_other_statements(written: str) -> None:
    assert not statement_preserved(HEADER + written + " := by\n  simp", HEADER + _SPELLED + " sorry")


def test_the_names_of_number_types_are_no_spelling_of_their_notations() -> None:
    # `Real` is a name the code may bind (`variable {Real : Type} [Subsingleton Real]` makes the statement trivial, the
    # thirty-fourth red team); Mathlib's `ℝ` is a notation no binder can shadow.
    statement = HEADER + "theorem t (x y : ℝ) (n : ℕ) : x + y = y + x := by sorry"
    for written in ("(x y : Real) (n : ℕ)", "(x y : ℝ) (n : Nat)"):
        code = HEADER + f"variable {{Real : Type}}\n\ntheorem t {written} : x + y = y + x := by\n  simp"
        assert not statement_preserved(code, statement)


def test_not_and_bne_are_no_unicode_spelling() -> None:
    statement = HEADER + "theorem t (a b : ℕ) (h : ¬ a = b) : a ≠ b := by sorry"
    assert not statement_preserved(HEADER + "theorem t (a b : ℕ) (h : Not a = b) : a ≠ b := by\n  simp", statement)
    assert not statement_preserved(HEADER + "theorem t (a b : ℕ) (h : ¬ a = b) : a != b := by\n  simp", statement)


_GROUPED = (
    "theorem t (x y : ℝ) {a b : ℕ} (h₀ : ∀ u v : ℝ, u + v = v + u) (h₁ : ∃ (m n : ℕ), m < n) : (x + y : ℝ) = y + x"
)


@pytest.mark.parametrize(
    "written",
    [
        # Lean elaborates a binder group as its binders one by one, and `∀ u v : ℝ,` as `∀ (u : ℝ) (v : ℝ),`.
        "theorem t (x : ℝ) (y : ℝ) {a : ℕ} {b : ℕ} (h₀ : ∀ (u : ℝ) (v : ℝ), u + v = v + u)"
        " (h₁ : ∃ (m : ℕ) (n : ℕ), m < n) : (x + y : ℝ) = y + x",
        "theorem t (x : ℝ) (y : ℝ) {a b : ℕ} (h₀ : ∀ (u v : ℝ), u + v = v + u) (h₁ : ∃ m n : ℕ, m < n) :"
        " (x + y : ℝ) = y + x",
        "theorem t (x y : ℝ) {a b : ℕ} (h₀ : forall u v : ℝ, u + v = v + u) (h₁ : exists (m : ℕ) (n : ℕ), m < n) :"
        " (x + y : ℝ) = y + x",
    ],
)
def test_binder_groups_split_are_the_same_statement(written: str) -> None:
    assert statement_preserved(HEADER + written + " := by\n  simp", HEADER + _GROUPED + " := by sorry")


@pytest.mark.parametrize(
    "written",
    [
        "theorem t (x y : ℝ) {a : ℕ} (b : ℕ) (h₀ : ∀ u v : ℝ, u + v = v + u) (h₁ : ∃ (m n : ℕ), m < n) :"
        " (x + y : ℝ) = y + x",  # `b` made explicit
        "theorem t (y x : ℝ) {a b : ℕ} (h₀ : ∀ u v : ℝ, u + v = v + u) (h₁ : ∃ (m n : ℕ), m < n) :"
        " (x + y : ℝ) = y + x",  # the binders reordered
        "theorem t (x : ℝ) (y : ℤ) {a b : ℕ} (h₀ : ∀ u v : ℝ, u + v = v + u) (h₁ : ∃ (m n : ℕ), m < n) :"
        " (x + y : ℝ) = y + x",  # one type changed
        "theorem t (x y : ℝ) {a b : ℕ} (h₀ : ∀ u, ∀ v : ℝ, u + v = v + u) (h₁ : ∃ (m n : ℕ), m < n) :"
        " (x + y : ℝ) = y + x",  # `u` left to inference
        # A bracket after the colon is a term: `(x + y : ℝ)` ascribes a type, it binds nothing.
        "theorem t (x y : ℝ) {a b : ℕ} (h₀ : ∀ u v : ℝ, u + v = v + u) (h₁ : ∃ (m n : ℕ), m < n) :"
        " (x : ℝ) + (y : ℝ) = y + x",
    ],
)
def test_binder_changes_stay_other_statements(written: str) -> None:
    assert not statement_preserved(HEADER + written + " := by\n  simp", HEADER + _GROUPED + " := by sorry")


def test_a_binder_head_in_a_bare_type_keeps_its_commas() -> None:
    # `∀ a : ∀ b : ℕ, b = b, a = a`: Lean reads the type of `a` up to the second comma; splitting it at the first
    # would compare another statement. Such a run is compared as written.
    statement = HEADER + "theorem t : ∀ (a : ∀ b : ℕ, b = b), True := by sorry"
    assert statement_preserved(HEADER + "theorem t : ∀ (a : ∀ (b : ℕ), b = b), True := by\n  simp", statement)
    bare = HEADER + "theorem t : ∀ a : ∀ b : ℕ, b = b, True := by sorry"
    assert statement_preserved(HEADER + "theorem t : ∀ a : ∀ b : ℕ, b = b, True := by\n  simp", bare)
    assert not statement_preserved(HEADER + "theorem t : ∀ (a : ∀ (b : ℕ)), b = b, True := by\n  simp", bare)


def test_an_escaped_comma_or_colon_is_a_name() -> None:
    # `«,»` and `«:»` are names: a bare run's type goes on past them, and a group holding one is no `names : type`.
    statement = HEADER + "theorem t : ∀ x y : f «,» g, True := by sorry"
    assert statement_preserved(HEADER + "theorem t : ∀ (x : f «,» g) (y : f «,» g), True := by\n  simp", statement)
    assert not statement_preserved(HEADER + "theorem t : ∀ (x : f) (y : f) «,» g, True := by\n  simp", statement)
    statement = HEADER + "theorem t (x y «:» ℕ) : True := by sorry"
    assert not statement_preserved(HEADER + "theorem t (x «:» ℕ) (y «:» ℕ) : True := by\n  simp", statement)


@pytest.mark.parametrize(
    "binders",
    [
        "∀ (a : " * 3000 + "P" + ")" * 3000,  # nested deeper than the splitting recurses
        "∀ a : " * 3000 + "P",
        "(a b : ∀ (c d : " * 1500 + "P" + "))" * 1500,  # each level doubles the one below
        "(" + " ".join(f"x{i}" for i in range(2000)) + " : " + "ℕ × " * 2000 + "ℕ)",  # many names, a long type
    ],
)
def test_hostile_binders_are_split_in_bounded_space(binders: str) -> None:
    code = HEADER + f"theorem t {binders} : True := by\n  simp"
    (theorem,) = LeanText.of(code).declarations
    assert len(theorem.compared) <= 3 * len(theorem.statement) + 256
    assert statement_preserved(code, HEADER + f"theorem t {binders} : True := by sorry")


@pytest.mark.parametrize(
    ("statement", "code"),
    [
        # The helper red team of the binder change: `«¬»` is a name the code may define (as `True`), `¬` is `Not`.
        (
            "theorem t (x : ℝ) (h₀ : x ^ 2 = 2) : ¬ (∃ q : ℚ, (q : ℝ) = x) := by sorry",
            "def «¬» (p : Prop) : Prop := True\n\ntheorem t (x : ℝ) (h₀ : x ^ 2 = 2) : «¬» (∃ q : ℚ, (q : ℝ) = x) := by"
            "\n  trivial",
        ),
        # `«Nat.Prime»` is one name with a dot in it, not Mathlib's `Nat.Prime`.
        (
            "theorem t (n : ℕ) (h₀ : 0 < n) : Nat.Prime (n ^ 2 + 1) := by sorry",
            "def «Nat.Prime» (n : ℕ) : Prop := True\n\ntheorem t (n : ℕ) (h₀ : 0 < n) : «Nat.Prime» (n ^ 2 + 1) := by"
            "\n  trivial",
        ),
        # A definition of the statement compared token for token: `«2»` is a name, not the number.
        (
            "def double (n : ℕ) : ℕ := 2 * n\n\ntheorem t (n : ℕ) : double n = n + n := by sorry",
            "def «2» : ℕ := 0\n\ndef double (n : ℕ) : ℕ := «2» * n\n\ntheorem t (n : ℕ) : double n = n + n := by\n  simp",
        ),
    ],
    ids=["a-symbol", "a-dotted-name", "a-number-in-a-definition"],
)
def test_an_escaped_name_is_no_symbol_number_or_dotted_name(statement: str, code: str) -> None:
    assert not statement_preserved(HEADER + code, HEADER + statement)


def test_an_escaped_theorem_name_is_its_name() -> None:
    statement = HEADER + "theorem my_thm (x : ℕ) : x + 0 = x := by sorry"
    assert statement_preserved(HEADER + "theorem «my_thm» (x : ℕ) : x + 0 = x := by\n  simp", statement)
