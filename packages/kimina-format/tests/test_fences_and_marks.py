"""Markdown's tilde fence, stacked combining marks and French spacing (kimina-format 0.16.0; the twenty-seventh red team).

- An unclosed `~~~` fence turns the rest of the thinking into code when rendered, as an unclosed ```` ``` ```` one
  does: put anywhere in the thinking, it kept the full score on 188 of 188 rows. It is now `fence_unclosed` too; a
  closed one is text.
- Combining marks stacked on one letter (`e` and ten different marks after every prose line) kept the full score on
  156 of 188 rows: a mark on a letter alone is a formula's (`x̂`), so none counted. Each mark of a stack of two or
  more now counts as a look-alike letter.
- A no-break space before a colon (French typography, `Donc :`) on every prose line cost 91 of 188 rows the full
  score as invisible characters; such a space before `:;?!»` or after `«` now shows where it stands.
"""

from __future__ import annotations

from collections.abc import Callable

from kimina_format import ViolationCode, check_format
from kimina_format.testing import (
    Edit,
    build_completion,
    change_prose_lines,
    red_team_tests,
    thinking_edit,
)
from kimina_format.testing import RedTeamCase as Case

_MARKS = "".join(chr(0x300 + j) for j in range(10))


def _prose(change: Callable[[str], str]) -> Edit:
    return thinking_edit(lambda thinking: change_prose_lines(thinking, lambda line, i: change(line)))


ATTACKS = {
    "an_unclosed_tilde_fence_first": Case(
        "fence_unclosed", thinking_edit(lambda t: "Let me try:\n~~~lean\n  nlinarith [sq_nonneg (x - 1)]\n\n" + t)
    ),
    "an_unclosed_bare_tilde_fence_last": Case(
        "fence_unclosed", thinking_edit(lambda t: t + "\n\nLet me try:\n~~~\n  nlinarith [sq_nonneg (x - 1)]\n")
    ),
    "a_tilde_fence_closed_by_too_few_tildes": Case(
        "fence_unclosed", thinking_edit(lambda t: "~~~~\n  norm_num\n~~~\n\n" + t)
    ),
    "ten_stacked_marks_after_every_line": Case("max_lookalike_chars", _prose(lambda line: line + " e" + _MARKS)),
    "three_acute_accents_after_every_line": Case("max_lookalike_chars", _prose(lambda line: line + "\u0301" * 3)),
    # Every word struck through (U+0336 after each space): a mark on a space (the twenty-ninth red team, 180 of 188).
    "every_word_struck_through": Case("max_lookalike_chars", _prose(lambda line: line.replace(" ", " \u0336"))),
}

LOOK_ALIKES = {
    "a_closed_tilde_fence": Case("fence_unclosed", thinking_edit(lambda t: t + "\n\n~~~\nx = 3\n~~~\n")),
    "a_closed_tilde_fence_with_a_language": Case(
        "fence_unclosed", thinking_edit(lambda t: "~~~lean\n  norm_num\n~~~\n\n" + t)
    ),
    "french_spacing_before_every_colon": Case(
        "max_invisible_chars", _prose(lambda line: line.replace(":", "\u00a0:").replace("?", "\u202f?"))
    ),
    # Tilde fences inside a closed ```` ```text ```` block are its text (the twenty-ninth red team: 188 of 188 lost).
    "a_rule_of_tildes_in_a_text_block": Case(
        "fence_unclosed",
        thinking_edit(lambda t: "The output looked like:\n\n```text\n~~~~~~~~\nresult: 17\n```\n\n" + t),
    ),
    # Two marks on one letter: Hindi's vowel sign and nasal mark (`में`), a vector's velocity (`x⃗̇`).
    "hindi_words_with_two_marks": Case(
        "max_lookalike_chars", thinking_edit(lambda t: t + "\n\n" + "में है, " * 12 + "में।")
    ),
    "velocities_of_vectors": Case(
        "max_lookalike_chars",
        thinking_edit(lambda t: t + "\n\n" + ", ".join(["x\u20d7\u0307"] * 17) + " are the velocities."),
    ),
    "french_numbers_and_percents": Case(
        "max_invisible_chars",
        thinking_edit(
            lambda t: t + "\n\nBilan : " + ", ".join(f"{k}\u202f000 cas ({k}\u00a0%)" for k in range(1, 21)) + "."
        ),
    ),
    "hats_on_letters_alone": Case(
        "max_lookalike_chars",
        thinking_edit(
            lambda t: "Let x\u0302 be the estimate and y\u0302 its bound, so that x\u0302 \u2264 y\u0302.\n" + t
        ),
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)


def test_a_tilde_fence_is_unclosed_until_a_line_of_as_many_tildes() -> None:
    def unclosed(reasoning: str) -> int:
        return check_format(build_completion(reasoning=reasoning)).metrics.unclosed_fences

    assert unclosed("Try:\n~~~\nnorm_num\n~~~") == 0
    assert unclosed("Try:\n~~~\nnorm_num\n~~~lean") == 1  # a fence with an info string opens, it never closes
    assert unclosed("Try:\n~~~~\nnorm_num\n~~~") == 1
    assert unclosed("Try:\n~~~~\nnorm_num\n~~~~~") == 0
    assert unclosed("We write ~~~ in prose, not at a line's start.") == 0
    verdict = check_format(build_completion(reasoning="Try:\n~~~lean\nnorm_num"))
    assert ViolationCode.FENCE_UNCLOSED in {v.code for v in verdict.violations}


def test_french_spacing_is_no_invisible_character_but_a_lone_no_break_space_is() -> None:
    french = check_format(build_completion(reasoning="Donc\u00a0: le carré est positif\u202f! «\u00a0Voilà\u00a0»."))
    assert french.metrics.invisible_chars == 0
    lone = check_format(build_completion(reasoning="The square\u00a0is non-negative."))
    assert lone.metrics.invisible_chars == 1
