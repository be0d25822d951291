"""`--recipe smoke` end to end on this machine: verl's own main_ppo for 2 steps, and everything the run leaves.

This is the CI check of the launch path the 8xH100 recipes take (preflight, prepare, main_ppo); without a GPU it
runs on CPU through kimina-train's verl plugin, a few minutes on 2 cores.
"""

import json
from pathlib import Path

import pytest
from kimina_train.main import EXIT_OK, main


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One smoke run for the module's tests: its folder and everything it printed."""
    import contextlib
    import io

    run = tmp_path_factory.mktemp("smoke") / "run"
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as env, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        env.delenv("KIMINA_LEAN_WORKSPACE", raising=False)  # the stand-in verifier, announced as such
        code = main(["--recipe", "smoke", "--run-dir", str(run)])
    assert code == EXIT_OK, (out.getvalue()[-4000:], err.getvalue()[-4000:])
    return run, " ".join((err.getvalue() + out.getvalue()).split())


# Whichever test comes first pays for the run (minutes on 2 cores, more on a loaded machine): past the 600 s default.
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_verl_trains_two_steps_with_a_reward_a_fix_turn_and_a_checkpoint(smoke_run: tuple[Path, str]) -> None:
    run, _ = smoke_run
    steps = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [s["step"] for s in steps] == [1, 2]
    metrics = [s["data"] for s in steps]
    # verl's own metric names: the reward, and kimina_fix's 4 turns for a trajectory that got a fix turn.
    assert any(m["critic/score/mean"] > 0 for m in metrics)
    assert any(m["training/num_turns/max"] == 4 for m in metrics)
    # The replay gives every group samples and a real proof, so every step has a within-group spread to learn from.
    assert all(m["critic/score/max"] > m["critic/score/min"] and m["actor/grad_norm"] > 0 for m in metrics)
    # The rollout's log-probs are the actor's own (verl compares them each step).
    assert all(m["training/rollout_probs_diff_max"] < 1e-3 for m in metrics)
    summary = json.loads((run / "summary.json").read_text())
    assert sum(s["fix_turns"] for s in summary["steps"]) >= 1
    assert sum(summary["verifier_checks"].values()) > 0  # requests served by the run's verifier, canary excluded
    assert summary["checkpoint_step"] == 2
    actor = run / "checkpoints" / "global_step_2" / "actor"
    assert (actor / "model_world_size_1_rank_0.pt").is_file() and (actor / "huggingface" / "config.json").is_file()
    assert (run / "checkpoints" / "latest_checkpointed_iteration.txt").read_text().strip() == "2"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_replay_is_labelled_and_counted(smoke_run: tuple[Path, str]) -> None:
    run, printed = smoke_run
    answers = [json.loads(line) for line in (run / "rollouts.jsonl").read_text().splitlines()]
    first = [a for a in answers if a["turn"] == 1]
    assert len(first) == 16  # 2 steps x 2 prompts x 4 rollouts
    kinds = {kind: sum(a["answer"] == kind for a in first) for kind in ("sampled", "reference", "injected_error")}
    assert kinds == {"sampled": 8, "reference": 4, "injected_error": 4}  # the recipe's shares, exactly
    assert [a["answer"] for a in answers if a["turn"] == 2] == ["fix_reference"] * 4
    summary = json.loads((run / "summary.json").read_text())
    assert [s["replayed"] for s in summary["steps"]] == [6, 6]  # 2 reference, 2 injected, 2 fixes a step
    assert "REFERENCE REPLAY: the CPU rollout answered with real Kimina-Prover completions" in printed


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_run_leaves_its_logs_plot_and_a_clean_shutdown(smoke_run: tuple[Path, str]) -> None:
    run, printed = smoke_run
    assert "SIMULATED LEAN" in printed and "prove NOTHING" in printed
    assert "TEST DOUBLE" in (run / "SIMULATED_VERIFIER.txt").read_text()
    for name in ("verl_config.yaml", "preflight.json", "launches.jsonl", "train.log", "metrics.png", "summary.json"):
        assert (run / name).is_file(), name
    assert list((run / "tensorboard").glob("events.out.tfevents.*"))
    log = (run / "train.log").read_text()
    assert "Traceback" not in log and "step:2 -" in log
    launch = json.loads((run / "launches.jsonl").read_text().splitlines()[-1])
    assert launch["mode"] == "verl-cpu"
    # The history: the smoke's rows are miniF2F-test problems, which it never records; the run says why.
    assert "win-rate history: 0 problems (the train rows are marked as validation data" in printed


def test_the_canary_passes_against_the_started_stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KIMINA_LEAN_WORKSPACE", raising=False)
    run = tmp_path / "smoke"
    assert main(["--recipe", "smoke", "--run-dir", str(run), "--check"]) == EXIT_OK
    assert not (run / "preflight.json").is_file()  # --check writes nothing but the verifier's log and the notice
    assert (run / "SIMULATED_VERIFIER.txt").is_file()
