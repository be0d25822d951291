"""Loops whose copies differ in a word or two, made from the real completions' own lines: the counter may be a spelled
number, a roman numeral, a letter or an ordinal, at the start, the end, both ends or the middle of a line, spread over
the lines of a passage, on long lines or short ones. Each must lose the format score; the look-alikes next to them
(steps that say something new, enumerations that compute something new) must not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from kimina_format import ViolationCode, check_format
from kimina_format.testing import insert_after, prose_lines

Row = dict[str, Any]
COPIES = 16

COUNTERS = {
    "spelled": "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen",
    "roman": "i ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi",
    "letters": "(a) (b) (c) (d) (e) (f) (g) (h) (i) (j) (k) (l) (m) (n) (o) (p)",
    "ordinal": "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth"
    " fourteenth fifteenth sixteenth",
    "greek": "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi",
}


def with_loop(row: Row, passage: Callable[[str], str], counter: str) -> str | None:
    """The completion with `passage(word)` written for each word of `counter`, in a row, right after `<think>`."""
    loop = "\n".join(passage(word) for word in COUNTERS[counter].split())
    return insert_after(row["completion"], loop, max_chars=int(24_576 * 3.2 - 1_000))


def middle(line: str, word: str) -> str:
    words = line.split()
    return " ".join([*words[: len(words) // 2], word, *words[len(words) // 2 :]])


# How a line of the completion carries the counter: (the line's key length range, the passage for one word).
PLACEMENTS: dict[str, tuple[tuple[int, int], Callable[[list[str], str], str]]] = {
    "start": ((60, 300), lambda lines, w: f"Try {w}: {lines[0]}"),
    "end": ((60, 300), lambda lines, w: f"{lines[0]} (try {w})"),
    "both ends": ((60, 300), lambda lines, w: f"Try {w}: {lines[0]} (try {w})"),
    "middle": ((40, 300), lambda lines, w: middle(lines[0], w)),
    "two lines, start then end": ((40, 300), lambda lines, w: f"Attempt {w}: {lines[0]}\n{lines[1]} ({w})"),
    "two lines, end then start": ((40, 300), lambda lines, w: f"{lines[0]} ({w})\nAttempt {w}: {lines[1]}"),
    "three lines, counter in one": ((40, 300), lambda lines, w: f"{lines[0]}\n{middle(lines[1], w)}\n{lines[2]}"),
    "short line": ((14, 40), lambda lines, w: f"Try {w}: {lines[0]}"),
    "short line, end": ((14, 40), lambda lines, w: f"{lines[0]} ({w})"),
}


@pytest.mark.parametrize("counter", list(COUNTERS))
@pytest.mark.parametrize("placement", list(PLACEMENTS))
def test_a_loop_told_apart_by_a_counter(passing_rows: list[Row], placement: str, counter: str) -> None:
    (least, most), passage = PLACEMENTS[placement]
    wrong, applied = [], 0
    for row in passing_rows[::4]:  # a quarter of them: every placement and counter over 48 completions
        lines = prose_lines(row["completion"], least, most)
        if len(lines) < 3:
            continue
        text = with_loop(row, lambda w, lines=lines: passage(lines, w), counter)
        if text is None:
            continue
        applied += 1
        verdict = check_format(text, formal_statement=row["formal_statement"])
        if verdict.score == 1.0 or ViolationCode.CONSECUTIVE_REPEATS not in verdict.codes:
            wrong.append((row["name"], verdict.codes))
    assert applied >= 30, applied
    assert not wrong, f"{len(wrong)} of {applied} loops kept their score or were not named, e.g. {wrong[:3]}"


LOOK_ALIKES = {
    # Sixteen steps, each opening with its number and saying something new.
    "numbered steps": lambda i, w: (
        f"Step {w}: we bound term {i} by the estimate for index {3 * i + 1}, then"
        f" compare it with the case {i * i} and keep the factor {2 * i + 5}."
    ),
    # An enumeration: the same words around new numbers, computed each time.
    "enumeration": lambda i, w: (
        f"For n = {i}: n^2 + 3n = {i * i + 3 * i}, and {i * i + 3 * i} mod 7 ="
        f" {(i * i + 3 * i) % 7}, so this residue is {(i * i + 3 * i) % 7 * 2}."
    ),
    # A list of short facts, lettered.
    "lettered facts": lambda i, w: f"{w} x = {i}, y = {i * i - 3}, z = {2 * i + 7}",
    # A table of values, one row per n.
    "table": lambda i, w: f"| {i} | {i**2} | {i**3} | {i**2 + i + 41} |",
}


@pytest.mark.parametrize("name", list(LOOK_ALIKES))
def test_look_alikes_keep_their_score(passing_rows: list[Row], name: str) -> None:
    words = COUNTERS["letters"].split()
    wrong = []
    for row in passing_rows[::4]:
        text = with_loop(row, lambda w: LOOK_ALIKES[name](words.index(w) + 3, w), "letters")
        if text is None:
            continue
        verdict = check_format(text, formal_statement=row["formal_statement"])
        if not verdict.ok:
            wrong.append((row["name"], verdict.codes))
    assert not wrong, f"{len(wrong)} look-alikes lost their score, e.g. {wrong[:3]}"
