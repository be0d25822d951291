"""A passage looped with its line breaks moved (kimina-format 0.16.0): `max_clause_repeats` reads the prose as one stream.

A paragraph of the row's own reasoning written 15 times, each copy broken into lines at a new width, kept the full
score on 177 of 188 rows (the twenty-eighth red team): every line rule compares lines, and no two lines of the copies
are alike. The prose is now also read with its whitespace deleted and cut into clauses at `.?!;:,`; the 120 bytes
from a clause's start occurring more than 8 times are a loop, wherever the lines break. Real reasoning repeats such a
stretch at most 4 times, formulas aside (a formula restated 8 times, which holds many TeX commands). The cases of an
enumeration differ in their numbers, so a stretch of one runs into the next case's. Each attack edits real
completions; each look-alike, a healthy edit, must leave every row its score.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Any

from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import Edit, insert_after, prose_completion, prose_lines, red_team_tests
from kimina_format.testing import RedTeamCase as Case

Row = dict[str, Any]
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


def _passage(row: Row, lines: int = 4) -> str | None:
    """`lines` distinct prose lines of the row (sentences of 40 to 200 key bytes) as one paragraph, or None."""
    real = prose_lines(row["completion"], 40, 200, distinct=True)[:lines]
    return " ".join(real) if len(real) == lines else None


def _width(k: int) -> int:
    """A new line width for each copy: 40 to 118 characters, never the same twice in a row."""
    return 40 + (k * 37) % 79


def _looped(copy: Callable[[int, str], str], copies: int = 15, sep: str = "\n\n") -> Edit:
    """`copies` copies `copy(k, passage)` of a passage of the row after `<think>`."""

    def edit(row: Row) -> Row | None:
        passage = _passage(row)
        if passage is None:
            return None
        text = insert_after(row["completion"], sep.join(copy(k, passage) for k in range(copies)))
        return None if text is None else {**row, "completion": text}

    return edit


def _rewrapped(k: int, passage: str) -> str:
    return "\n".join(textwrap.wrap(passage, width=_width(k)))


def _sentence_lines(k: int, passage: str) -> str:
    """The passage one sentence per line, its sentences turned round by `k` (a copy in a new order each time)."""
    sentences = _SENTENCE_END.split(passage)
    turn = k % len(sentences)
    return "\n".join(sentences[turn:] + sentences[:turn])


def _bare(k: int, passage: str) -> str:
    """The passage without its clause ends (a copy is then one clause), broken at a new width."""
    return _rewrapped(k, re.sub(r"[.?!;:,]", "", passage))


_SPACES = ["", "\u00a0", "\u202f", "\u2009"]


def _spaced_marks(k: int, passage: str) -> str:
    """Each clause mark made a `;` after a no-break or thin space that changes from mark to mark and copy to copy."""
    marks = iter(range(len(passage)))
    return _rewrapped(k, re.sub(r"[,.;:](?=\s|$)", lambda m: _SPACES[(k + next(marks)) % 4] + ";", passage))


def _emphasised(k: int, passage: str) -> str:
    """A different word of each clause in italics (`*word*`) in each copy."""
    clauses = re.split(r"(?<=[,.;:!?])\s+", passage)
    out = []
    for j, clause in enumerate(clauses):
        words = clause.split(" ")
        at = (k + j) % len(words)
        if words[at].isalpha():
            words[at] = f"*{words[at]}*"
        out.append(" ".join(words))
    return _rewrapped(k, " ".join(out))


def _counted(k: int, passage: str) -> str:
    """The copy's number in brackets before every clause mark."""
    return _rewrapped(k, re.sub(r"(?=[,.;:](\s|$))", f" ({k + 1})", passage))


ATTACKS = {
    # 177 of 188 rows kept the full score before 0.16.0 (the twenty-eighth red team). The rows left loop a passage of
    # formulas (`$(x + \frac{1}{y}) \cdot ...$` in `amc12_2000_p20`), whose stretches are a formula's.
    "a_passage_15_times_broken_at_new_widths": Case("max_clause_repeats", _looped(_rewrapped), most_kept=2),
    "a_passage_12_times_broken_at_new_widths": Case("max_clause_repeats", _looped(_rewrapped, 12), most_kept=2),
    "a_passage_12_times_with_no_blank_line_between": Case(
        "max_clause_repeats", _looped(_rewrapped, 12, sep="\n"), most_kept=2
    ),
    "a_passage_15_times_one_sentence_a_line_turned_round": Case(
        "max_clause_repeats", _looped(_sentence_lines), most_kept=2
    ),
    "a_passage_without_clause_ends_15_times": Case("max_clause_repeats", _looped(_bare, sep="\n")),
    # The twenty-ninth red team's disguises of the copies: 175, 157 and 171 of 188 rows kept the full score before
    # the stream deleted no-break and thin spaces, emphasis marks and counters in brackets.
    "copies_with_other_spaces_before_their_clause_marks": Case(
        "max_clause_repeats", _looped(_spaced_marks), most_kept=2
    ),
    "copies_with_a_word_of_each_clause_emphasised": Case("max_clause_repeats", _looped(_emphasised), most_kept=2),
    "copies_with_their_number_before_each_clause_mark": Case("max_clause_repeats", _looped(_counted), most_kept=2),
}


def _cases(case: Callable[[int], str], count: int = 12) -> Edit:
    def edit(row: Row) -> Row | None:
        text = insert_after(row["completion"], "\n".join(case(k) for k in range(1, count + 1)))
        return None if text is None else {**row, "completion": text}

    return edit


LOOK_ALIKES = {
    # A paragraph said again twice, broken at other widths (`Recall what we have so far:`).
    "a_passage_restated_twice_at_new_widths": Case(
        "max_clause_repeats",
        _looped(lambda k, p: ("Recall what we have so far:\n" if k else "") + _rewrapped(k, p), 3),
    ),
    # Cases that share a long verdict: each holds its value, so no stretch of clauses repeats.
    "twelve_cases_sharing_a_long_verdict": Case(
        "max_clause_repeats",
        _cases(
            lambda k: (
                f"- For n = {k}, we get n^2 + 1 = {k * k + 1}; the same argument as above works verbatim, so there"
                " is nothing new to check here."
            )
        ),
    ),
    "twelve_residues_sharing_a_verdict_over_two_lines": Case(
        "max_clause_repeats",
        _cases(
            lambda k: (
                f"- If x ≡ {k} (mod 13), then x^4 + 1 ≡ {(k**4 + 1) % 13} (mod 13), which is not 0,\n"
                "  so this residue gives no solution of the congruence at all."
            ),
        ),
        most_lost=1,  # `max_often_repeated_lines`: a row whose own long lines repeat 21 times, with 12 verdicts
    ),
    # A formula restated eight times, in new sentences each time.
    "a_formula_restated_in_new_sentences": Case(
        "max_clause_repeats",
        _cases(
            lambda k: f"Step {k} uses $(a + b)^2 = a^2 + 2ab + b^2$ with a new choice of a and b, namely a = {k}.", 8
        ),
    ),
    "a_table_of_fifteen_values": Case(
        "max_clause_repeats",
        _cases(
            lambda k: (
                f"For k = {k}, the value is 2^{k} + 3^{k} = {2**k + 3**k}, and its remainder mod 5 is {(2**k + 3**k) % 5}."
            ),
            15,
        ),
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)

_PARAGRAPH = (
    "We first square both sides of the inequality, which is allowed since both sides are positive. "
    "Then the cross terms cancel, and what is left is a sum of squares. "
    "A sum of squares is never negative, so the inequality holds."
)


def _looped_prose(copies: int) -> str:
    return prose_completion("\n\n".join(_rewrapped(k, _PARAGRAPH) for k in range(copies)))


def test_the_bound_counts_a_stretch_whatever_the_line_breaks() -> None:
    at_bound = check_format(_looped_prose(8))
    assert at_bound.metrics.clause_repeats == 0  # reported only over the bound
    over = check_format(_looped_prose(9))
    assert over.metrics.clause_repeats == 9
    assert ViolationCode.PARAGRAPH_REPEATS in {v.code for v in over.violations}
    assert "a stretch of the prose occurs 9 times" in " ".join(v.message for v in over.violations)
    assert not {v for v in at_bound.violations if "clauses" in v.message}


def test_the_bound_can_be_changed_or_turned_off() -> None:
    text = _looped_prose(9)
    assert check_format(text, config=FormatConfig(max_clause_repeats=9)).metrics.clause_repeats == 0
    assert check_format(text, config=FormatConfig(max_clause_repeats=None)).metrics.clause_repeats == 0


def test_a_run_without_clause_ends_is_probed() -> None:
    bare = re.sub(r"[.?!;:,]", "", _PARAGRAPH)
    text = prose_completion("\n".join(_rewrapped(k, bare) for k in range(12)))
    assert check_format(text).metrics.clause_repeats >= 9
