"""A paragraph written again and again with its sentences shuffled (kimina-format 0.11.0): `max_shuffled_copies`.

A paragraph, in Kimina's output nearly always one long line of a few sentences, written 12 times with its sentences in
a new order each time kept the full score on 137 of 141 rows that have such a line, and 20 times with a word of each
sentence changed too, on all 141: no line copies another, so the line rules saw no copy (`max_near_duplicates` takes
reordered copies of equal length only, `max_reworded_lines` copies that keep an end of the line). The copies of each
sentence are now grouped, and a group found at two places or more among the lines' sentences counts its lines. The
sixteenth red team's variants (copies joined by dashes, as list items, each closed by a new sentence) are attacks
here; its false reject (cases of three sentences, one stating its verdict first) a look-alike. Each attack edits real
completions; each look-alike, a healthy edit, must leave every row its score.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.repetition import line_keys
from kimina_format.testing import Edit, prose_completion, red_team_tests, thinking_of, with_thinking
from kimina_format.testing import RedTeamCase as Case

Row = dict[str, Any]

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_SYNONYMS = {"we": "we now", "the": "this", "is": "is indeed", "so": "thus", "then": "and then", "that": "which"}


def _key_bytes(text: str) -> int:
    return len(line_keys(text)[0])


def _line_of_sentences(row: Row, *, prose_only: bool) -> str | None:
    """The longest prose line of the thinking with three sentences or more and 80 key bytes; with `prose_only`, each
    sentence 40 key bytes of words at least (no formula)."""
    lines = []
    for line in thinking_of(row["completion"]).split("\n"):
        sentences = _SENTENCE.split(line.strip())
        if "```" in line or len(sentences) < 3 or _key_bytes(line) < 80:
            continue
        if prose_only and any("$" in s or "\\" in s or _key_bytes(s) < 40 for s in sentences):
            continue
        lines.append(line)
    return max(lines, key=len) if lines else None


def _reworded(sentence: str, rng: random.Random) -> str:
    """`sentence` with one of its common words changed (at random), when it has one."""
    words = sentence.split(" ")
    places = [i for i, w in enumerate(words) if w.lower() in _SYNONYMS]
    if places:
        i = rng.choice(places)
        words[i] = _SYNONYMS[words[i].lower()]
    return " ".join(words)


def _after_prose_lines(text: str, passages: list[str], every: int) -> str:
    """`text` with each of `passages` as a paragraph of its own after every `every`-th prose line (outside fences),
    as far as there are such lines."""
    out, fenced, seen, left = [], False, 0, list(passages)
    for line in text.split("\n"):
        out.append(line)
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.strip() and left:
            seen += 1
            if seen % every == 0:
                out.append("\n" + left.pop(0) + "\n")
    return "\n".join(out)


def _copies(
    copies: int,
    *,
    reword: bool,
    prose_only: bool,
    spread: bool = False,
    join: Callable[[list[str], int], str] = lambda sentences, _: " ".join(sentences),
) -> Edit:
    """The line of sentences written `copies` times, its sentences shuffled in each copy (and one word of each
    sentence changed, with `reword`), each copy made by `join` (its sentences and its number): in a row, as
    paragraphs in place of the line, or with `spread`, the first in its place and the others spread evenly over the
    thinking's prose lines."""

    def edit(row: Row) -> Row | None:
        line = _line_of_sentences(row, prose_only=prose_only)
        if line is None:
            return None
        sentences = _SENTENCE.split(line.strip())
        made = []
        for k in range(copies):
            rng = random.Random(k)
            copy = [_reworded(s, rng) if reword else s for s in sentences]
            rng.shuffle(copy)
            made.append(join(copy, k))
        thinking = thinking_of(row["completion"])
        if spread:
            thinking = thinking.replace(line, made[0], 1)
            prose = sum(
                1 for part in re.split(r"```.*?```", thinking, flags=re.S) for t in part.split("\n") if t.strip()
            )
            thinking = _after_prose_lines(thinking, made[1:], every=max(1, prose // copies))
        else:
            thinking = thinking.replace(line, "\n\n".join(made), 1)
        if made[-1] not in thinking:
            return None
        return {**row, "completion": with_thinking(row["completion"], thinking)}

    return edit


_ORDINALS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen"
    " eighteen nineteen twenty"
).split()
_NOUNS = ["order", "wording", "emphasis", "structure", "flow"]

ATTACKS: dict[str, Case] = {
    "a_line_of_sentences_shuffled_twenty_times": Case(
        "max_shuffled_copies", _copies(20, reword=False, prose_only=True)
    ),
    "shuffled_and_reworded_twenty_times": Case("max_shuffled_copies", _copies(20, reword=True, prose_only=True)),
    "shuffled_and_reworded_twelve_times_spread_out": Case(
        "max_shuffled_copies",
        _copies(12, reword=True, prose_only=True, spread=True),
        most_kept=2,  # a sentence with no end mark runs into the next one: a few copies group apart
    ),
    # Joined by dashes, with no end marks; as list items; each copy closed by a sentence of its own.
    "joined_by_dashes": Case(
        "max_shuffled_copies",
        _copies(20, reword=True, prose_only=True, join=lambda s, _: " — ".join(x.rstrip(".!?") for x in s) + "."),
    ),
    "as_list_items": Case(
        "max_shuffled_copies", _copies(20, reword=True, prose_only=True, join=lambda s, _: "- " + " ".join(s))
    ),
    "each_copy_closed_by_a_new_sentence": Case(
        "max_shuffled_copies",
        _copies(
            20,
            reword=True,
            prose_only=True,
            join=lambda s, k: " ".join(s) + f" Attempt {_ORDINALS[k]} changes the {_NOUNS[k % 5]} of the argument.",
        ),
    ),
    # Any line of three sentences, formulas and short sentences too.
    "any_line_of_sentences_shuffled_and_reworded_twenty_times": Case(
        "max_shuffled_copies",
        _copies(20, reword=True, prose_only=False),
        most_kept=4,  # short sentences with two words changed, derivations, or one run into the next
    ),
}


def _before_the_thinking(text: str) -> Edit:
    return lambda row: {
        **row,
        "completion": with_thinking(row["completion"], text + "\n\n" + thinking_of(row["completion"])),
    }


_MONTHS = "January February March April May June July August September October November December".split()

LOOK_ALIKES: dict[str, Case] = {
    # An enumeration whose cases each close with one refrain: the lines differ in their values alone.
    "an_enumeration_closed_by_one_refrain": Case(
        "max_shuffled_copies",
        _before_the_thinking(
            "\n".join(
                f"For n = {k}, we get n^2 + 1 = {k * k + 1}. This value leaves a nonzero remainder when divided by"
                " seven, so the case gives no solution."
                for k in range(1, 19)
            )
        ),
    ),
    # Parallel cases that differ in one column, nine of them in a row (more are a template loop).
    "nine_parallel_cases": Case(
        "max_shuffled_copies",
        _before_the_thinking(
            "\n".join(
                f"In {month} the number of days is not a multiple of seven, so that month is not possible either."
                for month in _MONTHS[:9]
            )
        ),
    ),
    # Cases of three sentences each, one stating its verdict first: the others keep their order.
    "cases_one_stating_its_verdict_first": Case(
        "max_shuffled_copies",
        _before_the_thinking(
            "\n".join(
                " ".join(
                    (lambda a, b, c: [c, a, b] if k == 4 else [a, b, c])(
                        f"Suppose n leaves remainder {k} when divided by 9.",
                        f"Then n^2 + 1 leaves remainder {(k * k + 1) % 9} when divided by 9.",
                        "This residue class gives no solution to the congruence either.",
                    )
                )
                for k in range(9)
            )
        ),
    ),
    # A sentence restated a few times across the thinking (real reasoning restates one up to five times).
    "the_goal_restated_six_times": Case(
        "max_shuffled_copies",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                _after_prose_lines(
                    thinking_of(row["completion"]),
                    ["Recall that we want to prove the statement exactly as it is given."] * 6,
                    every=5,
                ),
            ),
        },
    ),
}


test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)


_PARAGRAPH = [
    "The product of the two factors is positive whenever both of them have the same sign.",
    "Each factor changes its sign exactly once on the whole real line, at its own root.",
    "Between the two roots exactly one factor is negative, which makes the product negative there.",
]


def _shuffled(copies: int, change: Callable[[str, int], str] = lambda s, _: s) -> str:
    lines = []
    for k in range(copies):
        order = _PARAGRAPH[k % 3 :] + _PARAGRAPH[: k % 3]
        lines.append(" ".join(change(s, k) for s in order) + ("" if k % 2 else " Let me see."))
    return "\n\n".join(lines)


def test_the_shuffled_copies() -> None:
    config = FormatConfig(max_shuffled_copies=2)
    # Nine copies of a paragraph, in three orders.
    verdict = check_format(prose_completion(_shuffled(9)), config=config)
    assert verdict.metrics.shuffled_copies == 9
    assert check_format(prose_completion(_shuffled(9))).metrics.shuffled_copies == 9
    # A word changed in each sentence, at a place that moves from copy to copy.
    moved = _shuffled(9, lambda s, k: " ".join(w + "s" if i == k % 8 else w for i, w in enumerate(s.split(" "))))
    assert check_format(prose_completion(moved), config=config).metrics.shuffled_copies == 9
    # Under the bound: nothing is measured.
    assert check_format(prose_completion(_shuffled(8))).metrics.shuffled_copies == 0
    unbounded = FormatConfig(max_shuffled_copies=None)
    assert check_format(prose_completion(_shuffled(9)), config=unbounded).metrics.shuffled_copies == 0


def test_a_shuffled_loop_is_reported() -> None:
    verdict = check_format(prose_completion(_shuffled(12)))
    assert ViolationCode.NEAR_DUPLICATES in verdict.codes
    assert any(
        "12 prose lines hold a sentence of one paragraph written again and again in other orders" in v.message
        for v in verdict.violations
    )
    unbounded = check_format(prose_completion(_shuffled(12)), config=FormatConfig(max_shuffled_copies=None))
    assert not any("other orders" in v.message for v in unbounded.violations)


def test_what_is_no_shuffled_copy() -> None:
    config = FormatConfig(max_shuffled_copies=2)
    # A paragraph looped in one order: the line rules' to bound.
    looped = "\n\n".join([" ".join(_PARAGRAPH)] * 9)
    assert check_format(prose_completion(looped), config=config).metrics.shuffled_copies == 0
    # Table rows closed by one refrain, in one order.
    rows = "\n".join(
        f"In {m} the number of days is not a multiple of seven. So that month fails, as the others do." for m in _MONTHS
    )
    assert check_format(prose_completion(rows), config=config).metrics.shuffled_copies == 0
    # Two sentences said in either order on lines of their own: one sentence each.
    either = "\n".join(_PARAGRAPH[k % 2] for k in range(12))
    assert check_format(prose_completion(either), config=config).metrics.shuffled_copies == 0
