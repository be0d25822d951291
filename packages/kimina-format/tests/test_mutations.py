"""Mutations of the real completions that pass: each breaks exactly one rule, or (harmless ones) none.

Every test runs over all the passing real completions a mutation applies to and reports every one that misbehaves;
a minimum count keeps a test from passing on an empty selection.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import pytest
from kimina_format import FormatConfig, ViolationCode, check_format, parse_completion
from kimina_format.lean_source import split_lean
from kimina_format.rules import max_tactic_block_lines

Code = ViolationCode
Row = dict[str, Any]
Mutation = Callable[[Row], str | None]  # None: the mutation does not apply to this row


def run(
    rows: list[Row],
    mutate: Mutation,
    expected: set[ViolationCode],
    *,
    at_least: int = 50,
    allowed: frozenset[ViolationCode] = frozenset(),
) -> None:
    """Apply `mutate` to each row and check the violation codes are exactly `expected` (plus, maybe, some `allowed`)."""
    wrong, applied = [], 0
    for row in rows:
        text = mutate(row)
        if text is None:
            continue
        applied += 1
        verdict = check_format(text, formal_statement=row["formal_statement"])
        if not expected <= set(verdict.codes) <= expected | allowed:
            wrong.append((row["name"], [str(v) for v in verdict.violations]))
    assert applied >= at_least, f"the mutation applied to only {applied} rows"
    assert not wrong, f"{len(wrong)} of {applied} mutated rows misjudged, e.g. {wrong[:3]}"


def think_end(text: str) -> int:
    return text.index("</think>")


def insert_in_thinking(text: str, insert: str) -> str:
    """Insert `insert` as its own paragraph right after `<think>`."""
    at = text.index("<think>") + len("<think>")
    return text[:at] + "\n" + insert + "\n" + text[at:]


def final_fence(text: str) -> int:
    return text.index("```lean4", think_end(text))


def with_final_code(row: Row, code: str) -> str:
    text = row["completion"]
    block = parse_completion(text).final_block
    assert block is not None
    return text[: block.body_start] + code + text[block.body_start + len(block.text) :]


# Rule 1


def test_no_think_opening(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: r["completion"].replace("<think>", "", 1), {Code.THINK_MISSING})


def test_no_think_closing(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: r["completion"].replace("</think>", "", 1), {Code.THINK_UNCLOSED})


def test_truncated_in_the_thinking(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: r["completion"][: think_end(r["completion"]) // 2], {Code.THINK_UNCLOSED})


def test_second_think_opening(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: insert_in_thinking(r["completion"], "<think>"), {Code.THINK_MALFORMED})


def test_preamble_before_thinking(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: "Sure! Let me solve this.\n" + r["completion"], {Code.TEXT_BEFORE_THINK})


# Rule 2


def test_final_block_removed(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: r["completion"][: final_fence(r["completion"])], {Code.CODE_MISSING})


def test_truncated_in_the_final_block(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: r["completion"].rstrip()[:-3], {Code.CODE_UNCLOSED})


def test_final_block_twice(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        text = row["completion"].rstrip()
        return text + "\n\n" + text[final_fence(text) :]

    run(passing_rows, mutate, {Code.CODE_MULTIPLE})


def test_lean4_block_in_the_thinking(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        text = row["completion"]
        return insert_in_thinking(text, text[final_fence(text) :].rstrip())

    run(passing_rows, mutate, {Code.CODE_MULTIPLE})


def test_explanation_after_the_code(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: r["completion"] + "\n\nThis proof works by nlinarith.", {Code.TEXT_AFTER_CODE})


# Rule 3


def spread(line: str, copies: int) -> str:
    """`copies` of `line`, each followed by a different long line: repeated, but not in a row (not a loop)."""
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()
    # Different lines, not one sentence with two words swapped (that would be a loop told apart by a word).
    others = [
        f"{words[i % 16]} {words[i // 16 % 16]} observation: the bound for {words[(i * 7) % 16]} holds, as shown,"
        f" then {words[(i * 3) % 16]} {words[(i * 5 + 1) % 16]} {words[i // 16 % 16]} follows from it"
        for i in range(copies)
    ]
    return "\n".join(f"{line}\n{other}" for other in others)


def fits(row: Row, insert: str) -> str | None:
    """`insert` in the row's thinking, unless that makes it longer than the length limit."""
    if len(row["completion"]) + len(insert) > 24_576 * 3.2 - 500:
        return None
    return insert_in_thinking(row["completion"], insert)


def test_a_long_line_repeated(passing_rows: list[Row]) -> None:
    line = "Let me reconsider whether the substitution above really simplifies the second equation."
    run(passing_rows, lambda r: fits(r, spread(line, 21)), {Code.REPEATED_LINES})


def test_near_duplicate_lines_repeated(passing_rows: list[Row]) -> None:
    lines = "\n".join(
        f"Checking  CASE n = {i}: the value {i * i} is not a solution of the equation." for i in range(21)
    )
    run(passing_rows, lambda r: insert_in_thinking(r["completion"], lines), {Code.REPEATED_LINES})


def test_a_long_line_repeated_within_the_limit(passing_rows: list[Row]) -> None:
    line = "Let me reconsider whether the substitution above really simplifies the second equation."
    # On the rows that write no long line five times already: 20 copies are under `max_line_repeats` (20) and under
    # `max_often_repeated_lines` (30); a row restating its formulas 21 times more is over the latter.
    run(passing_rows, lambda r: fits(r, spread(line, 20)) if not _often_repeated(r) else None, set())


def _often_repeated(row: Row) -> int:
    return check_format(row["completion"], formal_statement=row["formal_statement"]).metrics.often_repeated_lines


# Rule 4


def _blocks(row: Row) -> list[Any]:
    return list(parse_completion(row["completion"]).tactic_blocks)


def test_tactic_blocks_merged_into_one(passing_rows: list[Row]) -> None:
    config = FormatConfig()

    def mutate(row: Row) -> str | None:
        text, blocks = row["completion"], _blocks(row)
        merged = "\n".join(b.text for b in blocks)
        final = split_lean(parse_completion(text).code or "")
        limit = max_tactic_block_lines(len(final.body), config)
        parts = split_lean(merged)
        if limit is not None and len(parts.body) > limit or parts.comments:
            return None  # merging would also make the block too long, or repeat its comments
        out, pos = [], 0
        for i, block in enumerate(blocks):
            out.append(text[pos : block.start])
            if i == 0:
                out.append(f"```tactics\n{merged}\n```")
            pos = block.end
        return "".join(out) + text[pos:]

    # The blank lines around the blocks taken out stay behind: with many blocks, runs of blank lines are padding.
    run(passing_rows, mutate, {Code.TOO_FEW_TACTIC_BLOCKS}, at_least=15, allowed=frozenset({Code.WHITESPACE_PADDING}))


def test_comment_only_tactic_block(passing_rows: list[Row]) -> None:
    block = "```tactics\n  -- now finish with the inequality from the previous step\n```"
    run(passing_rows, lambda r: insert_in_thinking(r["completion"], block), {Code.TACTIC_BLOCK_TOO_SHORT})


def test_empty_tactic_block(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: insert_in_thinking(r["completion"], "```tactics\n```"), {Code.TACTIC_BLOCK_TOO_SHORT})


def test_tactic_block_twice_as_long_as_the_proof(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str | None:
        body = split_lean(parse_completion(row["completion"]).code or "").body
        if len(body) < 7 or len(row["completion"]) > 50_000:
            return None  # below the floor of 10 lines, or doubling it would make the completion too long
        block = "```tactics\n" + "\n".join(body + body) + "\n```"
        return insert_in_thinking(row["completion"], block)

    # The proof written twice in one block is also copied code beyond the reasoning on rows with little of it.
    run(passing_rows, mutate, {Code.TACTIC_BLOCK_TOO_LONG}, allowed=frozenset({Code.COPIED_CODE}))


def test_tactic_block_as_long_as_the_proof(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        body = split_lean(parse_completion(row["completion"]).code or "").body
        return insert_in_thinking(row["completion"], "```tactics\n" + "\n".join(body) + "\n```")

    run(passing_rows, mutate, set())


# Rule 5


WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def prose(chars: int) -> str:
    """Distinct words (no repeated comment, no repeated line) of at least `chars` non-space characters."""
    out, i = [], 0
    while sum(map(len, out)) < chars:
        out.append(f"{WORDS[i % 16]}{WORDS[i // 16 % 16]}")
        i += 1
    return " ".join(out)


def test_essay_in_the_proof(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str | None:
        code = parse_completion(row["completion"]).code or ""
        body_chars = len("".join("".join(split_lean(code).body).split()))
        if len(row["completion"]) + 5 * body_chars > 70_000:
            return None  # the essay would make the completion too long
        return with_final_code(row, code + "\n  /- " + prose(4 * body_chars + 100) + " -/")

    # The essay is a comment dump in the whole code as well, which the code-wide rule reports where it dominates.
    run(passing_rows, mutate, {Code.PROOF_TOO_MANY_COMMENTS}, allowed=frozenset({Code.CODE_TOO_MANY_COMMENTS}))


def test_essay_in_a_tactic_block(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        chars = sum(len("".join(b.text.split())) for b in _blocks(row))
        block = "```tactics\n  norm_num\n  -- " + prose(2 * chars + 100) + "\n```"
        return insert_in_thinking(row["completion"], block)

    run(passing_rows, mutate, {Code.TACTICS_TOO_MANY_COMMENTS})


def append_to_proof(row: Row, text: str) -> str | None:
    """Append `text` to the final code, unless the proof is already close to the comment-density limit."""
    if check_format(row["completion"]).metrics.proof_comment_density > 0.5:
        return None
    return with_final_code(row, (parse_completion(row["completion"]).code or "") + text)


def test_placeholder_comments_in_the_proof(passing_rows: list[Row]) -> None:
    todo = "\n  -- TODO\n  -- Step 1\n  --\n  -- proof\n  -- done\n  -- ..."
    run(passing_rows, lambda r: append_to_proof(r, todo), {Code.BOILERPLATE_COMMENTS})


def test_an_informative_comment_in_the_proof(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: append_to_proof(r, "\n  -- the goal follows from the bounds established above"), set())


# Rule 6


def test_tactic_blocks_replaced_by_an_unrelated_tactic(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str | None:
        text = row["completion"]
        if re.search(r"\b(decide|norm_num|simp)\b", parse_completion(text).code or ""):
            return None
        out, pos = [], 0
        # A different unrelated tactic in turn: the same one in every block would be one draft (`min_tactic_blocks`).
        for block, tactic in zip(_blocks(row), itertools.cycle(("decide", "simp", "norm_num"))):
            out.append(text[pos : block.body_start] + "  " + tactic)
            pos = block.body_start + len(block.text)
        return "".join(out) + text[pos:]

    run(passing_rows, mutate, {Code.MISALIGNED_TACTICS}, at_least=30)


# Rule 7


def _theorem_name(row: Row) -> str:
    match = re.search(r"theorem\s+(\S+)", row["formal_statement"])
    assert match is not None
    return match.group(1)


def test_theorem_renamed(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        name = _theorem_name(row)
        code = parse_completion(row["completion"]).code or ""
        return with_final_code(row, code.replace(f"theorem {name}", f"theorem {name}_v2", 1))

    run(passing_rows, mutate, {Code.STATEMENT_MISMATCH})


def test_hypothesis_added(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        name = _theorem_name(row)
        code = parse_completion(row["completion"]).code or ""
        return with_final_code(row, code.replace(f"theorem {name}", f"theorem {name} (hfalse : False)", 1))

    run(passing_rows, mutate, {Code.STATEMENT_MISMATCH})


@pytest.mark.parametrize(
    "rewrite",
    [
        pytest.param(lambda name, code: code.replace(f"theorem {name}", f"lemma {name}", 1), id="lemma"),
        pytest.param(
            lambda name, code: code.replace(
                f"theorem {name}", f"lemma helper (n : ℕ) : n + 0 = n := Nat.add_zero n\n\ntheorem {name}", 1
            ),
            id="helper-lemma",
        ),
        pytest.param(lambda name, code: code.replace(f"theorem {name}", f"theorem {name}\n   ", 1), id="rewrapped"),
        pytest.param(
            lambda name, code: code.replace(f"theorem {name}", f"/-- the problem -/\ntheorem {name} -- note\n ", 1),
            id="comments",
        ),
    ],
)
def test_statement_rewritten_harmlessly(passing_rows: list[Row], rewrite: Callable[[str, str], str]) -> None:
    run(
        passing_rows,
        lambda r: with_final_code(r, rewrite(_theorem_name(r), parse_completion(r["completion"]).code or "")),
        set(),
    )


# Rule 8


PADDING_WORDS = (
    "apple brick cloud dream eagle flame grape house ivory jelly koala lemon mango noble ocean piano quilt river"
    " stone tiger umbra vivid whale xenon yacht zebra amber blaze cedar dingo ember".split()
)


def padding_lines(count: int) -> list[str]:
    """`count` distinct lines of 36 characters: length without a loop.

    One line written again and again is a loop, and so is one line with a changing tag (`Let us think about aaab`):
    here every word changes from one line to the next, and no two lines are equal (each line is `i` in base 31,
    through an invertible map onto its five words).
    """
    n = len(PADDING_WORDS)
    rows = ((1, 0, 0), (1, 1, 0), (1, 1, 1), (2, 1, 0), (3, 0, 1))
    lines = []
    for i in range(count):
        digits = (i % n, i // n % n, i // n // n % n)
        words = [
            PADDING_WORDS[(sum(c * d for c, d in zip(row, digits, strict=True)) + k) % n] for k, row in enumerate(rows)
        ]
        lines.append("Note " + " ".join(words) + ".")
    return lines


def test_padded_past_the_maximum_length(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        missing = 24_576 * 3.2 - len(row["completion"])
        return insert_in_thinking(row["completion"], "\n".join(padding_lines(int(missing / 32 + 10))))

    run(passing_rows, mutate, {Code.TOO_LONG})


def test_padded_into_the_soft_zone(passing_rows: list[Row]) -> None:
    config = FormatConfig()
    assert config.max_tokens is not None
    line = padding_lines(1)[0]
    for row in [r for r in passing_rows if len(r["completion"]) < 60_000][:20]:
        missing = 22_528 * config.chars_per_token - len(row["completion"])  # half-way to the maximum
        text = insert_in_thinking(row["completion"], "\n".join(padding_lines(int(missing / (len(line) + 1)))))
        verdict = check_format(text, formal_statement=row["formal_statement"])
        assert verdict.ok
        expected = (verdict.metrics.tokens - config.soft_max_tokens) / (config.max_tokens - config.soft_max_tokens)
        assert verdict.length_penalty == pytest.approx(expected)
        assert 0.45 < verdict.length_penalty < 0.55


# Harmless rewrites of the whole completion


@pytest.mark.parametrize(
    "rewrite",
    [
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="crlf"),
        pytest.param(lambda t: t.replace("```lean4", "```lean"), id="lean-fence"),
        pytest.param(lambda t: t + "\n\n  \n", id="trailing-whitespace"),
        pytest.param(lambda t: "\n" + t, id="leading-newline"),
        pytest.param(lambda t: t.replace("```tactics\n", "```tactics  \n"), id="fence-trailing-spaces"),
        pytest.param(lambda t: t.replace("<think>\n", "<think>\n\nLet me think.\n\n", 1), id="more-reasoning"),
    ],
)
def test_harmless_rewrites_still_pass(passing_rows: list[Row], rewrite: Callable[[str], str]) -> None:
    run(passing_rows, lambda r: rewrite(r["completion"]), set())


def test_crlf_gives_the_same_metrics(passing_rows: list[Row]) -> None:
    for row in passing_rows[:30]:
        lf = check_format(row["completion"]).metrics
        crlf = check_format(row["completion"].replace("\n", "\r\n")).metrics
        assert crlf == lf
