"""The echo measure on made-up lines: a sentence said again at once, exactly or nearly, and the look-alikes beside it.

`measure_repetition(...).echo_rate` is the share of the long lines that echo, once `_MIN_ECHOES` lines do; these
prose blocks are eight such lines, so any rate above 0 is an echo found on half of them or more.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from kimina_format.config import DEFAULT_CONFIG
from kimina_format.repetition import measure_repetition

SENTENCES = [
    "We need to find the smallest positive integer that satisfies both congruences.",
    "The discriminant of this quadratic must be a perfect square for integer roots.",
    "Taking both sides modulo seven shows that the left side can never vanish here.",
    "The function is increasing on the whole interval because its derivative is positive.",
    "Squaring both sides keeps the inequality since each side is non-negative here.",
    "So the only candidates left are the divisors of the constant term of the polynomial.",
    "Substituting the bound back gives the required estimate for every admissible value.",
    "Hence the minimum is attained at the right end point of the interval we found.",
]


def echo_rate(lines: list[str]) -> float:
    text = "\n".join(lines)
    return measure_repetition(text.encode(), DEFAULT_CONFIG, lambda: text).echo_rate


def drop_last_word(s: str) -> str:
    return s.rsplit(" ", 1)[0] + "."


def change_middle_word(s: str) -> str:
    words = s.split()
    words[len(words) // 2] = "thing"
    return " ".join(words)


@pytest.mark.parametrize(
    "copy",
    [
        lambda s: s,
        lambda s: "Again: " + s,
        lambda s: "Right. " + s,
        drop_last_word,
        lambda s: s.split(" ", 1)[1],
        lambda s: s.replace(" ", " indeed ", 1),
        change_middle_word,
        lambda s: "Again: " + drop_last_word(s),
        lambda s: "Let me restate this step once more carefully: " + s,
    ],
    ids=[
        "exact",
        "after_again",
        "after_right",
        "last_word_dropped",
        "first_word_dropped",
        "filler",
        "word_changed",
        "after_again_last_word_dropped",
        "after_a_remark",
    ],
)
def test_each_sentence_said_again_at_once_echoes(copy: Callable[[str], str]) -> None:
    assert echo_rate([f"{s} {copy(s)}" for s in SENTENCES]) > 0.5


def test_each_line_said_again_with_a_word_changed_echoes() -> None:
    # One sentence a line, without a full stop between the copies: the line is one phrase written twice.
    assert echo_rate([f"{s[:-1]} {change_middle_word(s)[:-1]}" for s in SENTENCES]) > 0.5


@pytest.mark.parametrize(
    "line",
    [
        # Parallel cases: each sentence the one before with a word changed, three or more in a row.
        "The first factor is positive on this whole interval. The second factor is positive on this whole interval. "
        "The third factor is positive on this whole interval.",
        # Parallel cases with a refrain: each case the one before with a word changed, then the same clause.
        "Taking the first factor on its own interval, it stays strictly positive throughout. "
        "Taking the second factor on its own interval, it stays strictly positive throughout. "
        "Taking the third factor on its own interval, it stays strictly positive throughout.",
        # Cases worked one by one: the numbers change.
        "For x = 1 we get 1 + x = 2, which is clearly not divisible by seven at all. "
        "For x = 2 we get 1 + x = 3, which is clearly not divisible by seven at all.",
        # Two different sentences of one length.
        SENTENCES[0] + " " + SENTENCES[1],
    ],
    ids=["parallel_cases", "parallel_cases_with_a_refrain", "numbered_cases", "different_sentences"],
)
def test_look_alikes_do_not_echo(line: str) -> None:
    # The look-alike on every line, each time with a sentence of its own after it (so no line rule is at stake).
    assert echo_rate([f"{line} {s}" for s in SENTENCES]) == 0.0


# Lines that echo though they are sound reasoning: two parallel cases, or a claim checked and said again.
TWO_CASES = [
    "The left-hand side is strictly positive on this interval; the right-hand side is strictly positive on it too.",
    "Here the first root is a positive integer greater than one; the second root is a positive integer greater than one.",
    "The left-hand side evaluates to a positive number here. The right-hand side evaluates to a positive number here.",
    "Therefore the map is injective on its whole domain. Let me double-check this. Yes, the map is injective on its "
    "whole domain.",
]
# Forty lines of reasoning that do not echo: two different sentences each.
REASONING = [f"{a} {b}" for a in SENTENCES for b in SENTENCES if a != b][:40]


def test_lines_of_parallel_cases_are_judged_by_their_share() -> None:
    assert echo_rate(REASONING) == 0.0
    assert all(echo_rate([line, *REASONING]) == 0.0 for line in TWO_CASES)  # one such line: fewer than four echo
    few = echo_rate(REASONING[:20] + TWO_CASES + REASONING[20:])
    assert 0 < few <= DEFAULT_CONFIG.max_echo_rate  # 4 such lines among 44
    again = [f"So {line[0].lower()}{line[1:]}" for line in TWO_CASES]
    many = echo_rate(REASONING[:12] + TWO_CASES + again)
    assert many > DEFAULT_CONFIG.max_echo_rate  # 8 such lines among 20
