import json

import pytest
from kimina_eval.metrics import pass_at_k
from kimina_eval.scoring import ProblemOutcome, outcomes_from_rows, score, score_rows
from kimina_verify.attempts import FIRST_TURN, FIX_TURN


def rows(problem: str, turn0: list[bool | None], turn1: list[bool | None] = ()) -> list[dict[str, object]]:
    return [{"problem": problem, "correct": c} for c in turn0] + [
        {"problem": problem, "correct": c, "turn": FIX_TURN} for c in turn1
    ]


def test_outcomes_count_first_attempts_fixes_and_infra() -> None:
    data = rows("a", [True, False, False, None], [True, None]) + rows("b", [False, False])
    a, b = outcomes_from_rows(data)
    assert a == ProblemOutcome("a", samples=3, correct=1, fix_samples=2, fix_correct=2, infra=2)
    assert b == ProblemOutcome("b", samples=2, correct=0, fix_samples=2, fix_correct=0, infra=0)


def test_more_fixes_than_failures_is_an_error() -> None:
    with pytest.raises(ValueError, match="2 fix turns for 1 failed"):
        outcomes_from_rows(rows("a", [True, False], [False, True]))


def test_bad_rows_are_refused_with_the_problem_named() -> None:
    with pytest.raises(ValueError, match="without a problem"):
        outcomes_from_rows([{"correct": True}])
    with pytest.raises(ValueError, match="a: correct must be"):
        outcomes_from_rows([{"problem": "a", "correct": "yes"}])


def test_scores_by_hand() -> None:
    # a: 1 of 4 correct; its 3 failures get fixes, one succeeds. b: 0 of 4, no fix works. c: 4 of 4.
    data = (
        rows("a", [True, False, False, False], [True, False, False])
        + rows("b", [False] * 4, [False] * 4)
        + rows("c", [True] * 4)
    )
    s = score(outcomes_from_rows(data), [1, 2, 4], with_fix=True)
    assert s.pass_at[1].value == pytest.approx((0.25 + 0 + 1) / 3)
    assert s.pass_at[2].value == pytest.approx((0.5 + 0 + 1) / 3)
    assert s.pass_at[4].value == pytest.approx(2 / 3)
    assert s.pass_at_with_fix[1].value == pytest.approx((0.5 + 0 + 1) / 3)
    assert s.pass_at_with_fix[2].value == pytest.approx((pass_at_k(4, 2, 2) + 1) / 3)
    assert s.best_at[4].value == pytest.approx((1 - 0.75**4 + 1) / 3)
    assert (s.problems, s.samples, s.infra) == (3, 12, 0)
    out = s.as_dict()
    assert set(out) >= {"pass@1", "pass@4", "pass@4_with_fix", "best@2", "problems"}
    json.dumps(out)


def test_problems_with_too_few_samples_are_left_out_of_that_k_and_counted() -> None:
    s = score(outcomes_from_rows(rows("a", [True, False]) + rows("b", [False])), [1, 2], with_fix=False)
    assert s.pass_at[1].problems == 2 and s.pass_at[2].problems == 1
    assert s.short == {1: 0, 2: 1}
    assert s.pass_at_with_fix == {}


def test_infra_only_problem_is_not_a_failure() -> None:
    s = score(outcomes_from_rows(rows("a", [None, None]) + rows("b", [True])), [1], with_fix=False)
    assert s.pass_at[1].value == 1.0 and s.problems == 1 and s.infra == 2


def test_score_rows_reads_both_turn_numberings() -> None:
    new = rows("a", [True, False, False], [True]) + rows("b", [False, None], [False])
    old = [{**r, "turn": r.get("turn", FIRST_TURN) - 1} for r in new]  # kimina-eval before 0.6: 0 and 1
    assert {r["turn"] for r in old} == {0, 1}
    assert score_rows(old, [1, 2]).as_dict() == score_rows(new, [1, 2]).as_dict()
    assert score_rows(new, [1]).pass_at_with_fix[1].value == pytest.approx((2 / 3 + 0) / 2)
    with pytest.raises(ValueError, match="row 1: turn must be 1 or 2, got 3"):
        score_rows([{"problem": "a", "correct": True, "turn": 3}], [1])
