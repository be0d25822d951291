"""Reworded copies of a passage (issue 18, loops): a passage written again and again, a word or two changed in each copy.

Each attack takes a passage of sentences from every real completion that keeps the full score, writes it twelve more
times with one word changed, dropped, added or swapped in each line at a random place (seeded), in a row or spread
over the thinking, and asserts that no edited completion keeps the full score. The look-alikes write what a healthy
reasoning repeats: a table whose rows change in the same columns, values checked one by one, a derivation restated.
`max_reworded_lines` (8) is the bound; the real completions' largest group is 3 lines.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import prose_lines

Row = dict[str, Any]
FILLERS = ("indeed", "clearly", "really", "surely", "again", "now", "then", "here", "also", "thus")
COPIES = 12
_WORD = re.compile(r"[A-Za-z][a-z']*[.,:;]?")


def _sentences(text: str) -> list[str]:
    """The prose lines of `text` that are sentences: at least eight words (tokens without digits or symbols)."""
    return [line for line in prose_lines(text, 40) if sum(bool(_WORD.fullmatch(w)) for w in line.split()) >= 8]


def _edit(kind: str, rnd: random.Random) -> Callable[[str], str]:
    def edit(line: str) -> str:
        words = line.split()
        at = rnd.randrange(len(words) - 1)
        if kind == "change":
            words[at] = rnd.choice(FILLERS)
        elif kind == "drop":
            del words[at]
        elif kind == "add":
            words.insert(at, rnd.choice(FILLERS))
        else:
            words[at], words[at + 1] = words[at + 1], words[at]
        return " ".join(words)

    return edit


def _reworded(row: Row, kind: str, lines: int, spread: bool) -> str | None:
    text: str = row["completion"]
    sentences = _sentences(text)
    if len(sentences) < lines:
        return None
    rnd = random.Random(row["name"])
    start = rnd.randrange(len(sentences) - lines + 1)
    edit = _edit(kind, rnd)
    copies = ["\n".join(edit(line) for line in sentences[start : start + lines]) for _ in range(COPIES)]
    head, close, tail = text.partition("</think>")
    if not spread:
        return head + "\n" + "\n\n".join(copies) + "\n" + close + tail
    # Spread: each copy after a blank line of the thinking that lies outside its fenced blocks.
    out, inside, spots = head.split("\n"), False, []
    for i, line in enumerate(out):
        if line.lstrip().startswith("```"):
            inside = line.strip() != "```" if not inside else False
        elif not inside and not line.strip() and i:
            spots.append(i)
    for copy in copies:
        at = rnd.choice(spots)
        out[at] += "\n" + copy + "\n"
    return "\n".join(out) + close + tail


@pytest.mark.parametrize("spread", [False, True], ids=["in a row", "spread"])
@pytest.mark.parametrize("kind", ["change", "drop", "add", "swap"])
def test_a_reworded_passage_loses_the_score(full_score_rows: list[Row], kind: str, spread: bool) -> None:
    kept, applied = [], 0
    for row in full_score_rows:
        text = _reworded(row, kind, 3, spread)
        if text is None:
            continue
        applied += 1
        if check_format(text, formal_statement=row["formal_statement"]).score == 1.0:
            kept.append(row["name"])
    assert applied >= 100
    assert not kept, f"{len(kept)} of {applied} keep the full score, e.g. {kept[:3]}"


def test_a_reworded_passage_is_named(full_score_rows: list[Row]) -> None:
    text = _reworded(full_score_rows[0], "change", 3, True)
    assert text is not None
    verdict = check_format(text)
    assert verdict.metrics.reworded_lines > FormatConfig().max_reworded_lines
    assert ViolationCode.NEAR_DUPLICATES in verdict.codes
    assert any("reworded" in v.message for v in verdict.violations)


TABLE = "\n".join(
    f"The variable {v} appears only in the {o} factor of the product, so the sign of that factor decides it."
    for v, o in zip("abcdefghijklmn", ["first", "second", "third", "fourth"] * 4, strict=False)
)
VALUES = "\n".join(
    f"For n = {n}, we get n^2 + 1 = {n * n + 1}, which is {'even' if n % 2 else 'odd'} and so it is checked."
    for n in range(1, 15)
)
DERIVATION = "\n".join(
    f"so $x^{k} + {k} x = {k * k}$ and then $x^{k + 1} + x = {k + 1}$ holds as well" for k in range(2, 16)
)


@pytest.mark.parametrize("passage", [TABLE, VALUES, DERIVATION], ids=["table", "values", "derivation"])
def test_a_look_alike_keeps_the_score(full_score_rows: list[Row], passage: str) -> None:
    lost = []
    for row in full_score_rows[::4]:
        text = row["completion"].replace("</think>", passage + "\n</think>", 1)
        verdict = check_format(text, formal_statement=row["formal_statement"])
        if verdict.metrics.reworded_lines:
            lost.append((row["name"], verdict.metrics.reworded_lines))
    assert not lost, lost


def test_the_real_completions_are_far_from_the_bound(full_score_rows: list[Row]) -> None:
    assert max(check_format(r["completion"]).metrics.reworded_lines for r in full_score_rows) == 0
