"""The lemma search end to end: a scripted prover against the stand-in verification server (lean-repl-sim).

The stand-in accepts code unless it holds `sorry` or a `-- sim: error MSG` comment, so the scripted completions decide
which lemma statements elaborate, which negations and lemmas get proved, and which attempts fail.
"""

import dataclasses
import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from kimina_eval import EngineError, SamplingParams
from kimina_eval.config import ConfigError, RunConfig
from kimina_eval.search import SearchConfig, SearchOptions, SearchRunner, TTRLBatch, run_search
from kimina_eval.search.lean import ServerBackend
from kimina_eval.store import load_records
from kimina_eval.testing import ScriptedEngine, reply_by_pattern
from kimina_verify import Endpoint, Retries, Timeouts, Verdict, Verifier, VerifierOptions, VerifyItem


def verifier_at(url: str) -> VerifierOptions:
    """The test runs' verifier: no client retries, a short Lean timeout."""
    return VerifierOptions(Endpoint(url), Timeouts(lean_s=5), Retries(count=0))


FAST = {"infra_retries": 0, "retry_delay_s": 0.0}
NAME = "amc12a_2015_p10"  # the scenario fixture's problem (see conftest.py)


def completions(engine: ScriptedEngine) -> int:
    return sum(len(prompts) * n for prompts, n, _ in engine.calls)


class Spy:
    """A Lean backend that records what it is asked and can fail statement checks for infrastructure reasons."""

    def __init__(self, inner: ServerBackend) -> None:
        self.inner, self.down = inner, False
        self.verified: list[VerifyItem] = []
        self.elaborated: list[str] = []

    async def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        self.verified += items
        return await self.inner.verify(items)

    async def elaborate(self, codes: Sequence[str]) -> list[Verdict]:
        self.elaborated += codes
        if self.down:
            return [Verdict.infra("HTTP 503")] * len(codes)
        return await self.inner.elaborate(codes)


@pytest.fixture
async def lean(lean_url: str) -> AsyncIterator[Spy]:
    async with Verifier(verifier_at(lean_url)) as verifier:
        yield Spy(ServerBackend(verifier))


def run_config(dataset: Path, n: int = 2) -> RunConfig:
    return RunConfig(model="scripted", dataset=str(dataset), split="valid", n=n, sampling=SamplingParams(seed=3))


SEARCH = SearchConfig(rounds=3, proposals_per_round=1, negation_samples=1, lemma_samples=2, sample_budget=64)


def events(out: Path) -> list[dict[str, Any]]:
    """The readable lines of the search log."""
    rows = []
    for line in (out / "search.jsonl").read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


async def search(
    dataset: Path, engine: ScriptedEngine, lean: Spy, out: Path, config: SearchConfig = SEARCH, **options: Any
) -> Any:
    runner = SearchRunner(run_config(dataset), config, engine, lean, out, options=SearchOptions(**{**FAST, **options}))
    await runner.run()
    return runner.results[NAME]


async def test_search_drops_refuted_lemmas_proves_true_ones_and_reuses_them(
    scenario: Any, lean: Spy, tmp_path: Path
) -> None:
    row, dataset = scenario.row, scenario.dataset
    engine = scenario.prover()
    result = await search(dataset, engine, lean, tmp_path / "run")

    assert (result.outcome, result.rounds, result.used) == ("solved", 2, ("key_factor",))
    # 2 attempts, 1 proposal, 2 negations (1 per new lemma that elaborates), 2 lemma proofs, 2 attempts.
    assert result.samples == completions(engine) == 9
    log = events(tmp_path / "run")
    assert [(e["round"], e["step"]) for e in log] == [
        (1, "attempts"),
        (1, "propose"),
        (1, "statements"),
        (1, "negations"),
        (1, "proofs"),
        (1, "pool"),
        (2, "attempts"),
        (2, "end"),
    ]
    steps = {(e["round"], e["step"]): e for e in log}
    pool = {lemma["name"]: lemma for lemma in steps[1, "pool"]["lemmas"]}
    assert {name: lemma["status"] for name, lemma in pool.items()} == {
        "key_factor": "proved",
        "y_negative": "refuted",
        "ill_typed": "rejected",
    }
    assert [(p["name"], p["fate"]) for p in steps[1, "pool"]["proposed"]] == [
        ("key_factor", "new"),
        ("y_negative", "new"),
        ("ill_typed", "new"),
        ("key_again", "duplicate"),
    ]
    # The evidence is kept: Lean's error for the rejected statement, the verified proof of the negation.
    assert pool["ill_typed"]["evidence"] == "lean_error: line 9: unknown identifier 'foo'"
    assert "theorem y_negative_neg : ¬ (∀ (y : ℤ) (h₀ : 0 < y), y < 0) := by" in pool["y_negative"]["evidence"]
    negations = {job["negation"]: job for job in steps[1, "negations"]["jobs"]}
    assert set(negations) == {
        "theorem key_factor_neg : ¬ (∀ (x y : ℤ) (h₂ : x + y + x * y = 80), (x + 1) * (y + 1) = 81)",
        "theorem y_negative_neg : ¬ (∀ (y : ℤ) (h₀ : 0 < y), y < 0)",
    }
    # Statement checks elaborate `statement := by sorry`: elaborating lemmas come back as `sorry`, not as errors.
    checks = {c["name"]: c["verdict"] for c in steps[1, "statements"]["checks"]}
    assert checks == {"key_factor": "sorry", "y_negative": "sorry", "ill_typed": "lean_error"}
    assert all(code.rstrip().endswith("sorry") for code in lean.elaborated)

    # The proposal saw the failed attempts with Lean's feedback.
    proposal_prompt = steps[1, "propose"]["jobs"][0]["prompt"]
    assert "# Failed attempt 2" in proposal_prompt and "linarith failed (sample 1)" in proposal_prompt

    # Round 2 offered the proved lemma; the attempt used it without restating it, so it was inserted, and the whole
    # file was verified against the dataset statement.
    attempt = steps[2, "attempts"]["jobs"][0]
    assert "theorem key_factor" in attempt["prompt"] and "nlinarith [h₂]" in attempt["prompt"]
    solution = attempt["samples"][0]
    assert solution["verdict"] == "valid" and solution["inserted"] == ["key_factor"]
    code = steps[2, "end"]["proof"]
    assert code == solution["code"] and code.startswith(row["header"])
    assert code.index("theorem key_factor") < code.index(f"theorem {NAME}")
    final = next(item for item in lean.verified if item.code == code)
    # The statement as kimina-data normalises it (the RL parquet's), without the file's trailing newline.
    assert final.formal_statement == (row["header"] + row["formal_statement"]).rstrip()

    # Round 1 is also a plain pass@2 evaluation.
    records, _ = load_records(tmp_path / "run" / "samples.jsonl")
    assert [(r.sample, r.verdict, r.correct) for r in records] == [(0, "lean_error", False), (1, "lean_error", False)]


async def test_a_sorry_in_the_final_proof_is_not_accepted(scenario: Any, lean: Spy, tmp_path: Path) -> None:
    row, dataset = scenario.row, scenario.dataset
    cheat = f"```lean4\n{row['header']}{row['formal_statement']}  sorry\n```"
    engine = ScriptedEngine(reply_by_pattern([(NAME, cheat)]))
    config = SearchConfig(rounds=1)
    result = await search(dataset, engine, lean, tmp_path, config)
    assert result.outcome == "rounds"
    assert {s["verdict"] for s in events(tmp_path)[0]["jobs"][0]["samples"]} == {"integrity"}


@pytest.mark.parametrize(
    ("config", "outcome", "samples"),
    [
        # 2 attempts, 1 proposal, then nothing is left for the negations.
        (
            SearchConfig(rounds=3, proposals_per_round=1, negation_samples=1, lemma_samples=2, sample_budget=3),
            "sample_budget",
            3,
        ),
        # The negations get what is left: 1 of the 2 they want.
        (
            SearchConfig(rounds=3, proposals_per_round=1, negation_samples=1, lemma_samples=2, sample_budget=4),
            "sample_budget",
            4,
        ),
        # Time runs out after the first step.
        (SearchConfig(rounds=3, time_budget_s=1e-9), "time_budget", 2),
        # One round: attempts only, no lemma is proposed.
        (SearchConfig(rounds=1), "rounds", 2),
    ],
)
async def test_budgets_end_the_search(
    scenario: Any, lean: Spy, tmp_path: Path, config: SearchConfig, outcome: str, samples: int
) -> None:
    dataset = scenario.dataset
    engine = scenario.prover()
    result = await search(dataset, engine, lean, tmp_path, config)
    assert (result.outcome, result.samples, completions(engine)) == (outcome, samples, samples)
    end = events(tmp_path)[-1]
    assert (end["step"], end["outcome"], end["samples_used"]) == ("end", outcome, samples)


class Crashing(ScriptedEngine):
    """Generation fails for good once it is asked to prove lemmas (a killed run, as far as the log can tell)."""

    def generate(self, prompts: list[list[dict[str, str]]], n: int, sampling: SamplingParams) -> list[list[str]]:
        if "theorem key_factor (x y" in prompts[0][-1]["content"] and "_neg" not in prompts[0][-1]["content"]:
            raise EngineError("the server went away")
        return super().generate(prompts, n, sampling)


async def test_a_stopped_search_resumes_from_its_log(scenario: Any, lean: Spy, tmp_path: Path) -> None:
    dataset = scenario.dataset
    reference = await search(dataset, scenario.prover(), lean, tmp_path / "reference")

    out = tmp_path / "run"
    with pytest.raises(EngineError, match="went away"):
        await search(dataset, Crashing(scenario.prover().reply), lean, out)
    assert [e["step"] for e in events(out)] == ["attempts", "propose", "statements", "negations"]
    # Killed in the middle of writing the negations: that line is a fragment, so that step is done again.
    log = out / "search.jsonl"
    text = log.read_text()
    log.write_text(text[: len(text) - len(text.splitlines()[-1]) // 2])

    engine = scenario.prover()
    resumed = await search(dataset, engine, lean, out)
    assert dataclasses.replace(resumed, elapsed_s=0) == dataclasses.replace(reference, elapsed_s=0)
    # Only the negations, the lemma proofs and the second round were generated; nothing recorded was asked again.
    assert [n * len(prompts) for prompts, n, _ in engine.calls] == [2, 2, 2]
    steps = [(e["round"], e["step"]) for e in events(out)]
    assert steps.count((1, "attempts")) == 1 and steps[-1] == (2, "end")

    # A finished search resumes to the same result without generating or writing anything.
    before = log.read_text()
    again = scenario.prover()
    assert await search(dataset, again, lean, out) == resumed
    assert again.calls == [] and log.read_text() == before


async def test_infrastructure_failures_stop_a_problem_and_are_retried_on_resume(
    scenario: Any, lean: Spy, tmp_path: Path
) -> None:
    dataset = scenario.dataset
    lean.down = True
    engine = scenario.prover()
    result = await search(dataset, engine, lean, tmp_path)
    assert result.outcome == "infra" and completions(engine) == 3
    assert events(tmp_path)[-1]["outcome"] == "infra"

    lean.down = False
    engine = scenario.prover()
    result = await search(dataset, engine, lean, tmp_path)
    assert result.outcome == "solved" and result.samples == 9
    # The attempts and the proposal were not generated again; their statements were checked again.
    assert completions(engine) == 6


async def test_changed_settings_are_refused_but_a_larger_budget_continues(
    scenario: Any, lean: Spy, tmp_path: Path
) -> None:
    dataset = scenario.dataset
    small = SearchConfig(rounds=3, proposals_per_round=1, negation_samples=1, lemma_samples=2, sample_budget=3)
    assert (await search(dataset, scenario.prover(), lean, tmp_path, small)).outcome == "sample_budget"
    with pytest.raises(ConfigError, match="negation_samples=1, not 2"):
        await search(
            dataset, scenario.prover(), lean, tmp_path, SearchConfig(**{**small.to_dict(), "negation_samples": 2})
        )
    with pytest.raises(ConfigError, match="n=2, not 3"):
        runner = SearchRunner(run_config(dataset, n=3), small, scenario.prover(), lean, tmp_path)
        await runner.run()

    engine = scenario.prover()
    result = await search(dataset, engine, lean, tmp_path, SearchConfig(**{**small.to_dict(), "sample_budget": 64}))
    assert result.outcome == "solved" and result.samples == 9 and completions(engine) == 6


async def test_test_time_rl_hook_is_skipped_without_a_gpu_and_gets_the_round_otherwise(
    scenario: Any, lean: Spy, tmp_path: Path
) -> None:
    import torch

    dataset = scenario.dataset
    batches: list[TTRLBatch] = []
    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is visible: the hook would run; this test checks the CPU path")
    await search(dataset, scenario.prover(), lean, tmp_path / "cpu", ttrl=batches.append)
    assert batches == []
    [skipped] = [e for e in events(tmp_path / "cpu") if e["step"] == "ttrl"]
    assert "no CUDA GPU" in skipped["skipped"]

    await search(dataset, scenario.prover(), lean, tmp_path / "hook", ttrl=batches.append, ttrl_needs_gpu=False)
    [batch] = batches
    assert (batch.problem, batch.round, batch.model, batch.template) == (NAME, 1, "scripted", "rl")
    assert batch.formal_statement == (scenario.row["header"] + scenario.row["formal_statement"]).rstrip()
    assert batch.header == scenario.row["header"] and batch.informal
    [lemma] = batch.lemmas
    assert lemma.name == "key_factor" and lemma.formal_statement.startswith("theorem key_factor (x y : ℤ)")
    assert lemma.formal_statement.endswith(":= by") and "nlinarith [h₂]" in lemma.proof
    assert "import" not in lemma.formal_statement + lemma.proof
    rewards = [(s.kind, s.reward) for s in batch.samples]
    # Proposals are not graded, so they are not training samples.
    assert rewards == [("attempt", 0.0)] * 2 + [("negation", 0.0), ("negation", 1.0)] + [("lemma", 1.0)] * 2
    assert batch.samples[0].prompt[-1]["content"].startswith("Think about and solve")
    assert batch.samples[0].formal_statement == batch.formal_statement
    assert batch.samples[-1].formal_statement == batch.header + lemma.formal_statement
    [called] = [e for e in events(tmp_path / "hook") if e["step"] == "ttrl"]
    assert called["called"] and called["samples"] == 6 and "model" not in called


class Models:
    """A reload factory for the search: one scripted prover per model, and a record of what was loaded and closed."""

    def __init__(self, scenario: Any) -> None:
        self.scenario = scenario
        self.loaded: list[str] = []
        self.closed: list[str] = []
        self.engines: dict[str, list[ScriptedEngine]] = {}

    def engine(self, model: str) -> ScriptedEngine:
        engine = self.scenario.prover()
        engine.close = lambda: self.closed.append(model)  # type: ignore[attr-defined]
        self.engines.setdefault(model, []).append(engine)
        return engine

    def reload(self, model: str) -> ScriptedEngine:
        self.loaded.append(model)
        return self.engine(model)


async def test_the_next_round_samples_from_the_model_the_hook_trained(
    scenario: Any, lean: Spy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", "kimina_eval")
    models = Models(scenario)
    batches: list[TTRLBatch] = []

    def hook(batch: TTRLBatch) -> str:
        batches.append(batch)
        assert models.closed == ["scripted"]  # the GPU was freed for training
        return f"{tmp_path}/trained-round-{batch.round}"

    for module in ("loop", "runner"):  # as on a GPU host
        monkeypatch.setattr(f"kimina_eval.search.{module}.gpu_missing", lambda: None)
    base = models.engine("scripted")
    options = {"ttrl": hook, "reload": models.reload, "concurrent_problems": 4}
    result = await search(scenario.dataset, base, lean, tmp_path / "run", **options)
    trained = f"{tmp_path}/trained-round-1"
    assert result.solved and result.rounds == 2
    assert "problems are searched one at a time" in caplog.text  # they would otherwise share a model in training
    assert [b.model for b in batches] == ["scripted"]
    # Round 1 sampled from the run's model; round 2 from the trained one, loaded once, after the hook returned.
    assert completions(base) == 7 and models.loaded == [trained]
    [after] = models.engines[trained]
    assert completions(after) == 2 and all(
        "theorem key_factor" in prompts[0][-1]["content"] for prompts, _, _ in after.calls
    )
    [event] = [e for e in events(tmp_path / "run") if e["step"] == "ttrl"]
    assert event["model"] == trained and event["from_model"] == "scripted"

    # Resumed with nothing left to sample, the trained model is not loaded for nothing.
    models.loaded.clear()
    again = await search(scenario.dataset, models.engine("scripted"), lean, tmp_path / "run", **options)
    assert again.solved and models.loaded == [] and len(batches) == 1


async def test_a_search_whose_hook_fails_goes_on_with_its_model(scenario: Any, lean: Spy, tmp_path: Path) -> None:
    models = Models(scenario)

    def hook(batch: TTRLBatch) -> str:
        raise RuntimeError("verl exited with code 1; see train.log")

    base = models.engine("scripted")
    options = {"ttrl": hook, "reload": models.reload, "ttrl_needs_gpu": False}
    result = await search(scenario.dataset, base, lean, tmp_path, **options)
    assert result.solved and models.loaded == [] and models.closed == []
    [event] = [e for e in events(tmp_path) if e["step"] == "ttrl"]
    assert event["failed"] == "RuntimeError: verl exited with code 1; see train.log" and "model" not in event


async def test_without_reload_the_engine_keeps_its_model(
    scenario: Any, lean: Spy, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    base = scenario.prover()
    result = await search(scenario.dataset, base, lean, tmp_path, ttrl=lambda batch: "trained", ttrl_needs_gpu=False)
    assert result.solved and completions(base) == 9
    assert "keeps sampling from scripted, not trained" in caplog.text


def test_run_search_against_a_server(scenario: Any, lean_url: str, tmp_path: Path) -> None:
    dataset = scenario.dataset
    progress: list[Any] = []

    class Sink:
        def update(self, state: Any) -> None:
            progress.append(state)

    final = run_search(
        run_config(dataset), SEARCH, scenario.prover(), tmp_path, verifier=verifier_at(lean_url), progress=Sink()
    )
    assert (final.problems, final.done, final.solved, final.samples, final.infra) == (1, 1, 1, 9, 0)
    assert progress[0].done == 0 and progress[-1] == final
    assert json.loads((tmp_path / "search.json").read_text())["negation_samples"] == 1
    assert json.loads((tmp_path / "run.json").read_text())["n"] == 2
