"""Loops whose copies each reword an unseen original once: a word added, or dropped, at a random place of every line.

Two such copies differ in two places (where each was reworded), and the copy before is no closer than any other, so
likeness to the copy one period back takes a word moved (`repetition._moved_word`). A table's rows differ in two
places too (`The variable a appears only in the first factor`, then `b` and `second`), so the look-alikes next to
the attacks are tables of two columns, and enumerations that change a number and a word.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from kimina_format import check_format
from kimina_format.config import DEFAULT_CONFIG
from kimina_format.repetition import measure_repetition
from kimina_format.testing import insert_after, prose_lines, thinking_of, with_thinking

Row = dict[str, Any]
FILLERS = "indeed clearly actually really simply now then hence thus also just certainly".split()
COPIES = 15  # the paragraph written 15 times


def reword(line: str, rng: random.Random, how: str) -> str:
    """`line` with one filler added at a random place (`add`), one word dropped (`drop`), or either (`either`)."""
    words = line.split()
    if how == "either":
        how = rng.choice(["add", "drop"])
    if how == "add":
        words.insert(rng.randrange(1, len(words)), rng.choice(FILLERS))
    else:
        del words[rng.randrange(len(words))]
    return " ".join(words)


def loop_lines(lines: list[str], how: str, seed: int, copies: int = COPIES) -> list[str]:
    rng = random.Random(seed)
    return [reword(line, rng, how) for _ in range(copies) for line in lines]


LINE = "We need to find the smallest positive integer that satisfies both of the congruences at once."
# Its words hold numbers, and some are long: dropping one changes no number in place.
FORMULA = "The roots $x_1$, $x_2$ and $x_3$ of $x^3 - 6x^2 + 11x - 6 = 0$ satisfy $x_1 + x_2 + x_3 = 6$ by Vieta."


def template_repeats(lines: list[str]) -> int:
    """`measure_repetition(...).template_repeats` of prose made of `lines`: copies in a row, when over the bound."""
    text = "\n".join(lines)
    return measure_repetition(text.encode(), DEFAULT_CONFIG, lambda: text).template_repeats


# --- whole loops, and their look-alikes ---


@pytest.mark.parametrize("how", ["add", "drop", "either"])
@pytest.mark.parametrize("line", [LINE, FORMULA], ids=["words", "a formula"])
def test_a_reworded_loop_is_counted(line: str, how: str) -> None:
    assert template_repeats(loop_lines([line], how, seed=3)) >= COPIES - 1


TABLES = {
    # two cells replaced in each row: words replaced in two places are no rewording
    "two columns, each row": [
        f"- The variable {v} appears only in the {p} factor, so we can treat it as a constant."
        for v, p in zip("abcdefghijkl", ["first", "second", "third"] * 4, strict=True)
    ],
    # one cell replaced in a block of rows, two at a block's end
    "two columns, the second in blocks": [
        f"- The variable {v} appears only in the {p} factor, so we can treat it as a constant."
        for v, p in zip("abcdefghijkl", ["first"] * 4 + ["second"] * 4 + ["third"] * 4, strict=True)
    ],
    "a product term by term": [
        f"- Multiply {a} by {b} to get the term {a}{b} in the expansion." for a in "abcd" for b in "xyz"
    ],
    # a number replaced and a word added: an enumeration
    "residues with a verdict": [
        f"Case n mod 12 = {k}: the number n^2 + n is {'' if (k * k + k) % 12 == 0 else 'not '}divisible by 12."
        for k in range(12)
    ],
}


@pytest.mark.parametrize("name", list(TABLES))
def test_a_table_of_two_columns_is_no_loop(name: str) -> None:
    assert template_repeats(TABLES[name]) == 0


# --- on the real completions ---


def reworded_loop(row: Row, lines: int, how: str, seed: int, separator: str = "\n") -> str | None:
    """The row's completion with its first `lines` prose lines of 60+ key bytes and 8+ words looped, reworded."""
    chosen = [line for line in prose_lines(row["completion"], 60, 300) if len(line.split()) >= 8][:lines]
    if len(chosen) < lines:
        return None
    copies = loop_lines(chosen, how, seed)
    passage = separator.join("\n".join(copies[i : i + lines]) for i in range(0, len(copies), lines))
    return insert_after(row["completion"], passage)


def kept_score(passing_rows: list[Row], lines: int, how: str, separator: str = "\n") -> tuple[list[str], int]:
    kept, applied = [], 0
    for seed, row in enumerate(passing_rows[::2]):
        text = reworded_loop(row, lines, how, seed, separator)
        if text is None:
            continue
        applied += 1
        if check_format(text, formal_statement=row["formal_statement"]).ok:
            kept.append(row["name"])
    if applied < 50:
        pytest.fail(f"applied to only {applied} rows")
    return kept, applied


@pytest.mark.parametrize(
    ("lines", "separator"), [(1, "\n"), (3, "\n"), (3, "\n\n")], ids=["line", "passage", "paragraph"]
)
def test_copies_that_each_add_a_word_lose_the_score(passing_rows: list[Row], lines: int, separator: str) -> None:
    kept, applied = kept_score(passing_rows, lines, "add", separator)
    assert not kept, f"{len(kept)} of {applied} loops kept their score, e.g. {kept[:3]}"


@pytest.mark.parametrize("how", ["drop", "either"])
@pytest.mark.parametrize("lines", [1, 3])
def test_copies_that_each_drop_a_word_mostly_lose_the_score(passing_rows: list[Row], lines: int, how: str) -> None:
    # Not all: a copy that dropped a word from its opening and another from its ending keeps no band of the others
    # twice in a row, and the gate of the template loop (bands seen more than 10 times) lets a few through.
    kept, applied = kept_score(passing_rows, lines, how)
    assert len(kept) <= applied // 10, f"{len(kept)} of {applied} loops kept their score, e.g. {kept[:3]}"


@pytest.mark.parametrize("how", ["drop", "either"])
def test_copies_that_each_drop_a_word_all_lose_the_score(passing_rows: list[Row], how: str) -> None:
    # The rows the template loop lets through, `max_reworded_lines` takes: copies changed at places that vary.
    kept, applied = kept_score(passing_rows, 1, how)
    assert not kept, f"{len(kept)} of {applied} loops kept their score, e.g. {kept[:3]}"


@pytest.mark.parametrize("name", list(TABLES))
def test_a_table_keeps_the_score(passing_rows: list[Row], name: str) -> None:
    wrong = []
    for row in passing_rows[::4]:
        text = insert_after(row["completion"], "\n".join(TABLES[name]))
        if text is not None and not check_format(text, formal_statement=row["formal_statement"]).ok:
            wrong.append(row["name"])
    assert not wrong, f"{len(wrong)} look-alikes lost their score, e.g. {wrong[:3]}"


# --- a passage looped after the reasoning, each copy reworded at three places (kimina-format 0.7.0) ---


def reworded_thrice(line: str, rng: random.Random, how: str) -> str:
    """`line` with three fillers added, or three words dropped, at random places."""
    words = line.split()
    for _ in range(3):
        if how == "add":
            words.insert(rng.randrange(len(words)), rng.choice(FILLERS))
        else:
            del words[rng.randrange(len(words))]
    return " ".join(words)


def looped_with_three_words_changed(
    rows: list[Row], passage: Callable[[Row], list[str]], how: str
) -> tuple[list[str], int]:
    """The rows that keep the full score with their passage looped after the reasoning, and how many had one.

    `passage(row)` gives the lines (none leaves the row out); they are written `COPIES` times, each line of each copy
    `reworded_thrice`.
    """
    kept, applied = [], 0
    for row in rows:
        lines = passage(row)
        if not lines:
            continue
        applied += 1
        rng = random.Random(row["name"])
        loop = "\n\n".join("\n".join(reworded_thrice(line, rng, how) for line in lines) for _ in range(COPIES))
        text = with_thinking(row["completion"], thinking_of(row["completion"]) + "\n\n" + loop)
        if check_format(text, formal_statement=row["formal_statement"]).score == 1.0:
            kept.append(row["name"])
    return kept, applied


@pytest.mark.parametrize(("how", "most_kept"), [("add", 20), ("drop", 32)])
def test_a_passage_looped_with_three_words_changed_in_each_copy_mostly_loses_the_score(
    full_score_rows: list[Row], how: str, most_kept: int
) -> None:
    # A copy differs from the passage (said once before the loop, so it leads its group) in three words added or
    # dropped. Two copies differ in six, past what a group takes: where a copy leads, the loop may keep its score.
    def passage(row: Row) -> list[str]:
        chosen = prose_lines(row["completion"], 60, distinct=True)
        return chosen[len(chosen) // 2 : len(chosen) // 2 + 3] if len(chosen) >= 3 else []

    kept, applied = looped_with_three_words_changed(full_score_rows, passage, how)
    assert applied >= 150
    assert len(kept) <= most_kept, f"{len(kept)} of {applied} loops kept their score, e.g. {kept[:3]}"


# --- formula lines looped, three fillers put in each line of each copy (kimina-format 0.8.0) ---

# A plain word of a line: a token without a digit or a symbol of a formula (as `_reworded_group` counts them).
PLAIN_WORD = re.compile(r"(?:^| )[^ 0-9$\\^_{}=+*/<>()\[\]|≤≥≠∈·×−-]+(?= |$)")


def test_formula_lines_looped_with_three_fillers_in_each_copy_mostly_lose_the_score(
    full_score_rows: list[Row],
) -> None:
    # Lines of three to five plain words among formulas (`so $x = 2$ and $y = 3$, hence ...`) could not lead a group
    # before 0.8.0 (six plain words were needed), and a copy could differ from them in two words only: such a loop,
    # 15 copies with three fillers in each line, kept the score on 107 of 108 rows.
    def passage(row: Row) -> list[str]:
        chosen = [
            line
            for line in prose_lines(row["completion"], 40, distinct=True)
            if 3 <= len(PLAIN_WORD.findall(line)) < 6 and len(line.split()) >= 6
        ]
        return chosen[:3] if len(chosen) >= 2 else []

    kept, applied = looped_with_three_words_changed(full_score_rows, passage, "add")
    assert applied >= 100
    assert len(kept) <= 20, f"{len(kept)} of {applied} loops kept their score, e.g. {kept[:3]}"
