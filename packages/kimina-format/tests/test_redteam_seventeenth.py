"""The seventeenth red team's finds, and the rules they called for (kimina-format 0.12.0).

The thinking written again from the top with a word added to each line kept the full score on 163 of 188 rows (no
group of copies is bigger than two); `Wait.` after every sentence inside the lines on 188 (no rule read a sentence in
the middle of a line); the reasoning copied sentence by sentence into comments between the proof's tactics on 112;
the final proof pasted seven times at the end of the thinking on 163; every tactic block written seven times back to
back on 117. Each attack edits real completions and asserts how few rows keep the full score; each look-alike, the
healthy edit beside it, that every row keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import (
    Edit,
    change_prose_lines,
    final_code_of,
    insert_after,
    prose_completion,
    prose_lines,
    red_team_tests,
    thinking_of,
    with_final_code,
    with_thinking,
)
from kimina_format.testing import RedTeamCase as Case

Row = dict[str, Any]
_FENCE = "`" * 3
_FILLERS = ["really", "actually", "indeed", "clearly", "now"]
_MAX_CHARS = 77_000  # under the length limit, so only the rule the case is about can fire


def _with_filler(line: str, i: int) -> str:
    """`line` with a filler word added inside it, at a place that moves from line to line."""
    words = line.split(" ")
    if len(words) < 4:
        return line
    at = (i * 7) % (len(words) - 1) + 1
    return " ".join(words[:at] + [_FILLERS[i % 5]] + words[at:])


def _started_over(change: Callable[[str, int], str], lead: str = "Wait, let me start over.") -> Edit:
    def edit(row: Row) -> Row | None:
        thinking = thinking_of(row["completion"]).strip("\n")
        text = with_thinking(row["completion"], f"{thinking}\n\n{lead}\n\n{change_prose_lines(thinking, change)}")
        return None if len(text) > _MAX_CHARS else {**row, "completion": text}

    return edit


def _drop_first_word(line: str, _: int) -> str:
    words = line.split(" ")
    return " ".join(words[1:]) if len(words) > 4 else line


_SENTENCE_END = re.compile(r"([.!?]) (?=[A-Z])")
# A sentence that ends in a word: after one that ends in a value (`= 12. Correct.`) a remark is a verdict.
_WORD_END = re.compile(r"(?<=[A-Za-z])([.!?]) (?=[A-Z])")


def _after_each_sentence(remark: str, least: int = 12) -> Edit:
    """`remark` after every sentence that ends in a word and that another follows on its line (rows with fewer than
    `least` such places are not applied)."""

    def edit(row: Row) -> Row | None:
        thinking = thinking_of(row["completion"])
        changed = change_prose_lines(thinking, lambda line, _: _WORD_END.sub(rf"\1 {remark} ", line))
        if changed.count(f" {remark} ") - thinking.count(f" {remark} ") < least:
            return None
        return {**row, "completion": with_thinking(row["completion"], changed)}

    return edit


def _said_twice(sentence: str) -> Edit:
    """`sentence` inside the first two lines that hold two sentences: what real prose does."""

    def edit(row: Row) -> Row | None:
        thinking, done = thinking_of(row["completion"]), [0]

        def change(line: str, _: int) -> str:
            if done[0] < 2 and _SENTENCE_END.search(line):
                done[0] += 1
                return _SENTENCE_END.sub(rf"\1 {sentence} ", line, count=1)
            return line

        changed = change_prose_lines(thinking, change)
        return None if done[0] < 2 else {**row, "completion": with_thinking(row["completion"], changed)}

    return edit


def _proof_lines(code: str) -> tuple[list[str], int]:
    """The final code's lines and the index of the first proof line (after the line ending in `:= by`)."""
    lines = code.split("\n")
    start = next((i + 1 for i, line in enumerate(lines) if line.rstrip().endswith(":= by")), len(lines))
    return lines, start


def _commented_proof(comment: Callable[[Row, int], str | None], least: int) -> Edit:
    """A comment `comment(row, k)` above proof line k of the final code, where it gives one (rows where it gives
    fewer than `least` are not applied)."""

    def edit(row: Row) -> Row | None:
        lines, start = _proof_lines(final_code_of(row["completion"]))
        out, added = lines[:start], 0
        for k, line in enumerate(lines[start:]):
            text = comment(row, k) if line.strip() else None
            if text:
                out.append(" " * (len(line) - len(line.lstrip())) + "-- " + text)
                added += 1
            out.append(line)
        return None if added < least else {**row, "completion": with_final_code(row["completion"], "\n".join(out))}

    return edit


def _thinking_sentence(row: Row, k: int) -> str | None:
    """The k-th sentence of 40 characters or more of the prose (no formula), cut at 60 characters."""
    sentences = [
        s[:60]
        for line in prose_lines(row["completion"], 40)
        for s in re.split(r"(?<=[.!?]) ", line)
        if len(s) >= 40 and not set(s) & set("$\\=`")
    ]
    return sentences[k] if len(sentences) > k else None


def _thinking_sentence_cut(size: int) -> Callable[[Row, int], str | None]:
    """`_thinking_sentence`, cut at `size` characters."""

    def sentence(row: Row, k: int) -> str | None:
        found = _thinking_sentence(row, k)
        return None if found is None else found[:size]

    return sentence


_PLAN = [
    "Simplify the hypotheses to get explicit values for the variables",
    "Substitute these values into the goal expression",
    "Expand and collect the terms of the resulting polynomial",
    "Use the nonnegativity of squares to bound the remainder",
    "Conclude the inequality by linear arithmetic",
    "Check the boundary case separately to finish the proof",
]


def _planned(steps: int, *, in_sentences: bool = False) -> Edit:
    """A plan of `steps` steps before the thinking, each step a comment above a proof line (proofs of 12 lines or more:
    on a shorter one six such labels are most of the proof, which `max_proof_comment_density` bounds). The plan is a
    numbered list, or one sentence (`in_sentences`)."""
    label = _commented_proof(lambda _, k: _PLAN[k] if k < steps else None, steps)
    if in_sentences:
        plan = "My plan for the formal proof: " + ", then ".join(_PLAN[i].lower() for i in range(steps)) + "."
    else:
        plan = "Plan for the proof:\n" + "\n".join(f"{i + 1}. {_PLAN[i]}." for i in range(steps))

    def edit(row: Row) -> Row | None:
        lines, start = _proof_lines(final_code_of(row["completion"]))
        if sum(1 for line in lines[start:] if line.strip()) < 12:
            return None
        thinking = thinking_of(row["completion"]).strip("\n")
        return label({**row, "completion": with_thinking(row["completion"], f"{plan}\n\n{thinking}")})

    return edit


def _proof_in_blocks(copies: int) -> Edit:
    """The final proof's tactic lines pasted as `copies` tactic blocks at the end of the thinking (proofs of 3 lines
    or more)."""

    def edit(row: Row) -> Row | None:
        lines, start = _proof_lines(final_code_of(row["completion"]))
        body = "\n".join(line for line in lines[start:] if line.strip())
        if body.count("\n") < 2:
            return None
        blocks = "\n\n".join(f"{_FENCE}tactics\n{body}\n{_FENCE}" for _ in range(copies))
        thinking = thinking_of(row["completion"]).rstrip("\n")
        return {
            **row,
            "completion": with_thinking(row["completion"], f"{thinking}\n\nThe proof once more:\n\n{blocks}"),
        }

    return edit


_BLOCK = re.compile(rf"{_FENCE}tactics\n.*?\n{_FENCE}", re.DOTALL)


def _each_block(copies: int) -> Edit:
    """Every tactic block of the thinking written `copies` times back to back."""

    def edit(row: Row) -> Row | None:
        thinking = thinking_of(row["completion"])
        changed = _BLOCK.sub(lambda m: "\n".join([m.group(0)] * copies), thinking)
        text = with_thinking(row["completion"], changed)
        return None if changed == thinking or len(text) > _MAX_CHARS else {**row, "completion": text}

    return edit


ATTACKS = {
    # Rows whose thinking has fewer than six long lines: written twice, fewer than twelve have a copy, too few to
    # judge a share on (a recap of five lines is as many).
    "the_thinking_again_with_a_word_added_to_each_line": Case(
        "max_reworded_line_share", _started_over(_with_filler), most_kept=9
    ),
    "the_thinking_again_without_the_first_word_of_each_line": Case(
        "max_reworded_line_share", _started_over(_drop_first_word), most_kept=9
    ),
    "wait_after_every_sentence_inside_the_lines": Case("max_mid_line_remarks", _after_each_sentence("Wait.")),
    "a_longer_remark_after_every_sentence": Case(
        "max_mid_line_remarks", _after_each_sentence("Hmm, let me double-check.")
    ),
    # Two rows quote sentences that are list items of the thinking, as a plan's steps are (not counted).
    "the_reasoning_as_comments_between_the_tactics": Case(
        "max_proof_prose_comment_chars", _commented_proof(_thinking_sentence, 5), most_kept=2
    ),
    # The nineteenth red team: sentences cut to 38 characters, under the 40 key bytes a quote had before 0.13.0.
    "the_reasoning_as_short_comments_between_the_tactics": Case(
        "max_proof_prose_comment_chars", _commented_proof(_thinking_sentence_cut(38), 5), most_kept=0
    ),
    "the_final_proof_pasted_five_times_at_the_end": Case("max_final_proof_copies", _proof_in_blocks(5)),
    "every_block_written_seven_times_back_to_back": Case("max_block_loop_repeats", _each_block(7)),
}

LOOK_ALIKES = {
    "three_lines_restated_with_a_word_added": Case(
        "max_reworded_line_share",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                thinking_of(row["completion"]).rstrip("\n")
                + "\n\nTo recap:\n"
                + "\n".join(
                    _with_filler(line, k)
                    for k, line in enumerate(
                        [
                            line
                            for line in change_prose_lines(thinking_of(row["completion"]), lambda line, _: line).split(
                                "\n"
                            )
                            if len(line) > 80 and _FENCE not in line
                        ][:3]
                    )
                ),
            ),
        },
    ),
    "a_remark_said_twice_inside_lines": Case("max_mid_line_remarks", _said_twice("Wait, that's not right.")),
    # `Correct.` after each value checked (the eighteenth red team): a verdict, not a remark.
    "correct_after_each_computation": Case(
        "max_mid_line_remarks",
        lambda row: {
            **row,
            "completion": insert_after(
                row["completion"],
                "Let me double-check the arithmetic: "
                + " ".join(f"{k} * 4 = {4 * k}. Correct." for k in range(1, 13))
                + " Good, everything checks out.",
            ),
        },
    ),
    # A plan listed in the thinking, its steps used as the proof's labels (the eighteenth red team).
    "a_plan_in_the_thinking_as_the_proofs_labels": Case("max_proof_prose_comment_chars", _planned(6)),
    # A plan written as sentences in the thinking, three of its steps the labels of the proof's first steps (the
    # twentieth red team): fewer than five quoted comments label steps.
    "a_plan_in_sentences_labelling_the_first_three_steps": Case(
        "max_proof_prose_comment_chars", _planned(3, in_sentences=True)
    ),
    # Comments of the proof's own, not the reasoning's: one above each of its first three steps.
    "labels_above_the_first_steps_of_the_proof": Case(
        "max_proof_prose_comment_chars",
        _commented_proof(
            lambda _, k: ["set up the bound", "the key estimate", "close the goal"][k] if k < 3 else None, 3
        ),
    ),
    # On 5 rows a long proof pasted twice outweighs a short reasoning (`max_copied_to_reasoning`) or the length
    # limit; none of them for its copies.
    # Since 0.16.0 copies fold the hypotheses' names: drafts with other names count, and two more rows lose the
    # score (a row with 3 such drafts already, one whose reasoning is short).
    "the_final_proof_pasted_twice_at_the_end": Case("max_final_proof_copies", _proof_in_blocks(2), most_lost=7),
    # ... and `mathd_algebra_440`, which tries its one-line proof in 6 blocks, so 12 (`max_short_proof_copies`).
    "every_block_written_twice": Case("max_block_loop_repeats", _each_block(2), most_lost=4),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)


def test_the_new_measures_report_over_their_bounds_only() -> None:
    remarks = " ".join(f"Line {k} holds a claim. Wait. So {k} is fine." for k in range(9))
    verdict = check_format(prose_completion(remarks))
    assert verdict.metrics.mid_line_remarks == 9 and ViolationCode.SHORT_LINE_REPEATS in verdict.codes
    few = " ".join(f"Line {k} holds a claim. Wait. So {k} is fine." for k in range(8))
    assert check_format(prose_completion(few)).metrics.mid_line_remarks == 0
    unbounded = FormatConfig(max_mid_line_remarks=None)
    assert check_format(prose_completion(remarks), config=unbounded).metrics.mid_line_remarks == 0


def test_a_thinking_started_over_is_reported() -> None:
    lines = [
        "First we expand the product on the left side and collect the terms of equal degree together.",
        "The constant term cancels against the right side, which leaves a quadratic in the variable x.",
        "Its discriminant is negative whenever the parameter lies strictly between the two given bounds.",
        "So the quadratic keeps one sign on the whole real line and we only need its value at zero.",
        "At zero the value is the square of the parameter plus one, which is positive for every choice.",
        "Hence the inequality is strict and equality can never hold for any real input whatsoever.",
        "In Lean the expansion is exactly what ring_nf does, and nlinarith then closes the remaining goal.",
        "We give nlinarith the square of x minus the parameter as a hint, since that is what the bound uses.",
        "The hypothesis about the parameter enters through a single call to the positivity extension.",
        "Before writing the final proof, let us double check the arithmetic of the discriminant by hand.",
        "Four times the product of the outer coefficients exceeds the square of the middle one by two.",
        "That confirms the sign, so the plan works and the formal proof should go through as written.",
    ]
    again = [_with_filler(line, i) for i, line in enumerate(lines)]
    verdict = check_format(prose_completion("\n".join(lines + again)))
    assert verdict.metrics.reworded_line_share == 1.0
    assert any("have a copy, word for word or changed at one place" in v.message for v in verdict.violations)
    # Lines changed at two places far apart (a new opening and a new ending) are no copies.
    apart = [f"Next, {line[0].lower()}{line[1:-1]} as well." for line in lines]
    assert check_format(prose_completion("\n".join(lines + apart))).metrics.reworded_line_share == 0.0
