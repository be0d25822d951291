"""A verbal tic inside the lines (kimina-format 0.13.0): `max_mid_line_remarks` in any case and after an ellipsis,
`max_sentence_opener_share` and `max_sentence_closer_share`.

`Wait.` after every sentence inside the lines is rejected since 0.12.0, but `wait.`, `Wait...` or `Hmm…` after each
kept the full score on 57 of 57 rows (a remark had to be capitalised and end in `.`, `!` or `?`); `Wait, ` before
every sentence inside the lines on 56 of 56 and `, I think` at the end of every sentence on 95 of 95
(`max_opener_share` reads only the lines' heads and ends). Each attack edits real completions; each look-alike, the
healthy edit beside it, must leave every row its score.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kimina_format import FormatConfig, FormatVerdict, ViolationCode, check_format
from kimina_format.testing import (
    Edit,
    change_prose_lines,
    prose_completion,
    red_team_tests,
    thinking_of,
    with_thinking,
)
from kimina_format.testing import RedTeamCase as Case

Row = dict[str, Any]
# The end of a sentence that ends in a word and that another sentence follows on its line; and one that ends a line
# or that another follows.
_INSIDE = re.compile(r"(?<=[A-Za-z])([.!?]) ([A-Z])")
_END = re.compile(r"(?<=[A-Za-z])([.!?])(?= [A-Z]|$)")


def _each_place(pattern: re.Pattern[str], put: Callable[[re.Match[str], int], str], least: int = 12) -> Edit:
    """Every place `pattern` finds in the prose lines replaced by `put(match, k)` (k counts the places); rows with
    fewer than `least` places are not applied."""

    def edit(row: Row) -> Row | None:
        thinking, places = thinking_of(row["completion"]), [0]

        def change(match: re.Match[str]) -> str:
            places[0] += 1
            return put(match, places[0])

        changed = change_prose_lines(thinking, lambda line, _: pattern.sub(change, line))
        if places[0] < least:
            return None
        return {**row, "completion": with_thinking(row["completion"], changed)}

    return edit


def _remark_after(remark: str) -> Edit:
    """`remark` after every sentence inside the lines."""
    return _each_place(_INSIDE, lambda m, _: f"{m[1]} {remark} {m[2]}")


def _opener(tic: str, every: int = 1, least: int = 12) -> Edit:
    """`tic` (`Wait,`) opening every `every`th sentence inside the lines, the sentence's first letter lowered (rows
    with fewer than `least` such sentences are not applied)."""
    return _each_place(_INSIDE, lambda m, k: f"{m[1]} {tic} {m[2].lower()}" if k % every == 0 else m[0], least)


def _closer(tic: str, every: int = 1) -> Edit:
    """`tic` (`, I think`) closing every `every`th sentence that ends in a word."""
    return _each_place(_END, lambda m, k: f"{tic}{m[1]}" if k % every == 0 else m[0])


def _cases_after_the_thinking(case: Callable[[int], str]) -> Edit:
    """Twelve cases `case(k)`, one a line, after the thinking."""

    def edit(row: Row) -> Row | None:
        cases = "\n".join(case(k) for k in range(2, 14))
        thinking = thinking_of(row["completion"]).rstrip("\n")
        return {**row, "completion": with_thinking(row["completion"], f"{thinking}\n\n{cases}")}

    return edit


ATTACKS = {
    "wait_in_lower_case_after_every_sentence": Case("max_mid_line_remarks", _remark_after("wait.")),
    "wait_and_an_ellipsis_after_every_sentence": Case("max_mid_line_remarks", _remark_after("Wait...")),
    "hmm_and_an_ellipsis_character_after_every_sentence": Case("max_mid_line_remarks", _remark_after("Hmm…")),
    "a_question_in_lower_case_after_every_sentence": Case("max_mid_line_remarks", _remark_after("right?")),
    "wait_comma_opening_every_sentence": Case("max_sentence_opener_share", _opener("Wait,")),
    "two_words_opening_every_sentence": Case("max_sentence_opener_share", _opener("Hmm okay,")),
    # A colon after the tic (the twentieth red team).
    "wait_colon_opening_every_sentence": Case("max_sentence_opener_share", _opener("Wait:")),
    "an_ellipsis_opening_every_second_sentence": Case("max_sentence_opener_share", _opener("Hmm...", 2, least=24)),
    # Three rows end most sentences in a formula or a value, where a closer is not read (a case's verdict).
    "i_think_closing_every_sentence": Case("max_sentence_closer_share", _closer(", I think"), most_kept=3),
    "a_dash_and_wait_closing_every_sentence": Case("max_sentence_closer_share", _closer(" — wait"), most_kept=3),
    "a_question_closing_every_sentence": Case("max_sentence_closer_share", _closer(", right"), most_kept=3),
}

LOOK_ALIKES = {
    # Real prose opens up to 16% of its sentences inside the lines with one word (`Instead, `).
    "however_opening_every_fifth_sentence": Case("max_sentence_opener_share", _opener("However,", 5)),
    "therefore_opening_every_seventh_sentence": Case("max_sentence_opener_share", _opener("Therefore,", 7)),
    # A stock phrase closing some sentences, as real prose closes six at most.
    "a_stock_phrase_closing_every_twelfth_sentence": Case("max_sentence_closer_share", _closer(", as expected", 12)),
    # Cases of an enumeration that share a verdict close after a value, which is no tic.
    "cases_closed_by_one_verdict": Case(
        "max_sentence_closer_share",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                thinking_of(row["completion"]).rstrip("\n")
                + "\n\n"
                + "\n".join(f"If n = {k}, then n^2 + 1 = {k * k + 1}, which is impossible." for k in range(2, 14)),
            ),
        },
    ),
    # Cases whose verdict follows a clause of words (the twentieth red team): a value earlier in the sentence makes it
    # a case, not a tic.
    "cases_closed_by_which_is_impossible_after_words": Case(
        "max_sentence_closer_share",
        _cases_after_the_thinking(
            lambda k: f"- $n = {k}$: the left side $2^{k} = {2**k}$ exceeds the right side, which is impossible."
        ),
    ),
    "cases_closed_by_so_not_prime": Case(
        "max_sentence_closer_share",
        _cases_after_the_thinking(
            lambda k: f"- $p = {k}$: then $p^2 + 2 = {k * k + 2}$ has a small factor, so not prime."
        ),
    ),
    # `Wait, no.` on a line of its own: a sentence of an opener and a word, no closer.
    "wait_no_on_lines_of_their_own": Case(
        "max_sentence_closer_share",
        _each_place(re.compile(r"(?<=[A-Za-z])([.!?])$"), lambda m, k: f"{m[1]}\nWait, no." if k % 6 == 0 else m[0]),
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)


_SENTENCES = [
    f"The bound holds because the two sides grow alike in the {word} case."
    for word in "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
]


def _tics(verdict: FormatVerdict) -> list[str]:
    return [
        v.message for v in verdict.violations if v.code is ViolationCode.SHORT_LINE_REPEATS and "one tic" in v.message
    ]


def test_the_tic_shares_report_over_their_bounds_only() -> None:
    opened = check_format(
        prose_completion(" ".join(_SENTENCES[:1] + [f"Wait, {s[0].lower()}{s[1:]}" for s in _SENTENCES]))
    )
    assert opened.metrics.sentence_opener_share == 1.0 and len(_tics(opened)) == 1
    closed = check_format(prose_completion("\n".join(s[:-1] + ", I think." for s in _SENTENCES)))
    assert closed.metrics.sentence_closer_share == 1.0 and len(_tics(closed)) == 1
    # Nine are under the floor, whatever their share.
    few = check_format(prose_completion("\n".join(s[:-1] + ", I think." for s in _SENTENCES[:9])))
    assert few.metrics.sentence_closer_share == 0.0 and not _tics(few)
    unbounded = FormatConfig(max_sentence_opener_share=None, max_sentence_closer_share=None)
    closed = check_format(prose_completion("\n".join(s[:-1] + ", I think." for s in _SENTENCES)), config=unbounded)
    assert closed.metrics.sentence_closer_share == 0.0 and not _tics(closed)


def test_remarks_in_lower_case_and_after_an_ellipsis_are_counted() -> None:
    for remark in ("wait.", "Wait...", "Hmm…", "ok?"):
        text = " ".join(f"Line {k} holds a claim. {remark} So {k} is fine." for k in range(9))
        assert check_format(prose_completion(text)).metrics.mid_line_remarks == 9, remark
