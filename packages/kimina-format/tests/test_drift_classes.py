"""Drift classes beyond the red team's reproducers: other shapes of each class lose the score, look-alikes keep it.

Every mutation edits each passing real completion; a degenerate one must lose the full score on all of them, and a
harmless one must leave every one passing.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kimina_format import check_format, parse_completion

Row = dict[str, Any]


@pytest.fixture(scope="module")
def passing(data_dir: Path) -> list[Row]:
    rows = [json.loads(line) for line in (data_dir / "kimina_completions.jsonl").read_text().splitlines() if line]
    return [r for r in rows if check_format(r["completion"], formal_statement=r["formal_statement"]).ok]


def prose_lines(text: str) -> list[str]:
    """The non-blank lines of the reasoning of `text`, stripped."""
    return [line.strip() for line in parse_completion(text).reasoning.split("\n") if line.strip()]


def in_thinking(text: str, insert: str) -> str:
    at = text.index("<think>") + len("<think>")
    return text[:at] + "\n" + insert + "\n" + text[at:]


def in_final_code(text: str, insert: str) -> str:
    code = parse_completion(text).code
    assert code is not None
    at = code.index("theorem ")
    return text.replace(code, code[:at] + insert + code[at:])


def _paraphrases(count: int, seed: int) -> str:
    rng = random.Random(seed)
    openers = "So then | Let me now | Next I will | Okay so now | At this point I | Right, so I | Now we can".split(
        " | "
    )
    middle = "rewrite the sum as a telescoping series and cancel the inner terms one by one"
    closers = "carefully | again | to be sure | once more | properly | in full".split(" | ")
    return "\n".join(f"{rng.choice(openers)} {middle} {rng.choice(closers)}." for _ in range(count))


_NOUNS = [f"{a}{b}" for a in ("alpha", "beta", "gamma", "delta", "omega") for b in "abcdefghijklmnopqrstu"]


def _random_letters(count: int) -> str:
    rng = random.Random(3)
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(count))


def _zero_width_interleaved(sentence: str, copies: int) -> str:
    return "\n".join("\u200d".join(sentence) for _ in range(copies))


DEGENERATE: dict[str, Callable[[str], str]] = {
    # loops of short lines, in other shapes
    "alternating_short_lines": lambda t: in_thinking(t, "Wait.\nHmm.\n" * 400),
    "dispersed_short_line": lambda t: in_thinking(
        t, "\n".join(f"Let me check.\nThe {a} and {b} terms cancel here." for a in _NOUNS for b in _NOUNS[:15])
    ),
    "okay_loop": lambda t: in_thinking(t, "Okay\n" * 600),
    # invisible and Unicode padding
    "word_joiners": lambda t: in_thinking(t, "\u2060" * 5000),
    "byte_order_marks": lambda t: in_thinking(t, "\ufeff" * 5000),
    "blank_braille": lambda t: in_thinking(t, "\u2800" * 5000),
    "variation_selectors": lambda t: in_thinking(t, "\ufe0f" * 2000),
    "control_characters": lambda t: in_thinking(t, "\x07" * 500),
    "zero_width_joined_sentences": lambda t: in_thinking(t, _zero_width_interleaved("Let us verify this step.", 20)),
    "thin_spaces": lambda t: in_thinking(t, "\u2009" * 3000),
    # other loop shapes
    "paraphrased_loop_long_openers": lambda t: in_thinking(t, _paraphrases(250, 5)),
    "repeated_paragraph": lambda t: in_thinking(
        t, "\n".join(["First we expand the product and collect the terms.", "Then we compare both sides.", ""] * 60)
    ),
    # junk lines
    "dash_lines": lambda t: in_thinking(t, "---\n" * 2000),
    "ellipsis_lines": lambda t: in_thinking(t, "...\n" * 3000),
    "star_lines": lambda t: in_thinking(t, "*\n" * 1000),
    "digit_lines": lambda t: in_thinking(t, "0\n" * 5000),
    "scattered_tabs": lambda t: in_thinking(t, "\n".join(f"\tthe {a} term" for a in _NOUNS[:100])),
    # gibberish and symbol dumps
    "random_letters": lambda t: in_thinking(t, _random_letters(20_000)),
    "one_word_line": lambda t: in_thinking(t, "wait " * 5000),
    "mixed_emoji": lambda t: in_thinking(t, "".join(chr(0x1F600 + i % 80) for i in range(2000))),
    # padding the verified code
    "long_term_helper": lambda t: in_final_code(t, "def pad : ℕ := " + " + ".join(["1"] * 6000) + "\n\n"),
    "example_spam": lambda t: in_final_code(t, "".join("example : True := trivial\n" for _ in range(100)) + "\n"),
    "string_list_helper": lambda t: in_final_code(
        t, "def pad : List String := [" + ", ".join(f'"{i:04d}"' for i in range(400)) + "]\n\n"
    ),
}


@pytest.mark.parametrize("name", list(DEGENERATE))
def test_other_drifts_of_each_class_lose_the_score(passing: list[Row], name: str) -> None:
    mutate = DEGENERATE[name]
    kept = [
        r["name"] for r in passing if check_format(mutate(r["completion"]), formal_statement=r["formal_statement"]).ok
    ]
    assert not kept, f"{len(kept)} of {len(passing)} keep the full score, e.g. {kept[:3]}"


def _respaced(text: str) -> str:
    code = parse_completion(text).code
    assert code is not None
    at = code.index("theorem ")
    end = code.index(":=", at)
    return text.replace(code, code[:at] + code[at:end].replace(" : ", ":").replace("  ", " ") + code[end:])


HARMLESS: dict[str, Callable[[str], str]] = {
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "lean_fence": lambda t: t.replace("```lean4", "```lean"),
    "short_summary": lambda t: t.replace("</think>", "</think>\nThe proof follows from the steps above.\n", 1),
    "doc_comment": lambda t: in_final_code(t, "/-- The problem, solved by the tactics above. -/\n"),
    "helper_lemma": lambda t: in_final_code(t, "lemma helper_aux (n : ℕ) : n + 0 = n := by simp\n\n"),
    "respaced_statement": _respaced,
    "math_symbols": lambda t: in_thinking(
        t,
        "Since x ∈ ℝ and x ≤ 3, we get x² ≤ 9, so |x| ≤ 3 → the bound holds ✓.\n"
        "For n ∈ ℕ we have n ≥ 0 ∧ n² ≥ n, and ∑ᵢ aᵢ ≤ ∏ᵢ (1 + aᵢ) when every aᵢ ≥ 0.\n"
        "Hence f⁻¹(y) ∈ [0, π/2] and sin θ ≤ θ for θ ≥ 0 ⟹ done.",
    ),
    "chinese_reasoning": lambda t: in_thinking(
        t, "我们需要证明这个不等式。首先考虑平方项，然后应用均值不等式。\n这样就得到了所需的结论，证明完毕。\n" * 3
    ),
    "a_few_emoji": lambda t: in_thinking(t, "Good, that works 🙂 ✓✓ ✗ 🎉"),
    "a_no_break_space": lambda t: in_thinking(t, "The value is 3\u00a0cm, and 10\u202f000 is ten thousand."),
    # The row's own first twenty reasoning lines written as one paragraph. (One sentence written 60 times on one line
    # was the look-alike here; it is the inline loop `max_inline_repeats` bounds.)
    "a_long_paragraph": lambda t: in_thinking(t, " ".join(line for line in prose_lines(t)[:20])),
}


@pytest.mark.parametrize("name", list(HARMLESS))
def test_harmless_lookalikes_keep_the_score(passing: list[Row], name: str) -> None:
    mutate = HARMLESS[name]
    lost = {
        r["name"]: [v.code.value for v in verdict.violations]
        for r in passing
        if not (verdict := check_format(mutate(r["completion"]), formal_statement=r["formal_statement"])).ok
    }
    assert not lost, f"{len(lost)} of {len(passing)} lose the score: {dict(list(lost.items())[:3])}"
