"""The entry point end to end, short of training: dry run, preflight-only, bad input, listing."""

from pathlib import Path

import pytest
import yaml
from kimina_train.main import EXIT_OK, EXIT_PREFLIGHT, EXIT_USAGE, main


def test_dry_run_prints_the_plan_and_the_config_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert main(["--recipe", "kimina-rl-1.7b", "--dry-run", "--run-dir", str(run)]) == EXIT_OK
    out, err = capsys.readouterr()
    assert out == ""
    plain = " ".join(err.split())
    assert "256 prompts x 8 rollouts = 2048 trajectories per step" in plain
    assert "add --show-config" in plain and len(err.splitlines()) < 60
    saved = tmp_path / "config.yaml"
    assert main(["--recipe", "kimina-rl-1.7b", "--dry-run", "--show-config", str(saved), "--run-dir", str(run)]) == 0
    assert yaml.safe_load(saved.read_text())["trainer"]["experiment_name"] == "kimina-rl-1.7b"
    assert not run.exists()


def test_show_config_goes_with_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--recipe", "smoke", "--show-config"])
    assert exc.value.code == EXIT_USAGE and "--show-config goes with --dry-run" in capsys.readouterr().err


def test_dry_run_with_show_config_prints_the_resolved_config_after_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    args = ["--recipe", "kimina-rl-1.7b", "--dry-run", "--show-config", "--run-dir", str(run), "trainer.total_epochs=3"]
    assert main(args) == EXIT_OK
    out, err = capsys.readouterr()
    config = yaml.safe_load(out)
    assert config["trainer"]["total_epochs"] == 3
    assert config["actor_rollout_ref"]["model"]["path"] == "AI-MO/Kimina-Prover-Distill-1.7B"
    assert "${" not in out  # fully resolved
    plain = " ".join(err.split())
    assert "256 prompts x 8 rollouts = 2048 trajectories per step" in plain
    assert "launch: " in plain and "-m verl.trainer.main_ppo --config-path=" in plain
    assert config["trainer"]["default_local_dir"] == f"{run}/checkpoints"
    assert not run.exists()  # a dry run starts and writes nothing


def test_check_on_a_cpu_machine_fails_with_the_gpu_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "--recipe",
            "kimina-rl-1.7b",
            "--check",
            f"kimina.run_dir={tmp_path}",
            "kimina_rl.verifier.endpoint.url=http://127.0.0.1:9",
        ]
    )
    assert code == EXIT_PREFLIGHT
    err = " ".join(capsys.readouterr().err.split())
    assert "recipe kimina-rl-1.7b needs 8 GPUs per node (H100, >= 79 GiB each), and this machine has none" in err
    assert "no answer from http://127.0.0.1:9/health" in err
    assert "preflight failed" in err and "nothing was started" in err
    assert not (tmp_path / "verl_config.yaml").exists()


def test_unknown_recipe_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--recipe", "kimina-rl-70b"]) == EXIT_USAGE
    assert "unknown recipe 'kimina-rl-70b'" in capsys.readouterr().err


def test_list_names_every_recipe(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == EXIT_OK
    err = capsys.readouterr().err
    assert "kimina-rl-1.7b: Kimina-Prover-RL 1.7B" in err and "smoke: verl's trainer for 2 steps" in err


def test_without_a_gpu_the_smoke_plan_is_verls_trainer_on_cpu_with_the_replay_announced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kimina_train.main.probe_gpus", lambda: [])
    assert main(["--recipe", "smoke", "--dry-run", "--run-dir", str(tmp_path / "run")]) == EXIT_OK
    plain = " ".join(capsys.readouterr().err.split())
    assert "verl main_ppo on a local Ray cluster, on CPU (no GPU found)" in plain
    assert "REFERENCE REPLAY: 50% of first answers are real Kimina-Prover proofs" in plain
    assert "launch: VERL_PLATFORM=cpu " in plain and "-m verl.trainer.main_ppo" in plain
