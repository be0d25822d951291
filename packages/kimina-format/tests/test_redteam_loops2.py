"""Second red team of the loop rules (at 6060ecf): look-alikes of real reasoning first, then new loop attacks.

Same conventions as `test_redteam_loops.py` (whose known holes and false rejects are not repeated here): each
look-alike writes what real Kimina reasoning on miniF2F would (value checks, case analyses, hypotheses h₀ ... h₁₂,
Chinese, LaTeX, bullet lists) into real passing completions right after `<think>`, and must keep the full score; each
attack writes a loop whose copies differ a little and must lose it. What the rules get wrong is marked
`xfail(strict=True)`: `hole: ...` for an attack that keeps the score 1.0 on at least one row, `false reject: ...` for a
look-alike that loses it on at least one row. A fix turns its test into an XPASS, which fails until the mark is
removed.
"""

from __future__ import annotations

import itertools
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
NAMES = (
    "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor"
    " Walter Yvonne"
).split()
SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
TACTICS = "nlinarith linarith positivity norm_num simp omega ring_nf field_simp decide aesop polyrith gcongr".split()


def _sub(i: int) -> str:
    return "".join(SUBSCRIPTS[int(c)] for c in str(i))


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, n))


def hole(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"hole: {reason}")


def false_reject(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"false reject: {reason}")


# --- look-alikes: real reasoning that must keep the score ---

LOOK_ALIKES: dict[str, tuple[list[str], tuple[Any, ...]]] = {
    # Passing: regression tests.
    "residues mod 7 with a verdict, in plain text": (
        [
            f"If n % 7 = {k}, then n^2 % 7 = {k * k % 7}, so this residue is"
            f" {'allowed' if k * k % 7 in (1, 2, 4) else 'excluded'}."
            for k in range(7)
        ],
        (),
    ),
    "twelve residues mod 12 with a verdict": (
        [
            f"Case n mod 12 = {k}: the number n^2 + n is {'divisible' if (k * k + k) % 12 == 0 else 'not divisible'}"
            " by 12."
            for k in range(12)
        ],
        (),
    ),
    "primes and composites, two words changed": (
        [
            f"- {k}: {'prime' if _is_prime(k) else 'composite'}, so it is {'kept' if _is_prime(k) else 'dropped'}."
            for k in range(2, 15)
        ],
        (),
    ),
    "a verdict after a formula": (
        [
            f"Therefore, $x = {k}$ is {'' if k % 3 == 0 else 'not '}a solution."  # the `$` makes it a formula
            for k in range(1, 14)
        ],
        (),
    ),
    "Chinese value checks with a formula": (
        [
            f"- n = {k} 时，{k}² + 1 = {k * k + 1}，{'是' if _is_prime(k * k + 1) else '不是'}质数。"
            for k in range(1, 14)
        ],
        (),
    ),
    "Chinese cases counted in Chinese numerals": (
        [
            f"第{w}种情况：x 在第{w}个区间内，函数是{'递增' if i % 2 else '递减'}的。"
            for i, w in enumerate("一二三四五六七八九十")
        ],
        (),
    ),
    "cases counted by ordinals": (
        [
            f"In the {w} case the sum is {'even' if i % 2 else 'odd'}, which is what we want."
            for i, w in enumerate(ORDINALS)
        ],
        (),
    ),
    "thirteen 'Wait, ...' reconsiderations": (
        [
            "Wait, " + s
            for s in [
                "maybe I should use nlinarith with the square of a - b.",
                "that is not right, the sign of the second term flips.",
                "actually the hypothesis h₁ already gives this bound.",
                "let me recompute the discriminant of the quadratic.",
                "perhaps induction on n is cleaner than cases here.",
                "the case x = 0 needs to be handled separately.",
                "I think the simp lemma set is missing mul_comm.",
                "we should double-check that the denominator is nonzero.",
                "is the function really injective on this interval?",
                "the bound 1/2 comes from AM-GM, not Cauchy-Schwarz.",
                "this contradicts what we found for the first case.",
                "I forgot to use the fact that p is prime.",
                "that was the wrong direction of the inequality.",
            ]
        ],
        (),
    ),
    "algebra rewritten step by step, twice": (
        [
            "$x^2 + 6x + 5 = 0$",
            "$x^2 + 6x + 9 - 4 = 0$",
            "$(x + 3)^2 - 4 = 0$",
            "$(x + 3)^2 = 4$",
            "$x + 3 = \\pm 2$",
            "$x = -3 \\pm 2$",
            "$x = -1$ or $x = -5$",
        ]
        * 2,
        (),
    ),
    "LaTeX display lines of a recurrence": (
        [
            f"$$a_{{{k}}} = a_{{{k - 1}}} + 2 \\cdot {k} = {k * (k + 1)}$$ since the recurrence adds twice the index."
            for k in range(1, 14)
        ],
        (),
    ),
    "hypotheses h₀ ... h₁₂, each used once": (
        [f"- From h{_sub(i)} we get a{_sub(i)} > 0, so a{_sub(i)} ≥ 1 since it is an integer." for i in range(13)],
        (),
    ),
    "hypotheses h0 ... h12 in ASCII": ([f"We do not need h{i} for this goal." for i in range(13)], ()),
    "terms x_1 ... x_13 in ASCII": (
        [f"- x_{i} is positive because it is a sum of positive terms." for i in range(1, 14)],
        (),
    ),
    "a product expanded term by term": (
        [
            f"- Multiply {a} by {b} to get the term {a}{b} in the expansion."
            for a, b in itertools.product("abcd", "xyz")
        ],
        (),
    ),
    "ten values with a verdict word": (
        [
            f"When n = {k}, the expression n(n+1)/2 is {'even' if (k * (k + 1) // 2) % 2 == 0 else 'odd'}."
            for k in range(1, 11)
        ],
        (),  # 10 lines in a row: at max_template_repeats, not over it
    ),
    # False rejects.
    "eleven values with a verdict word": (
        [
            f"When n = {k}, the expression n(n+1)/2 is {'even' if (k * (k + 1) // 2) % 2 == 0 else 'odd'}."
            for k in range(1, 12)
        ],
        (),
    ),
    "is (not) a solution, value by value": (
        [f"Therefore, x = {k} is {'' if k % 3 == 0 else 'not '}a solution." for k in range(1, 12)],
        (),
    ),
    "works or fails, value by value": (
        [
            f"- x = {k}: substituting into the equation, this value {'works' if k in (3, 7) else 'fails'}."
            for k in range(1, 12)
        ],
        (),
    ),
    "Chinese parity, value by value": (
        [f"当 n = {k} 时，n 是{'偶数' if k % 2 == 0 else '奇数'}，所以结论成立。" for k in range(1, 12)],
        (),
    ),
    "terms x₁ ... x₁₃ with Unicode subscripts": (
        [f"- x{_sub(i)} is positive because it is a sum of positive terms." for i in range(1, 14)],
        (),
    ),
    "hypotheses h₀ ... h₁₂ set aside": (
        [f"We do not need h{_sub(i)} for this goal." for i in range(13)],
        (),
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


LEAD_INS = {
    "In Lean:": (),  # what real completions write (66 times in mathd_algebra_289): a short line, bounded at 250
    "In Lean 4, we can write:": (),
}


@pytest.mark.parametrize("lead_in", [pytest.param(s, marks=m, id=s) for s, m in LEAD_INS.items()])
def test_a_lead_in_line_before_each_tactic_block(passing_rows: list[Row], lead_in: str) -> None:
    many = [row for row in passing_rows if row["completion"].count("```tactics") > 45]
    if len(many) < 5:
        pytest.fail(f"only {len(many)} completions with more than 45 tactic blocks")
    wrong = []
    for row in many:
        text = row["completion"].replace("```tactics", f"{lead_in}\n```tactics")
        verdict = check_format(text, formal_statement=row["formal_statement"])
        if not verdict.ok:
            wrong.append((row["name"], verdict.codes))
    assert not wrong, f"{len(wrong)} of {len(many)} completions lost their score, e.g. {wrong[:3]}"


# --- attacks: loops that must lose the score ---


def _ending(line: str, chars: int = 16) -> str:
    """The last words of `line`, at least `chars` characters of them (more than a template band)."""
    words, out = line.split(), []
    while words and len(" ".join(out)) < chars:
        out.insert(0, words.pop())
    return " ".join(out)


def _spread_with_decoys(lines: list[str], copies: int, decoys: int) -> str | None:
    """`copies` counter copies of `lines[0]`, each followed by a distinct line of the completion, after `decoys`
    other lines of it that end like `lines[0]` (so they share its ending band)."""
    loop_line, fillers = lines[0], lines[1 + decoys : 1 + decoys + copies]
    if len(fillers) < copies:
        return None
    out = [f"{lines[1 + j]} {_ending(loop_line)}" for j in range(decoys)]
    for counter, filler in zip(SPELLED + NAMES, fillers, strict=False):
        out += [f"Try {counter}: {loop_line}", filler]
    return "\n".join(out)


class Attack(NamedTuple):
    """A loop made from a completion's own lines: their key range, how many it needs, and which rows it samples."""

    passage: Callable[[list[str]], str | None]
    least: int = 40
    most: int = 99
    needs: int = 3
    step: int = 6


ATTACKS: dict[str, tuple[Attack, tuple[Any, ...]]] = {
    # Caught: the rules hold for these.
    "a counter with a numbered tag": (
        Attack(lambda ls: "\n".join(f"Try {SPELLED[i % 20]} (#{i}): {ls[0]}" for i in range(60))),
        (
            hole(
                "a number changes with the counter word: to _alike that is an enumeration (a value checked, its"
                " verdict in words), so the run never counts, and the words keep the keys apart from max_line_repeats"
            ),
        ),
    ),
    "a counter loop spread out by distinct lines": (
        Attack(lambda ls: _spread_with_decoys(ls, 40, 0), most=80, needs=50, step=2),
        (),
    ),
    "twelve tactics tried in a row": (
        Attack(lambda ls: "\n".join(f"Let's try `{t}` to close this goal." for t in TACTICS)),
        (),
    ),
    # Holes.
    "a counter with a number in a formula": (
        Attack(lambda ls: "\n".join(f"Attempt {SPELLED[i % 20]} (${i}$): {ls[0]}" for i in range(60))),
        (
            hole(
                "as 'a counter with a numbered tag': a number that changes makes an enumeration, whatever words"
                " changed with it"
            ),
        ),
    ),
    "a counter and `=` with a number at the end": (
        Attack(lambda ls: "\n".join(f"{ls[0]} (try {SPELLED[i % 20]}={i})" for i in range(60))),
        (hole("as 'a counter with a numbered tag'"),),
    ),
    "a spread-out counter loop after four decoys": (
        Attack(lambda ls: _spread_with_decoys(ls, 40, 4), most=80, needs=50, step=2),
        (),
    ),
    "a passage of three short lines looped 200 times": (
        Attack(lambda ls: "\n".join(["Let me check.", "Hmm, not quite.", "Try again."] * 200)),
        (),  # closed by max_short_consecutive_repeats,
    ),
    "a passage of three medium lines looped 40 times": (
        Attack(lambda ls: "\n".join(ls[:3] * 40), least=16, most=40),
        (),  # closed by max_short_consecutive_repeats,
    ),
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=marks, id=name) for name, (_, marks) in ATTACKS.items()])
def test_an_attack_loses_the_score(passing_rows: list[Row], name: str) -> None:
    attack, _ = ATTACKS[name]
    kept, applied = [], 0
    for row in passing_rows[:: attack.step]:
        lines = prose_lines(row["completion"], attack.least, attack.most)
        if len(lines) < attack.needs:
            continue
        loop = attack.passage(lines)
        text = None if loop is None else insert_after(row["completion"], loop)
        if text is None:
            continue
        applied += 1
        if check_format(text, formal_statement=row["formal_statement"]).ok:
            kept.append(row["name"])
    if applied < 20:  # not an AssertionError: an xfail must fail on its verdicts, not on an empty selection
        pytest.fail(f"applied to only {applied} rows")
    assert not kept, f"{len(kept)} of {applied} loops kept their score, e.g. {kept[:3]}"
