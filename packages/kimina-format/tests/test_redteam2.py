"""Second red-team pass (redteam2): fresh format drifts (issue 18) that the first pass did not write.

Each drift edits every real completion of `kimina_completions.jsonl` that passes today, the way a policy drifting
under RL would, and asserts that none of the edited completions keeps the full format score. Each harmless variant
edits them the way a healthy policy may write, and asserts that they all still pass. Drifts that keep the full score
on main at 7c027c9 carried `xfail(strict=False, reason="HOLE on main: ...")`, so this file is green before and after
the fixes; the counts in the reasons are completions (of 190) keeping the full score on main. The marks of the
drifts closed since (kimina-format 0.4.0) are gone: their count is 0.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from kimina_format import check_format
from kimina_format.testing import data_file
from kimina_format.testing import final_code_of as _code
from kimina_format.testing import thinking_of as _thinking
from kimina_format.testing import with_thinking as _replace_thinking

Row = dict[str, Any]
Edit = Callable[[Row], str]


@pytest.fixture(scope="module")
def passing() -> list[Row]:
    lines = data_file("kimina_completions.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return [r for r in rows if check_format(r["completion"], formal_statement=r["formal_statement"]).ok]


# --- edits -------------------------------------------------------------------------------------------------------


def _after_think_open(text: str, insert: str) -> str:
    at = text.index("<think>") + len("<think>")
    return text[:at] + "\n" + insert + "\n" + text[at:]


def _after_think_close(text: str, insert: str) -> str:
    return text.replace("</think>", "</think>\n" + insert + "\n", 1)


def _in_final_code(text: str, insert: str) -> str:
    code = _code(text)
    at = code.index("theorem ")
    return text.replace(code, code[:at] + insert + code[at:])


def _in_last_code(text: str, insert: str) -> str:
    # Only the final block: `_in_final_code` edits every copy of the code, the tactic blocks' included.
    code = _code(text)
    at = text.rindex(code)
    cut = at + code.index("theorem ")
    return text[:cut] + insert + text[cut:]


def _rng(seed: int) -> random.Random:
    return random.Random(seed)


def _base64_blob() -> str:
    rng = _rng(3)
    return "\n".join(base64.b64encode(rng.randbytes(57)).decode() for _ in range(300))


def _json_dump() -> str:
    return json.dumps({f"k{i}": [i, i * i, str(i)] for i in range(1500)})


def _paragraph_loop(text: str) -> str:
    # The completion's own longest paragraph, 19 times: each line stays under the per-line limit of 20.
    paragraphs = sorted(_thinking(text).split("\n\n"), key=len)
    return _after_think_open(text, "\n\n".join([paragraphs[-1].strip()] * 19))


_NUMBER_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen"
    " eighteen nineteen twenty"
).split()


def _numbered_loop() -> str:
    # Numbers spelled out, so folding digits does not join the copies.
    line = "Attempt {}: let me try the substitution again and simplify both sides of the equation carefully."
    return "\n\n".join(line.format(w) for w in _NUMBER_WORDS * 3)


def _mixed_invisible() -> str:
    rng = _rng(4)
    return "".join(rng.choice(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00a0", " "]) for _ in range(40_000))


def _ascii_art() -> str:
    rng = _rng(5)
    return "\n".join("".join(rng.choice("/\\|_-+*") for _ in range(70)) for _ in range(300))


def _word_salad_lines() -> str:
    rng = _rng(6)
    words = "alpha beta gamma delta epsilon zeta eta theta".split()
    return "\n".join(" ".join(rng.choice(words) for _ in range(8)) for _ in range(800))


def _number_lines() -> str:
    rng = _rng(7)
    return "\n".join(" ".join(str(rng.randint(0, 99)) for _ in range(12)) for _ in range(500))


def _tactic_lines() -> str:
    rng = _rng(8)
    tactics = ["norm_num", "linarith", "nlinarith [sq_nonneg x]", "simp", "ring_nf", "field_simp"]
    return "\n".join(rng.choice(tactics) for _ in range(300))


# name -> (edit, why it is drift, completions of 190 keeping the full score on main; 0: blocked)
DRIFTS: dict[str, tuple[Edit, str, int]] = {
    # padding with invisible or non-space characters the padding rules do not count
    "combining_mark_padding": (
        lambda r: _after_think_open(r["completion"], "a" + "\u0301" * 40_000),
        "40k combining acute accents on one letter",
        0,
    ),
    "braille_blank_padding": (
        lambda r: _after_think_open(r["completion"], "\u2800" * 40_000),
        "40k braille blanks (U+2800: looks blank, not whitespace to Python)",
        0,
    ),
    "hangul_filler_padding": (
        lambda r: _after_think_open(r["completion"], "\u3164" * 40_000),
        "40k Hangul fillers (U+3164, invisible)",
        0,
    ),
    "soft_hyphen_padding": (
        lambda r: _after_think_open(r["completion"], "\u00ad" * 40_000),
        "40k soft hyphens (U+00AD, invisible)",
        0,
    ),
    "mixed_invisible_padding": (
        lambda r: _after_think_open(r["completion"], _mixed_invisible()),
        "40k random ZWSP/ZWNJ/ZWJ/word-joiner/BOM/NBSP/space",
        0,
    ),
    "cjk_single_char_padding": (
        lambda r: _after_think_open(r["completion"], "嗯" * 20_000),
        "20k copies of one CJK character as one line",
        0,
    ),
    # junk lines as reasoning
    "base64_blob": (
        lambda r: _after_think_open(r["completion"], _base64_blob()),
        "300 lines of base64",
        0,
    ),
    "json_dump": (
        lambda r: _after_think_open(r["completion"], _json_dump()),
        "a 50k-character JSON dump on one line",
        0,
    ),
    "table_rows": (
        lambda r: _after_think_open(r["completion"], "\n".join(f"| {i} | {i * i} | {i % 7} |" for i in range(600))),
        "600 rows of a numeric markdown table",
        0,
    ),
    "latex_spam": (
        lambda r: _after_think_open(r["completion"], "$$\\frac{a}{b}$$ " * 3000),
        "3000 copies of one display formula on one line",
        0,
    ),
    "ellipsis_lines": (
        lambda r: _after_think_open(r["completion"], "...\n" * 5000),
        "5000 lines of `...`",
        0,
    ),
    "ascii_art": (
        lambda r: _after_think_open(r["completion"], _ascii_art()),
        "300 lines of random `/\\|_-+*`",
        0,
    ),
    "word_salad_lines": (
        lambda r: _after_think_open(r["completion"], _word_salad_lines()),
        "800 lines of eight random Greek-letter names",
        0,
    ),
    # loops
    "paragraph_loop_19": (
        lambda r: _paragraph_loop(r["completion"]),
        "the completion's longest paragraph 19 times in a row (just under the per-line limit)",
        0,
    ),
    "spelled_number_loop": (
        lambda r: _after_think_open(r["completion"], _numbered_loop()),
        "60 copies of one sentence told apart only by a spelled-out number",
        0,
    ),
    # the summary region
    "summary_line_loop": (
        lambda r: _after_think_close(r["completion"], "The proof is complete.\n" * 30),
        "one summary sentence 30 times between `</think>` and the code",
        0,
    ),
    "summary_boxed_spam": (
        lambda r: _after_think_close(r["completion"], "\\boxed{12} " * 40),
        "40 `\\boxed{}` answers in the summary",
        0,
    ),
    # comment dump in the verified code
    "doc_comment_dump": (
        lambda r: _in_final_code(
            r["completion"], "/-- " + _thinking(r["completion"])[:6000].replace("-/", "- /") + " -/\n"
        ),
        "6000 characters of the reasoning as a doc comment on the theorem",
        0,
    ),
    # blocked on main (must stay blocked)
    "python_thinking": (
        lambda r: _replace_thinking(
            r["completion"], "```python\n" + "\n".join(f"x{i} = solve(eq{i})" for i in range(400)) + "\n```"
        ),
        "reasoning replaced by a Python block",
        0,
    ),
    "tactic_name_thinking": (
        lambda r: _replace_thinking(r["completion"], _tactic_lines()),
        "reasoning replaced by 300 random tactic lines",
        0,
    ),
    "separator_lines": (
        lambda r: _after_think_open(r["completion"], ("=" * 60 + "\n") * 400),
        "400 separator lines",
        0,
    ),
    "number_lines": (
        lambda r: _after_think_open(r["completion"], _number_lines()),
        "500 lines of random numbers",
        0,
    ),
    "statement_spam_thinking": (
        lambda r: _after_think_open(r["completion"], ("```lean4\n" + r["formal_statement"] + "\n```\n") * 25),
        "the formal statement pasted 25 times as Lean blocks",
        0,
    ),
    "trailing_spaces_in_code": (
        lambda r: r["completion"].replace(
            _code(r["completion"]), _code(r["completion"]).replace("\n", " " * 300 + "\n")
        ),
        "300 trailing spaces on every line of the final code",
        0,
    ),
    "two_final_blocks": (
        lambda r: r["completion"] + "\n\n```lean4\n" + _code(r["completion"]) + "\n```\n",
        "the final block twice",
        0,
    ),
    "second_think_block": (
        lambda r: r["completion"].replace("</think>", "</think>\n<think>\nmore\n</think>", 1),
        "a second `<think>` block",
        0,
    ),
}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            name,
            marks=[pytest.mark.xfail(strict=False, reason=f"HOLE on main: {why} ({kept}/190 keep the full score)")]
            if kept
            else [],
            id=name,
        )
        for name, (_, why, kept) in DRIFTS.items()
    ],
)
def test_drift_loses_the_full_format_score(passing: list[Row], name: str) -> None:
    edit, why, _ = DRIFTS[name]
    assert len(passing) >= 150
    kept = [r["name"] for r in passing if check_format(edit(r), formal_statement=r["formal_statement"]).ok]
    assert not kept, f"{why}: {len(kept)} of {len(passing)} keep the full score, e.g. {kept[:3]}"


# --- harmless variants: a healthy policy writes these, and they must keep the full score ------------------------

HARMLESS: dict[str, Edit] = {
    "bullet_plan": lambda r: _after_think_open(
        r["completion"], "Plan:\n- write down the hypotheses\n- combine them\n- close the goal with a tactic"
    ),
    "small_table": lambda r: _after_think_open(
        r["completion"], "| x | f(x) |\n|---|---|\n| 0 | 1 |\n| 1 | 2 |\n| 2 | 5 |"
    ),
    "latex_display": lambda r: _after_think_open(
        r["completion"], "We want\n$$\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}.$$"
    ),
    "double_check_twice_apart": lambda r: _after_think_open(r["completion"], "Let me double-check.").replace(
        "</think>", "\nLet me double-check.\n</think>", 1
    ),
    "lean_fence": lambda r: r["completion"].replace("```lean4", "```lean"),
    "unicode_math_line": lambda r: _after_think_open(
        r["completion"], "Recall: ∀ ε > 0, ∃ δ > 0, |x - a| < δ → |f x - f a| < ε."
    ),
    "doc_comment_on_theorem": lambda r: _in_final_code(r["completion"], "/-- The main result. -/\n"),
    "blank_lines_after_code": lambda r: r["completion"].replace(
        _code(r["completion"]), _code(r["completion"]) + "\n\n"
    ),
    "no_summary": lambda r: (
        r["completion"][: r["completion"].index("</think>")] + "</think>\n```lean4\n" + _code(r["completion"]) + "\n```"
    ),
    "crlf": lambda r: r["completion"].replace("\n", "\r\n"),
    "one_emoji": lambda r: _after_think_open(r["completion"], "Okay, let's go 🙂"),
    "chinese_sentence": lambda r: _after_think_open(r["completion"], "我们先化简方程。"),
    "helper_lemma": lambda r: _in_final_code(r["completion"], "lemma rt2_helper : (2 : ℕ) + 2 = 4 := by norm_num\n\n"),
    "line_comment_in_code": lambda r: _in_final_code(r["completion"], "-- main theorem\n"),
    "summary_sentence": lambda r: _after_think_close(r["completion"], "Therefore the statement holds."),
    # look-alikes of the drifts closed after redteam2: each stays under its bound
    "one_url_line": lambda r: _after_think_open(
        r["completion"], "See https://leanprover-community.github.io/mathlib4_docs/Mathlib/Tactic/Ring.html"
    ),
    "a_few_base64_lines": lambda r: _after_think_open(r["completion"], "\n".join(_base64_blob().split("\n")[:5])),
    "lowercase_sentence": lambda r: _after_think_open(
        r["completion"], "so the answer is correct and we are done with this part of the problem"
    ),
    "paragraph_twice": lambda r: _after_think_open(
        r["completion"], "\n\n".join(["Let me restate the goal.\nWe need the inequality for every admissible x."] * 2)
    ),
    "summary_one_boxed": lambda r: _after_think_close(r["completion"], "The answer is $\\boxed{12}$."),
    "summary_two_lines_alike": lambda r: _after_think_close(r["completion"], "Done.\nDone."),
    "short_doc_comment_dump": lambda r: _in_last_code(
        r["completion"], "/-- " + "We prove the bound by completing the square and comparing terms. " * 8 + "-/\n"
    ),
}


@pytest.mark.parametrize("name", list(HARMLESS))
def test_harmless_variant_keeps_the_full_format_score(passing: list[Row], name: str) -> None:
    edit = HARMLESS[name]
    failed = [r["name"] for r in passing if not check_format(edit(r), formal_statement=r["formal_statement"]).ok]
    assert not failed, f"{len(failed)} of {len(passing)} lose the score, e.g. {failed[:3]}"
