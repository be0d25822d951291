"""The final proof pasted into the thinking with its hypotheses renamed (kimina-format 0.16.0; the twenty-seventh red team).

Copies of the final code were compared by their statements, spacing aside: `h₀` renamed `hA0` in each copy made every
line new. The final proof pasted 20 times at the end of a real thinking, each copy after its own lead line with its
hypotheses renamed, kept the full score on 144 of 188 rows (12 times: 159). Hypotheses' names are now folded before
code is compared (`h`, `h₀`, `hx`, `hab`, `hA0`, `H1`, `hyp3` are one name), and a proof of one or two lines, which
`max_final_proof_copies` leaves out (a real thinking tries `norm_num` in up to 6 blocks), is bounded by
`max_short_proof_copies` (10). Each attack edits real completions; each look-alike must leave every row its score.
"""

from __future__ import annotations

import re
import string
from typing import Any

from kimina_format import FormatConfig, ViolationCode, check_format
from kimina_format.testing import (
    Edit,
    build_completion,
    final_code_of,
    red_team_tests,
    thinking_of,
    with_thinking,
)
from kimina_format.testing import RedTeamCase as Case

Row = dict[str, Any]
_FENCE = "`" * 3
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_LEADS = [
    "Let me write the proof again:",
    "Here is the proof once more:",
    "Rewriting the whole argument:",
    "Another pass over it:",
    "Once again, the full proof:",
    "Let me restate the tactics:",
    "Trying the same approach:",
    "The complete proof is:",
    "Writing it out fully:",
    "So the proof reads:",
    "Putting everything together:",
    "In Lean this becomes:",
]


def _body(code: str) -> str | None:
    at = code.find(":= by")
    return None if at < 0 else code[at + len(":= by") :].strip("\n")


def _renamed(text: str, k: int, style: str) -> str:
    """`text` with each hypothesis `h`, `h₀`, `h1` renamed for copy `k`: `hA0` (style `letter`), `H0` (`capital`),
    `h₀_3` (`suffix`) or `h3a` (`digit_first`)."""
    tag = string.ascii_uppercase[k % 26]

    def name(match: re.Match[str]) -> str:
        index = match.group(1).translate(_SUBSCRIPTS)
        return {
            "letter": f"h{tag}{index}",
            "capital": f"H{index or k}",
            "suffix": f"{match.group(0)}_{k}",
            "digit_first": f"h{k}{index}a",
        }[style]

    return re.sub(r"\bh([₀-₉0-9]*)\b", name, text)


def _joined(body: str) -> str:
    """`body` with its first two lines of the proof's column joined by `; `."""
    lines = body.split("\n")
    tops = [i for i, line in enumerate(lines) if line.strip() and len(line) - len(line.lstrip()) == 2]
    if len(tops) < 2 or tops[1] != tops[0] + 1:
        return body
    first, second = tops[0], tops[1]
    lines[first] = lines[first].rstrip() + "; " + lines[second].strip()
    del lines[second]
    return "\n".join(lines)


def _pasted(copies: int, style: str = "letter", lead: bool = True, joined: bool = False) -> Edit:
    """The final proof pasted `copies` times at the end of the thinking, renamed, each in its own tactic block."""

    def edit(row: Row) -> Row | None:
        body = _body(final_code_of(row["completion"]))
        if body is None:
            return None
        if joined:
            body = _joined(body)
        pasted = [
            (_LEADS[k % len(_LEADS)] + "\n" if lead else "") + f"{_FENCE}tactics\n{_renamed(body, k, style)}\n{_FENCE}"
            for k in range(copies)
        ]
        thinking = thinking_of(row["completion"]).strip("\n") + "\n\n" + "\n\n".join(pasted)
        return {**row, "completion": with_thinking(row["completion"], thinking)}

    return edit


ATTACKS = {
    "the_proof_pasted_12_times_renamed": Case("max_final_proof_copies", _pasted(12)),
    "the_proof_pasted_20_times_renamed": Case("max_final_proof_copies", _pasted(20)),
    "the_proof_pasted_12_times_with_capital_names": Case("max_final_proof_copies", _pasted(12, "capital")),
    # The twenty-ninth red team: names that a first fold missed (a suffix after the index, a letter after a digit),
    # 116 of 131 rows kept the full score with six copies; and copies with their first two lines joined by `; `.
    "the_proof_pasted_12_times_with_suffixed_names": Case("max_final_proof_copies", _pasted(12, "suffix")),
    "the_proof_pasted_12_times_with_a_letter_after_the_digit": Case(
        "max_final_proof_copies", _pasted(12, "digit_first")
    ),
    "the_proof_pasted_12_times_with_two_lines_joined": Case("max_final_proof_copies", _pasted(12, joined=True)),
}


def _checks(row: Row) -> Row | None:
    """Eleven small checks over three tactic blocks, for a proof of one tactic: its own word, or one that holds it."""
    body = (_body(final_code_of(row["completion"])) or "").strip()
    if body not in ("norm_num", "linarith"):
        return None
    longer = {"norm_num": "norm_num at h ⊢", "linarith": "nlinarith [sq_nonneg (x - 1)]"}[body]
    lines = [f"  have c{i} : ({i} : ℕ) + {i} = {2 * i} := by {longer if i % 2 else body}" for i in range(1, 12)]
    blocks = ["\n".join(lines[at : at + 4]) for at in range(0, 11, 4)]
    checks = "\n\n".join(f"A few checks first:\n{_FENCE}tactics\n{block}\n{_FENCE}" for block in blocks)
    return {**row, "completion": with_thinking(row["completion"], thinking_of(row["completion"]) + "\n" + checks)}


LOOK_ALIKES = {
    # A proof of one tactic (`linarith`) that eleven checks use, as such or inside another (`nlinarith [...]`,
    # `norm_num at h ⊢`): copies are whole statements (the twenty-ninth red team: a count of substrings rejected
    # 37 of 37 such rows).
    "eleven_checks_that_use_the_one_tactic_proof": Case("max_short_proof_copies", _checks),
    # One more block that is the whole final proof, its hypotheses renamed: a draft written out once more. The row
    # lost writes a proof of 1,341 lines, which takes the completion past the length limit.
    "the_proof_written_once_more_renamed": Case("max_final_proof_copies", _pasted(1), most_lost=1),
    "the_proof_written_once_more_with_capital_names": Case(
        "max_final_proof_copies", _pasted(1, "capital", lead=False), most_lost=1
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)

_PROOF = "  have h1 : 0 ≤ (x - 1) ^ 2 := sq_nonneg (x - 1)\n  nlinarith [h1, h]"


def _with_copies(copies: int, proof: str, rename: bool) -> str:
    blocks = [_renamed(proof, k, "letter") if rename else proof for k in range(copies)]
    return build_completion(blocks=blocks, proof=proof)


def test_a_renamed_copy_of_a_long_proof_is_a_copy() -> None:
    proof = _PROOF + "\n  linarith"
    assert check_format(_with_copies(4, proof, rename=True)).metrics.final_proof_copies == 4
    over = check_format(_with_copies(5, proof, rename=True))
    assert over.metrics.final_proof_copies == 5
    assert ViolationCode.COPIED_CODE in {v.code for v in over.violations}


def test_a_short_proof_has_its_own_bound() -> None:
    proof = "  nlinarith [sq_nonneg (x - 1), h]"
    at_bound = check_format(_with_copies(10, proof, rename=True))
    assert at_bound.metrics.short_proof_copies == 10
    assert not [v for v in at_bound.violations if "one or two lines" in v.message]
    over = check_format(_with_copies(11, proof, rename=True))
    assert over.metrics.short_proof_copies == 11
    assert any("one or two lines 11 times" in v.message for v in over.violations)
    off = check_format(_with_copies(11, proof, rename=True), config=FormatConfig(max_short_proof_copies=None))
    assert not [v for v in off.violations if "one or two lines" in v.message]
