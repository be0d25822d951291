"""`--recipe smoke` end to end on CPU: verifier started, preflight, data and model built, one RL step, artefacts."""

import json
from pathlib import Path

import pytest
from kimina_train.main import EXIT_OK, main


def _run_smoke(run_dir: Path, *extra: str) -> int:
    return main(["--recipe", "smoke", "--run-dir", str(run_dir), *extra])


def test_smoke_rehearses_one_rl_step_on_cpu(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("KIMINA_LEAN_WORKSPACE", raising=False)
    run = tmp_path / "smoke"
    assert _run_smoke(run) == EXIT_OK
    out = " ".join(capsys.readouterr().err.split())

    # The stand-in verifier is announced loudly, on screen and in the run folder.
    assert "SIMULATED LEAN" in out and "prove NOTHING" in out
    assert "TEST DOUBLE" in (run / "SIMULATED_VERIFIER.txt").read_text()
    # Everything the run folder promises.
    for name in (
        "verl_config.yaml",
        "preflight.json",
        "launches.jsonl",
        "metrics.json",
        "samples.jsonl",
        "metrics.png",
    ):
        assert (run / name).is_file(), name
    assert (run / "data" / "minif2f_test.parquet").is_file() and (run / "tiny-model" / "config.json").is_file()

    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["simulated_verifier"] is True
    assert (metrics["samples"], metrics["groups"], metrics["reference_samples"]) == (8, 2, 2)
    samples = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    # The real proof in each group is verified and rewarded; the tiny model's babble has no Lean block.
    for s in samples:
        if s["reference"]:
            assert s["reward"]["verdict"] == "valid" and s["reward"]["score"] > 0.5, s["reward"]
        else:
            assert s["reward"]["verdict"] == "no_code" and s["reward"]["score"] == 0.0
    # Dr.GRPO advantages: score minus the group mean, no std scaling; they sum to zero within a group.
    for group in (0, 1):
        members = [s for s in samples if s["group"] == group]
        mean = sum(s["reward"]["score"] for s in members) / len(members)
        for s in members:
            assert s["advantage"] == pytest.approx(s["reward"]["score"] - mean, abs=1e-5)
    # One optimizer step moved the policy towards the rewarded proof.
    assert metrics["actor/grad_norm"] > 0
    assert metrics["actor/pg_loss_after_step"] < metrics["actor/pg_loss"]
    assert all(s["logprob_delta"] > 0 for s in samples if s["reference"])

    # The checkpoint is a loadable model that differs from the starting one.
    import torch
    from transformers import AutoModelForCausalLM

    before = AutoModelForCausalLM.from_pretrained(run / "tiny-model")
    after = AutoModelForCausalLM.from_pretrained(run / "checkpoints" / "global_step_1" / "huggingface")
    changed = [
        n
        for (n, a), (_, b) in zip(before.named_parameters(), after.named_parameters(), strict=True)
        if not torch.equal(a, b)
    ]
    assert changed
    assert (run / "checkpoints" / "latest_checkpointed_iteration.txt").read_text() == "1"


def test_the_canary_passes_against_the_started_stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KIMINA_LEAN_WORKSPACE", raising=False)
    run = tmp_path / "smoke"
    assert _run_smoke(run, "--check") == EXIT_OK
    checks = (
        {c["name"]: c for c in json.loads((run / "preflight.json").read_text())}
        if (run / "preflight.json").is_file()
        else {}
    )
    assert not checks  # --check writes nothing but the verifier's log and the simulation notice
    assert (run / "SIMULATED_VERIFIER.txt").is_file()
