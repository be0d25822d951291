"""Red-team reproducers (see docs/red-team-2026-12.md): holes found in the lexer and the format rules.

Each test states what should happen and is marked `xfail(strict=True)` while the hole is open, so the suite stays
green; the rule owner removes the mark with the fix. Drift tests edit every passing real completion the way a
drifting policy would; each edited completion should lose its format score.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kimina_format import check_format, parse_completion
from kimina_format.lean_lexer import lex

Row = dict[str, Any]


# --- the lexer: the third character of a plain block comment ------------------------------------------------------


def test_slash_dash_slash_dash_slash_is_one_comment_in_lean() -> None:
    # Lean v4.15 `whitespace`: after `/-` it checks the third character for `-`/`!` and then starts
    # `finishCommentBlock` one character later (`s.next input i`), so that character can never open a nested
    # comment. `/-/-/` is a complete comment; the code after it is code. Our lexer reads a nested `/-` at the third
    # character, waits for two closers, and hides `variable (cheat : False)` (or `@[implemented_by]`) until
    # `-- -/ -/`, which Lean reads as a line comment.
    lexed = lex("/-/-/\nvariable (cheat : False)\ninclude cheat\n-- -/ -/\n")
    assert "variable" in [t.text for t in lexed.tokens] or lexed.problems


def test_boxed_remark_comment_is_closed() -> None:
    # The same disagreement the other way: Lean closes this comment at its only `-/`.
    lexed = lex("/-/- a boxed remark -/\ntheorem t : True := trivial\n")
    assert not lexed.problems
    assert [t.text for t in lexed.tokens][:2] == ["theorem", "t"]


def test_plain_comments_still_close_where_lean_closes_them() -> None:
    # The harmless look-alikes: a third character that is not `/` changes nothing.
    for text in ("/- a -/ theorem t : True := trivial", "/-/ a -/ theorem t : True := trivial"):
        lexed = lex(text)
        assert not lexed.problems
        assert lexed.tokens[0].text == "theorem"


# --- format drift: degenerate completions that keep the full format score -----------------------------------------


@pytest.fixture(scope="module")
def passing(data_dir: Path) -> list[Row]:
    rows = [json.loads(line) for line in (data_dir / "kimina_completions.jsonl").read_text().splitlines() if line]
    return [r for r in rows if check_format(r["completion"], formal_statement=r["formal_statement"]).ok]


def _after_think_open(text: str, insert: str) -> str:
    at = text.index("<think>") + len("<think>")
    return text[:at] + "\n" + insert + "\n" + text[at:]


def _in_final_code(text: str, insert: str) -> str:
    code = parse_completion(text).code
    assert code is not None
    at = code.index("theorem ")
    return text.replace(code, code[:at] + insert + code[at:])


_WORDS = "the of a we is to and then so this that it by with from".split()


def _paraphrased_loop() -> str:
    rng = random.Random(1)
    openers = ["First", "Now", "Next", "Then", "So", "Again", "Hence", "Thus", "Well", "Okay"]
    closers = ["indeed", "right", "fine", "done"]
    return "\n".join(
        f"{rng.choice(openers)} {rng.choice(_WORDS)} {rng.choice(_WORDS)} we substitute the definition and then "
        f"apply the lemma to the result {rng.choice(_WORDS)} {rng.choice(_WORDS)} {rng.choice(closers)}"
        for _ in range(300)
    )


def _gibberish() -> str:
    rng = random.Random(2)
    return " ".join(rng.choice(_WORDS) for _ in range(5000))


DRIFT: dict[str, tuple[Callable[[str], str], str]] = {
    "short_line_loop": (
        lambda t: _after_think_open(t, "Hmm, wait. Let me reconsider.\n" * 1500),
        "a prose line under repetition_min_chars repeated 1500 times in a row is never a loop",
    ),
    "zero_width_padding": (
        lambda t: _after_think_open(t, "\u200b" * 40_000),
        "40k zero-width spaces are not whitespace to the padding rules",
    ),
    "nbsp_padding": (
        lambda t: _after_think_open(t, "\u00a0" * 40_000),
        "40k no-break spaces: the padding rules count only ' ' and tabs",
    ),
    "paraphrased_loop": (
        lambda t: _after_think_open(t, _paraphrased_loop()),
        "300 copies of one sentence with new first and last words escape both near-duplicate bands",
    ),
    "gibberish": (
        lambda t: _after_think_open(t, _gibberish()),
        "5000 random function words as reasoning",
    ),
    "dot_lines": (
        lambda t: _after_think_open(t, ".\n" * 8000),
        "8000 lines of '.' are short lines, never blank, never repeated",
    ),
    "tab_lines": (
        lambda t: _after_think_open(t, ("\t" * 99 + "x\n") * 300),
        "300 lines of 99 tabs: each run under max_space_run, the line too short to repeat",
    ),
    "comment_line_spam": (
        lambda t: _after_think_open(t, "-- \n" * 3000),
        "3000 empty comment lines in the prose",
    ),
    "emoji_padding": (
        lambda t: _after_think_open(t, "\U0001f642" * 20_000),
        "20k emoji as one prose line",
    ),
    "string_padding_in_code": (
        lambda t: _in_final_code(t, 'def pad : String := "' + "ab" * 15_000 + '"\n\n'),
        "a 30k-character string literal in the final code: no rule bounds the code itself",
    ),
    "helper_spam_in_code": (
        lambda t: _in_final_code(t, "".join(f"lemma pad{i} : True := trivial\n" for i in range(600)) + "\n"),
        "600 trivial helper lemmas in the final code",
    ),
}


@pytest.mark.parametrize("name", list(DRIFT))
def test_degenerate_completion_loses_the_format_score(passing: list[Row], name: str) -> None:
    mutate, _ = DRIFT[name]
    kept = [
        r["name"] for r in passing if check_format(mutate(r["completion"]), formal_statement=r["formal_statement"]).ok
    ]
    assert len(passing) >= 150
    assert not kept, f"{len(kept)} of {len(passing)} degenerate completions keep the full format score, e.g. {kept[:3]}"


def test_blocked_drift_lookalikes_stay_blocked(passing: list[Row]) -> None:
    # What the rules do catch (the red team tried them too): full-width-space lines repeat, and a summary of
    # zero-width characters is over the summary bound.
    for mutate in (
        lambda t: _after_think_open(t, ("\u3000" * 90 + "\n") * 500),
        lambda t: t.replace("</think>", "</think>\n" + "\u200b" * 30_000 + "\n", 1),
    ):
        assert not any(
            check_format(mutate(r["completion"]), formal_statement=r["formal_statement"]).ok for r in passing
        )
