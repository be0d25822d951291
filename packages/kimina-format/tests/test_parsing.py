"""`parse_completion`: spans, tags, fences, and odd or hostile input (CRLF, `lean` fences, unclosed, empty, 1 MB)."""

from __future__ import annotations

from typing import Any

import pytest
from kimina_format import ViolationCode, check_format, parse_completion, parsing
from kimina_format.testing import SAMPLE_HEADER, SAMPLE_PROOF, SAMPLE_STATEMENT, build_completion

FINAL_CODE = f"{SAMPLE_HEADER}{SAMPLE_STATEMENT}\n{SAMPLE_PROOF}"


def test_parts_and_spans_of_a_well_formed_completion() -> None:
    c = parse_completion(build_completion())
    assert c.code == FINAL_CODE
    assert c.thinking is not None and c.thinking.startswith("\nWe expand the square")
    assert c.think is not None and c.text[c.think.start : c.think.end].startswith("<think>")
    assert c.text[c.think.start : c.think.end].endswith("</think>")
    assert [b.text for b in c.tactic_blocks] == ["  nlinarith [sq_nonneg (x - 1), h]", SAMPLE_PROOF]
    for block in (*c.tactic_blocks, *c.code_blocks):
        assert c.text[block.body.start : block.body.end] == block.text
        assert c.text[block.span.start : block.span.end].startswith("```")
        assert c.text[block.span.start : block.span.end].endswith("```")
    assert c.after_code == ""
    assert c.before_think == ""
    assert "```" not in c.reasoning and "nlinarith" not in c.reasoning


def test_inline_tactic_mentions() -> None:
    c = parse_completion(build_completion(reasoning="First try `nlinarith [sq_nonneg x]`, else `positivity`."))
    assert c.inline_tactics == ("nlinarith [sq_nonneg x]", "positivity")


def test_crlf_line_endings_parse_like_lf() -> None:
    text = build_completion()
    crlf = parse_completion(text.replace("\n", "\r\n"))
    assert crlf.code == FINAL_CODE
    assert crlf.text == text
    assert check_format(text.replace("\n", "\r\n")).ok


def test_old_mac_line_endings() -> None:
    assert parse_completion(build_completion().replace("\n", "\r")).code == FINAL_CODE


@pytest.mark.parametrize("fence", ["lean", "lean4", "Lean4", "lean4 ", "lean4 {linenos}"])
def test_lean_fence_spellings(fence: str) -> None:
    text = build_completion().replace("```lean4", f"```{fence}")
    assert parse_completion(text).code == FINAL_CODE


def test_fences_may_be_indented_and_longer() -> None:
    text = build_completion().replace("```tactics\n", "  ````tactics\n").replace("\n```\n\n", "\n  ````\n\n")
    c = parse_completion(text)
    assert [b.text for b in c.tactic_blocks] == ["  nlinarith [sq_nonneg (x - 1), h]", SAMPLE_PROOF]


@pytest.mark.parametrize(("indent", "fenced"), [(16, True), (17, False)])
@pytest.mark.parametrize("where", ["first line of the thinking", "later line"])
def test_a_fence_is_indented_by_at_most_16_characters(indent: int, fenced: bool, where: str) -> None:
    before = "" if where == "first line of the thinking" else "\nLet us try:\n"
    text = f"<think>{before}{' ' * indent}```tactics\nsimp\n```\n</think>\n"
    assert len(parse_completion(text).tactic_blocks) == (1 if fenced else 0)


def test_backticks_inside_a_line_do_not_open_a_block() -> None:
    text = build_completion(reasoning="We write Lean in ```tactics fences like this one: ```tactics.")
    assert len(parse_completion(text).tactic_blocks) == 2


def test_a_fence_with_a_language_inside_a_block_is_content() -> None:
    c = parse_completion("<think>\n```tactics\nsimp\n```lean4\nring\n```\n</think>\n")
    assert len(c.tactic_blocks) == 1
    assert c.tactic_blocks[0].text == "simp\n```lean4\nring"


def test_unclosed_tactic_block_ends_at_the_thinking() -> None:
    c = parse_completion("<think>\n```tactics\nsimp\n</think>\n```lean4\ntheorem t : True := trivial\n```")
    assert c.tactic_blocks[0].closed is False
    assert c.tactic_blocks[0].text == "simp\n"
    assert c.code == "theorem t : True := trivial"


def test_unclosed_final_block_has_no_code() -> None:
    c = parse_completion("<think>x</think>\n```lean4\ntheorem t : True := by\n  triv")
    assert c.final_block is not None and not c.final_block.closed
    assert c.code is None


def test_unclosed_thinking_swallows_everything() -> None:
    c = parse_completion("<think>\nsome thoughts\n```lean4\ntheorem t : True := trivial\n```")
    assert c.think_closed is False
    assert c.code is None
    assert c.code_blocks == ()


def test_without_thinking_the_code_is_still_found() -> None:
    c = parse_completion("Here it is:\n```lean4\ntheorem t : True := trivial\n```\n")
    assert c.think is None
    assert c.code == "theorem t : True := trivial"


def test_the_last_lean_block_is_the_code() -> None:
    c = parse_completion("<think>x</think>\n```lean4\nfirst\n```\n```lean4\nsecond\n```")
    assert c.code == "second"


def test_empty_block() -> None:
    c = parse_completion("<think>x</think>\n```lean4\n```")
    assert c.code == ""


@pytest.mark.parametrize("text", ["", " ", "\n\n", "```", "<think>", "</think>", "`", "```lean4"])
def test_degenerate_inputs(text: str) -> None:
    verdict = check_format(text)
    assert not verdict.ok
    assert verdict.score == 0.0


def test_empty_input_is_missing_everything() -> None:
    assert set(check_format("").codes) == {ViolationCode.THINK_MISSING, ViolationCode.CODE_MISSING}


MB = 1 << 20

HOSTILE = {
    "backticks": "`" * MB,
    "fence lines": "```\n" * (MB // 4),
    "tactics fences": "<think>" + "```tactics\n" * (MB // 11) + "</think>",
    "fences mid-line": "a```" * (MB // 4),
    "think tags": "<think></think>" * (MB // 15),
    "open tags": "<think>" * (MB // 7),
    "one long line": "<think>" + "x" * MB + "</think>",
    "nested comments": "<think>\n```tactics\n"
    + "/-" * (MB // 2)
    + "\n```\n</think>\n```lean4\n"
    + "/-" * 1000
    + "\n```",
    "comment markers": "<think>\n```tactics\n" + "-/--/-" * (MB // 6) + "\n```\n</think>",
    "quotes": "<think>\n```tactics\n" + '\\"' * (MB // 2) + "\n```\n</think>\n```lean4\n" + '"a' * 5000 + "\n```",
    "long identifier": "<think>\n```tactics\n" + "a" * MB + ".\n```\n</think>\n```lean4\n" + "b" * MB + "\n```",
    "repeated reasoning": "<think>\n" + "The same long line of reasoning, again and again.\n" * (MB // 50) + "</think>",
    "many short blocks": "<think>\n" + "```tactics\nsimp\n```\n" * (MB // 20) + "</think>\n```lean4\nsimp\n```",
    "statement soup": "<think>x</think>\n```lean4\n" + "theorem t :\n" * (MB // 12) + "\n```",
    "spaces": "<think>" + " \t" * (MB // 2) + "</think>",
    "blank lines": "<think>" + "\n" * MB + "</think>\n```lean4\n" + "\n" * MB + "```" + " \n" * (MB // 2),
    "looping paragraph": "<think>\n"
    + "A first long line of reasoning that comes back.\nThe second long line of it, and then again.\n" * (MB // 92)
    + "</think>",
    "near copies": "<think>\n"
    + "".join(
        f"{'The opening half of a long line, always the same. ' * 2}{i} {'x' * (i % 50)}\n" for i in range(MB // 160)
    )
    + "</think>",
    "english blocks": "<think>\n" + "```tactics\nthe proof is that we need it\n```\n" * (MB // 40) + "</think>",
    # A chain's and a long tactic line's scans are tried at line starts: a long line without `<;>`, or many lines
    # just short of 256 characters, would cost their length squared from every character.
    "a chain after a long line": "<think>\n```tactics\n"
    + "a" * MB
    + "\n  b <;> c <;> c <;> c\n```\n</think>\n```lean4\nsimp <;> simp\n```",
    "lines short of long": "<think>\n```tactics\n" + ("b" * 255 + "\n") * (MB // 256) + "```\n</think>",
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_megabyte_inputs_finish(name: str) -> None:
    # Guards linear time: a quadratic scan or catastrophic backtracking would not finish within the timeout.
    verdict = check_format(HOSTILE[name], formal_statement=SAMPLE_HEADER + SAMPLE_STATEMENT)
    assert not verdict.ok
    assert verdict.metrics.chars == len(HOSTILE[name])


@pytest.mark.timeout(60)
def test_a_one_megabyte_real_looking_completion_is_checked() -> None:
    reasoning = "\n".join(f"Line {i}: we consider the case where x equals {i} and bound it." for i in range(12_000))
    text = build_completion(reasoning=reasoning)
    assert len(text) > 700_000
    verdict = check_format(text)
    # One sentence 12,000 times in a row with a counter is a counted loop too (`max_counted_lines`, since 0.14.0).
    assert set(verdict.codes) == {
        ViolationCode.REPEATED_LINES,
        ViolationCode.TOO_LONG,
        ViolationCode.CONSECUTIVE_REPEATS,
    }


_FENCE_TEXTS = [
    "```lean\nx\n```", "a\n```x\n``` \n", "x```y", "\n````\n", "<t>```lean4\nx\n```", "```a```\n```\n",
    "```\n```` \n```", "\n```\n\n```\n```x", "```\n```", "```\n\n```", "```lean\n```lean4\nx\n```\n```",
    "``` \t\n a`b``c\n```  \n", "```x\ny\n```\xa0\nz", "```x\ny\n```\xa0z\n```", "```x\n``\n```", "```x\ny\n`````",
    "```x `y`\nz\n```", "  ```x\ny\n```",
]  # fmt: skip


@pytest.mark.parametrize("text", _FENCE_TEXTS)
def test_the_fence_scanners_agree_on_every_region(text: str) -> None:
    for start in range(len(text) + 1):
        for end in range(start, len(text) + 1):
            plain = parsing._scan_plain_fences(text, start, end)
            assert parsing._scan_plain_blocks(text, start, end) == plain
            if plain is not None:
                assert parsing._scan_any_fences(text, start, end) == plain


def test_the_fence_scanners_agree_on_real_completions(real_rows: list[dict[str, Any]]) -> None:
    for row in real_rows:
        text = parse_completion(row["completion"]).text
        for start in range(0, len(text), max(1, len(text) // 7)):
            plain = parsing._scan_plain_fences(text, start, len(text))
            assert plain is not None and parsing._scan_plain_blocks(text, start, len(text)) == plain
            assert parsing._scan_any_fences(text, start, len(text)) == plain


@pytest.mark.parametrize("where", ["reasoning", "tactic block", "summary", "final code", "after the code"])
def test_a_lone_surrogate_is_measured_not_raised(where: str) -> None:
    # JSON allows "\ud800" and no tokenizer writes it: such a text is hostile input, checked like any other.
    good = build_completion()
    text = {
        "reasoning": good.replace("<think>\n", "<think>\n\ud800 \udfff\n", 1),
        "tactic block": good.replace("```tactics\n", "```tactics\n-- \ud800\n", 1),
        "summary": good.replace("</think>\n", "</think>\nDone \ud800.\n", 1),
        "final code": good.replace("```lean4\n", "```lean4\n-- \udc00\n", 1),
        "after the code": good + "\ud800",
    }[where]
    verdict = check_format(text, formal_statement=SAMPLE_HEADER + SAMPLE_STATEMENT)
    assert verdict.metrics.chars == len(text)
    if where == "reasoning":
        assert verdict.metrics.invisible_chars == 2
