"""Loops and code copies in the summary between `</think>` and the final block (kimina-format 0.19.0).

Under 0.18.0 each attack below kept the full score on every row: one sentence written five or eight times on one line
(no line count sees it, and the prose's bound of 8 copies a line held for the summary too), a paragraph of three lines
written three times (3 copies of a line were allowed), and the proof quoted as inline code, joined into one line or a
line to each sentence (only summary lines equal to a code line counted). The summary's sentences count now
(`max_summary_sentence_repeats`: a leading label, a closing counter and the closing marks aside, digits kept; more
than five sentences one word apart count too), a line may occur twice, and code lines count within summary lines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kimina_format.testing import Edit, final_code_of, red_team_tests
from kimina_format.testing import RedTeamCase as Case

_SENTENCE = "Therefore the proof below closes the goal by simplifying both sides and applying linear arithmetic."
_PARAGRAPH = (
    "We first simplify the hypothesis and isolate the variable.\n"
    "Then we substitute the value into the goal expression.\n"
    "Finally linear arithmetic closes the remaining inequality goal."
)

_VERBS = ("prove", "show", "establish", "verify", "demonstrate", "confirm", "check", "derive", "obtain", "conclude")


def _summary(write: Callable[[str], str]) -> Edit:
    """The edit that writes `write(completion)` as the summary, between `</think>` and the final block."""

    def edit(row: dict[str, Any]) -> dict[str, Any] | None:
        completion = row["completion"]
        if "</think>" not in completion:
            return None
        new = completion.replace("</think>", "</think>\n\n" + write(completion) + "\n", 1)
        return {**row, "completion": new}

    return edit


def _code_lines(completion: str) -> list[str]:
    return [line.strip() for line in final_code_of(completion).split("\n") if line.strip()]


ATTACKS = {
    "one_sentence_eight_times_on_a_line": Case(
        "max_summary_sentence_repeats", _summary(lambda _: " ".join([_SENTENCE] * 8))
    ),
    "one_sentence_five_times_with_a_counter": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: " ".join(f"Step {k}: {_SENTENCE}" for k in range(5))),
    ),
    # The thirty-seventh red team: a spelled-out counter, or a new closing mark for each copy (188 of 188 rows kept
    # the full score with a first version that compared sentences with their labels and marks).
    "one_sentence_with_a_spelled_out_counter": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: " ".join(f"Step {word}: {_SENTENCE}" for word in ("one", "two", "three", "four"))),
    ),
    "one_sentence_with_new_closing_marks": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: "\n".join(_SENTENCE[:-1] + mark for mark in (".", "!", "?", ";", "…", "!!", " :)"))),
    ),
    # The review of 0.19.0: a closing counter, a label of three words, an invisible character per copy.
    "one_sentence_with_closing_counters": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: " ".join(f"{_SENTENCE[:-1]} ({k})." for k in range(8))),
    ),
    "one_sentence_behind_long_labels": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: " ".join(f"Important remark {k}: {_SENTENCE}" for k in range(8))),
    ),
    "one_sentence_with_invisible_characters": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: " ".join(_SENTENCE[:-1] + "\u200b" * k + "." for k in range(8))),
    ),
    # One word changed in each copy (the thirty-seventh red team: twenty synonyms kept the full score on every row).
    "one_sentence_with_a_synonym_per_copy": Case(
        "max_summary_sentence_repeats",
        _summary(
            lambda _: " ".join(f"We {verb} the inequality by reducing it to a sum of squares." for verb in _VERBS)
        ),
    ),
    # Lines too short for a sentence to count: the line rule alone sees them.
    "short_lines_three_times": Case(
        "max_summary_line_repeats", _summary(lambda _: "\n\n".join(["Simplify first.\nThen compute.\nDone."] * 3))
    ),
    "a_paragraph_three_times": Case("max_summary_line_repeats", _summary(lambda _: "\n\n".join([_PARAGRAPH] * 3))),
    # Rows whose last fifteen code lines are each under 12 key bytes (`rw [h9] at h8`) copy no line that counts.
    "the_proof_joined_into_inline_code": Case(
        "max_summary_code_lines",
        _summary(lambda c: "The proof is `" + " ".join(_code_lines(c)[-15:]).replace("`", "") + "`."),
        most_kept=3,
    ),
    "each_proof_line_quoted_in_a_sentence": Case(
        "max_summary_code_lines", _summary(lambda c: "\n".join(f"Use `{line}`." for line in _code_lines(c)))
    ),
}

LOOK_ALIKES = {
    "a_short_summary": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: _PARAGRAPH + "\nThis completes the proof. This completes the proof."),
    ),
    "one_proof_line_quoted": Case(
        "max_summary_code_lines", _summary(lambda c: f"The key step is `{_code_lines(c)[-1]}`, which closes the goal.")
    ),
    # The tactic named in sentences again and again: `native_decide` is one name, not a copy of the proof.
    "a_tactic_named_in_every_sentence": Case(
        "max_summary_code_lines",
        _summary(
            lambda _: (
                "The `native_decide` tactic computes the value. We trust native_decide here since"
                " native_decide evaluates the decidable instance; so native_decide closes it."
            )
        ),
    ),
    # Cases that differ in their numbers alone are an enumeration, not a loop (the thirty-seventh red team: every
    # row lost the full score while sentences were compared without their digits).
    "cases_that_differ_in_their_numbers": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: "\n".join(f"Case {k}: when a = {k}, the sum equals {k * k + 1}." for k in range(1, 6))),
    ),
    "residues_one_by_one": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: "\n".join(f"- If n ≡ {r} (mod 3), then n^2 ≡ {r * r % 3} (mod 3)." for r in range(3))),
    ),
    # Parallel sentences, one word apart: five are a list, not a loop.
    "five_parallel_sentences": Case(
        "max_summary_sentence_repeats",
        _summary(
            lambda _: " ".join(
                f"The {nth} term is positive by the lemma." for nth in ("first", "second", "third", "fourth", "fifth")
            )
        ),
    ),
    "cases_settled_one_by_one": Case(
        "max_summary_sentence_repeats",
        _summary(lambda _: " ".join(f"Case {k} is settled." for k in range(8))),
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)
