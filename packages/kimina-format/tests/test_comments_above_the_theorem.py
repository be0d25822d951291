"""The reasoning pasted as comments above the theorem (kimina-format 0.19.0).

`max_proof_prose_comment_chars` read the proof body's comments alone, so the thinking's prose pasted as `--` lines or
one `/- -/` block above the theorem kept the full score on 187 to 188 of 188 rows at 300 to 900 characters (under
the 1,000 that `code_comment_free_chars` leaves free). Every comment of the final code counts now, but doc comments:
real completions state the problem in one, copied from the prompt, and the thinking restates the problem too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kimina_format import parse_completion
from kimina_format.testing import Edit, final_code_of, red_team_tests, with_final_code
from kimina_format.testing import RedTeamCase as Case


def _above_the_theorem(comment: Callable[[str], str], chars: int) -> Edit:
    """The edit that writes `comment(prose)` above the final code's theorem, where `prose` is the first `chars`
    characters of the thinking's long prose lines joined."""

    def edit(row: dict[str, Any]) -> dict[str, Any] | None:
        completion = row["completion"]
        code = final_code_of(completion)
        at = code.find("theorem ")
        lines = parse_completion(completion).reasoning.split("\n")
        prose = " ".join(line.strip() for line in lines if len(line.strip()) > 40)[:chars].replace("-/", "")
        if at < 0 or len(prose) < chars:
            return None
        return {**row, "completion": with_final_code(completion, code[:at] + comment(prose) + "\n" + code[at:])}

    return edit


def _line_comments(prose: str) -> str:
    return "\n".join("-- " + prose[k : k + 90] for k in range(0, len(prose), 90))


ATTACKS = {
    "the_reasoning_as_a_block_comment": Case(
        "max_proof_prose_comment_chars", _above_the_theorem(lambda prose: f"/- {prose} -/", 300)
    ),
    # Cut every 90 characters, mid-word: a few rows' lines quote no prose line at either end.
    "the_reasoning_as_line_comments": Case(
        "max_proof_prose_comment_chars", _above_the_theorem(_line_comments, 900), most_kept=2
    ),
}

LOOK_ALIKES = {
    # The problem stated in a doc comment, as real completions do (the thinking restates it too).
    "the_problem_in_a_doc_comment": Case(
        "max_proof_prose_comment_chars", _above_the_theorem(lambda prose: f"/-- {prose} -/", 300)
    ),
    "a_short_label_above_the_theorem": Case(
        "max_proof_prose_comment_chars", _above_the_theorem(lambda prose: "-- The main result.", 0)
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)
