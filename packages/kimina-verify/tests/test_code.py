"""LeanCode (lexing, header/body split, imports, declarations) and the assembly of the code sent to Lean."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kimina_format.lean_lexer import lex, strip_comments_and_strings
from kimina_verify import LeanCode, build_check_code, normalize_imports

HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)


# --- lexer -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "kept", "gone"),
    [
        ("x -- sorry\ny", ["x", "y"], ["sorry"]),
        ("a /- outer /- inner -/ still sorry -/ b", ["a", "b"], ["sorry", "still"]),
        ("/-- doc sorry -/ theorem t", ["theorem t"], ["sorry"]),
        ('def s := "no \\" sorry -- here" ++ t', ["def s", "++ t"], ["sorry", "here"]),
        ('r#"raw " sorry"# z', ["z"], ["sorry"]),
        ("c := '\"' ; sorry_free", ["sorry_free"], []),
    ],
)
def test_strip_removes_comments_and_strings_but_keeps_code(source: str, kept: list[str], gone: list[str]) -> None:
    stripped = strip_comments_and_strings(source)
    assert len(stripped) == len(source)
    for text in kept:
        assert text in stripped
    for text in gone:
        assert text not in stripped


def test_strip_keeps_line_structure() -> None:
    source = "a\n/- one\ntwo\nthree -/\nb -- c\n"
    assert strip_comments_and_strings(source).count("\n") == source.count("\n")


def test_strings_that_may_be_interpolated_are_ambiguous() -> None:
    lexed = lex('def s := s!"value {sorry} here"')
    assert [p.kind for p in lexed.problems] == ["ambiguous"]
    assert "value" not in lexed.stripped


def test_primes_in_identifiers_are_not_char_literals() -> None:
    # `h'` and `f '' s` must not swallow the code after them as a char literal.
    lexed = lex("theorem t (h' : a) : f '' s = t' := by sorry")
    assert "sorry" in lexed.stripped
    assert [t.text for t in lexed.tokens if t.kind == "ident"][:3] == ["theorem", "t", "h'"]


def test_escaped_identifiers_are_unescaped() -> None:
    lexed = lex("exact «sorry» Foo.«bar baz».qux")
    assert "sorry" in lexed.stripped.split()
    assert [t.text for t in lexed.tokens] == ["exact", "sorry", "Foo.bar baz.qux"]


def test_unterminated_comment_and_string_are_reported() -> None:
    assert [(p.kind, p.offset) for p in lex("theorem t := by /- never closed").problems] == [("unterminated", 16)]
    assert [(p.kind, p.offset) for p in lex('def s := "open').problems] == [("unterminated", 9)]


def test_lexer_is_linear_on_hostile_input() -> None:
    hostile = "/-" * 20000 + "'" * 20000 + '"' + "\\" * 20000
    lexed = lex(hostile)
    assert len(lexed.stripped) == len(hostile)


LEAN_ALPHABET = st.sampled_from(
    ["/-", "-/", "--", '"', "'", "«", "»", "\\", "\n", " ", "{", "}", "!", "r#", "#", "sorry", "x", "h'", ".", "ℝ", "₁"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LEAN_ALPHABET, max_size=60).map("".join))
def test_lexer_never_fails_and_keeps_every_offset(source: str) -> None:
    lexed = lex(source)
    assert len(lexed.stripped) == len(source)
    assert [i for i, c in enumerate(lexed.stripped) if c == "\n"] == [i for i, c in enumerate(source) if c == "\n"]
    for token in lexed.tokens:
        assert 0 <= token.start < token.end <= len(source)


# --- header / body / imports -------------------------------------------------------------------------------------


def test_header_and_body_split() -> None:
    code = LeanCode(HEADER + "/- problem -/\ntheorem t : 1 = 1 := rfl\n")
    assert code.header_line_count == 6
    assert code.body.startswith("\n/- problem -/\ntheorem t")
    assert code.body_start_line == 7
    assert code.imports == ("Mathlib", "Aesop")
    assert code.options_and_opens == ("set_option maxHeartbeats 400000", "open BigOperators Real Nat Topology Rat")


def test_set_option_in_and_open_in_belong_to_the_body() -> None:
    code = LeanCode("import Mathlib\nset_option maxRecDepth 1000 in\ntheorem t : True := trivial")
    assert code.header_line_count == 1
    code = LeanCode("import Mathlib\nopen Real in\ntheorem t : True := trivial")
    assert code.header_line_count == 1


def test_import_normalisation_matches_the_server() -> None:
    assert normalize_imports(["Mathlib.Tactic", "Aesop", "Mathlib.Data.Real.Basic", "Aesop"]) == ("Mathlib", "Aesop")
    assert normalize_imports(["A", "Mathlib", "B"]) == ("Mathlib", "A", "B")
    code = LeanCode(
        "import Mathlib.Tactic\nimport Mathlib.Analysis.SpecialFunctions.Log.Basic\n\ntheorem t : True := trivial"
    )
    assert code.imports == ("Mathlib",)


def test_server_header_line_count() -> None:
    assert LeanCode("import Mathlib\nimport Aesop\n\nset_option x 1\n").server_header_line_count == 3


# --- declarations ------------------------------------------------------------------------------------------------


def test_declarations_and_target() -> None:
    code = LeanCode(
        HEADER
        + "lemma helper (x : ℝ) (h : 0 < x) : 0 < x ^ 2 := by positivity\n\n"
        + "theorem main (x : ℝ) (h : 0 < x) :\n    0 < x ^ 2 + 1 := by\n  nlinarith [helper x h]\n"
    )
    names = [(d.keyword, d.name, d.line) for d in code.declarations]
    assert names == [("lemma", "helper", 8), ("theorem", "main", 10)]
    target = code.target()
    assert target is not None and target.name == "main"
    assert " ".join(target.statement) == "( x : ℝ ) ( h : 0 < x ) : 0 < x ^ 2 + 1"
    assert code.find("helper") is not None and code.find("missing") is None


def test_namespaces_qualify_names() -> None:
    code = LeanCode(
        "namespace Foo\ntheorem a : True := trivial\nsection\ntheorem b : True := trivial\nend\nend Foo\n"
        "theorem _root_.c : True := trivial\nnoncomputable section\ndef d := 1\nend\ntheorem e : True := trivial"
    )
    assert [d.name for d in code.declarations] == ["Foo.a", "Foo.b", "c", "d", "e"]


def test_statement_stops_at_top_level_assign_only() -> None:
    code = LeanCode("theorem t (n : ℕ := 3) (f : ℕ → ℕ) : |f n - 1| ≤ 2 := by\n  sorry")
    target = code.target()
    assert target is not None
    assert target.statement[-5:] == ("-", "1", "|", "≤", "2")
    assert target.proof_start is not None and code.text[target.proof_start :].strip().startswith("by")


def test_attribute_instance_and_deriving_are_not_declarations() -> None:
    code = LeanCode("attribute [instance] foo\ninductive T | a deriving DecidableEq\nderiving instance Repr for T\n")
    assert [d.keyword for d in code.declarations] == ["inductive"]


def test_declarations_of_every_real_statement(minif2f_rows: list[dict[str, Any]]) -> None:
    for row in minif2f_rows:
        target = LeanCode(row["header"] + row["formal_statement"]).target()
        assert target is not None and target.name == row["name"], row["name"]
        assert target.statement[-1] != "=", row["name"]  # the statement stops before `:=`


# --- assembly ----------------------------------------------------------------------------------------------------


STATEMENT = HEADER + "theorem main (x : ℝ) (h : 0 < x) : 0 < x ^ 2 + 1 := by\n  sorry\n"
BLOCK = (
    "import Mathlib.Tactic\n\nopen Real\n\n-- a helper the model wrote\n"
    "lemma helper (x : ℝ) (h : 0 < x) : 0 < x ^ 2 := by positivity\n\n"
    "theorem main (x : ℝ) (h : 0 < x) : 0 < x ^ 2 + 1 := by\n  nlinarith [helper x h]\n"
)


def test_assembly_keeps_helper_lemmas_and_uses_the_dataset_header() -> None:
    check = build_check_code(BLOCK, STATEMENT)
    text = check.text
    assert text.startswith("import Mathlib\nimport Aesop\nset_option maxHeartbeats 400000\n")
    assert "open BigOperators Real Nat Topology Rat\nopen Real\n" in text
    assert "lemma helper" in text and "nlinarith [helper x h]" in text
    assert text.rstrip().endswith("#print axioms _root_.main")
    assert check.axioms_checks == ((len(text.split("\n")), "main"),)
    assert check.server_header_lines == 2


def test_assembly_line_map_points_into_the_models_code() -> None:
    check = build_check_code(BLOCK, STATEMENT)
    sent = check.text.split("\n")
    source = BLOCK.split("\n")
    for number, line in enumerate(sent, start=1):
        mapped = check.source_line(number)
        if mapped is not None:
            assert source[mapped - 1].strip() == line.strip(), (number, line)
    helper_line = next(i for i, line in enumerate(sent, start=1) if line.startswith("lemma helper"))
    assert check.source_line(helper_line) == 6
    assert check.source_line(1) is None  # the dataset's header line, not the model's
    assert check.source_line(len(sent)) is None  # our #print axioms


def test_assembly_without_statement_checks_every_theorem() -> None:
    check = build_check_code(BLOCK)
    assert [name for _, name in check.axioms_checks] == ["helper", "main"]
    assert check.text.startswith("import Mathlib\nopen Real\n\n")
    assert check.source_line(1) == 1


def test_assembly_without_axioms() -> None:
    check = build_check_code("theorem t : True := trivial", print_axioms=False)
    assert check.text == "theorem t : True := trivial"
    assert check.axioms_checks == ()
    assert check.line_map == (1,)


def test_assembly_of_real_completions_keeps_every_model_line(completions: list[dict[str, Any]]) -> None:
    fence = "```lean4\n"
    for row in completions[:60]:
        block = row["completion"].rsplit(fence, 1)[1].split("```")[0]
        check = build_check_code(block, row["formal_statement"])
        model = LeanCode(block)
        body_lines = {n for n in range(model.body_start_line, len(model.lines) + 1) if model.lines[n - 1].strip()}
        mapped = {check.source_line(n) for n in range(1, len(check.line_map) + 1)}
        assert body_lines <= mapped, row["name"]
        assert check.axioms_checks and check.axioms_checks[0][1] == row["name"]
