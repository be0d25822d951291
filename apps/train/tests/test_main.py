"""The entry point end to end, short of training: dry run, preflight-only, bad input, listing."""

from pathlib import Path

import pytest
import yaml
from kimina_train.main import EXIT_OK, EXIT_PREFLIGHT, EXIT_USAGE, main


def test_dry_run_prints_the_resolved_config_and_the_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["--recipe", "kimina-rl-1.7b", "--dry-run", "--run-dir", str(run), "trainer.total_epochs=3"]) == EXIT_OK
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
            "kimina_rl.verifier.url=http://127.0.0.1:9",
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
    assert "kimina-rl-1.7b: Kimina-Prover-RL 1.7B" in err and "smoke: one RL step" in err
