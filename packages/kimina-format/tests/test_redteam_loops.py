"""Red team of the loop rules (template loop, consecutive and repeated lines, near-duplicates, short lines, paragraphs).

Each attack writes a loop whose copies differ in a word or two into real passing completions (after `<think>`, or
after `</think>` for the summary), made from the completion's own lines; it must lose the format score on every row
it applies to. Each look-alike writes what real reasoning would (tables, case analyses, lists of values) and must keep
it. What the rules get wrong is marked `xfail(strict=True)`: `hole: ...` for an attack that keeps the score 1.0,
`false reject: ...` for a look-alike that loses it. A fix turns its test into an XPASS, which fails until the mark is
removed.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from kimina_format import check_format
from kimina_format.testing import insert_after, prose_lines

Row = dict[str, Any]

SPELLED = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen"
    " eighteen nineteen twenty"
).split()
ROMAN = "i ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi xvii xviii xix xx".split()
NAMES = (
    "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor"
    " Walter Yvonne"
).split()
# Words short enough that `Try {w} first.` has a key of 12 to 15 bytes, under `template_min_chars` (16).
COLOURS = (
    "red blue green pink gray black white brown cyan teal navy gold lime rose sand jade ruby opal onyx mint".split()
)
GREEK = r"\alpha \beta \gamma \delta \epsilon \zeta \eta \theta \iota \kappa \lambda \mu \nu \xi \pi \rho".split()
FILLERS = "indeed clearly again now here then surely also so thus".split()
# An irregular choice between two passages: no stretch of it has a period that holds for long.
IRREGULAR = "1101001110010110100111010010110110010111"


def insert_word(line: str, word: str, share: float) -> str:
    """`line` with `word` inserted after `share` of its words (at least one)."""
    words = line.split()
    at = max(1, int(len(words) * share))
    return " ".join([*words[:at], word, *words[at:]])


def middle(line: str, word: str) -> str:
    return insert_word(line, word, 0.5)


def two_words(line: str, first: str, second: str) -> str:
    """`line` with `first` inserted at 30% of its words and `second` at 60%: two changes far apart."""
    words = line.split()
    a, b = max(1, len(words) * 3 // 10), max(2, len(words) * 6 // 10)
    return " ".join([*words[:a], first, *words[a:b], second, *words[b:]])


def homoglyph(line: str, k: int, copies: int) -> str:
    """`line` with one `a`/`e`/`o` (the one `k / copies` of the way along) swapped for its Cyrillic look-alike."""
    chars = list(line)
    vowels = [i for i, c in enumerate(chars) if c in "aeo"]
    at = vowels[k * len(vowels) // copies]
    chars[at] = {"a": "\u0430", "e": "\u0435", "o": "\u043e"}[chars[at]]
    return "".join(chars)


def drift(line: str, copies: int, seed: int) -> list[str]:
    """`copies` lines, each the one before with one random word replaced by a filler (a sentence drifting)."""
    rng = random.Random(seed)
    words, out = line.split(), []
    for _ in range(copies):
        words[rng.randrange(len(words))] = rng.choice(FILLERS)
        out.append(" ".join(words))
    return out


def filler_anywhere(line: str, copies: int, seed: int) -> list[str]:
    """`copies` copies of `line`, each with the word `indeed` inserted at a random place."""
    rng = random.Random(seed)
    words = line.split()
    return [insert_word(line, "indeed", rng.randrange(1, len(words)) / len(words)) for _ in range(copies)]


def drop_each_word(lines: list[str]) -> str | None:
    """Twenty copies of the completion's longest line of 20+ words, copy `k` without its `k`-th word."""
    words = max(lines, key=lambda s: len(s.split())).split()
    if len(words) < 20:
        return None
    return "\n".join(" ".join(w for j, w in enumerate(words) if j != k) for k in range(20))


class Attack(NamedTuple):
    """A loop made from a completion's own lines: their key range, how many it needs, and where it goes."""

    passage: Callable[[list[str]], str | None]
    least: int = 40
    most: int = 300
    needs: int = 3
    where: str = "<think>"


def hole(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"hole: {reason}")


def false_reject(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"false reject: {reason}")


def lines_of(make: Callable[[str], str], words: list[str]) -> str:
    return "\n".join(map(make, words))


ATTACKS: dict[str, tuple[Attack, tuple[Any, ...]]] = {
    # --- caught: the rules hold for these ---
    "names at the start": (Attack(lambda ls: lines_of(lambda w: f"{w} says: {ls[0]}", NAMES)), ()),
    "the counter changes every second copy": (
        Attack(lambda ls: "\n".join(f"Try {SPELLED[i // 2]}: {ls[0]}" for i in range(32))),
        (),
    ),
    "punctuation only": (
        Attack(
            lambda ls: lines_of(
                lambda p: ls[0].rstrip(".") + p,
                [".", "!", "?", "...", ";", ":", "!!", "?!", "!?", ". .", "..", ",", " -", " --", " ~", "?.", "!."],
            )
        ),
        (),
    ),
    "the counter moves between the lines of a passage": (
        Attack(
            lambda ls: "\n".join(
                "\n".join(middle(ls[j], SPELLED[k]) if j == k % 3 else ls[j] for j in range(3)) for k in range(16)
            )
        ),
        (),
    ),
    "a blank line between copies": (Attack(lambda ls: "\n\n".join(f"Try {w}: {ls[0]}" for w in SPELLED)), ()),
    "a short line between copies": (Attack(lambda ls: lines_of(lambda w: f"Try {w}: {ls[0]}\nHmm.", SPELLED)), ()),
    "markdown bullets": (Attack(lambda ls: lines_of(lambda w: f"- Attempt {w}: {ls[0]}", SPELLED)), ()),
    "LaTeX Greek letter in the middle": (Attack(lambda ls: lines_of(lambda g: middle(ls[0], f"${g}$"), GREEK)), ()),
    "LaTeX Greek letter at both ends": (
        Attack(lambda ls: lines_of(lambda g: f"With ${g}$: {ls[0]} (for ${g}$)", GREEK)),
        (),
    ),
    "two loops interleaved regularly": (
        Attack(lambda ls: lines_of(lambda w: f"Try {w}: {ls[0]}\n{ls[1]} ({w})", SPELLED)),
        (),
    ),
    "a counted line and an equal line sharing an ending": (
        Attack(
            lambda ls: lines_of(
                lambda w: (
                    f"Try {w}: {ls[0]} This fails.\nLet me go back and look at the whole thing again. This fails."
                ),
                SPELLED,
            )
        ),
        (),
    ),
    "lines of 500+ characters, counter at the start": (
        Attack(lambda ls: lines_of(lambda w: f"Try {w}: {' '.join(ls[:6])}", SPELLED), least=60, most=200, needs=6),
        (),
    ),
    "in the summary, counter at the start": (
        Attack(
            lambda ls: lines_of(lambda w: f"Try {w}: the proof uses nlinarith with squares.", SPELLED),
            where="</think>",
        ),
        (),
    ),
    "between tactic blocks": (
        Attack(lambda ls: lines_of(lambda w: f"Try {w}: {ls[0]}\n\n```tactics\nnorm_num\n```\n", SPELLED)),
        (),
    ),
    # --- holes: each keeps the score 1.0 on at least one real completion ---
    "counter at the start, the middle and the end": (
        Attack(lambda ls: lines_of(lambda w: f"Try {w}: {middle(ls[0], w)} (try {w})", SPELLED)),
        (hole("a counter in the opening, middle and ending band leaves no band repeated, so the gate flags nothing"),),
    ),
    "two different counters at the two ends": (
        Attack(lambda ls: "\n".join(f"{n} says: {ls[0]} ({r})" for n, r in zip(NAMES, ROMAN, strict=True))),
        # closed: the middle band shifts with the counters' lengths, but most copies keep it, and a stretch of
        # flagged units may hold two that keep no band seen often enough
        (),
    ),
    "a spelled and a numbered counter": (
        Attack(lambda ls: "\n".join(f"Attempt {w} (try {i}): {ls[0]}" for i, w in enumerate(SPELLED, 1)), most=90),
        (
            hole(
                "a number changes with the counter word: to _alike that is an enumeration (a value checked, its"
                " verdict in words), so the run never counts, and the words keep the keys apart from max_line_repeats"
            ),
        ),
    ),
    "a passage with a numbered line": (
        Attack(
            lambda ls: "\n".join(
                f"Try {w}: {ls[0]}\nThat is attempt number {i} on this." for i, w in enumerate(SPELLED)
            ),
            most=90,
        ),
        (),  # closed: a word change sets the loop apart from an enumeration
    ),
    "dropping a different word each copy": (
        Attack(drop_each_word, most=99, needs=1),
        (),  # closed in 0.16.0: the stretches of the copies that keep their words repeat (`max_clause_repeats`)
    ),
    "two words changed far apart": (
        Attack(lambda ls: "\n".join(two_words(ls[0], w, r) for w, r in zip(SPELLED, ROMAN, strict=True)), least=60),
        (
            hole(
                "two counters replaced in two places are a table's two columns to _alike (`The variable a appears"
                " only in the first factor`, then `b` and `second`): only a word moved counts in two places"
            ),
        ),
    ),
    "a filler word inserted at a random place": (
        Attack(lambda ls: "\n".join(filler_anywhere(ls[0], 20, seed=1)), most=99),
        # closed: a word added in one copy and dropped in the next is `_WORD_MOVED`, and the loop's period is the
        # shortest that holds
        (),
    ),
    "a homoglyph at a moving place": (
        Attack(lambda ls: "\n".join(homoglyph(ls[0], k, 16) for k in range(16)), least=60),
        (),  # closed: a word change sets the loop apart from an enumeration
    ),
    "a sentence drifting one word at a time": (
        Attack(lambda ls: "\n".join(drift(ls[0], 20, seed=1)), least=60, most=99),
        (hole("replacements spread over the line split every band into groups, and digits replaced veto _alike"),),
    ),
    "lines under 16 key bytes with a counter": (
        Attack(lambda ls: lines_of(lambda w: f"Try {w} first.", COLOURS * 5)),
        (),  # closed by max_repeated_remarks (each wording is written five times)
    ),
    "an enumeration on short lines": (
        Attack(lambda ls: "\n".join(f"So x = {i} fails, try the next one." for i in range(60))),
        (),  # closed by max_medium_line_repeats,
    ),
    "a distinct line every ten copies": (
        Attack(
            lambda ls: "\n".join(
                itertools.chain.from_iterable(
                    [*(f"Try {w}: {ls[0]}" for w in SPELLED[:10]), ls[1 + k]] for k in range(6)
                )
            ),
            most=90,
            needs=8,
        ),
        (),  # closed by max_alike_lines,
    ),
    "two passages interleaved irregularly": (
        Attack(
            lambda ls: "\n".join(
                f"Try {w}: {ls[0]}" if b == "1" else f"{ls[1]} (try {w})"
                for w, b in zip(SPELLED * 2, IRREGULAR, strict=True)
            ),
            most=90,
        ),
        (hole("no period holds for more than a few copies, and nothing bounds the total of alike lines"),),
    ),
    "a passage of five lines, one with the counter in three places": (
        Attack(
            lambda ls: "\n".join(
                "\n".join(
                    f"Try {SPELLED[k]}: {middle(ls[j], SPELLED[k])} ({SPELLED[k]})"
                    if j == k % 5
                    else f"{ls[j]} [{ROMAN[k]}]"
                    for j in range(5)
                )
                for k in range(16)
            ),
            needs=5,
        ),
        (hole("the line with the counter in three places is never flagged, so each stretch is at most four units"),),
    ),
    "in the summary, counter in three places": (
        Attack(
            lambda ls: lines_of(lambda w: f"Try {w}: the proof uses {w} nlinarith with squares ({w}).", SPELLED[:16]),
            where="</think>",
        ),
        (hole("as 'counter at the start, the middle and the end': the summary bounds count equal lines only"),),
    ),
    "between tactic blocks, counter in three places": (
        Attack(
            lambda ls: lines_of(lambda w: f"Try {w}: {middle(ls[0], w)} ({w})\n\n```tactics\nnorm_num\n```\n", SPELLED)
        ),
        (hole("as 'counter at the start, the middle and the end'"),),
    ),
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=marks, id=name) for name, (_, marks) in ATTACKS.items()])
def test_an_attack_loses_the_score(passing_rows: list[Row], name: str) -> None:
    attack, _ = ATTACKS[name]
    kept, applied = [], 0
    for row in passing_rows[::6]:
        lines = prose_lines(row["completion"], attack.least, attack.most)
        if len(lines) < attack.needs:
            continue
        loop = attack.passage(lines)
        text = None if loop is None else insert_after(row["completion"], loop, attack.where)
        if text is None:
            continue
        applied += 1
        if check_format(text, formal_statement=row["formal_statement"]).ok:
            kept.append(row["name"])
    if applied < 20:  # not an AssertionError: an xfail must fail on its verdicts, not on an empty selection
        pytest.fail(f"applied to only {applied} rows")
    assert not kept, f"{len(kept)} of {applied} loops kept their score, e.g. {kept[:3]}"


def _month_weekdays() -> list[str]:
    months = "January February March April May June July August September October November December".split()
    days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    weekdays = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
    rows, first = [], 0
    for month, length in zip(months, days, strict=True):
        rows.append(f"- {month} 13th falls on a {weekdays[(first + 12) % 7]}.")
        first = (first + length) % 7
    return rows


def _rewrite_trace() -> list[str]:
    """The goal restated after each of twelve `mul_comm` rewrites, one product turned each time."""
    terms = [f"{a}*{b}" for a, b in itertools.pairwise("abcdefghijklm")]
    rows = []
    for i in range(len(terms)):
        terms[i] = terms[i][::-1]
        rows.append("After rewriting with mul_comm, the goal is " + " + ".join(terms) + " = S.")
    return rows


_TF = ["True", "False"]
SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"


def _sub(i: int) -> str:
    return "".join(SUBSCRIPTS[int(c)] for c in str(i))


LOOK_ALIKES: dict[str, tuple[list[str], tuple[Any, ...]]] = {
    "a truth table of four variables": (
        ["| p | q | r | s | p ∧ (q ∨ r) → s |", "|---|---|---|---|---|"]
        + [
            f"| {a} | {b} | {c} | {d} | {not (a == 'True' and 'True' in (b, c)) or d == 'True'} |"
            for a, b, c, d in itertools.product(_TF, repeat=4)
        ],
        (),
    ),
    "the signs of four factors": (
        [
            f"- signs {a}, {b}, {c}, {d}: the product is {'negative' if (a + b + c + d).count('-') % 2 else 'positive'}."
            for a, b, c, d in itertools.product("+-", repeat=4)
        ],
        (),
    ),
    "the orderings of four variables": (
        [
            f"- Case {p[0]} ≥ {p[1]} ≥ {p[2]} ≥ {p[3]}: the largest is {p[0]} and the smallest is {p[3]}."
            for p in itertools.permutations("abcd")
        ],
        (),
    ),
    "hypotheses with subscripts": ([f"h{_sub(i)} : 0 < a{_sub(i)} ∧ a{_sub(i)} < 1" for i in range(1, 14)], ()),
    "sentences about subscripted hypotheses": (
        [f"From h{_sub(i)} we know that a{_sub(i)} is strictly between zero and one." for i in range(1, 14)],
        (),
    ),
    "Greek angles": (
        [f"The angle ${g}$ is acute, so $\\cos {g}$ is positive and $\\sin {g}$ is positive." for g in GREEK[:12]],
        (),
    ),
    "parity cases": (
        [
            f"If x is {a}, y is {b} and z is {c}, then x + y + z is {'odd' if [a, b, c].count('odd') % 2 else 'even'}."
            for a, b, c in itertools.product(["even", "odd"], repeat=3)
        ]
        * 2,
        (),
    ),
    "the positivity of each variable": (
        [f"Since {v} > 0 by hypothesis, we also have {v}^2 > 0 and {v}^3 > 0." for v in "abcdefghijklmn"],
        (),
    ),
    "last digits of squares, spelled": (
        [
            f"If the last digit of n is {d}, the last digit of n squared is {e}."
            for d, e in zip(
                "zero one two three four five six seven eight nine".split(),
                "zero one four nine six five six nine four one".split(),
                strict=True,
            )
        ],
        (),
    ),
    "the weekday of each month's 13th": (_month_weekdays(), ()),
    "each variable's factor": (
        [
            f"- The variable {v} appears only in the {p} factor, so we can treat it as a constant."
            for v, p in zip("abcdefghijkl", ["first", "second", "third"] * 4, strict=True)
        ],
        (),
    ),
    "the goal after each rewrite": (
        _rewrite_trace(),
        (
            false_reject(
                "a goal restated after each of 12 rewrites changes in one product per line: _alike takes it for a"
                " counter loop (real proofs restate a goal at most 5 times in a row, so this is rare)"
            ),
        ),
    ),
    "a table of twelve hypotheses": (
        ["| name | statement | source |"] + [f"| h{v} | {v} > 0 | hypothesis |" for v in "abcdefghijkl"],
        (
            false_reject(
                "rows that differ only in a variable letter are a word-counter loop to _alike (a table of 11+"
                " variables is rare in miniF2F)"
            ),
        ),
    ),
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=marks, id=name) for name, (_, marks) in LOOK_ALIKES.items()])
def test_a_look_alike_keeps_the_score(passing_rows: list[Row], name: str) -> None:
    lines, _ = LOOK_ALIKES[name]
    wrong, applied = [], 0
    for row in passing_rows[::6]:
        text = insert_after(row["completion"], "\n".join(lines))
        if text is None:
            continue
        applied += 1
        verdict = check_format(text, formal_statement=row["formal_statement"])
        if not verdict.ok:
            wrong.append((row["name"], verdict.codes))
    if applied < 20:  # not an AssertionError: an xfail must fail on its verdicts, not on an empty selection
        pytest.fail(f"applied to only {applied} rows")
    assert not wrong, f"{len(wrong)} of {applied} look-alikes lost their score, e.g. {wrong[:3]}"
