"""A passage looped with a counter in each copy (kimina-format 0.12.0): `max_short_consecutive_repeats` sees it.

A few lines written 12 times in a row, each copy after a line `Pass 3.`, kept the full score on every real row: the
loops of short lines are confirmed digit for digit (so that `n = 3`, `n = 4` stays an enumeration), and the counter
made every copy differ; `Pass three.` hid it from the keys as well. A line seen more than 10 times at one distance
now marks a loop whose copies are alike but for a counter or a line that changes: the lines alike in every copy must
hold 24 key bytes and two thirds of the copy. Copies that differ by a counter are bounded as alike lines in a row
are (10, not 6): the cases of an enumeration may share a verdict. Cases that hold a value besides their number stay
cases at any count. A copy of one line is a loop since 0.14.0 when its counter labels it (`Attempt 3:`, `3.`,
`(check 3)`): twelve cases may share a verdict, long or short, and their value stands in a formula or a sentence
(`- If x ≡ 3 (mod 13), then ...`). Each attack edits real completions; each look-alike, a healthy edit, must leave
every row its score.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import Edit, insert_after, prose_completion, prose_lines, red_team_tests
from kimina_format.testing import RedTeamCase as Case

Row = dict[str, Any]
_SPELLED = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen".split()
_FENCE = "`" * 3


def _looped(copy: Callable[[int, list[str]], str], lines: int = 3, *, sep: str = "\n") -> Edit:
    """Copies `copy(k, real)` for k = 1, 2, ... (12 of them) after `<think>`, `real` being `lines` distinct prose lines of
    the row of 40 to 200 key bytes (sentences, as a loop of the reasoning holds)."""

    def edit(row: Row) -> Row | None:
        real = prose_lines(row["completion"], 40, 200, distinct=True)[:lines]
        if len(real) < lines:
            return None
        text = insert_after(row["completion"], sep.join(copy(k, real) for k in range(1, 13)))
        return None if text is None else {**row, "completion": text}

    return edit


_FILLER = [
    "The bound holds, so let me verify the inequality once more to be sure",
    "The substitution is consistent with the hypothesis, so the step goes through",
    "This confirms the estimate for the remaining terms of the sum as well",
    "The final expression simplifies to the same value as computed before",
    "Nothing changes in the argument, so the conclusion remains the same",
    "So the inequality is preserved when we pass to the next index",
    "The remainder is still nonnegative, which is what we needed here",
    "Checking the sign of each factor again gives the same answer",
    "The case analysis above covers this situation completely",
    "We can therefore continue with the same reasoning as before",
]


_VERDICTS = [
    "n^2 - n is even, as expected.",
    "n^3 - n is divisible by 3, as expected.",
    "n^2 + n + 1 is odd, as expected here.",
    "2^n is larger than n, as the claim says.",
    "n! is at least n, as the claim says.",
    "the sum of the first n odd numbers is a square.",
]


def _subscript(k: int) -> str:
    return str(k).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _cases(case: Callable[[int], str], sep: str = "\n", count: int = 12) -> Edit:
    """`count` cases `case(k)` of an enumeration after `<think>`."""

    def edit(row: Row) -> Row | None:
        text = insert_after(row["completion"], sep.join(case(k) for k in range(1, count + 1)))
        return None if text is None else {**row, "completion": text}

    return edit


def _split_by_a_block(row: Row) -> Row | None:
    """22 copies of a counted passage with a tactic block after the eleventh: 11 copies on each side."""
    real = prose_lines(row["completion"], 40, 200, distinct=True)[:2]
    if len(real) < 2:
        return None
    copies = [f"Pass {k}.\n" + "\n".join(real) for k in range(1, 23)]
    copies.insert(11, f"{_FENCE}tactics\n  norm_num\n{_FENCE}")
    text = insert_after(row["completion"], "\n".join(copies))
    return None if text is None else {**row, "completion": text}


ATTACKS = {
    "a_numbered_pass_before_each_copy": Case(
        "consecutive_repeats", _looped(lambda k, real: f"Pass {k}.\n" + "\n".join(real))
    ),
    "a_spelled_counter_before_each_copy": Case(
        "consecutive_repeats", _looped(lambda k, real: f"Attempt {_SPELLED[k - 1]}:\n" + "\n".join(real), 2)
    ),
    "a_counter_on_every_line": Case(
        "consecutive_repeats", _looped(lambda k, real: "\n".join(f"({k}) {line}" for line in real))
    ),
    "a_counter_inside_a_line_of_the_copy": Case(
        "consecutive_repeats",
        _looped(lambda k, real: f"{real[0]} (check {k})\n" + "\n".join(real[1:])),
    ),
    "one_line_after_each_counter": Case("consecutive_repeats", _looped(lambda k, real: f"Pass {k}.\n{real[0]}", 1)),
    "copies_apart_with_a_counter_at_their_end": Case(
        "consecutive_repeats", _looped(lambda k, real: "\n".join(real) + f"\n(round {k})", sep="\n\n")
    ),
    "a_block_in_the_middle_of_the_loop": Case("consecutive_repeats", _split_by_a_block),
    # The copies numbered as one running list, `1.` to `3.`, then `4.` to `6.` (the eighteenth red team).
    "a_list_numbered_across_the_copies": Case(
        "consecutive_repeats",
        _looped(lambda k, real: "\n".join(f"{3 * k - 2 + i}. {line}" for i, line in enumerate(real))),
    ),
    # One line (a sentence, 40 key bytes or more) with a counter that labels it, 12 times in a row (the seventeenth
    # and twenty-first red teams). Since 0.14.0 a copy may be one line of 60 key bytes or more when its counter is a
    # label (`_labels`): the rows whose copy is shorter (1, 2 or 4, by the label's length) keep the full score.
    "a_long_line_with_a_counter_in_a_row": Case(
        "consecutive_repeats", _looped(lambda k, real: f"Attempt {k}: {max(real, key=len)}", 3), most_kept=1
    ),
    "a_long_line_with_a_counter_at_its_end": Case(
        "consecutive_repeats", _looped(lambda k, real: f"{max(real, key=len)} (check {k})", 3), most_kept=2
    ),
    "a_long_line_numbered_with_blank_lines_between": Case(
        "consecutive_repeats", _looped(lambda k, real: f"{k}. {max(real, key=len)}", 3, sep="\n\n"), most_kept=4
    ),
    "a_shorter_line_with_a_counter_in_a_row": Case(
        "consecutive_repeats",
        _looped(lambda k, real: f"Attempt {k}: {min(real, key=len)}", 3),
        xfail="HOLE: one line of under 60 key bytes with a counter that labels it, 12 times in a row, reads as a"
        " dozen periods or cases listed with one short shared sentence (`Month 3: she deposits the same $100 into the"
        " account.`, 40 key bytes; the twenty-third red team showed a bound from 24 key bytes rejecting such lists on"
        " 188 of 188 rows): 99 of 188 rows keep the full score; past 60 lines in such runs, `max_counted_lines`",
    ),
    # Subscript digits are digits (the twenty-second red team: `Then x₃ is positive, ...` 199 times kept the full score
    # on 183 of 188 rows, `Attempt ₃: ...` 100 times on 45 of 47): the keys drop them as they drop ASCII digits.
    "a_subscript_index_on_199_lines": Case(
        "repeated_lines",
        _cases(lambda k: f"Then x{_subscript(k)} is positive, so the bound holds for it as well.", count=199),
    ),
    "a_line_with_its_counter_in_subscripts": Case(
        "consecutive_repeats",
        _cases(lambda k: f"Attempt {_subscript(k)}: we check the whole argument again.", count=70),
    ),
    # Ten sentences, each written 19 times in a row with a counter that labels no line (the twenty-second red team:
    # 179 of 188 rows kept the full score); `max_counted_lines` bounds such runs all together.
    "ten_sentences_each_19_times_with_a_counter_inside": Case(
        "consecutive_repeats", _cases(lambda k: f"{_FILLER[k // 19 % 10]} (i={k % 19 + 1}).", count=190)
    ),
    "seven_sentences_each_10_times_with_a_counter_at_the_end": Case(
        "consecutive_repeats", _cases(lambda k: f"{_FILLER[k // 10 % 10]}, pass {k % 10 + 1}.", count=70)
    ),
    "a_line_with_its_counter_of_twelve": Case(
        "consecutive_repeats", _looped(lambda k, real: f"- **Try {k} of 12.** {max(real, key=len)}", 3), most_kept=1
    ),
}

LOOK_ALIKES = {
    # Each case holds its value besides its number, and one verdict closes each.
    "cases_each_closed_by_one_verdict": Case(
        "consecutive_repeats", _cases(lambda k: f"- n = {k}: {k}^3 + 1 = {k**3 + 1}\nThis is not divisible by 7.")
    ),
    "cases_apart_with_a_long_verdict_in_each": Case(
        "consecutive_repeats",
        _cases(
            lambda k: f"Case n = {k}:\nThen n^2 + 1 = {k * k + 1}, which is not divisible by 4 because it is odd.",
            "\n\n",
        ),
    ),
    "values_of_a_table_one_per_line": Case(
        "consecutive_repeats",
        _cases(lambda k: f"When t = {k}, the left side is {3 * k + 1} and the right side is {k * k}."),
    ),
    # Cases that share their verdict (the eighteenth red team), up to the template bound: ten of one line, nine of
    # two (ten long verdicts break `max_often_repeated_lines` on a row that repeats long lines already).
    "ten_residues_sharing_one_verdict": Case(
        "consecutive_repeats",
        _cases(lambda k: f"If n ≡ {k} (mod 11), then n^10 ≡ {k}^10 ≡ 1 (mod 11) by Fermat's little theorem.", count=10),
    ),
    "cases_of_two_lines_sharing_a_verdict": Case(
        "consecutive_repeats",
        _cases(
            lambda k: (
                f"Case {k}:\nSubstituting gives an equation with no integer solution, so this case is impossible."
            ),
            count=9,
        ),
    ),
    # One line per case or index, alike but for it: twelve cases sharing a verdict (the twentieth red team).
    "twelve_values_sharing_one_verdict": Case(
        "consecutive_repeats", _cases(lambda k: f"- $x = {k}$: not a solution, since the left side is odd.")
    ),
    # Cases sharing a long verdict: the case's value stands in a formula or a sentence, not as the line's label (the
    # twenty-first red team's false rejects of a first bound on lines of 80 key bytes or more, 94 of 94 rows each).
    "twelve_residues_sharing_a_long_verdict": Case(
        "consecutive_repeats",
        _cases(
            lambda k: (
                f"- If x ≡ {k} (mod 13), then x^4 + 1 is not congruent to 0 modulo 13, so this residue gives no"
                " solution to the equation."
            )
        ),
    ),
    "twelve_values_excluded_for_one_reason": Case(
        "consecutive_repeats",
        _cases(
            lambda k: (
                f"- For n = {k + 36}, n is not a perfect square, so the square root of n is irrational and this"
                " value of n is excluded."
            )
        ),
    ),
    "a_day_by_day_simulation": Case(
        "consecutive_repeats",
        _cases(
            lambda k: (
                f"Day {k}: the snail climbs 3 meters up during the day and slides 2 meters back down at night,"
                f" ending the day at {k} meters."
            )
        ),
    ),
    "thirteen_cases_after_interval_cases": Case(
        "consecutive_repeats",
        _cases(
            lambda k: (
                f"- Case x = {k - 1}: substituting gives a purely numerical statement, which norm_num can decide"
                " directly, and it is false here."
            ),
            count=13,
        ),
    ),
    "a_table_of_eleven_rows_sharing_a_reason": Case(
        "consecutive_repeats",
        _cases(
            lambda k: (
                f"| {k} | {k} mod 12 is nonzero, hence the clock hand is not back at the starting position"
                " after this many steps | no |"
            ),
            count=11,
        ),
    ),
    "bold_cases_apart_sharing_a_verdict": Case(
        "consecutive_repeats",
        _cases(
            lambda k: (
                f"**Case n = {k}.** Here n is strictly less than the threshold, so the inequality in the"
                " hypothesis fails and the case is impossible."
            ),
            "\n\n",
        ),
    ),
    "twelve_values_sharing_a_long_verdict": Case(
        "consecutive_repeats",
        _cases(
            lambda k: (
                f"- For $n = {k}$, the expression $n^2 + n + 1$ is odd, so it cannot equal the even right-hand side."
            )
        ),
    ),
    "twelve_residues_sharing_one_verdict": Case(
        "consecutive_repeats",
        _cases(lambda k: f"If n ≡ {k} (mod 13), then n^12 ≡ {k}^12 ≡ 1 (mod 13) by Fermat's little theorem."),
    ),
    "twelve_terms_positive_for_one_reason": Case(
        "consecutive_repeats",
        _cases(lambda k: f"- $k = {k}$: the term $a_{k}$ is positive because every factor in its product is positive."),
    ),
    # Three enumerations of a dozen or so cases, each sharing its verdict: 37 lines in runs (`max_counted_lines` 60).
    "three_enumerations_sharing_their_verdicts": Case(
        "consecutive_repeats",
        _cases(
            lambda k: [
                f"- If x ≡ {k} (mod 13), then x^4 + 1 is not congruent to 0 modulo 13, so it gives no solution.",
                f"- Case y = {k - 13}: substituting gives a numerical statement, which norm_num decides, and it is false.",
                f"- For n = {k - 25}, the left side is odd while the right side is even, so n is excluded.",
            ][(k > 12) + (k > 25)],
            count=37,
        ),
    ),
    # The twenty-third red team's false rejects of the first bounds (every row each): a dozen periods listed with one
    # short shared sentence each (a one-line copy counts from 60 key bytes on), several enumerations adding up past
    # 40 lines, and tables or computations whose numbers step apart (`max_counted_lines` reads one number a line).
    "the_months_of_a_year": Case(
        "consecutive_repeats", _cases(lambda k: f"Month {k}: she deposits the same $100 into the account.")
    ),
    "a_dozen_cases_by_the_same_argument": Case(
        "consecutive_repeats", _cases(lambda k: f"Case {k}: the same argument as above works verbatim.")
    ),
    "eleven_numbered_steps_alike": Case(
        "consecutive_repeats", _cases(lambda k: f"{k}. Apply the induction hypothesis and simplify the sum.", count=11)
    ),
    "six_properties_checked_for_n_up_to_7": Case(
        "consecutive_repeats",
        _cases(lambda k: f"- n = {(k - 1) % 7 + 1}: {_VERDICTS[(k - 1) // 7]}", count=42),
    ),
    # Three computations of 21 steps each (63 lines), whose numbers step apart: no counter.
    "three_computations_written_out": Case(
        "consecutive_repeats",
        _cases(
            lambda k: [
                f"For k = {k}, the term 1/({k}*{k + 1}) equals 1/{k} - 1/{k + 1}.",
                f"Day {k - 21}: the snail starts at {k - 22} m and climbs to {k - 19} m.",
                f"- x = {k - 42}: y can be 0, 1, ..., {k - 42}, giving {k - 41} values.",
            ][(k - 1) // 21],
            count=63,
        ),
    ),
    "one_line_per_term_x_k": Case(
        "consecutive_repeats", _cases(lambda k: f"- x_{k} is positive because it is a sum of positive terms.", count=13)
    ),
    "one_line_per_hypothesis_h_k": Case(
        "consecutive_repeats", _cases(lambda k: f"We do not need the hypothesis h{k} for this goal at all.", count=13)
    ),
    # A list that maps each index alike: short lines, whose copies one line at a time are no loop.
    "each_index_mapped_alike": Case(
        "consecutive_repeats", _cases(lambda k: f"- Lean's $a {k}$ is the problem's $a_{{{k}}}$")
    ),
    # Steps numbered within a numbered part: the part's number is the only one that changes between the parts.
    "the_same_two_steps_done_for_nine_parts": Case(
        "consecutive_repeats",
        _cases(
            lambda k: (
                f"Part {k}.1: we expand the product for the {_SPELLED[k - 1]}th term and collect like terms.\n"
                f"Part {k}.2: we check that the result agrees with the value computed for the previous term."
            ),
            count=9,
        ),
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)


_COPY = [
    "The sum of the three terms is at most 12 here, by the bound above.",
    "So the bound holds and we can go on with the rest of the proof.",
]


def _counted(copies: int, counter: Callable[[int], str] = lambda k: f"Pass {k}.") -> str:
    return "\n".join(counter(k) + "\n" + "\n".join(_COPY) for k in range(1, copies + 1))


def test_a_counted_loop_is_measured_over_the_bound_only() -> None:
    assert check_format(prose_completion(_counted(12))).metrics.short_consecutive_repeats >= 11
    spelled = check_format(prose_completion(_counted(12, lambda k: f"Try {_SPELLED[k]}:")))
    assert spelled.metrics.short_consecutive_repeats >= 11
    # Copies that differ by a counter are bounded as alike lines in a row are (`max_template_repeats`, 10): the
    # cases of an enumeration may share a verdict.
    at_the_bound = check_format(prose_completion(_counted(10)))
    assert at_the_bound.metrics.short_consecutive_repeats == 0
    assert ViolationCode.CONSECUTIVE_REPEATS not in at_the_bound.codes
    unbounded = FormatConfig(max_short_consecutive_repeats=None)
    assert check_format(prose_completion(_counted(12)), config=unbounded).metrics.short_consecutive_repeats == 0


def test_a_counted_loop_is_reported() -> None:
    verdict = check_format(prose_completion(_counted(12)))
    assert ViolationCode.CONSECUTIVE_REPEATS in verdict.codes
    assert any("in a row" in v.message for v in verdict.violations)


def test_what_is_no_counted_loop() -> None:
    # Two numbers change from copy to copy: a case and its value.
    cases = "\n".join(f"x = {k}:\n{_COPY[0]} It gives {k * k}." for k in range(1, 13))
    assert check_format(prose_completion(cases)).metrics.short_consecutive_repeats == 0
    # The alike lines are a third of each copy: what changes is the copy.
    varied = "\n".join(
        f"{_COPY[1]}\nNow take the {_SPELLED[k]}th term, expand it fully and compare the two sides of it."
        for k in range(12)
    )
    assert check_format(prose_completion(varied)).metrics.short_consecutive_repeats == 0
    # Alike lines too short to be a loop's body: a verdict after each case.
    short = "\n".join(f"Case {_SPELLED[k]} is done.\nThis is not a square." for k in range(12))
    assert check_format(prose_completion(short)).metrics.short_consecutive_repeats == 0


def test_counted_lines_are_summed_over_runs() -> None:
    def counted(runs: int, copies: int) -> int:
        lines = [f"{_FILLER[r]} (i={k})." for r in range(runs) for k in range(1, copies + 1)]
        return check_format(prose_completion("\n".join(lines))).metrics.counted_lines

    assert counted(7, 9) == 63  # over `max_counted_lines` (60): every run's lines
    assert counted(6, 10) == 0  # at the bound
    assert counted(10, 6) == 0  # runs of 6 lines are no runs (`max_short_consecutive_repeats`)
