import json
from pathlib import Path

import pytest
from kimina_data.statement import DEFAULT_HEADER, StatementError, blank_comments, parse_statement, statement_key


def test_every_minif2f_statement_splits_into_its_header_and_statement(minif2f_file: Path) -> None:
    rows = [json.loads(line) for line in minif2f_file.read_text().splitlines()]
    assert len(rows) == 488
    for row in rows:
        for statement in filter(None, (row["formal_statement"], row["formal_statement_rectified"])):
            parsed = parse_statement(row["header"] + statement)
            assert parsed.header == row["header"]
            assert parsed.body == statement.rstrip("\n")
            assert parsed.body.endswith(":= by")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "missing_statement"),
        (None, "missing_statement"),
        ("import Mathlib\nopen Real\n", "missing_statement"),
        ("def f : ℕ := 3", "no_declaration"),
        ("theorem t : 1 = 1 := rfl", "no_by"),
        ("theorem t : 1 = 1 := by\n  rfl", "has_proof"),
        ("theorem t : 1 = 1 := by sorry\n  rfl", "has_proof"),
        ("theorem t (h : sorry) : True := by", "misplaced_sorry"),
        ("def f : ℕ := sorry\ntheorem t : f = f := by", "misplaced_sorry"),
    ],
)
def test_unusable_statements_are_rejected_with_a_stable_reason(text: str | None, reason: str) -> None:
    with pytest.raises(StatementError) as error:
        parse_statement(text)
    assert error.value.reason == reason


def test_a_lone_sorry_placeholder_is_dropped_wherever_it_sits() -> None:
    for text in [
        "theorem t : 1 = 1 := by sorry",
        "theorem t : 1 = 1 := by\n  sorry\n",
        "theorem t : 1 = 1 := by -- todo",
    ]:
        assert parse_statement(text).body == "theorem t : 1 = 1 := by"


def test_words_that_contain_sorry_or_by_are_not_mistaken_for_them() -> None:
    parsed = parse_statement("theorem t (h_sorry : True) (byx : ℕ) : byx = byx := by")
    assert parsed.body.endswith(":= by")


def test_a_statement_without_imports_gets_the_default_header() -> None:
    assert parse_statement("theorem t : 1 = 1 := by").header == DEFAULT_HEADER


def test_doc_comments_and_open_in_start_the_statement_but_comments_before_imports_stay_in_the_header() -> None:
    parsed = parse_statement("/- licence -/\nimport Mathlib\nopen Real in\n/-- doc -/\ntheorem t : π > 0 := by")
    assert parsed.header == "/- licence -/\nimport Mathlib\n\n"
    assert parsed.body == "open Real in\n/-- doc -/\ntheorem t : π > 0 := by"


@pytest.mark.parametrize(
    "comment",
    ["-- From the 2019 AMC 12A", "/- From the 2019 AMC 12A,\n   problem 21 -/", "/- a -/ -- b\n\n-- c"],
)
def test_a_leading_comment_without_imports_goes_with_the_statement_and_the_default_header_applies(
    comment: str,
) -> None:
    parsed = parse_statement(f"{comment}\ntheorem t : 1 = 1 := by sorry")
    assert parsed.header == DEFAULT_HEADER
    assert parsed.body == f"{comment}\ntheorem t : 1 = 1 := by"
    assert parsed.text.startswith("import Mathlib\n")
    assert parse_statement(parsed.text) == parsed


def test_open_and_set_option_without_imports_follow_the_default_header() -> None:
    parsed = parse_statement(
        "-- context\nset_option maxRecDepth 1000\nopen Real\n\n-- the problem\ntheorem t : π > 0 := by"
    )
    assert parsed.header == DEFAULT_HEADER + "-- context\nset_option maxRecDepth 1000\nopen Real\n\n"
    assert parsed.body == "-- the problem\ntheorem t : π > 0 := by"
    assert parse_statement(parsed.text) == parsed


def test_comments_between_header_commands_stay_in_the_header_and_one_after_them_starts_the_statement() -> None:
    parsed = parse_statement(
        "import Mathlib\n-- for `aesop`\nimport Aesop\nopen Real\n-- the problem\ntheorem t : π > 0 := by"
    )
    assert parsed.header == "import Mathlib\n-- for `aesop`\nimport Aesop\nopen Real\n\n"
    assert parsed.body == "-- the problem\ntheorem t : π > 0 := by"
    assert parse_statement(parsed.text) == parsed


def test_layout_is_normalised() -> None:
    parsed = parse_statement("\ufeffimport Mathlib  \r\n\r\n\r\n\r\ntheorem t :\r\n  1 = 1 := by   \r\n")
    assert parsed.header == "import Mathlib\n\n"
    assert parsed.body == "theorem t :\n  1 = 1 := by"


def test_parsing_is_idempotent() -> None:
    first = parse_statement("import Mathlib\nopen Real\ntheorem t (x : ℝ) : x = x := by sorry")
    assert parse_statement(first.text) == first


def test_comment_markers_inside_strings_are_not_comments() -> None:
    code = 'theorem t : "--" = "--" := by -- c'
    assert blank_comments(code) == 'theorem t : "--" = "--" := by     '


def test_statement_key_ignores_names_comments_and_layout_but_not_mathematics() -> None:
    a = statement_key("theorem a (x : ℝ) (h : 2 * x = 4) : x = 2 := by")
    assert a == statement_key("/-- doc -/\ntheorem b (x:ℝ)  (h : 2*x = 4) :\n  x = 2 := by -- note")
    assert a != statement_key("theorem a (x : ℝ) (h : 2 * x = 6) : x = 3 := by")


def test_huge_or_hostile_statements_are_rejected_or_parsed_quickly() -> None:
    import time

    with pytest.raises(StatementError) as error:
        parse_statement("theorem t : " + "1 + " * 1_000_000 + "1 = 1 := by")
    assert error.value.reason == "too_long"
    hostile = [
        "theorem t : True := by /-" + "/-" * 4000,  # unterminated nested comments
        'theorem t : "' + "\\" * 9000 + " := by",  # unterminated string full of escapes
        "theorem t" + " in" * 6000 + " : True := by",
        "import Mathlib " + "in " * 6000 + "\ntheorem t : True := by",
        "theorem t : " + "(" * 9000 + " := by",
    ]
    for text in hostile:
        started = time.perf_counter()
        try:
            parse_statement(text)
        except StatementError:
            pass
        assert time.perf_counter() - started < 0.5, text[:40]
