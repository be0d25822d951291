"""Header/body split and position mapping: the rules that make REPL reuse correct."""

from kimina_verify.server.snippet import shift_positions, split_snippet


def test_mathlib_imports_fold_and_others_keep_their_order() -> None:
    split = split_snippet(
        "import Mathlib.Tactic\nimport Aesop\nimport Mathlib.Data.Real.Basic\nimport Aesop\n\ndef f := 1"
    )
    assert split.header == "import Mathlib\nimport Aesop"
    assert (split.body, split.header_lines) == ("def f := 1", 5)


def test_blank_lines_and_comments_around_imports() -> None:
    code = "-- a header comment\n/- a block\n   comment -/\nimport Mathlib\n\n\n/-- doc -/\ntheorem t : True := trivial"
    split = split_snippet(code)
    assert split.header == "import Mathlib"
    assert split.body == "/-- doc -/\ntheorem t : True := trivial"  # comments after the imports stay in the body
    assert code.split("\n")[split.header_lines] == "/-- doc -/"


def test_no_imports() -> None:
    split = split_snippet("\n\ntheorem t : True := trivial")
    assert (split.header, split.body, split.header_lines) == ("", "theorem t : True := trivial", 2)
    assert split_snippet("").header == "" and split_snippet("").body == ""


def test_imports_only_and_several_modules_per_line() -> None:
    split = split_snippet("import Mathlib Aesop -- both\n")
    assert split.header == "import Mathlib\nimport Aesop"
    assert split.body == ""


def test_import_after_code_stays_in_the_body() -> None:
    split = split_snippet("def f := 1\nimport Mathlib")
    assert (split.header, split.header_lines) == ("", 0)


def test_shift_positions_moves_messages_and_sorries_but_not_line_zero() -> None:
    reply = {
        "env": 3,
        "messages": [{"severity": "error", "pos": {"line": 1, "column": 2}, "endPos": {"line": 2, "column": 0}}],
        "sorries": [{"pos": {"line": 0, "column": 0}, "goal": "⊢ True"}, {"pos": {"line": 4, "column": 1}}],
    }
    moved = shift_positions(reply, 5)
    assert moved["messages"][0]["pos"] == {"line": 6, "column": 2}
    assert moved["messages"][0]["endPos"] == {"line": 7, "column": 0}
    assert moved["sorries"][0]["pos"] == {"line": 0, "column": 0}
    assert moved["sorries"][1]["pos"] == {"line": 9, "column": 1}
    assert reply["messages"][0]["pos"]["line"] == 1, "the original reply is not modified"
    assert shift_positions({"env": 0}, 3) == {"env": 0}
