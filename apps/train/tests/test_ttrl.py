"""Test-time RL hand-over: a search round becomes verl data and a `kimina-train --recipe ttrl` run, then a model."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from kimina_eval.search import TTRLBatch, TTRLLemma, TTRLSample, TTRLSetup
from kimina_format.prompts import build_messages
from kimina_train.ttrl import (
    TTRLError,
    TTRLTrainer,
    trained_model,
    trainer,
    training_rows,
    verifier_overrides,
    write_rows,
)
from kimina_verify import Endpoint, Retries, Timeouts, VerifierOptions

PROBLEM = "amc12a_2015_p10"
KEY_FACTOR = "theorem key_factor (x y : ℤ) (h₂ : x + y + x * y = 80) : (x + 1) * (y + 1) = 81 := by"
Y_BOUND = "theorem y_bound (y : ℤ) (h₀ : 0 < y) (h₂ : y < 9) : y ≤ 8 := by"


@pytest.fixture(scope="module")
def batch(data_dir: Path) -> TTRLBatch:
    """Round 2 of a search on a real miniF2F problem: `key_factor` proved in round 1, `y_bound` tried this round."""
    rows = (json.loads(line) for line in (data_dir / "minif2f.jsonl").open(encoding="utf-8"))
    row = next(r for r in rows if r["name"] == PROBLEM)
    header, theorem = row["header"], row["header"] + row["formal_statement"]
    attempt = build_messages(theorem, row["informal_prefix"])
    lemma_prompt = build_messages(header + Y_BOUND)
    negation = build_messages(header + "theorem y_bound_neg : ¬ (∀ (y : ℤ), 0 < y → y < 9 → y ≤ 8) := by")
    samples = [
        TTRLSample("attempt", attempt, theorem, "<think>a</think>", 0.0),
        TTRLSample("attempt", attempt, theorem, "<think>b</think>", 0.0),
        TTRLSample("negation", negation, negation[-1]["content"], "<think>c</think>", 0.0),
        TTRLSample("lemma", lemma_prompt, header + Y_BOUND, "<think>d</think>", 1.0),
        TTRLSample("lemma", lemma_prompt, header + Y_BOUND, "<think>e</think>", 0.0),
    ]
    proof = KEY_FACTOR + "\n  nlinarith [h₂]"
    return TTRLBatch(
        problem=PROBLEM,
        header=header,
        formal_statement=theorem,
        informal=row["informal_prefix"],
        template="rl",
        round=2,
        model="/models/prover",
        lemmas=(TTRLLemma("key_factor", KEY_FACTOR, proof),),
        samples=tuple(samples),
    )


def test_the_rows_are_the_problems_family_as_the_search_asked_it(batch: TTRLBatch) -> None:
    rows = training_rows(batch)
    # The theorem and the lemma tried this round, with the search's own prompts, then the lemma proved before.
    assert [r["prompt"] for r in rows[:2]] == [batch.samples[0].prompt, batch.samples[3].prompt]
    assert [r["reward_model"]["ground_truth"] for r in rows] == [
        batch.formal_statement,
        batch.header + Y_BOUND,
        batch.header + KEY_FACTOR,
    ]
    assert rows[2]["prompt"] == build_messages(batch.header + KEY_FACTOR, template="rl")
    assert [r["extra_info"]["win_rate"] for r in rows] == [0.0, 0.5, None]
    assert [r["extra_info"]["variant_of"] for r in rows] == [None, PROBLEM, PROBLEM]
    assert rows[0]["extra_info"]["informal_problem"] == batch.informal
    assert {r["extra_info"]["split"] for r in rows} == {"train"} and {r["data_source"] for r in rows} == {"ttrl"}
    # No negation: a refuted lemma's negation says nothing about the theorem.
    assert not any("_neg" in r["reward_model"]["ground_truth"] for r in rows)


def test_the_written_file_is_what_verl_and_the_reward_read(batch: TTRLBatch, tmp_path: Path) -> None:
    from kimina_rl.scoring import RewardProblem
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    rows = training_rows(batch)
    path = write_rows(rows, 8, tmp_path / "train.parquet")
    config = OmegaConf.create({"filter_overlong_prompts": False, "cache_dir": str(tmp_path / "verl")})
    dataset = RLHFDataset(str(path), tokenizer=None, config=config)
    assert len(dataset) == 8  # three prompts, repeated in order to fill one batch of 8
    items = [dataset[i] for i in range(8)]
    assert [item["raw_prompt"] for item in items] == [rows[i % 3]["prompt"] for i in range(8)]
    for item, i in zip(items, range(8), strict=True):
        problem = RewardProblem.from_row(item["data_source"], item["reward_model"]["ground_truth"], item["extra_info"])
        assert problem.formal_statement == rows[i % 3]["reward_model"]["ground_truth"] and problem.training

    with pytest.raises(TTRLError, match="no prompt to train on"):
        write_rows([], 8, tmp_path / "empty.parquet")


class FakeRun:
    """Stands in for `kimina-train`: records the command and leaves a checkpoint as verl would, or fails."""

    def __init__(self, tiny: Path | None, code: int = 0) -> None:
        self.tiny, self.code = tiny, code
        self.calls: list[tuple[list[str], Path, Mapping[str, str]]] = []

    def __call__(self, command: list[str], log: Path, env: Mapping[str, str]) -> int:
        import shutil

        self.calls.append((command, log, env))
        log.write_text("verl output\n")
        if self.tiny is not None and self.code == 0:
            folder = Path(command[command.index("--run-dir") + 1]) / "checkpoints"
            shutil.copytree(self.tiny, folder / "global_step_4" / "actor" / "huggingface")
            (folder / "latest_checkpointed_iteration.txt").write_text("4")
        return self.code


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from kimina_eval.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def test_a_round_trains_from_the_rounds_model_and_returns_the_saved_weights(
    batch: TTRLBatch, tiny_model: Path, tmp_path: Path
) -> None:
    run = FakeRun(tiny_model)
    verifier = VerifierOptions(Endpoint("http://lean:8000", "secret"), Timeouts(lean_s=120), Retries(count=0))
    hook = TTRLTrainer(tmp_path, verifier, overrides=("trainer.nnodes=1",), launch=run)
    model = hook(batch)
    folder = tmp_path / PROBLEM / "round-2"
    assert model == str(folder / "checkpoints" / "global_step_4" / "actor" / "huggingface")
    [(command, log, env)] = run.calls
    assert command[:7] == [sys.executable, "-m", "kimina_train", "--recipe", "ttrl", "--run-dir", str(folder)]
    assert "actor_rollout_ref.model.path=/models/prover" in command
    assert "kimina_rl.verifier.endpoint.url=http://lean:8000" in command and command[-1] == "trainer.nnodes=1"
    # The search's own Lean timeout follows it into the rewards; its client retries and limits do not (the run's own).
    assert "kimina_rl.verifier.timeouts.lean_s=120.0" in command
    assert not [c for c in command if c.startswith(("kimina_rl.verifier.retries", "kimina_rl.verifier.limits"))]
    assert "trainer.total_training_steps=4" in command and "trainer.total_epochs=4" in command
    assert "data.train_batch_size=8" in command and "--dry-run" not in command
    assert env["LEAN_SERVER_API_KEY"] == "secret" and "secret" not in " ".join(command)
    assert log == folder / "ttrl.log"
    assert shlex.split((folder / "command.sh").read_text()) == command
    assert (folder / "data" / "train.parquet").is_file()


def test_the_old_lean_url_and_key_arguments_still_work_with_a_warning(batch: TTRLBatch, tmp_path: Path) -> None:
    run = FakeRun(None)
    with pytest.warns(DeprecationWarning, match="pass verifier=VerifierOptions"):
        hook = TTRLTrainer(tmp_path, lean_url="http://old:8000", lean_api_key="secret", dry_run=True, launch=run)
    assert hook.verifier.endpoint == Endpoint("http://old:8000", "secret")
    assert (hook.lean_url, hook.lean_api_key) == ("http://old:8000", "secret")
    assert hook(batch) is None
    [(command, _, env)] = run.calls
    assert "kimina_rl.verifier.endpoint.url=http://old:8000" in command and env["LEAN_SERVER_API_KEY"] == "secret"
    with pytest.warns(DeprecationWarning):
        assert TTRLTrainer(tmp_path, "http://positional:8000").lean_url == "http://positional:8000"


def test_verifier_overrides_carry_what_the_search_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAN_SERVER_API_URL", "http://from-env:9000")
    assert verifier_overrides(VerifierOptions()) == ["kimina_rl.verifier.endpoint.url=http://from-env:9000"]
    changed = VerifierOptions(Endpoint(protocol="v1"), cache="/tmp/verdicts x.sqlite", lean_env="lean-4.19")
    assert verifier_overrides(changed)[1:] == [
        "kimina_rl.verifier.endpoint.protocol=v1",
        "kimina_rl.verifier.cache='/tmp/verdicts x.sqlite'",
        "kimina_rl.verifier.lean_env=lean-4.19",
    ]


def test_a_failed_run_or_a_run_without_weights_is_an_error_naming_the_log(
    batch: TTRLBatch, tiny_model: Path, tmp_path: Path
) -> None:
    log = tmp_path / PROBLEM / "round-2" / "ttrl.log"
    with pytest.raises(TTRLError, match=f"exited with code 1 for {PROBLEM} round 2; see {log}"):
        TTRLTrainer(tmp_path, launch=FakeRun(tiny_model, code=1))(batch)
    with pytest.raises(TTRLError, match="left no checkpoint to load"):
        TTRLTrainer(tmp_path, launch=FakeRun(None))(batch)
    checkpoint = tmp_path / "ckpt"
    (checkpoint / "global_step_2" / "actor" / "huggingface").mkdir(parents=True)
    (checkpoint / "latest_checkpointed_iteration.txt").write_text("2\n")
    with pytest.raises(TTRLError, match="holds no Hugging Face weights: does the recipe save hf_model"):
        trained_model(checkpoint)


def setup(tmp_path: Path, engine: str = "transformers", **options: str) -> TTRLSetup:
    return TTRLSetup("/models/prover", engine, tmp_path, VerifierOptions(Endpoint("http://lean:8000")), options)


def test_the_factory_reads_its_options(tmp_path: Path) -> None:
    hook = trainer(setup(tmp_path, steps="2", batch_size="4", dry_run="true", **{"trainer.n_gpus_per_node": "2"}))
    assert (hook.steps, hook.batch_size, hook.dry_run, hook.out_dir) == (2, 4, True, tmp_path / "ttrl")
    assert hook.overrides == ("trainer.n_gpus_per_node=2",) and hook.lean_url == "http://lean:8000"
    assert hook.verifier == setup(tmp_path).verifier  # the search's options, whole
    with pytest.raises(ValueError, match=r"unknown test-time RL option\(s\) step \(known: recipe, model, steps"):
        trainer(setup(tmp_path, step="2"))
    with pytest.raises(ValueError, match="bad test-time RL option: invalid literal for int"):
        trainer(setup(tmp_path, steps="many"))
    with pytest.raises(ValueError, match="expected true or false, got 'maybe'"):
        trainer(setup(tmp_path, dry_run="maybe"))
    with pytest.raises(ValueError, match="steps and batch_size must be >= 1"):
        trainer(setup(tmp_path, steps="0"))
    with pytest.raises(ValueError, match="pass --ttrl-option model=DIR"):
        trainer(setup(tmp_path, engine="openai"))
    assert trainer(setup(tmp_path, engine="openai", model="/weights")).model == "/weights"


def test_a_dry_run_search_hands_each_round_to_a_composed_ttrl_run(
    tiny_model: Path, lean_url: str, tmp_path: Path
) -> None:
    """`kimina-eval search --ttrl kimina_train.ttrl:trainer`: the real hand-over, with `kimina-train --dry-run`."""
    from kimina_eval.cli import main

    out = tmp_path / "search"
    argv = ["search", "--model", str(tiny_model), "--lean-url", lean_url, "--limit", "1", "--n", "2", "--out", str(out)]
    argv += ["--rounds", "2", "--proposals", "1", "--max-tokens", "8", "--seed", "0", "--engine-option", "device=cpu"]
    argv += ["--ttrl", "kimina_train.ttrl:trainer", "--ttrl-option", "dry_run=true", "--ttrl-on-cpu"]
    assert main(argv) == 0
    [event] = [e for e in map(json.loads, (out / "search.jsonl").read_text().splitlines()) if e["step"] == "ttrl"]
    assert event["called"] and event["samples"] == 2 and "model" not in event and "failed" not in event
    [folder] = (out / "ttrl").glob("*/round-1")
    # The dry run composed the ttrl recipe with the round's data and model: its resolved config is in the log.
    log = (folder / "ttrl.log").read_text()
    assert f"train_files: {folder / 'data' / 'train.parquet'}" in log
    assert f"path: {tiny_model}" in log and f"url: {lean_url}" in log
    assert "total_training_steps: 4" in log
