"""The statement attacks the format rule lets through are kimina-verify's to refuse: the reward is both verdicts.

kimina-format's statement rule compares the theorem's tokens, so code that keeps them but adds an axiom, a `sorry`,
a `variable` the theorem includes, a notation or a side command keeps the format score
(`packages/kimina-format/tests/test_redteam_classes.py` marks them). Each edit here is applied to the final code of
real Kimina completions and must be refused by `check_integrity`, the static policy every verification runs first.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from kimina_format import check_format, parse_completion
from kimina_format.testing import data_file
from kimina_verify.integrity import check_integrity

EDITS: dict[str, Callable[[str], str]] = {
    "an axiom before the theorem": lambda code: code.replace(
        "theorem ", "axiom helper_fact : 1 + 1 = 2\n\ntheorem ", 1
    ),
    "`all_goals sorry` after the proof": lambda code: code.rstrip() + "\n  all_goals sorry",
    "a variable the theorem includes": lambda code: code.replace(
        "theorem ", "variable (hcheat : False)\ninclude hcheat\n\ntheorem ", 1
    ),
    "a local notation": lambda code: code.replace("theorem ", 'local notation "⊤⊤" => (0 : ℕ)\n\ntheorem ', 1),
    "reasoning after `#exit`": lambda code: code.rstrip() + "\n#exit\nThe proof above is complete, as shown.",
}


@pytest.fixture(scope="module")
def finals() -> list[tuple[str, str]]:
    """(final code, formal statement) of the real completions that keep the full format score."""
    rows = [json.loads(line) for line in data_file("kimina_completions.jsonl").read_text(encoding="utf-8").splitlines()]
    found = []
    for row in rows[::4]:
        code = parse_completion(row["completion"]).code
        if code and "theorem " in code and check_format(row["completion"], formal_statement=row["formal_statement"]).ok:
            found.append((code, row["formal_statement"]))
    assert len(found) >= 40
    return found


@pytest.mark.parametrize("name", list(EDITS))
def test_kimina_verify_refuses_what_the_format_rule_lets_through(finals: list[tuple[str, str]], name: str) -> None:
    passed = [code[:60] for code, statement in finals if not check_integrity(EDITS[name](code), statement)]
    assert not passed, f"{name}: {len(passed)} of {len(finals)} pass kimina-verify's policy, e.g. {passed[:2]}"


def test_the_unedited_final_codes_pass_the_policy(finals: list[tuple[str, str]]) -> None:
    refused = [code[:60] for code, statement in finals if check_integrity(code, statement)]
    assert not refused, refused
