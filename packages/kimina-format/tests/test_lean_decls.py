"""Declarations by full name, scopes as Lean closes them, and the statement normaliser built on them."""

from __future__ import annotations

import pytest
from kimina_format.lean_statement import LeanText, match_statement


def outline(source: str) -> LeanText:
    return LeanText.of(source)


def names(source: str) -> list[str | None]:
    return [d.name for d in outline(source).declarations]


def scope_problems(source: str) -> list[str]:
    return [p.code for p in outline(source).outline.problems]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("theorem a : True := trivial", ["a"]),
        ("namespace X\ntheorem a : True := trivial\nend X", ["X.a"]),
        ("namespace X\ntheorem _root_.a : True := trivial\nend X", ["a"]),
        ("namespace A.B\ntheorem a : True := trivial\nend B\ntheorem b : True := trivial\nend A", ["A.B.a", "A.b"]),
        ("namespace A.B\nend A.B\ntheorem c : True := trivial", ["c"]),
        ("section S\nnamespace N\ndef f := 1\nend N\nend S", ["N.f"]),
        (
            "mutual\ntheorem p : True := trivial\ntheorem q : True := trivial\nend\ntheorem r : True := p",
            ["p", "q", "r"],
        ),
        ("theorem «my thm» : True := trivial", ["my thm"]),
        ("example : True := trivial\ninstance : Inhabited ℕ := ⟨0⟩", [None, None]),
    ],
)
def test_full_names_follow_lean_scopes(source: str, expected: list[str | None]) -> None:
    assert names(source) == expected


def test_escaped_keywords_and_nested_haves_are_not_declarations() -> None:
    source = (
        "lemma helper : True := by\n  have «theorem» target : 1 = 1 := rfl\n  trivial\ntheorem target : True := trivial"
    )
    assert names(source) == ["helper", "target"]


def test_keywords_inside_other_commands_are_not_declarations() -> None:
    source = (
        "inductive T | a deriving DecidableEq\nderiving instance Repr for T\nattribute [instance] foo\n"
        "@[simp, instance] theorem t : True := trivial\nclass inductive C | c"
    )
    assert [(d.keyword, d.name) for d in outline(source).declarations] == [
        ("inductive", "T"),
        ("theorem", "t"),
        ("inductive", "C"),
    ]


def test_modifiers_and_attributes_belong_to_their_declaration() -> None:
    (decl,) = outline("/-- doc -/\n@[simp, local instance] private noncomputable def f : ℕ := 1").declarations
    assert decl.modifiers == ("private", "noncomputable")
    assert decl.attributes == ("simp", "instance")
    assert decl.command_start == len("/-- doc -/\n")


@pytest.mark.parametrize(
    ("source", "problems"),
    [
        ("namespace A.B\nend B", ["unclosed_scope"]),  # `A` stays open, as in Lean
        ("namespace A\nend", ["end_mismatch"]),  # a bare `end` closes an anonymous section only
        ("namespace A\nend B", ["end_mismatch"]),
        ("end X", ["end_mismatch"]),
        ("section\nnamespace N\nend N\nend", []),
        ("namespace A.B\nend A.B", []),
        ("mutual\ntheorem p : True := trivial\nend", []),
        ("namespace X\ntheorem t : True := trivial", ["unclosed_scope"]),
    ],
)
def test_end_follows_leans_rules(source: str, problems: list[str]) -> None:
    assert scope_problems(source) == problems


def test_opens_are_read_with_their_kind() -> None:
    opens = outline("open Real Nat\nopen Foo in\nopen Bar hiding x\nopen scoped Baz\nopen Qux (y)").outline.opens
    assert [(o.namespaces, o.scoped_in, o.plain) for o in opens] == [
        (("Real", "Nat"), False, True),
        (("Foo",), True, True),
        (("Bar",), False, False),
        (("Baz",), False, False),
        (("Qux",), False, False),
    ]


def test_open_names_stop_at_a_line_that_is_not_right_of_the_open() -> None:
    # Lean's `openSimple` is `many1 (checkColGt >> ident)`: `unif_hint` or `foo (x)` on the next line at column 0 is
    # another command, not a name of the `open`; an indented continuation is.
    opens = outline("open Real Nat\nunif_hint (x) where\nopen A\n  B\nfoo (y)").outline.opens
    assert [(o.namespaces, o.plain) for o in opens] == [(("Real", "Nat"), True), (("A", "B"), True)]


def test_outline_line_numbers_are_counted_incrementally() -> None:
    text = "example : True := trivial\n\n" * 3 + "theorem t : True := trivial\n"
    assert [d.line for d in outline(text).declarations] == [1, 3, 5, 7]


STATEMENT = "import Mathlib\nopen Real\n\ntheorem target (x : ℝ) : Real.log (x ^ 2) = 2 * Real.log x := by\n  sorry"


def test_the_target_is_found_by_full_name_and_compared_token_for_token() -> None:
    code = "theorem target (x:ℝ) :\n  Real.log (x^2) = 2 * /- c -/ Real.log x := by\n  simp [Real.log_pow]"
    match = match_statement(outline(code), outline(STATEMENT))
    assert match.target is not None and match.target.name == "target" and match.problems == ()


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("theorem target (x : ℝ) : Real.log x = 0 := sorry", "statement_mismatch"),
        (
            "namespace N\ntheorem target (x : ℝ) : Real.log (x ^ 2) = 2 * Real.log x := sorry\nend N",
            "statement_missing",
        ),
        (
            "lemma h : True := by\n  have «theorem» target (x : ℝ) : Real.log (x ^ 2) = 2 * Real.log x := sorry\n"
            "  trivial\ntheorem target : True := trivial",
            "statement_mismatch",
        ),
        (
            "theorem target (x : ℝ) : Real.log (x ^ 2) = 2 * Real.log x := sorry\ntheorem target : True := trivial",
            "statement_duplicate",
        ),
    ],
)
def test_statement_problems(code: str, problem: str) -> None:
    assert problem in [p.code for p in match_statement(outline(code), outline(STATEMENT)).problems]


def test_statements_of_the_dataset_keep_their_definitions() -> None:
    statement = "def f (n : ℕ) : ℕ := n + 1\n\ntheorem uses_f : f 1 = 2 := by sorry"
    same = "def f (n : ℕ) : ℕ :=\n  n + 1\n\ntheorem uses_f : f 1 = 2 := by decide"
    weaker = "def f (n : ℕ) : ℕ := 1\n\ntheorem uses_f : f 1 = 2 := by decide"
    assert match_statement(outline(same), outline(statement)).problems == ()
    (problem,) = match_statement(outline(weaker), outline(statement)).problems
    assert problem.code == "statement_mismatch" and "definition of `f`" in problem.message
