"""Lean lexing for the checks: comments, header / statement / body split, normalisation, tactic names."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kimina_format import parse_completion
from kimina_format.lean_source import (
    normalise_lean,
    plain_tactic_blocks,
    plain_tactic_lines,
    split_lean,
    strip_comments,
)
from kimina_format.statement import statement_key
from kimina_format.tactics import iou, tactic_invocations, tactic_names


def test_comments_are_blanked_in_place() -> None:
    source = "theorem t : 1 = 1 := by -- easy\n  /- a /- nested -/ block\n  comment -/ rfl"
    code, comments = strip_comments(source)
    assert len(code) == len(source)
    assert code.split("\n")[0].rstrip() == "theorem t : 1 = 1 := by"
    assert code.split("\n")[2].strip() == "rfl"
    assert [c.text for c in comments] == ["-- easy", "/- a /- nested -/ block\n  comment -/"]
    assert comments[0].start == source.index("--")


def test_comment_markers_inside_strings_are_not_comments() -> None:
    code, comments = strip_comments('#eval "a -- b /- c"\n-- real')
    assert comments[0].text == "-- real"
    assert '"a -- b /- c"' in code


def test_unclosed_block_comment_runs_to_the_end() -> None:
    code, comments = strip_comments("rfl /- never closed\nsimp")
    assert code.strip() == "rfl"
    assert comments[0].text == "/- never closed\nsimp"


def test_doc_comments() -> None:
    _, comments = strip_comments("/-- doc -/\n/-! module -/\n/- plain -/")
    assert [c.is_doc for c in comments] == [True, True, False]


def test_split_of_a_whole_file() -> None:
    parts = split_lean(
        "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen Real\n\n"
        "/-- helper -/\nlemma helper (x : ℝ) : 0 ≤ x ^ 2 := by positivity\n\n"
        "theorem main (x : ℝ)\n    (h : 0 < x) : 0 < x ^ 2 + 1 := by\n  have := helper x\n  -- finish\n  nlinarith\n"
    )
    assert parts.header == ("import Mathlib", "import Aesop", "set_option maxHeartbeats 400000", "open Real")
    assert parts.statements == (
        "lemma helper (x : ℝ) : 0 ≤ x ^ 2 :=",
        "theorem main (x : ℝ) (h : 0 < x) : 0 < x ^ 2 + 1 :=",
    )
    assert parts.body == ("positivity", "have := helper x", "nlinarith")
    assert [c.text for c in parts.body_comments] == ["-- finish"]  # the doc comment is not a proof comment


def test_a_tactic_fragment_is_all_body() -> None:
    parts = split_lean("  intro x\n\n  · simp\n  · ring")
    assert parts.body == ("intro x", "· simp", "· ring")
    assert parts.statements == () and parts.header == ()


def test_attributes_and_modifiers_start_a_declaration() -> None:
    parts = split_lean("@[simp] private theorem t : True := trivial")
    assert parts.statements == ("@[simp] private theorem t : True :=",)
    assert parts.body == ("trivial",)


def test_a_proof_that_runs_to_the_end_is_taken_in_bulk_but_not_past_a_header_or_declaration() -> None:
    # After the last signature the remaining lines are proof, unless one starts with a header or declaration word,
    # however it is indented (a form feed is whitespace to `str.strip`, as to the line-by-line rules).
    parts = split_lean("theorem a : P := by\n  simp\n\x0copen Real\n  ring\nlemma b : Q := by\n  linarith\n  -- done\n")
    assert parts.header == ("open Real",)
    assert parts.statements == ("theorem a : P :=", "lemma b : Q :=")
    assert parts.body == ("simp", "ring", "linarith")
    assert parts.code_lines == 6
    assert [parts.code[start:end].split() for start, end in parts.body_regions] == [
        ["by", "simp"],
        ["ring"],
        ["by", "linarith"],
    ]
    # A notation behind a modifier (`local notation`) ends the proof, as in Lean; a modifier that starts neither a
    # declaration nor a syntax extension is a proof line.
    parts = split_lean('example : True := by\n  trivial\nlocal notation "x" => 1\n  done')
    assert parts.body == ("trivial", "done")
    assert parts.header == ('local notation "x" => 1',)
    parts = split_lean("example : True := by\n  trivial\nlocal foo\n  done")
    assert parts.body == ("trivial", "local foo", "done")


def test_plain_tactic_lines_are_the_body_of_a_plain_block() -> None:
    assert plain_tactic_lines("  nlinarith [sq_nonneg x]\n\n  · simp\n") == ("nlinarith [sq_nonneg x]", "· simp")
    assert plain_tactic_lines("   ") == ()
    assert plain_tactic_lines("simp -- done") is None  # a comment: `split_lean` must find it
    assert plain_tactic_lines("theorem t : True := by\n  trivial") is None  # a declaration


def test_plain_tactic_lines_agree_with_split_lean_on_real_tactic_blocks(real_rows: list[dict[str, Any]]) -> None:
    texts = [block.text for row in real_rows for block in parse_completion(row["completion"]).tactic_blocks]
    plain = [(text, plain_tactic_lines(text)) for text in texts]
    assert all(lines == split_lean(text).body for text, lines in plain if lines is not None)
    assert sum(lines is not None for _, lines in plain) > 0.8 * len(texts)  # most blocks take the plain path


_LEANISH = st.lists(
    st.sampled_from(["simp", "theorem", "lemma", "open", "@[simp]", "#check", "--", "/-", "-/", ":=", "by", " ", "\t",
                     "\n", "\n  ", "\x0c", "\xa0", "x", "(", ")", "·", '"', "local", "end"]),
    max_size=30,
).map("".join)  # fmt: skip


@given(_LEANISH)
def test_plain_tactic_lines_never_disagree_with_split_lean(source: str) -> None:
    lines = plain_tactic_lines(source)
    parts = split_lean(source)
    if lines is not None:
        assert lines == parts.body
        assert parts.code_lines == len(lines)
        assert not parts.comments and not parts.statements and not parts.header


@given(st.lists(_LEANISH, max_size=6))
def test_plain_tactic_blocks_are_plain_tactic_lines_of_each(sources: list[str]) -> None:
    assert plain_tactic_blocks(sources) == [plain_tactic_lines(source) for source in sources]


def test_plain_tactic_blocks_of_real_completions(real_rows: list[dict[str, Any]]) -> None:
    for row in real_rows:
        texts = [block.text for block in parse_completion(row["completion"]).thinking_blocks]
        assert plain_tactic_blocks(texts) == [plain_tactic_lines(text) for text in texts]


def test_normalisation_ignores_spacing_next_to_symbols_only() -> None:
    assert normalise_lean("x ^ 2  ≤\n 4") == normalise_lean("x^2≤4")
    assert normalise_lean("f x y") != normalise_lean("f xy")
    assert normalise_lean("lemma foo : P") == normalise_lean("theorem foo : P")
    assert normalise_lean("my_lemma foo") == "my_lemma foo"


def test_statement_key_drops_header_and_sorry() -> None:
    key = statement_key("import Mathlib\n\nopen Real\n\n/-- doc -/\ntheorem t (x : ℝ) : x = x := by\n  sorry\n")
    assert key == ("theorem t(x:ℝ):x=x:=", True)
    assert statement_key("import Mathlib\n") is None


def test_tactic_names_come_from_the_vocabulary() -> None:
    names = tactic_names(
        [
            "have h₀ : 0 < x := by positivity",
            "nlinarith [sq_nonneg (x - 1), Nat.succ_le_of_lt h]",
            "rcases h with ⟨y, rfl⟩ | h",
            "exact ⟨by norm_num, by simp?⟩",
            "cases' h with a b <;> omega",
        ]
    )
    assert names == {
        "have",
        "positivity",
        "nlinarith",
        "rcases",
        "rfl",
        "exact",
        "norm_num",
        "simp?",
        "cases'",
        "omega",
    }


def test_tactic_invocations_ignore_spacing_bullets_and_bare_brackets() -> None:
    a = tactic_invocations(["· nlinarith [sq_nonneg (x - 1)]", ")", "<;>"])
    b = tactic_invocations(["nlinarith [sq_nonneg (x-1)]"])
    assert a == b
    assert iou(a, b) == 1.0


def test_iou() -> None:
    assert iou(frozenset("ab"), frozenset("bc")) == 1 / 3
    assert iou(frozenset(), frozenset()) == 1.0
    assert iou(frozenset("a"), frozenset()) == 0.0


@pytest.mark.timeout(60)
@pytest.mark.parametrize("tail", ["", " x"])
def test_statement_key_is_linear_in_a_long_run_of_proof_words(tail: str) -> None:
    # The trailing `by sorry` is stripped word by word from the end; each word must cost the same however many follow.
    statement = "theorem t : True := " + "by sorry " * 100_000 + tail
    key = statement_key(statement)
    assert key is not None
    # Without a tail every word goes; after `x`, none is trailing and the key gets its own `:=`.
    assert key[0] == ("theorem t:True:=" if not tail else normalise_lean(statement + " :="))
