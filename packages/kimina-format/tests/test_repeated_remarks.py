"""Short remarks said over and over (kimina-format 0.10.0): `max_repeated_remarks`.

A remark (`Wait.`, `Hmm, okay.`, `Let me check.`) after every line or two of the thinking stayed under every bound on
one line (`max_short_line_repeats`, 250), so `Wait.` after every prose line kept the full score on 147 of 188 rows,
ten remarks in turn after every line on every row that took them. The remarks written three times or more, on their
own lines or opening or closing one, are now counted all together, and `max_opener_share` bounds one word opening
line after line (`Wait, ...`), and since 0.11.0 two words (`Okay so ...`), after a bullet or a number too, or a
question closing them (`..., right?`), an enumeration's cases counted once. Each attack edits only the rows where it
adds more remarks than the bound plus a margin (the bound lets shorter thinkings keep up to 60 by design); each
look-alike, a healthy edit, must leave every row its score.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import Edit, prose_completion, red_team_tests, thinking_of, with_thinking
from kimina_format.testing import (
    RedTeamCase as Case,
)

Row = dict[str, Any]

# Remarks an attack adds, past the bound of 60: a row with more tactic blocks may lead into each with one.
_LEAST_ADDED = 90

_REMARKS = [
    "Wait.",
    "Hmm.",
    "Okay.",
    "Right.",
    "Let me see.",
    "Hmm, okay.",
    "Alright.",
    "Good.",
    "Yes.",
    "Let me think.",
]


def _prose_lines(change: Callable[[int, str], str], least: int) -> Edit:
    """Each prose line of the thinking (outside its fences) changed by `change(i, line)`, `i` counting them from 1;
    the rows of fewer than `least` such lines are not applied."""

    def edit(row: Row) -> Row | None:
        out, fenced, seen = [], False, 0
        for line in thinking_of(row["completion"]).split("\n"):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced and line.strip():
                seen += 1
                line = change(seen, line)
            out.append(line)
        if seen < least:
            return None
        return {**row, "completion": with_thinking(row["completion"], "\n".join(out))}

    return edit


def _before_lines(remark: Callable[[int], str], every: int = 1) -> Edit:
    """`remark(i)` on a line of its own before every `every`-th prose line of the thinking (so that none leads into a
    block); the rows where that adds fewer than `_LEAST_ADDED` remarks are not applied."""
    return _prose_lines(lambda i, line: f"{remark(i)}\n{line}" if i % every == 0 else line, least=_LEAST_ADDED * every)


def _on_lines(change: Callable[[str], str]) -> Edit:
    """Every prose line of the thinking changed by `change`; the rows of fewer than `_LEAST_ADDED` are not applied."""
    return _prose_lines(lambda _, line: change(line), least=_LEAST_ADDED)


def _every_second_line(opening: str) -> Edit:
    """`opening` before every second prose line of the thinking (rows of fewer than `_LEAST_ADDED` lines aside)."""
    return _prose_lines(lambda i, line: opening + line if i % 2 else line, least=_LEAST_ADDED)


def _at_random(choices: list[str]) -> Callable[[int], str]:
    pick = random.Random(7).choice
    return lambda _: pick(choices)


ATTACKS: dict[str, Case] = {
    "wait_after_every_line": Case("max_repeated_remarks", _before_lines(lambda _: "Wait.")),
    "three_remarks_in_turn_after_every_second_line": Case(
        "max_repeated_remarks",
        _before_lines(lambda i: _REMARKS[i % 3], every=2),
        most_kept=1,  # a row of 66 blocks: a remark among the two lines before a block leads into it
    ),
    "ten_remarks_at_random_after_every_line": Case("max_repeated_remarks", _before_lines(_at_random(_REMARKS))),
    "a_remark_with_a_counter": Case(
        "max_repeated_remarks",
        _before_lines(lambda i: f"Check {i}."),
        xfail="a line with a value is no remark (`27 is not a square.` ends an enumeration's cases); each key stays"
        " under max_short_line_repeats",
    ),
    "remarks_wrapped_in_markup": Case(
        "max_repeated_remarks", _before_lines(lambda i: ("*Wait.*", "**Hmm.**", "> Okay.", "(Right.)")[i % 4])
    ),
    "chinese_remarks": Case("max_repeated_remarks", _before_lines(lambda i: ("等等。", "嗯，对。", "好的。")[i % 3])),
    "a_check_mark_after_every_line": Case("max_repeated_remarks", _before_lines(lambda _: "✓")),
    # Said within the lines: a sentence that opens or closes each line.
    "hmm_wait_opening_every_line": Case("max_repeated_remarks", _on_lines(lambda line: "Hmm, wait. " + line)),
    "wait_closing_every_line": Case("max_repeated_remarks", _on_lines(lambda line: line + " Wait.")),
    # One word opening line after line, before a comma, a dash or an ellipsis: no remark, a share.
    "wait_comma_opening_every_line": Case("max_opener_share", _on_lines(lambda line: "Wait, " + line)),
    # Every second line: kept where it opens fewer than 40 lines that do not end in a colon (the floor).
    "hmm_ellipsis_opening_every_second_line": Case("max_opener_share", _every_second_line("Hmm… "), most_kept=11),
    "five_openers_in_turn": Case(
        "max_opener_share",
        _prose_lines(
            lambda i, line: ("Wait, ", "Hmm, ", "Okay, ", "Wait, so ", "Hmm, wait, ")[i % 5] + line, least=_LEAST_ADDED
        ),
        most_kept=19,  # thinkings where `Wait,` (two lines in five) opens fewer than 40 lines not ending in a colon
    ),
    # Two words opening line after line with no punctuation, and a question closing line after line.
    "okay_so_opening_every_line": Case("max_opener_share", _on_lines(lambda line: "Okay so " + line)),
    "hmm_wait_opening_every_second_line": Case("max_opener_share", _every_second_line("Hmm wait "), most_kept=14),
    "numbered_wait_opening_every_line": Case(
        "max_opener_share", _prose_lines(lambda i, line: f"{i}. Wait, {line}", least=_LEAST_ADDED)
    ),
    "listed_okay_so_opening_every_line": Case("max_opener_share", _on_lines(lambda line: "- Okay so " + line)),
    "right_closing_every_line": Case("max_opener_share", _on_lines(lambda line: line + ", right?")),
    "isnt_it_closing_every_line": Case("max_opener_share", _on_lines(lambda line: line.rstrip(".") + " — isn't it?")),
    "longer_remarks_in_turn": Case(
        "max_repeated_remarks",
        _before_lines(
            lambda i: ("Let me double check this step.", "Hmm, that seems right to me.", "Okay, let me go on.")[i % 3],
            every=2,
        ),
        most_kept=1,  # a row of 66 blocks: a remark among the two lines before a block leads into it
    ),
}


def _before_the_thinking(text: str) -> Edit:
    return lambda row: {
        **row,
        "completion": with_thinking(row["completion"], text + "\n\n" + thinking_of(row["completion"])),
    }


LOOK_ALIKES: dict[str, Case] = {
    # A lead-in before each of many blocks counts once less for each block it leads into.
    "a_lead_in_before_seventy_blocks": Case(
        "max_repeated_remarks",
        _before_the_thinking(
            "\n\n".join(
                f"In Lean 4:\n```tactics\nhave h{name} : (0 : ℝ) ≤ {name} ^ 2 := by positivity\n```\n"
                f"So ${name}^2 \\ge 0$ holds."
                for name in [a + b for a in "bdfgklmnprst" for b in "aeiouy"][:70]
            )
        ),
        most_lost=1,  # a row whose final code uses no `have` or `positivity`: the alignment rule
    ),
    # Labels with a value and values are not remarks: `For n = 3:`, `**Case 3:**`, `d (5): odd`.
    "an_enumeration_of_seventy_cases": Case(
        "max_repeated_remarks",
        _before_the_thinking(
            "\n".join(f"**Case {k}:**\nFor n = {k}:\n{k * k % 7} is not 0 mod 7." for k in range(1, 71))
        ),
    ),
    "values_labelled_odd_and_even": Case(
        "max_repeated_remarks",
        _before_the_thinking("\n".join(f"d ({k}): {('even', 'odd')[k % 2]}" for k in range(80))),
    ),
    # Remarks said twice each are no loop, however many there are.
    "forty_remarks_each_said_twice": Case(
        "max_repeated_remarks",
        _before_the_thinking(
            "\n\n".join(f"Okay: case {a}{b} holds." for a in "bdfgklmp" for b in "aeiou" for _ in range(2))
        ),
    ),
    # A connector on its own line before each formula ends in a colon: it leads into what follows.
    "connectors_on_their_own_line": Case(
        "max_repeated_remarks",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                re.sub(r"(?m)^(So|Thus|Then|Therefore|Hence|Now) (?=\$)", r"\1:\n", thinking_of(row["completion"])),
            ),
        },
    ),
    # A verdict that goes on from a formula is no remark, even as it closes a line: 80 of them (two per case, 40
    # cases, each line under max_medium_line_repeats) open the gate, and the lines with their case do not count.
    "an_enumeration_of_verdicts_after_formulas": Case(
        "max_repeated_remarks",
        _before_the_thinking(
            "\n".join(
                f"$n = {k}$: ${k}^2 + 1 = {k * k + 1}$ is not prime.\n$n + 1 = {k + 1}$ is even." for k in range(40)
            )
        ),
    ),
    # Lean names in the prose are no sentences (`Real.sqrt`, `Nat.Prime`), however many lines they open.
    "lean_names_opening_seventy_lines": Case(
        "max_repeated_remarks",
        _before_the_thinking(
            "\n".join(
                f"Real.sqrt ({name} * p + 1) ≥ Real.sqrt {name}, and Nat.Prime {name} or not."
                for name in [a + b for a in "bdfgklmnprst" for b in "aeiouy"][:70]
            )
        ),
    ),
    # `Wait,` opens up to 12% of a real thinking's lines; one line in ten more keeps the share under a quarter.
    "wait_comma_opening_every_tenth_line": Case(
        "max_opener_share", _prose_lines(lambda i, line: "Wait, " + line if i % 10 == 0 else line, least=0)
    ),
    # Cases of an enumeration open with a word and a value (`Trying n = 3`), and close with a verdict that is no
    # question (`, which is even.`), however many there are.
    "an_enumeration_of_seventy_cases_opening_and_closing_alike": Case(
        "max_opener_share",
        _before_the_thinking(
            "\n".join(f"Trying n = {k}: n^2 + 1 = {k * k + 1}, which is {('odd', 'even')[k % 2]}." for k in range(70))
        ),
    ),
    # The cases of an enumeration, each opened by one lead phrase and its value: an enumeration, not a tic.
    "fifty_cases_opened_by_let_me_try": Case(
        "max_opener_share",
        _before_the_thinking(
            "\n".join(
                f"Let me try n = {k}: n^2 + 1 = {k * k + 1}, which is {('even', 'odd')[k % 2]}." for k in range(50)
            )
        ),
    ),
    "forty_cases_opened_by_similarly": Case(
        "max_opener_share",
        _before_the_thinking(
            "\n".join(f"Similarly, n = {k} gives {k * k + 1}, {('even', 'odd')[k % 2]}." for k in range(40))
        ),
    ),
    # A stock remark, a few dozen times across the thinking, stays under the bound.
    "let_me_verify_thirty_times_between_paragraphs": Case(
        "max_repeated_remarks",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                thinking_of(row["completion"]).replace("\n\n", "\n\nLet me verify.\n\n", 30),
            ),
        },
    ),
}


test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)


def test_the_measure_counts_remarks_written_three_times_or_more() -> None:
    config = FormatConfig(max_repeated_remarks=0)
    lines = ["Wait."] * 5 + ["Hmm, okay!"] * 3 + ["Let me see:"] * 2 + ["x = 3."] * 9 + ["So 1 + 1 = 2 here."] * 4
    prose = "\n".join(f"$a_{{{k}}} = {k * k}$\n{line}" for k, line in enumerate(lines))
    # `Wait.` 5 and `Hmm, okay!` 3; `Let me see:` only twice; a value and a formula are no remarks.
    assert check_format(prose_completion(prose), config=config).metrics.repeated_remarks == 8
    # A line with a value is no remark, the value the same or not.
    counted = "\n".join(f"Wait.\n$a_{{{k}}} = {k * k}$\n{k % 2} is fine." for k in range(4))
    assert check_format(prose_completion(counted), config=config).metrics.repeated_remarks == 4


def test_remarks_said_within_lines() -> None:
    config = FormatConfig(max_repeated_remarks=0)
    opening = "\n".join(f"Hmm, wait. So $a_{{{k}}} = {k * k}$ here." for k in range(5))
    assert check_format(prose_completion(opening), config=config).metrics.repeated_remarks == 5
    # A closing one must start a sentence of its own: `$a_3 = 9$ Wait.`, not `$n = 3$ is odd.`.
    closing = "\n".join(f"So $a_{{{k}}} = {k * k}$ Wait.\nAnd ${k}$ is odd." for k in range(5))
    assert check_format(prose_completion(closing), config=config).metrics.repeated_remarks == 5
    # Remarks twice each, wrapped in markup, in Chinese, and a check mark, three times each.
    lines = ["*Wait.*", "等等。", "✓", "Hmm."] * 3 + ["Yes."] * 2
    prose = "\n".join(f"$a_{{{k}}} = {k * k}$\n{line}" for k, line in enumerate(lines)) + "\n$b = 0$"
    assert check_format(prose_completion(prose), config=config).metrics.repeated_remarks == 12


def test_the_opener_share() -> None:
    # 45 of 60 lines open with `Wait,`; 15 with `So,`, under the 40 lines from which a share is measured.
    prose = "\n".join(f"{('Wait,', 'Wait,', 'Wait,', 'So,')[k % 4]} the term $a_{{{k}}} = {k * k}$" for k in range(60))
    verdict = check_format(prose_completion(prose))
    assert verdict.metrics.opener_share == 45 / 60
    assert any("75% of the prose lines open or close alike" in v.message for v in verdict.violations)
    shorter = "\n".join(f"Wait, the term $a_{{{k}}} = {k * k}$" for k in range(39))
    assert check_format(prose_completion(shorter)).metrics.opener_share == 0.0
    colons = "\n".join(f"Note: the term $a_{{{k}}} = {k * k}$" for k in range(60))  # a colon ends a lead-in
    assert check_format(prose_completion(colons)).metrics.opener_share == 0.0
    lead_ins = "\n".join(f"Next, the term $a_{{{k}}}$ in Lean:" for k in range(60))  # so does a line that ends in one
    assert check_format(prose_completion(lead_ins)).metrics.opener_share == 0.0
    # Measured only over the bound: 10 lines in 60 of `Wait,` are fine.
    few = "\n".join(
        f"Wait, the term $a_{{{k}}} = {k * k}$" if k % 6 == 0 else f"$a_{{{k}}} = {k * k}$ is the next term"
        for k in range(240)
    )
    assert check_format(prose_completion(few)).metrics.opener_share == 0.0
    # Two words opening every line, after a bullet or a number too, and a question closing every line.
    two_words = "\n".join(f"{('', '- ', f'{k}. ')[k % 3]}Okay so the term $a_{{{k}}} = {k * k}$" for k in range(50))
    assert check_format(prose_completion(two_words)).metrics.opener_share == 1.0
    questions = "\n".join(f"$a_{{{k}}} = {k * k}$ — right?" for k in range(50))
    verdict = check_format(prose_completion(questions))
    assert verdict.metrics.opener_share == 1.0
    assert any("100% of the prose lines open or close alike" in v.message for v in verdict.violations)
    # An enumeration's cases open alike, a value among the first characters, and close with a statement.
    for lead in ("Trying", "Let me try", "Similarly,", "Now for", "If we take"):
        cases = "\n".join(f"{lead} n = {k}: we get {k * k + 1}, which is odd." for k in range(50))
        assert check_format(prose_completion(cases)).metrics.opener_share == 0.0, lead
    assert check_format(prose_completion(prose), config=FormatConfig(max_opener_share=None)).metrics.opener_share == 0.0


def test_a_lead_in_counts_once_less_for_each_block() -> None:
    config = FormatConfig(max_repeated_remarks=0)
    blocks = "\n".join(f"Let me write it.\n```tactics\nnorm_num [h{k}]\n```\n$x = {k}$" for k in range(6))
    assert check_format(prose_completion(blocks), config=config).metrics.repeated_remarks == 0
    # The same line between other prose lines is a remark again (a block takes the last two lines before it).
    spread = "\n".join(f"Let me write it.\n$x = {k}$" for k in range(6)) + "\n$y = 0$"
    assert check_format(prose_completion(spread), config=config).metrics.repeated_remarks == 6


def test_the_bound_and_its_switch() -> None:
    # The last `Wait.` leads into the tactic block: it counts once less.
    prose = "\n".join(f"$a_{{{k}}} = {k * k}$\nWait." for k in range(62))
    verdict = check_format(prose_completion(prose))
    assert verdict.metrics.repeated_remarks == 61
    assert any("occur 61 times in all (limit 60)" in v.message for v in verdict.violations)
    unbounded = FormatConfig(max_repeated_remarks=None)
    assert check_format(prose_completion(prose), config=unbounded).metrics.repeated_remarks == 0
    within = check_format(prose_completion(prose), config=FormatConfig(max_repeated_remarks=61))
    assert ViolationCode.SHORT_LINE_REPEATS not in within.codes
