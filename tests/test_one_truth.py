"""One truth across packages: the same miniF2F prompts in RL validation and kimina-eval, and one fix-turn rule.

RL validation reads the parquet kimina-data writes (`build_minif2f`); kimina-eval samples from its runner. Both must
ask the model the same thing for every problem, or validation accuracy during training and `kimina-eval` pass@k are
not the same measurement. Then every caller that may give an attempt an error-fix turn (kimina-rl's `kimina_fix`
loop, kimina-eval's runner, the lemma search, kimina-api's prover) must give it to exactly the attempts the attempt
protocol (`kimina_verify.attempts`) names.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow.parquet as pq
import pytest
from kimina_data.minif2f import build_minif2f, default_minif2f_source
from kimina_data.minif2f_problems import DEFAULT_STATEMENTS
from kimina_eval.config import RunConfig
from kimina_eval.dataset import Problem, load_problems
from kimina_eval.engines.base import SamplingParams
from kimina_eval.runner import Runner, RunOptions
from kimina_format import check_format
from kimina_format.testing import data_file
from kimina_verify import LeanMessage, Verdict, VerdictKind
from kimina_verify.attempts import FIRST_TURN, FIX_TURN, RetryPolicy, gets_fix_turn

Messages = list[dict[str, str]]


class Recording:
    """An engine that answers from a function and records every prompt it is sent."""

    def __init__(self, reply: Callable[[Messages, int], str]) -> None:
        self.reply = reply
        self.prompts: list[Messages] = []

    def generate(self, prompts: list[Messages], n: int, sampling: SamplingParams) -> list[list[str]]:
        self.prompts += prompts
        return [[self.reply(prompt, i) for i in range(n)] for prompt in prompts]


class Refusing:
    """A verifier that refuses every proof (the prompt test needs no Lean)."""

    async def verify(self, items: Any) -> list[Verdict]:
        return [Verdict(VerdictKind.LEAN_ERROR) for _ in items]


# ---------------------------------------------------------------------------------------------------------------
# (a) One prompt per miniF2F problem.


@pytest.fixture(scope="module")
def rl_prompts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Messages]]:
    """split -> problem name -> the prompt of its row in kimina-data's miniF2F parquet (what verl validates with)."""
    result = build_minif2f(default_minif2f_source(), tmp_path_factory.mktemp("minif2f"))
    prompts: dict[str, dict[str, Messages]] = {}
    for label, path in result.files.items():
        table = pq.read_table(path).to_pylist()
        prompts[label.removeprefix("minif2f-")] = {row["extra_info"]["uid"]: row["prompt"] for row in table}
    return prompts


@pytest.mark.parametrize("split", ["test", "valid"])
async def test_rl_validation_and_eval_send_the_same_prompt_for_every_problem(
    split: str, rl_prompts: dict[str, dict[str, Messages]], tmp_path: Path
) -> None:
    rl = rl_prompts[split]
    assert len(rl) == 244
    engine = Recording(lambda messages, i: "no proof")
    config = RunConfig(model="m", split=split, n=1)  # the defaults: the `rl` template, the default statement set
    assert config.rectified == (DEFAULT_STATEMENTS == "corrected")
    await Runner(config, engine, Refusing(), tmp_path, options=RunOptions(batch_problems=64)).run()
    sent = {problem.name: prompt for problem, prompt in zip(load_problems(split=split), _in_order(engine), strict=True)}
    assert len(sent) == 244
    differ = [name for name in rl if sent[name] != rl[name]]
    assert not differ, f"{len(differ)} problems get another prompt in eval, e.g. {differ[0]}"
    # The informal text is plain (no `/-- ... -/`) and the statement ends the block without a blank line.
    user = rl["mathd_algebra_478" if split == "test" else "amc12a_2019_p21"][1]["content"]
    assert "/--" not in user and ":= by\n```\n" in user


def _in_order(engine: Recording) -> list[Messages]:
    # Batches run concurrently, so prompts arrive batch by batch; the theorem's name puts them back in file order.
    return sorted(engine.prompts, key=lambda p: _ORDER[_theorem(p)])


def _theorem(prompt: Messages) -> str:
    return next(
        n for n in _NAMES if f"theorem {n} " in prompt[1]["content"] or f"theorem {n}\n" in prompt[1]["content"]
    )


_ROWS = [json.loads(line) for line in default_minif2f_source().open(encoding="utf-8")]
_NAMES = sorted({row["name"] for row in _ROWS}, key=len, reverse=True)  # longest first: no name is a prefix match
_ORDER = {row["name"]: i for i, row in enumerate(r for r in _ROWS)}


# ---------------------------------------------------------------------------------------------------------------
# (b) One fix-turn rule.

PROBLEM = "mathd_algebra_478"

# name: (completion shape, verdict Lean gives the code or None when there is no code)
CASES: dict[str, tuple[str, VerdictKind | None]] = {
    "proved": ("good", VerdictKind.VALID),
    "lean_error_good_format": ("good", VerdictKind.LEAN_ERROR),
    "lean_error_bad_format": ("bad", VerdictKind.LEAN_ERROR),
    "sorry_good_format": ("good", VerdictKind.SORRY),
    "no_code": ("none", None),
    "timeout": ("good", VerdictKind.TIMEOUT),
    "infra": ("good", VerdictKind.INFRA),
    "integrity": ("good", VerdictKind.INTEGRITY),
}
NAMES = list(CASES)
PROTOCOL = {"lean_error_good_format", "sorry_good_format"}
"""What the rule gives a fix turn to, spelled out: a Lean refusal of well-formatted code, and nothing else."""


@pytest.fixture(scope="module")
def problem() -> Problem:
    return next(p for p in load_problems() if p.name == PROBLEM)


@pytest.fixture(scope="module")
def completions() -> dict[str, str]:
    """A real Kimina completion for the problem, marked with each case's name in its final block."""
    rows = [json.loads(line) for line in data_file("kimina_completions.jsonl").open(encoding="utf-8")]
    real = next(r["completion"] for r in rows if r["name"] == PROBLEM)
    out = {}
    for name, (shape, _) in CASES.items():
        head, fence, code = real.rpartition("```lean4\n")
        body, close, tail = code.rpartition("```")
        marked = head + fence + body.rstrip("\n") + f"\n  -- case: {name}\n" + close + tail
        out[name] = {"good": marked, "bad": marked + "\nAnd some words after the proof.\n", "none": "<think>?</think>"}[
            shape
        ]
    return out


def verdict_for(code: str) -> Verdict:
    """The case's verdict, found by the marker in the code; a revision (no marker) is refused again."""
    name = next((n for n in NAMES if f"-- case: {n}" in code), "lean_error_good_format")
    kind = CASES[name][1]
    assert kind is not None
    if kind is VerdictKind.INFRA:
        return Verdict.infra("HTTP 503")
    return Verdict(kind, messages=(LeanMessage("error", "linarith failed", 1),), detail="refused")


class ByCase:
    async def verify(self, items: Any) -> list[Verdict]:
        return [verdict_for(item.code) for item in items]


def revision(messages: Messages, i: int, completions: dict[str, str]) -> str:
    """First turn: the case of sample i; fix turn: a revision without a marker."""
    if len(messages) > 2:
        return completions["lean_error_good_format"].replace("-- case: lean_error_good_format\n", "")
    return completions[NAMES[i]]


def test_the_table_itself_follows_the_protocol(problem: Problem, completions: dict[str, str]) -> None:
    for name, (_, kind) in CASES.items():
        check = check_format(completions[name], formal_statement=problem.formal_statement)
        assert check.ok == (CASES[name][0] == "good") or CASES[name][0] == "none"
        decision = gets_fix_turn(format_ok=check.ok, code=check.completion.code, verdict=kind)
        assert decision == (name in PROTOCOL), name
    assert (FIRST_TURN, FIX_TURN) == (1, 2)


def test_kimina_rl_fix_loop(problem: Problem, completions: dict[str, str]) -> None:
    from kimina_rl.scoring import Attempt

    given = set()
    for name in NAMES:
        check = check_format(completions[name], formal_statement=problem.formal_statement)
        verdict = verdict_for(check.completion.code) if check.completion.code is not None else None
        if Attempt(completions[name], check, verdict).fixable:  # what `KiminaFixAgentLoop.run` branches on
            given.add(name)
    assert given == PROTOCOL


async def test_kimina_eval_runner(problem: Problem, completions: dict[str, str], tmp_path: Path) -> None:
    engine = Recording(lambda m, i: revision(m, i, completions))
    config = RunConfig(model="m", n=len(NAMES), limit=None, fix_turns=1)
    runner = Runner(config, engine, ByCase(), tmp_path, options=RunOptions(infra_retries=0, retry_delay_s=0))
    runner.problems = [problem]
    await runner.run()
    records = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    fixed = {NAMES[r["sample"]] for r in records if r["turn"] == FIX_TURN}
    assert fixed == PROTOCOL
    # samples.jsonl numbers turns as the protocol does (kimina-eval 0.6; run.json says so), the API and kimina-rl too.
    assert {r["turn"] for r in records} == {FIRST_TURN, FIX_TURN}
    assert json.loads((tmp_path / "run.json").read_text())["first_turn"] == FIRST_TURN
    fix_prompts = [p for p in engine.prompts if len(p) > 2]
    assert len(fix_prompts) == len(PROTOCOL) and all("linarith failed" in p[-1]["content"] for p in fix_prompts)


async def test_kimina_eval_lemma_search(problem: Problem, completions: dict[str, str]) -> None:
    """The search has no fix turn; its proposal turn learns from Lean's feedback, shown for the same attempts."""
    from kimina_eval.search.steps import Job, SearchOptions, Steps

    ctx = SimpleNamespace(lean=ByCase(), options=SearchOptions(infra_retries=0, retry_delay_s=0))
    steps = Steps(ctx, PROBLEM)  # type: ignore[arg-type]  # _grade needs only the Lean backend and the retry options
    job = Job("", "attempt", [], len(NAMES), problem.formal_statement)
    graded: list[list[Any]] = [[None] * len(NAMES)]
    await steps._grade([job], [[completions[name] for name in NAMES]], graded)
    shown = {name for name, g in zip(NAMES, graded[0], strict=True) if g.feedback}
    assert shown == PROTOCOL


async def test_kimina_api_prover(problem: Problem, completions: dict[str, str]) -> None:
    from kimina_api.engine import EngineRunner
    from kimina_api.metrics import Metrics
    from kimina_api.prover import ProveJob, Prover

    engine = Recording(lambda m, i: revision(m, i, completions))
    prover = Prover(
        EngineRunner(engine=engine, name="m"),  # type: ignore[arg-type]
        ByCase(),  # type: ignore[arg-type]
        template="rl",
        verify_timeout_s=30,
        metrics=Metrics(),
        retry=RetryPolicy(rounds=0),
    )
    job = ProveJob(problem.formal_statement, problem.informal, len(NAMES), SamplingParams(), verify=True, fix_turns=1)
    attempts = await prover.prove(job)
    assert {NAMES[a.index] for a in attempts if a.fix is not None} == PROTOCOL
    assert {a.turn for a in attempts} == {FIRST_TURN} and {a.fix.turn for a in attempts if a.fix} == {FIX_TURN}
