"""Third red team of the loop rules (at 8457ebc): look-alikes of real reasoning first, then new loop attacks.

Same conventions as `test_redteam_loops.py` and `test_redteam_loops2.py` (whose known holes and false rejects are not
repeated here): each look-alike writes what real Kimina reasoning on miniF2F would into real passing completions (right
after `<think>`, spread over the thinking, or around its tactic blocks) and must keep the full score; each attack
writes a loop and must lose it. What the rules get wrong is marked `xfail(strict=True)`: `hole: ...` for an attack
that keeps the score 1.0 on at least one row, `false reject: ...` for a look-alike that loses it on at least one row.
A fix turns its test into an XPASS, which fails until the mark is removed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from kimina_format import check_format
from kimina_format.repetition import line_keys
from kimina_format.testing import insert_after, prose_lines

Row = dict[str, Any]
MAX_CHARS = 77_000  # below max_tokens * chars_per_token, with room for the insertion

SPELLED = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen"
    " eighteen nineteen twenty"
).split()
NAMES = (
    "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor"
    " Walter Yvonne"
).split()
TACTICS = "nlinarith linarith positivity norm_num simp omega ring_nf field_simp decide aesop polyrith gcongr".split()
# Hints without digits (a digit that changes would make the lines an enumeration, which the rules let pass).
HINTS = [
    "(a - b)",
    "(a + b)",
    "(b - c)",
    "(b + c)",
    "(a - c)",
    "(a + c)",
    "(a * b - c)",
    "(a * c - b)",
    "(b * c - a)",
    "(a + b - c)",
    "(a - b + c)",
    "(a * b * c)",
]


def spread_out(row: Row, lines: list[str]) -> str | None:
    """The completion with each of `lines` as a paragraph of its own at evenly spaced paragraph breaks of the thinking
    (outside its fences); None when the thinking has too few breaks or the result would be too long."""
    text: str = row["completion"]
    breaks, inside, pos = [], False, 0
    for line in text[: text.index("</think>")].split("\n"):
        if line.lstrip().startswith("```"):
            inside = not inside
        elif not inside and not line.strip():
            breaks.append(pos)
        pos += len(line) + 1
    if len(breaks) < len(lines):
        return None
    step = len(breaks) / len(lines)
    pieces, last = [], 0
    for k, line in enumerate(lines):
        at = breaks[int(k * step)]
        pieces += [text[last:at], f"\n{line}\n"]
        last = at
    pieces.append(text[last:])
    out = "".join(pieces)
    return out if len(out) <= MAX_CHARS else None


def hole(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"hole: {reason}")


def false_reject(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"false reject: {reason}")


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, n))


def _goal_states() -> list[str]:
    """A Lean goal state pasted after each of seven steps (twice): the context stays, the goal changes."""
    goals = [
        "a * b + b * c + c * a ≤ 3",
        "a * b + b * c + c * a ≤ (a + b + c) ^ 2 / 3",
        "3 * (a * b + b * c + c * a) ≤ (a + b + c) ^ 2",
        "0 ≤ (a - b) ^ 2 + (b - c) ^ 2 + (c - a) ^ 2",
        "0 ≤ (a - b) ^ 2",
        "0 ≤ (b - c) ^ 2",
        "0 ≤ (c - a) ^ 2",
    ]
    return list(
        itertools.chain.from_iterable(
            ["a b c : ℝ", "h₀ : 0 < a ∧ 0 < b ∧ 0 < c", "h₁ : a + b + c = 3", f"⊢ {goal}", ""] for goal in goals * 2
        )
    )


def _case_verdicts(values: int) -> list[str]:
    """An enumeration whose numbers are on short lines and whose verdict, the same each time, is a long line."""
    return list(
        itertools.chain.from_iterable(
            [f"- n = {k}: n^2 + 1 = {k * k + 1}", "  This is not divisible by 7, so this case is ruled out."]
            for k in range(1, values + 1)
        )
    )


def _hints_tried(lead_in: Callable[[str], str]) -> list[str]:
    """Twelve hints tried one after the other, each in its own tactic block, with a lead-in and an outcome."""
    return [
        f"{lead_in(hint)}\n```tactics\nnlinarith [sq_nonneg {hint}]\n```\n{'This works.' if i == 11 else 'This fails.'}\n"
        for i, hint in enumerate(HINTS)
    ]


# --- look-alikes: real reasoning that must keep the score ---

LOOK_ALIKES: dict[str, tuple[list[str], tuple[Any, ...]]] = {
    # Passing: regression tests.
    "twelve short 'Wait, ...' lines in a row": (
        [
            "Wait, " + s
            for s in [
                "is that right?",
                "no, the sign is wrong.",
                "that works.",
                "let me redo this.",
                "h₁ is not needed.",
                "so a ≥ b here.",
                "then x must be odd.",
                "but that contradicts h₀.",
                "hmm, maybe not.",
                "I see the issue.",
                "right, it is positive.",
                "that's the key step.",
            ]
        ],
        (),
    ),
    "twelve 'Check: ...' lines with different content": (
        [
            "Check: " + s
            for s in [
                "the sign of a is fine.",
                "the denominator is nonzero.",
                "both sides are positive.",
                "the base case holds.",
                "the inductive step holds.",
                "the bound is tight.",
                "the square is nonnegative.",
                "the product is even.",
                "the sum is odd.",
                "the inequality is strict.",
                "the function is monotone.",
                "the root is real.",
            ]
        ],
        (),
    ),
    "tactics tried, each with its outcome in a word": (
        [f"- `{t}`: {'works' if t in ('nlinarith', 'polyrith') else 'fails'}." for t in TACTICS],
        (),
    ),
    "a markdown table of tactics and outcomes": (
        ["| tactic | result |", "|---|---|"] + [f"| `{t}` | fails |" for t in TACTICS],
        (),
    ),
    "lemmas looked up one by one": (
        [
            f"Maybe `{lemma}` helps here."
            for lemma in "mul_pos add_pos sq_nonneg pow_pos div_pos sub_nonneg mul_le_mul add_le_add abs_nonneg"
            " pow_le_pow_left mul_self_nonneg le_div_iff".split()
        ],
        (),
    ),
    "step headers spelled out": ([f"**Step {w}:**" for w in SPELLED[:12]], ()),
    "step headers with titles": (
        [
            f"**Step {i}: {title}**"
            for i, title in enumerate(
                "Expand Simplify Factor Bound Substitute Compare Conclude Check Rewrite Split Induct Finish".split(), 1
            )
        ],
        (),
    ),
    "a Lean goal state pasted after each step": (_goal_states(), ()),
    "four cases with one long verdict": (_case_verdicts(4), ()),  # 4 in a row: at max_consecutive_repeats
    # False rejects.
    "five cases with one long verdict": (
        _case_verdicts(5),
        (),
    ),
    "six case headers with one conclusion": (
        list(
            itertools.chain.from_iterable(
                [f"**Case {case}:**", "In this case the inequality follows directly from AM-GM."]
                for case in ["a = b", "a > b", "a < b", "b = c", "b > c", "b < c"]
            )
        ),
        (),
    ),
    "twelve hints tried in tactic blocks, one lead-in": (
        _hints_tried(lambda hint: "Let's try another hint:"),
        (),  # closed: a tactic block between lines keeps them from a run,
    ),
    "twelve hints tried in tactic blocks, the lead-in names the hint": (
        _hints_tried(lambda hint: f"Let's try `nlinarith [sq_nonneg {hint}]`:"),
        (),  # closed: a tactic block between lines keeps them from a run,
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


def _cycle(variants: list[str], count: int) -> list[str]:
    return [variants[i % len(variants)] for i in range(count)]


SPREAD: dict[str, tuple[list[str], tuple[Any, ...]]] = {
    "a short line forty times": (["Let me verify."] * 40, ()),
    "a medium line forty times": (["Let me verify this."] * 40, ()),  # under max_medium_line_repeats (45)
    "two 'Hmm, ...' wordings, thirty times": (
        _cycle(["Hmm, this doesn't seem right.", "Hmm, that doesn't seem right."], 30),
        (),
    ),
    # False rejects.
    "a stock phrase, once one way and 24 times the other": (
        ["Let me check this again."] + ["Let me check that again."] * 24,
        (),
    ),
    "a stock phrase in four wordings, 34 times": (
        _cycle(
            [
                "Let me check this again.",
                "Let me check that again.",
                "Let me check the algebra again.",
                "Let me check the arithmetic again.",
            ],
            34,
        ),
        (),
    ),
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=marks, id=name) for name, (_, marks) in SPREAD.items()])
def test_a_phrase_spread_over_the_thinking_keeps_the_score(passing_rows: list[Row], name: str) -> None:
    lines, _ = SPREAD[name]
    wrong, applied = [], 0
    for row in passing_rows[::3]:
        text = spread_out(row, lines)
        if text is None:
            continue
        applied += 1
        verdict = check_format(text, formal_statement=row["formal_statement"])
        if not verdict.ok:
            wrong.append((row["name"], verdict.codes))
    if applied < 20:  # not an AssertionError: an xfail must fail on its verdicts, not on an empty selection
        pytest.fail(f"applied to only {applied} rows")
    assert not wrong, f"{len(wrong)} of {applied} completions lost their score, e.g. {wrong[:3]}"


def _lead_ins(variants: list[str]) -> Callable[[str], str]:
    """Puts the `variants`, in turn, on the line before each tactic block."""

    def apply(text: str) -> str:
        turn = itertools.cycle(variants)
        return re.sub(r"```tactics", lambda _: f"{next(turn)}\n```tactics", text)

    return apply


BLOCK_LEAD_INS: dict[str, tuple[list[str], tuple[Any, ...]]] = {
    "one lead-in": (["In Lean 4, we can write:"], ()),
    "two lead-ins that share no band": (["In Lean 4, we can write:", "In Lean 4, we could write:"], ()),
    "three lead-ins with a word changed": (
        [
            "Let me write this step in Lean 4:",
            "Let me write the next step in Lean 4:",
            "Let me write the last step in Lean 4:",
        ],
        (),
    ),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=m, id=n) for n, (_, m) in BLOCK_LEAD_INS.items()])
def test_lead_ins_in_a_few_wordings_before_each_tactic_block(passing_rows: list[Row], name: str) -> None:
    variants, _ = BLOCK_LEAD_INS[name]
    many = [row for row in passing_rows if row["completion"].count("```tactics") >= 30]
    if len(many) < 20:
        pytest.fail(f"only {len(many)} completions with 30 tactic blocks or more")
    wrong = []
    for row in many:
        text = _lead_ins(variants)(row["completion"])
        verdict = check_format(text, formal_statement=row["formal_statement"])
        if not verdict.ok:
            wrong.append((row["name"], verdict.codes))
    assert not wrong, f"{len(wrong)} of {len(many)} completions lost their score, e.g. {wrong[:3]}"


# --- attacks: loops that must lose the score ---


def _ending(line: str, chars: int = 16) -> str:
    """The last words of `line`, at least `chars` characters of them (more than a template band)."""
    words, out = line.split(), list[str]()
    while words and len(" ".join(out)) < chars:
        out.insert(0, words.pop())
    return " ".join(out)


def _locked_groups(lines: list[str], copies: int, pairs: int) -> str | None:
    """`pairs` decoy pairs that end like `lines[0]` (a line and the same line after `Hmm.`), then `copies` counter
    copies of `lines[0]`, each followed by a distinct line of the completion."""
    loop_line, end = lines[0], _ending(lines[0])
    decoys, fillers = lines[1 : 1 + pairs], lines[1 + pairs : 1 + pairs + copies]
    if len(fillers) < copies:
        return None
    out = list(itertools.chain.from_iterable([f"{d} {end}", f"Hmm. {d} {end}"] for d in decoys))
    for counter, filler in zip(SPELLED + NAMES, fillers, strict=False):
        out += [f"Try {counter}: {loop_line}", filler]
    return "\n".join(out)


def _apart(lines: list[str], count: int, chars: int = 60) -> list[str] | None:
    """`count` of `lines`, cut to about `chars` characters, that keep 40 key bytes and share no opening or ending
    band (so no other rule sees them together)."""
    out: list[str] = []
    heads: set[bytes] = set()
    tails: set[bytes] = set()
    for line in lines:
        cut = line if len(line) <= chars else line[:chars].rsplit(" ", 1)[0]
        key = line_keys(cut)[0]
        if len(key) < 40 or key[:12] in heads or key[-12:] in tails:
            continue
        heads.add(key[:12])
        tails.add(key[-12:])
        out.append(cut)
        if len(out) == count:
            return out
    return None


def _long_period(lines: list[str], period: int, copies: int) -> str | None:
    passage = _apart(lines, period)
    return None if passage is None else "\n".join(passage * copies)


class Attack(NamedTuple):
    """A loop made from a completion's own lines: their key range, how many rows it needs, and which rows it samples."""

    passage: Callable[[list[str]], str | None]
    least: int = 40
    most: int = 99
    step: int = 2
    min_rows: int = 20


ATTACKS: dict[str, tuple[Attack, tuple[Any, ...]]] = {
    # Caught: the rules hold for these.
    "a spread-out counter loop, no decoys": (Attack(lambda ls: _locked_groups(ls, 40, 0)), ()),
    "a passage of 64 long lines written 12 times": (
        Attack(lambda ls: _long_period(ls, 64, 12), most=400, step=1, min_rows=10),
        (),
    ),
    # Holes.
    "a spread-out counter loop after eight decoy pairs": (
        Attack(lambda ls: _locked_groups(ls, 40, 8)),
        (),  # closed: the group that took a line longest ago gives its place, so decoys left behind do not lock them
    ),
    "a spread-out counter loop after sixteen decoy pairs": (Attack(lambda ls: _locked_groups(ls, 40, 16)), ()),
    "a passage of 65 long lines written 12 times": (
        Attack(lambda ls: _long_period(ls, 65, 12), most=400, step=1, min_rows=10),
        (),  # closed: a loop's copy may span 1,024 lines,
    ),
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=marks, id=name) for name, (_, marks) in ATTACKS.items()])
def test_an_attack_loses_the_score(passing_rows: list[Row], name: str) -> None:
    attack, _ = ATTACKS[name]
    kept, applied = [], 0
    for row in passing_rows[:: attack.step]:
        loop = attack.passage(prose_lines(row["completion"], attack.least, attack.most, distinct=True))
        text = None if loop is None else insert_after(row["completion"], loop)
        if text is None:
            continue
        applied += 1
        if check_format(text, formal_statement=row["formal_statement"]).ok:
            kept.append(row["name"])
    if applied < attack.min_rows:  # not an AssertionError: an xfail must fail on its verdicts, not on no rows
        pytest.fail(f"applied to only {applied} rows")
    assert not kept, f"{len(kept)} of {applied} loops kept their score, e.g. {kept[:3]}"


def _restarted(row: Row, long_lines: int, copies: int) -> str | None:
    """The completion with the start of its thinking, up to its `long_lines`-th long prose line (tactic blocks and
    all), written `copies` times: the model starting its reasoning over from the top."""
    text: str = row["completion"]
    start = pos = text.index("<think>") + len("<think>")
    seen, inside = 0, False
    for line in text[start:].split("\n"):
        pos += len(line) + 1
        if line.lstrip().startswith("```"):
            inside = not inside
        elif not inside and len(line_keys(line)[0]) >= 40:
            seen += 1
            if seen == long_lines:
                break
    else:
        return None
    chunk = text[start:pos]
    if "</think>" in chunk:
        return None
    out = text[:pos] + chunk * (copies - 1) + text[pos:]
    return out if len(out) <= MAX_CHARS else None


@pytest.mark.parametrize(
    ("long_lines", "copies"),
    [
        (64, 5),
        (65, 5),  # closed: a loop's copy may span 1,024 lines
    ],
)
def test_the_reasoning_restarted_from_the_top_loses_the_score(
    passing_rows: list[Row], long_lines: int, copies: int
) -> None:
    kept, applied = [], 0
    for row in passing_rows:
        text = _restarted(row, long_lines, copies)
        if text is None:
            continue
        applied += 1
        if check_format(text, formal_statement=row["formal_statement"]).ok:
            kept.append(row["name"])
    if applied < 20:  # not an AssertionError: an xfail must fail on its verdicts, not on an empty selection
        pytest.fail(f"applied to only {applied} rows")
    assert not kept, f"{len(kept)} of {applied} restarts kept their score, e.g. {kept[:3]}"
