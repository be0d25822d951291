"""The Lean lexer reads code as Lean v4.15's tokenizer does, and says so where it cannot be sure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kimina_format.lean_lexer import lex


def texts(source: str) -> list[str]:
    return [t.text for t in lex(source).tokens]


def problems(source: str) -> list[str]:
    return [p.kind for p in lex(source).problems]


# (source, tokens Lean reads): each is a place where a naive lexer reads something else.
AS_LEAN_READS = [
    # Whitespace-position comments; `--` inside a name is not one.
    ("a -- b\nc", ["a", "c"]),
    ("a /- b /- nested -/ still -/ c", ["a", "c"]),
    # `/--` and `/-!` open doc comments after three characters: `/--/` does not close itself.
    ('/--/ "-/ x', ["x"]),
    ("/-!/ m -/ y", ["y"]),
    ("/-/ z -/ w", ["w"]),
    # A `«»` name runs to the first `»`, across newlines, comment openers included.
    ("def «a\n--» := 0 variable", ["def", "a\n--", ":", "=", "0", "variable"]),
    ("Foo.«bar -/ baz».qux", ["Foo.bar -/ baz.qux"]),
    # `!"` after a name is that name and a plain string: `String.toNat!` is one identifier.
    ('String.toNat!"42" y', ["String.toNat!", '"42"', "y"]),
    # Raw strings start only at the start of a token: `Foo.r` continues the name.
    ('r#"a " b"# c', ['r#"a " b"#', "c"]),
    ('Foo.r"x"', ["Foo.r", '"x"']),
    ('xr"y"', ["xr", '"y"']),
    # `'` is a character literal only at a token start, and not when a second `'` follows.
    ("h' f '' s 'a' '\\n'", ["h'", "f", "''", "s", "'a'", "'\\n'"]),
    # Escapes and string gaps.
    ('"a \\" b" c', ['"a \\" b"', "c"]),
    ('"gap \\\n   on" d', ['"gap \\\n   on"', "d"]),
    # Every block comment's body starts three characters in (`whitespace` steps over the third character of a plain
    # `/-`; `/--` and `/-!` are three-character tokens): that character never opens or closes anything.
    ("/-/-/\nvariable (h : False)\n-- -/ -/\nx", ["variable", "(", "h", ":", "False", ")", "x"]),
    ("/-/- a boxed remark -/ y", ["y"]),
    ("/-/- -/ -/ z", ["-", "/", "z"]),
    ("/-\n-/ w", ["w"]),
    ("/---/ v", ["v"]),
    ("/-!-/ u", ["u"]),
    ("/--/ -/ t", ["t"]),
    ("a/-/-/b", ["a", "b"]),
    # After a name, a literal or a closing bracket `whitespace` runs first: `--` there is a comment.
    ("rfl--comment\nx", ["rfl", "x"]),
    ("(norm_num)-- done\nx", ["(", "norm_num", ")", "x"]),
    ("⟨a, b⟩-- pair\n[c]/- d -/", ["⟨", "a", ",", "b", "⟩", "[", "c", "]"]),
    ('"s"-- str\n2-- two', ['"s"', "2"]),
    # Numbers end where Lean's do; identifier characters are Lean's (ASCII letters, Greek, letter-like, subscripts).
    ("2x 0x1F 1.5e3 x₁ α ℝ", ["2", "x", "0x1F", "1.5e3", "x₁", "α", "ℝ"]),
]


@pytest.mark.parametrize(("source", "expected"), AS_LEAN_READS)
def test_tokens_are_what_lean_reads(source: str, expected: list[str]) -> None:
    assert texts(source) == expected
    assert problems(source) == []


# Where Lean's reading depends on its token table, on error recovery or on its version: the lexer refuses.
AMBIGUOUS = [
    ("x <--#eval", "`<-` is a token: `<--` may be `<-` then `-`"),
    ("{x //- #eval}", "`//` is a token"),
    ("x.--#eval", "a `.` may begin a token"),
    ("x +/- #eval -/", "a symbol may begin a token: `+/-` is not sure to be `+` then a comment"),
    ('("a")', "a token may hold the quote"),
    ("@«x»", "a token may hold the escape"),
    ("'a--x", "`'` that opens no character literal: Lean reads on from inside"),
    ('"a \\q #eval"', "invalid escape: Lean reads on from inside the string"),
    ('"gap \\\n\n x"', "a string gap may hold one newline"),
    ('"{x}"', "a string with braces may be interpolated"),
    ('s!"{x}"', "interpolated: code in braces"),
    ("f '' --x", "without Mathlib `''` is an error and Lean reads on inside the comment"),
    ("f ⁻¹'--x", "the same after Mathlib's `⁻¹'`"),
    ("def é := 1", "a letter in names of later Lean versions"),
    ("def xⱼ := 1", "`ⱼ` joined names after v4.15"),
    ("def и := 1", "a letter Unicode XID admits"),
    ("a\rb", "an isolated carriage return"),
]


@pytest.mark.parametrize(("source", "why"), AMBIGUOUS)
def test_ambiguous_code_is_refused(source: str, why: str) -> None:
    assert "ambiguous" in problems(source), why


@pytest.mark.parametrize(
    "source",
    [
        "x <- y",  # spaced: `<-` then whitespace
        "{x // p x}",
        "rfl -- comment",
        "rfl--comment",
        "(norm_num)-- done",
        "/-/- boxed -/",
        "f '' {x | 0 < x}",  # Mathlib's `''` followed by something plain
        "f ⁻¹' {0}",
        "∑' n, f n",
        "a\r\nb",
        "def α₁ := 1",
        "-- é, и, ⱼ and 数学 in a comment",
        'def s := "no braces, \\"quoted\\", \\x41 \\u00e9"',
        "def c : Char := '\\''",
    ],
)
def test_lookalikes_of_ambiguous_code_pass(source: str) -> None:
    assert problems(source) == []


@pytest.mark.parametrize(
    ("source", "offset"),
    [
        ("theorem t := by /- never closed", 16),
        ('def s := "open', 9),
        ('def s := r#"open"', 9),
        ("def «open := 1", 4),
        ("Foo.«open", 4),
    ],
)
def test_unterminated_literals_are_reported_where_they_start(source: str, offset: int) -> None:
    (problem,) = lex(source).problems
    assert (problem.kind, problem.offset) == ("unterminated", offset)


def test_stripped_copy_keeps_offsets_and_lines() -> None:
    source = 'a /- one\ntwo -/ "str -- x" «sorry» «x\ny» -- c\nb'
    lexed = lex(source)
    assert len(lexed.stripped) == len(source)
    assert [i for i, c in enumerate(lexed.stripped) if c == "\n"] == [i for i, c in enumerate(source) if c == "\n"]
    assert "sorry" in lexed.stripped and "two" not in lexed.stripped and "str" not in lexed.stripped
    assert [c.doc for c in lex("/-- d -/ /-! m -/ /- p -/ -- l").comments] == [True, True, False, False]


def test_escaped_names_are_never_keywords() -> None:
    theorem, name = lex("«theorem» theorem").tokens
    assert theorem.text == "theorem" and theorem.escaped and not theorem.is_keyword("theorem")
    assert name.is_keyword("theorem")


def test_real_data_lexes_without_doubt(data_dir: Path) -> None:
    """Every real proof, completion and miniF2F statement is read with certainty."""
    rows = [json.loads(line) for line in (data_dir / "recorded_verdicts.jsonl").read_text().splitlines()]
    completions = [json.loads(line) for line in (data_dir / "kimina_completions.jsonl").read_text().splitlines()]
    minif2f = [json.loads(line) for line in (data_dir / "minif2f.jsonl").read_text().splitlines()]
    sources = [r["full_code"] for r in rows if r["verdict"]]
    sources += [c["completion"].rsplit("```lean4\n", 1)[1].split("```")[0] for c in completions]
    sources += [m["header"] + m["formal_statement"] for m in minif2f]
    assert len(sources) == 565 + 197 + 488
    doubtful = {i: lex(s).problems for i, s in enumerate(sources) if lex(s).problems}
    assert doubtful == {}


def test_linear_on_hostile_input() -> None:
    hostile = "/-" * 20000 + "«" * 20000 + "'" * 20000 + '"' + "\\" * 20000 + "r#" * 10000
    lexed = lex(hostile)
    assert len(lexed.stripped) == len(hostile)
    many = lex("«a» " * 50000)
    assert len(many.tokens) == 50000


ALPHABET = st.sampled_from(
    ["/-", "-/", "--", '"', "'", "''", "«", "»", "\\", "\n", "\r", " ", "{", "}", "!", "r#", "#", "x", "h'", ".", "ℝ"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=40))
def test_any_text_lexes_with_offsets_kept(parts: list[str]) -> None:
    source = "".join(parts)
    lexed = lex(source)
    assert len(lexed.stripped) == len(source)
    assert all(0 <= t.start < t.end <= len(source) for t in lexed.tokens)
    assert [t.start for t in lexed.tokens] == sorted(t.start for t in lexed.tokens)
