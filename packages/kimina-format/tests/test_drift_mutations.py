"""What a drifting policy would write, made by editing the real completions that pass: each edit must lose the format
score, and the harmless edits next to them must not.

Every test runs over all the passing real completions an edit applies to and reports every one that misbehaves; a
minimum count keeps a test from passing on an empty selection.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kimina_format import ViolationCode, check_format, parse_completion
from kimina_format.lean_source import split_lean
from kimina_format.testing import prose_lines

Code = ViolationCode
Row = dict[str, Any]
Mutation = Callable[[Row], str | None]  # None: the mutation does not apply to this row


def run(
    rows: list[Row],
    mutate: Mutation,
    expected: set[ViolationCode],
    *,
    exact: bool = True,
    at_least: int = 50,
    any_of: bool = False,
) -> None:
    """Apply `mutate` to each row; the violation codes must be `expected` (or include it, when not `exact`; or
    include one of it, with `any_of`)."""
    wrong, applied = [], 0
    for row in rows:
        text = mutate(row)
        if text is None:
            continue
        applied += 1
        verdict = check_format(text, formal_statement=row["formal_statement"])
        found = set(verdict.codes)
        if any_of:
            misjudged = not (found & expected and verdict.score == 0.0)
        else:
            misjudged = (found != expected) if exact else not (expected <= found and verdict.score == 0.0)
        if misjudged:
            wrong.append((row["name"], [str(v) for v in verdict.violations]))
    assert applied >= at_least, f"the mutation applied to only {applied} rows"
    assert not wrong, f"{len(wrong)} of {applied} mutated rows misjudged, e.g. {wrong[:3]}"


def after_think_open(text: str, insert: str) -> str:
    """Insert `insert` as its own paragraph right after `<think>`."""
    at = text.index("<think>") + len("<think>")
    return text[:at] + "\n" + insert + "\n" + text[at:]


def before_think_close(text: str, insert: str) -> str:
    at = text.index("</think>")
    return text[:at] + "\n" + insert + "\n" + text[at:]


def final_code(row: Row) -> str:
    code = parse_completion(row["completion"]).code
    assert code is not None
    return code


def with_final_code(row: Row, code: str) -> str:
    text = row["completion"]
    block = parse_completion(text).final_block
    assert block is not None
    return text[: block.body_start] + code + text[block.body_start + len(block.text) :]


WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()
PARAGRAPH = (
    "Let me double-check the bound on the second factor before going on.\n"
    "Since both factors are positive, the product is positive as well, as required.\n"
    "So the inequality holds, and the remaining case is handled by the same argument."
)


# 1. Loops.


def test_a_paragraph_repeated_fifteen_times(passing_rows: list[Row]) -> None:
    loop = "\n\n".join([PARAGRAPH] * 15)
    run(
        passing_rows,
        lambda r: after_think_open(r["completion"], loop) if small(r, len(loop)) else None,
        # 15 copies of one paragraph: a loop, a paragraph repeated, and 45 occurrences of lines written 5+ times
        {Code.CONSECUTIVE_REPEATS, Code.PARAGRAPH_REPEATS, Code.REPEATED_LINES},
    )


def test_a_paragraph_written_four_times_in_a_row_is_fine(passing_rows: list[Row]) -> None:
    run(passing_rows, lambda r: after_think_open(r["completion"], "\n\n".join([PARAGRAPH] * 4)), set())


def test_a_long_line_repeated_twelve_times_in_a_row(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str | None:
        lines = [line for line in prose_lines(row["completion"], 150) if len(line) < 600]
        if not lines or len(row["completion"]) + 12 * len(lines[0]) > 70_000:
            return None
        return before_think_close(row["completion"], "\n".join([lines[0]] * 12))

    run(passing_rows, mutate, {Code.CONSECUTIVE_REPEATS}, exact=False)


SPELLED = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen".split()


@pytest.mark.parametrize("where", ["start", "end"])
def test_one_of_its_lines_looped_with_a_counter(passing_rows: list[Row], where: str) -> None:
    # One of the completion's own long lines written 16 times in a row, each copy numbered in words.
    def mutate(row: Row) -> str | None:
        lines = [line for line in prose_lines(row["completion"], 60) if len(line) < 400]
        if not lines or not small(row, 16 * len(lines[0])):
            return None
        copies = [f"Try {w}: {lines[0]}" if where == "start" else f"{lines[0]} (try {w})" for w in SPELLED]
        return after_think_open(row["completion"], "\n".join(copies))

    run(passing_rows, mutate, {Code.CONSECUTIVE_REPEATS}, exact=False)


def test_steps_numbered_in_words_are_fine(passing_rows: list[Row]) -> None:
    # The harmless look-alike: sixteen different steps, each opening with a step number spelled out.
    steps = [
        f"Step {w}: we bound the {WORDS[i]} term by the {WORDS[(i * 5 + 3) % 16]} estimate, then compare it with"
        f" the {WORDS[(i * 7 + 1) % 16]} case and keep the {WORDS[(i * 3 + 2) % 16]} factor."
        for i, w in enumerate(SPELLED)
    ]
    plan = "\n".join(steps)
    run(passing_rows, lambda r: after_think_open(r["completion"], plan) if small(r, len(plan)) else None, set())


def reword(line: str, i: int) -> str:
    """`line` with one word replaced near its start (odd `i`) or its end (even `i`): a different copy for each `i`."""
    words = line.split()
    at = min(1 + i % 4, len(words) - 1) if i % 2 else max(len(words) - 2 - i % 4, 0)
    words[at] = WORDS[i % 16] + words[at]
    return " ".join(words)


def test_reworded_near_copies_of_a_paragraph(passing_rows: list[Row]) -> None:
    # Fifteen copies of one of its own long lines, each reworded in one place, spread through the reasoning.
    def mutate(row: Row) -> str | None:
        lines = [line for line in prose_lines(row["completion"], 120) if len(line.split()) >= 12]
        text = row["completion"]
        completion = parse_completion(text)
        thinking = completion.thinking_span
        assert thinking is not None
        inside = [(b.start, b.end) for b in completion.thinking_blocks]
        gaps = [
            m.start()
            for m in re.finditer("\n\n", text[: thinking.end])
            if m.start() > thinking.start and not any(start <= m.start() < end for start, end in inside)
        ]
        if not lines or len(gaps) < 15 or not small(row, 15 * len(lines[0])):
            return None
        at = [gaps[i * len(gaps) // 15] for i in range(15)]
        pieces = [text[: at[0]]] + [text[a:b] for a, b in zip(at, [*at[1:], len(text)], strict=True)]
        return "".join(f"{piece}\n\n{reword(lines[0], i)}" for i, piece in enumerate(pieces[:-1])) + pieces[-1]

    run(passing_rows, mutate, {Code.NEAR_DUPLICATES}, exact=False)


def test_a_line_repeated_forty_times_between_the_thinking_and_the_code(passing_rows: list[Row]) -> None:
    line = "The proof above is complete and every step has been checked carefully."
    run(
        passing_rows,
        lambda r: r["completion"].replace("</think>", "</think>\n" + f"{line}\n" * 40, 1),
        {Code.REPEATED_LINES, Code.CONSECUTIVE_REPEATS},
        exact=False,
    )


# 2. Reasoning replaced by code.


def test_the_thinking_is_the_final_code_pasted_twice(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        code = final_code(row)
        thinking = f"Here is the proof.\n\n```tactics\n{code}\n```\n\nAgain:\n\n```tactics\n{code}\n```\n"
        return f"<think>\n{thinking}</think>\n```lean4\n{code}\n```"

    # Copied code, or (where the proof is short, so the copies are less than half the thinking) no reasoning left.
    run(passing_rows, mutate, {Code.COPIED_CODE, Code.REASONING_TOO_SHORT}, any_of=True, at_least=180)


# 3. Padding.


def small(row: Row, extra: int) -> bool:
    """Whether `extra` more characters still fit below the length limit (so only the padding rule can fire)."""
    return len(row["completion"]) + extra < 24_576 * 3.2 - 1_000


@pytest.mark.parametrize(
    "padding",
    [
        pytest.param(" " * 40_000, id="spaces"),
        pytest.param("\n" * 40_000, id="newlines"),
        pytest.param(" \n" * 20_000, id="blank-lines"),
    ],
)
def test_forty_thousand_whitespace_characters_in_the_thinking(passing_rows: list[Row], padding: str) -> None:
    run(
        passing_rows,
        lambda r: after_think_open(r["completion"], padding) if small(r, len(padding)) else None,
        {Code.WHITESPACE_PADDING},
    )


def test_fifty_thousand_whitespace_characters_after_the_code(passing_rows: list[Row]) -> None:
    run(
        passing_rows,
        lambda r: r["completion"] + " " * 50_000 if small(r, 50_000) else None,
        {Code.WHITESPACE_PADDING},
    )


def test_padding_counts_towards_the_length(passing_rows: list[Row]) -> None:
    for row in passing_rows[:20]:
        before = check_format(row["completion"]).metrics.tokens
        after = check_format(after_think_open(row["completion"], " " * 32_000)).metrics.tokens
        assert after - before == pytest.approx(10_000, abs=2)


def test_a_long_summary(passing_rows: list[Row]) -> None:
    summary = " ".join(f"{a} {b} is settled." for a in WORDS for b in WORDS[:8])  # 128 distinct sentences
    run(
        passing_rows,
        lambda r: r["completion"].replace("</think>", f"</think>\n{summary}\n", 1) if small(r, len(summary)) else None,
        {Code.SUMMARY_TOO_LONG},
    )


# 4. Broken structure.


def test_an_unclosed_tactic_fence(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        text = row["completion"]
        last = parse_completion(text).tactic_blocks[-1]
        fence_line = text.rindex("\n", last.start, last.end) + 1  # the closing fence line
        return text[:fence_line] + text[last.end + 1 :]

    run(passing_rows, mutate, {Code.FENCE_UNCLOSED}, exact=False)


# No word of these is a tactic name, so only the new rule can see them.
ENGLISH = (
    "  The sum of the squares is at least zero for every real.\n"
    "  It is enough to prove that the product is positive.\n"
    "  Then the result follows since both factors are positive."
)


def test_english_sentences_in_a_tactic_block(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str:
        text = row["completion"]
        block = parse_completion(text).tactic_blocks[0]
        end = block.body_start + len(block.text)
        return text[:end] + "\n" + ENGLISH + text[end:]

    run(passing_rows, mutate, {Code.TACTIC_BLOCK_PROSE})


# 5. Comment dumps in the verified code.


def test_the_reasoning_as_a_comment_above_the_theorem(passing_rows: list[Row]) -> None:
    def mutate(row: Row) -> str | None:
        completion = parse_completion(row["completion"])
        # The blank lines around the blocks the reasoning was cut from collapse, as a model writing a comment would.
        reasoning, code = re.sub(r"\n{3,}", "\n\n", completion.reasoning.strip()), final_code(row)
        if re.search(r"```|/-|-/", reasoning) or not small(row, len(reasoning)):
            return None  # the comment would end early, or the completion would be too long
        if len("".join(reasoning.split())) <= 1_000:
            return None  # no longer than a doc comment stating the problem, which is allowed
        statement = code.index(re.search(r"theorem\s", code).group())  # type: ignore[union-attr]
        return with_final_code(row, code[:statement] + f"/-\n{reasoning}\n-/\n" + code[statement:])

    # Since 0.19.0 the comment's lines that quote the prose count too (`max_proof_prose_comment_chars`).
    run(passing_rows, mutate, {Code.CODE_TOO_MANY_COMMENTS}, exact=False)


# Harmless variants of real completions still pass.


@pytest.fixture(scope="module")
def informal(data_dir: Path) -> dict[str, str]:
    """miniF2F's informal statement of each problem, as the `/-- ... -/` doc comment the dataset ships."""
    with open(data_dir / "minif2f.jsonl", encoding="utf-8") as f:
        return {row["name"]: row["informal_prefix"].strip() for row in map(json.loads, f)}


def _theorem(code: str) -> int:
    return code.index(re.search(r"theorem\s", code).group())  # type: ignore[union-attr]


def _respaced(code: str) -> str:
    """The code with the statement re-wrapped: a line break after the theorem name, spaces around `:` doubled."""
    start = _theorem(code)
    end = code.index(":=", start)
    statement = re.sub(r"^(theorem\s+\S+)", r"\1\n   ", code[start:end]).replace(" : ", "  :  ")
    return code[:start] + statement + code[end:]


HARMLESS: dict[str, Mutation] = {
    "crlf": lambda r: r["completion"].replace("\n", "\r\n"),
    "lean-fence": lambda r: r["completion"].replace("```lean4", "```lean"),
    "short-summary": lambda r: r["completion"].replace(
        "</think>", "</think>\nThe proof follows the plan above: the same steps, in order, in one block.\n", 1
    ),
    "helper-lemma": lambda r: with_final_code(
        r,
        final_code(r)[: _theorem(final_code(r))]
        + "lemma helper_nonneg (n : ℕ) : 0 ≤ n := Nat.zero_le n\n\n"
        + final_code(r)[_theorem(final_code(r)) :],
    ),
    "respaced-statement": lambda r: with_final_code(r, _respaced(final_code(r))),
}


@pytest.mark.parametrize("name", sorted(HARMLESS))
def test_harmless_variants_still_pass(passing_rows: list[Row], name: str) -> None:
    run(passing_rows, HARMLESS[name], set())


def test_the_problem_as_a_doc_comment_still_passes(passing_rows: list[Row], informal: dict[str, str]) -> None:
    def mutate(row: Row) -> str | None:
        doc, code = informal.get(row["name"]), final_code(row)
        return with_final_code(row, code[: _theorem(code)] + doc + "\n" + code[_theorem(code) :]) if doc else None

    run(passing_rows, mutate, set(), at_least=150)
    lengths = [len("".join(informal[r["name"]].split())) for r in passing_rows if r["name"] in informal]
    assert max(lengths) > 600  # the doc comments include the longest informal statement of miniF2F


def test_tactic_blocks_are_left_as_they_were(passing_rows: list[Row]) -> None:
    # The respacing edit changes only the final code: the statement in its tactic blocks is untouched.
    row = passing_rows[0]
    text = HARMLESS["respaced-statement"](row)
    assert text is not None
    assert parse_completion(text).tactic_blocks == parse_completion(row["completion"]).tactic_blocks
    assert split_lean(final_code(row)).body == split_lean(_respaced(final_code(row))).body
